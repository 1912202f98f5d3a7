//! Who may run what: the spawn [`Policy`], the [`SpawnRequest`] it rules on, and its
//! [`Verdict`].
//!
//! Every start of a session ([`Engine::spawn`](crate::Engine::spawn), the command line, the
//! MCP tools, `termloom server`) is a request the policy decides before anything is forked:
//! the first rule that matches each program the request runs decides for it, the strictest
//! decision among them (deny, then ask, then allow) is the verdict, and the policy's
//! `default` decides what no rule matches. Approving a start covers everything later typed
//! into that session: commands run in an approved shell are not checked again.

mod rules;
pub(crate) mod shell_line;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

pub use rules::{DEFAULT_GUARDED_ENV, Decision, Policy, Rule};

/// A start of a session, as the policy and a [`SpawnHook`] see it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpawnRequest {
    /// The programs the start runs: for a program with arguments, that one; for a shell
    /// command line, the simple commands the line shows (see [`SpawnRequest::shell_line`]).
    pub commands: Vec<RequestedCommand>,
    /// The shell command line, for a [`SpawnSpec::shell`](crate::SpawnSpec::shell) start (or
    /// the command the MCP `terminal_run` starts a shell for).
    pub shell_line: Option<String>,
    /// The working directory, absolute.
    pub cwd: PathBuf,
    /// The directories the command line changes to (`cd DIR`, `env -C DIR`, `sudo -D DIR`),
    /// absolute, in order; `None` when it changes to one that cannot be told before it runs
    /// (`cd "$DIR"`, `cd ~/DIR`, `cd -`, `popd`, a relative `cd` where `CDPATH` or bash's
    /// `cdable_vars` may apply). Rules on
    /// working directories look at these too.
    pub dirs: Option<Vec<PathBuf>>,
    /// The environment the request sets or removes over the inherited one (`None`: removed).
    pub env: Vec<(String, Option<String>)>,
    /// The variables the command line sets for the commands after the one that sets them
    /// (`PATH=x; ls`, `export`, `read`), each once, in the order first set; a command's
    /// [`RequestedCommand::set_before`] says how many of them it runs with.
    pub line_assigns: Vec<String>,
    /// The account the program runs as, when the request names one.
    pub user: Option<String>,
    /// Why the policy cannot read the command line with certainty (a program named by an
    /// expansion, substitutions nested too deep, …), when it cannot: the request then gets
    /// the strictest decision the policy gives.
    pub unreadable: Option<String>,
}

/// One program a request runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestedCommand {
    /// The program as written.
    pub program: String,
    /// Where the program was found (in the request's `PATH`, when it sets one), if it was.
    pub path: Option<PathBuf>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables the command line sets for it alone (`NAME=value program`, `env NAME=value
    /// program`, `export NAME=value`).
    pub assigns: Vec<String>,
    /// How many of the request's [`SpawnRequest::line_assigns`] are set before it runs.
    pub set_before: usize,
}

/// What the policy (or a hook) decided about a request, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Allow, deny or ask.
    pub decision: Decision,
    /// What decided: a rule's name (`rule 3` for an unnamed one), `default`, `guarded_env`,
    /// `too_complex` (a command line the policy cannot read with certainty), `hook`, or
    /// `no policy`.
    pub rule: String,
    /// Why, for the person asked or in the error of a denied start.
    pub reason: String,
}

impl Verdict {
    /// An allowing verdict when no policy is configured.
    pub(crate) fn no_policy() -> Verdict {
        Verdict { decision: Decision::Allow, rule: "no policy".into(), reason: String::new() }
    }
}

/// A host's own permission check, called with every start before anything is forked: it gets
/// the request and the policy's verdict (allow when no policy is configured) and returns the
/// final verdict. Returning [`Decision::Ask`] leaves the question to the caller's approver
/// ([`Engine::spawn_with_approval`](crate::Engine::spawn_with_approval), or the MCP client's
/// person).
#[derive(Clone)]
pub struct SpawnHook(Arc<HookFn>);

/// What a [`SpawnHook`] calls.
type HookFn = dyn Fn(&SpawnRequest, Verdict) -> Verdict + Send + Sync;

impl SpawnHook {
    /// Wraps a check.
    pub fn new(check: impl Fn(&SpawnRequest, Verdict) -> Verdict + Send + Sync + 'static) -> Self {
        SpawnHook(Arc::new(check))
    }

