//! Shell integration's startup files: OSC 133 prompt marks injected into bash and zsh (what
//! the marks reveal is tracked by `term::shell`).
//!
//! bash is started as `bash --rcfile FILE -i` where FILE sources the user's `~/.bashrc`, then
//! installs the marks: `PROMPT_COMMAND` prints `D;status` for the previous command and `A`,
//! `PS1` gets `B` appended inside `\[ \]` (zero width, so the prompt looks the same), and `PS0`
//! prints `C` when a command starts. With `--norc` no file is read, so the same three
//! variables are set in the environment instead. zsh is started with `ZDOTDIR`
//! pointing at a directory whose startup files source the user's own and add `precmd` and
//! `preexec` hooks doing the same.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

const BASH_RC: &str = r#"# termloom shell integration (bash): OSC 133 marks around prompts and commands.
# bash itself has read the system-wide bashrc; read the user's, as bash would have.
if [ -r ~/.bashrc ]; then . ~/.bashrc; fi
__termloom_prompt() {
    local status=$?
    printf '\033]133;D;%s\007\033]133;A\007' "$status"
    return $status
}
PROMPT_COMMAND="__termloom_prompt${PROMPT_COMMAND:+; $PROMPT_COMMAND}"
PS1="${PS1}\[\033]133;B\007\]"
PS0="${PS0}\033]133;C\007"
"#;

const ZSH_ENV: &str = r#"# termloom shell integration (zsh): load the user's .zshenv.
__termloom_zdotdir="$ZDOTDIR"
ZDOTDIR="${TERMLOOM_USER_ZDOTDIR:-$HOME}"
[[ -r "$ZDOTDIR/.zshenv" ]] && . "$ZDOTDIR/.zshenv"
ZDOTDIR="$__termloom_zdotdir"
"#;

const ZSH_RC: &str = r#"# termloom shell integration (zsh): OSC 133 marks around prompts and commands.
ZDOTDIR="${TERMLOOM_USER_ZDOTDIR:-$HOME}"
unset TERMLOOM_USER_ZDOTDIR
[[ -r "$ZDOTDIR/.zprofile" && -o login ]] && . "$ZDOTDIR/.zprofile"
[[ -r "$ZDOTDIR/.zshrc" ]] && . "$ZDOTDIR/.zshrc"
__termloom_precmd() { print -n "\e]133;D;$?\a\e]133;A\a" }
__termloom_preexec() { print -n "\e]133;C\a" }
precmd_functions=(__termloom_precmd $precmd_functions)
preexec_functions+=(__termloom_preexec)
PS1="$PS1%{"$'\e]133;B\a'"%}"
"#;

/// A private directory holding the integration scripts; removed when dropped.
#[derive(Debug)]
pub(crate) struct ShellFiles {
    dir: PathBuf,
}