    pub(crate) fn check(&self, request: &SpawnRequest, verdict: Verdict) -> Verdict {
        (self.0)(request, verdict)
    }
}

impl std::fmt::Debug for SpawnHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SpawnHook(..)")
    }
}

impl PartialEq for SpawnHook {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl SpawnRequest {
    /// The request of a spawn spec, its working directory already resolved.
    pub(crate) fn of(spec: &crate::SpawnSpec, cwd: PathBuf) -> SpawnRequest {
        let env: Vec<(String, Option<String>)> = spec
            .env
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.as_ref().map(|v| v.to_string_lossy().into_owned()),
                )
            })
            .collect();
        let path_var = spec
            .env
            .iter()
            .rev()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone().unwrap_or_default())
            .or_else(|| std::env::var_os("PATH"));
        let find = |program: &str| find_program(program, path_var.as_ref(), &cwd);
        let (reading, shell_line) = match &spec.command {
            crate::spec::Command::Argv(program, args) => {
                let words = std::iter::once(program).chain(args);
                let words = words.map(|w| w.to_string_lossy().into_owned()).collect();
                (shell_line::argv_commands(words), None)
            }
            crate::spec::Command::Shell(line) => {
                let shell = crate::spec::shell_program();
                (shell_line::commands_run_by(&shell, line), Some(line.clone()))
            }
        };
        // A typed line is read by the program started: a shell.
        let (reading, shell_line) = match (&spec.typed_line, &spec.command) {
            (Some(line), crate::spec::Command::Argv(shell, _)) => {
                let typed = shell_line::typed_into(&shell.to_string_lossy(), line);
                (reading.and(typed), Some(line.clone()))
            }
            (Some(line), crate::spec::Command::Shell(_)) => {
                let typed = shell_line::typed_into(&crate::spec::shell_program(), line);
                (reading.and(typed), Some(line.clone()))
            }
            (None, _) => (reading, shell_line),
        };
        // `CDPATH`, or bash's `cdable_vars` through an exported `BASHOPTS`, may send a
        // relative `cd` elsewhere.
        let cdable = std::env::var("BASHOPTS").is_ok_and(|opts| opts.contains("cdable_vars"));
        let sends = |k: &str| k == "CDPATH" || k == "BASHOPTS";
        let cdpath = std::env::var_os("CDPATH").is_some()
            || cdable
            || env.iter().any(|(k, _)| sends(k))
            || reading.line_assigns.iter().any(|k| sends(k))
            || reading.commands.iter().any(|c| c.assigns.iter().any(|k| sends(k)));
        let commands = reading
            .commands
            .into_iter()
            .map(|c| RequestedCommand {
                path: find(&c.program),
                program: c.program,
                args: c.args,
                assigns: c.assigns,
                set_before: c.set_before,
            })
            .collect();
        let user = spec.isolation.user.clone();
        let dirs = reading.dirs.and_then(|dirs| line_dirs(&cwd, dirs, cdpath));
        let line_assigns = reading.line_assigns;
        SpawnRequest {
            commands,
            shell_line,
            cwd,
            dirs,
            env,
            line_assigns,
            user,
            unreadable: reading.doubt,
        }
    }

    /// The names `command` (one of this request's) runs with set or removed: the request's
    /// environment, the command's own assignments and those earlier in the line.
    pub fn names_set<'a>(&'a self, command: &'a RequestedCommand) -> impl Iterator<Item = &'a str> {
        let earlier = &self.line_assigns[..command.set_before.min(self.line_assigns.len())];
        let env = self.env.iter().map(|(k, _)| k.as_str());
        env.chain(command.assigns.iter().map(String::as_str))
            .chain(earlier.iter().map(String::as_str))
    }

    /// What the request runs, in a few words, for a person asked to approve it.
    pub fn describe(&self) -> String {
        let what = match &self.shell_line {
            Some(line) => format!("the shell command line `{line}`"),
            None => match self.commands.first() {
                Some(command) => {
                    let mut words = vec![command.program.clone()];
                    words.extend(command.args.iter().cloned());
                    format!("`{}`", words.join(" "))
                }
                None => "nothing".to_owned(),
            },
        };
        let mut text = format!("{what} in {}", self.cwd.display());
        let set: Vec<&str> = self.env.iter().map(|(k, _)| k.as_str()).collect();
        if !set.is_empty() {
            text.push_str(&format!(", setting {}", set.join(", ")));
        }
        if let Some(user) = &self.user {
            text.push_str(&format!(", as user {user}"));
        }
        text
    }
}

/// The directories a line changes to, from `cwd`, each relative one against the one before;
/// `None` when `CDPATH` may send a relative one (not starting with `.`) elsewhere.
fn line_dirs(cwd: &Path, dirs: Vec<String>, cdpath: bool) -> Option<Vec<PathBuf>> {
    let mut at = cwd.to_owned();
    let mut resolved = Vec::with_capacity(dirs.len());
    for dir in dirs {
        if cdpath && !dir.starts_with(['/', '.']) {
            return None;
        }
        at = lexically_normal(&at.join(dir));
        resolved.push(at.clone());
    }
    Some(resolved)
}

/// Where `program` is found: itself when it has a slash, otherwise the first executable of
/// that name in `path` (relative entries against `cwd`); see [`as_found`] for the form.
fn find_program(program: &str, path: Option<&OsString>, cwd: &Path) -> Option<PathBuf> {
    if program.is_empty() || program.contains('$') {
        return None;
    }
    let found = if program.contains('/') {
        Some(cwd.join(program)).filter(|p| is_executable(p))
    } else {
        std::env::split_paths(path?)
            .map(|dir| cwd.join(dir).join(program))
            .find(|candidate| is_executable(candidate))
    };
    found.map(|p| as_found(&p))
}

/// The form of a found program's path that rules match: `.` and `..` components resolved and
/// `//` collapsed (`/usr/bin/../../tmp/x` is `/tmp/x`), so that a pattern cannot be matched
/// by a path that leaves its directory. Where a `..` follows a symbolic link the lexical form
/// would name another file than the kernel opens: the path with its links followed then.
fn as_found(path: &Path) -> PathBuf {
    let lexical = lexically_normal(path);
    let same = |a: &Path, b: &Path| matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b);
    if lexical == path || same(&lexical, path) {
        lexical
    } else {
        std::fs::canonicalize(path).unwrap_or(lexical)
    }
}

/// `path` (absolute) with `.` and `..` components resolved without looking at the file
/// system, and repeated slashes collapsed.
fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The policy section of a TOML file: `default`, `guarded_env`, `[[rules]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PolicyFile {
    default: Option<Decision>,
    guarded_env: Option<Vec<String>>,
    #[serde(default)]
    rules: Vec<Rule>,
}

impl PolicyFile {
    pub(crate) fn into_policy(self) -> Policy {
        let mut policy = Policy::default();
        if let Some(default) = self.default {
            policy.default = default;
        }
        if let Some(guarded) = self.guarded_env {
            policy.guarded_env = guarded;
        }
        policy.rules = self.rules;
        policy
    }
}

impl Policy {
    /// Parses a policy from TOML (`default`, `guarded_env` and `[[rules]]` at the top level)
    /// and validates it.
    ///
    /// ```
    /// let policy = termloom::Policy::from_toml_str(r#"
    ///     default = "ask"
    ///     [[rules]]
    ///     name = "read-only tools"
    ///     program = ["ls", "cat", "git"]
    ///     decision = "allow"
    ///     [[rules]]
    ///     program = ["rm", "/usr/bin/dd"]
    ///     decision = "deny"
    ///     reason = "destructive"
    /// "#)?;
    /// assert_eq!(policy.rules.len(), 2);
    /// # Ok::<(), termloom::Error>(())
    /// ```
    pub fn from_toml_str(text: &str) -> crate::Result<Policy> {
        let file: PolicyFile = toml::from_str(text).map_err(|e| crate::Error::InvalidConfig {
            field: "policy",
            message: format!("cannot be parsed: {e}"),
        })?;
        let policy = file.into_policy();
        policy.validate()?;
        Ok(policy)
    }

    /// Reads and parses a policy file (see [`Policy::from_toml_str`]).
    pub fn from_toml_file(path: impl AsRef<Path>) -> crate::Result<Policy> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| crate::Error::io(format!("reading policy file {}", path.display()), e))?;
        Policy::from_toml_str(&text)
    }
}