impl ShellFiles {
    /// Creates a fresh directory (mode 0700) with the scripts.
    pub(crate) fn create() -> std::io::Result<ShellFiles> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let mut attempt = 0u32;
        let dir = loop {
            let dir = base.join(format!("termloom-{}-{stamp}-{attempt}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        };
        std::fs::write(dir.join("bashrc"), BASH_RC)?;
        std::fs::write(dir.join(".zshenv"), ZSH_ENV)?;
        std::fs::write(dir.join(".zshrc"), ZSH_RC)?;
        Ok(ShellFiles { dir })
    }

    /// Rewrites `argv` and the environment overlay to start the shell with integration.
    /// Fails for programs other than bash and zsh.
    pub(crate) fn inject(
        &self,
        argv: &mut Vec<OsString>,
        env: &mut Vec<(OsString, Option<OsString>)>,
    ) -> Result<(), String> {
        let name = Path::new(&argv[0])
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // `-c`, `-lc`, `-ic`...: a command line, not an interactive shell.
        let command_line = argv.iter().skip(1).any(|a| {
            let a = a.to_string_lossy();
            a.starts_with('-') && !a.starts_with("--") && a.contains('c')
        });
        if command_line && matches!(name.as_str(), "bash" | "zsh") {
            return Err(format!(
                "shell integration needs an interactive shell, not `{name} -c COMMAND` (SpawnSpec::shell runs one); start `{name}` itself"
            ));
        }
        match name.as_str() {
            "bash" => {
                let norc = argv.iter().any(|a| a == "--norc");
                let mut rest: Vec<OsString> = argv.drain(1..).collect();
                if norc {
                    let ps1 = lookup(env, "PS1").unwrap_or_else(|| "\\s-\\v\\$ ".into());
                    let ps0 = lookup(env, "PS0").unwrap_or_default();
                    env.push(("PS1".into(), Some(format!("{ps1}\\[\\033]133;B\\007\\]").into())));
                    env.push(("PS0".into(), Some(format!("{ps0}\\033]133;C\\007").into())));
                    env.push((
                        "PROMPT_COMMAND".into(),
                        Some(r#"printf '\033]133;D;%s\007\033]133;A\007' "$?""#.into()),
                    ));
                } else {
                    let mut kept = Vec::new();
                    let mut iter = rest.into_iter();
                    while let Some(arg) = iter.next() {
                        if arg == "--rcfile" || arg == "--init-file" {
                            iter.next();
                        } else {
                            kept.push(arg);
                        }
                    }
                    rest = kept;
                    argv.push("--rcfile".into());
                    argv.push(self.dir.join("bashrc").into());
                }
                argv.extend(rest);
                if !argv.iter().any(|a| a == "-i") {
                    argv.push("-i".into());
                }
                Ok(())
            }
            "zsh" => {
                let user = std::env::var_os("ZDOTDIR");
                if let Some(user) = user {
                    env.push(("TERMLOOM_USER_ZDOTDIR".into(), Some(user)));
                }
                env.push(("ZDOTDIR".into(), Some(self.dir.clone().into())));
                if !argv.iter().any(|a| a == "-i") {
                    argv.push("-i".into());
                }
                Ok(())
            }
            _ => Err(format!(
                "shell integration works with bash and zsh, not {:?}",
                argv[0].to_string_lossy()
            )),
        }
    }
}

/// The value a variable will have in the child: from the overlay, else the host.
fn lookup(overlay: &[(OsString, Option<OsString>)], name: &str) -> Option<String> {
    match overlay.iter().rev().find(|(k, _)| k == name) {
        Some((_, value)) => value.as_ref().map(|v| v.to_string_lossy().into_owned()),
        None => std::env::var(name).ok(),
    }
}

impl Drop for ShellFiles {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_arguments_are_rewritten() {
        let files = ShellFiles::create().unwrap();
        let mut argv: Vec<OsString> = vec!["bash".into(), "--noprofile".into()];
        let mut env = Vec::new();
        files.inject(&mut argv, &mut env).unwrap();
        assert_eq!(argv[1], "--rcfile");
        assert!(argv.iter().any(|a| a == "--noprofile") && argv.last().unwrap() == "-i");
        assert!(env.is_empty());
        let mut argv: Vec<OsString> = vec!["bash".into(), "--norc".into()];
        let mut env = vec![("PS1".into(), Some("$ ".into()))];
        files.inject(&mut argv, &mut env).unwrap();
        assert_eq!(argv, ["bash", "--norc", "-i"]);
        assert_eq!(env[1].1.as_deref().unwrap(), r"$ \[\033]133;B\007\]");
        assert!(files.inject(&mut vec!["python3".into()], &mut Vec::new()).is_err());
        let mut line: Vec<OsString> = vec!["bash".into(), "-lc".into(), "ls".into()];
        assert!(files.inject(&mut line, &mut Vec::new()).unwrap_err().contains("interactive"));
        let dir = files.dir.clone();
        drop(files);
        assert!(!dir.exists());
    }
}
