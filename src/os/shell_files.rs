//! Shell integration's startup files: OSC 133 prompt marks injected into bash and zsh (what
//! the marks reveal is tracked by `term::shell`).
//!
//! bash is started as `bash --rcfile FILE -i` where FILE sources the user's `~/.bashrc`, then
//! installs the marks: `PROMPT_COMMAND` prints `D;status` for the previous command and `A`,
//! `PS1` gets `B` appended inside `\[ \]` (zero width, so the prompt looks the same), and `PS0`
//! prints `C` when a command starts; a last step of `PROMPT_COMMAND` puts `B` back when the
//! user's `PROMPT_COMMAND` (a theme's) replaced a marked `PS1` or set `PS1` at this prompt,
//! not when a command alone did (that prompt reads as one that lost its mark); with bash 5.1+
//! `PROMPT_COMMAND` is an array whose last element is that step (a theme the user appends to
//! `$PROMPT_COMMAND` at the prompt goes into element 0, before it), put back last at each
//! prompt (older bash: moved to the string's end, from the next prompt), but before a trailing
//! `__bp_interactive_mode` (bash-preexec's arming step, an element or the last line: a command
//! after it fires the DEBUG trap at the prompt, which took it for the typed command, whose
//! `preexec` was then not run; at the prompt that finds it newly after the step, bash-preexec's
//! first, the step runs it again, so the first command gets its `preexec` too). A `readonly
//! PROMPT_COMMAND` takes no step: `PS1` prints the first step's marks itself (`$?`, the
//! command's status as the prompt is drawn; a theme replacing `PS1` is not marked again), which
//! needs `promptvars`: after `shopt -u promptvars` they carry `$?` and the key's variable
//! unexpanded, so none counts: the shell reads as still running that command, and later
//! commands are refused (review xq).
//! `set -a` (`allexport`) is off while the file and the steps run: nothing of termloom's is
//! exported. With `--norc` no file is read, so the same three
//! variables are set in the environment instead, and the first prompt's `PROMPT_COMMAND`
//! keeps the key, defines the startup file's functions, replaces itself with one calling
//! them (without the key) and unexports the three. zsh is started
//! with `ZDOTDIR` pointing at a directory whose startup files source the user's own (in the
//! session's `ZDOTDIR` as the child gets it, else its `HOME`), leave `ZDOTDIR` as the user's
//! `.zshenv` left it (set, or unset), and add `precmd` and `preexec` hooks doing the same:
//! `PS1` gets its `B` at each prompt (after every startup file, `.zlogin` too, read through
//! the integration's own `.zlogin`, and the `precmd` hooks they add, and those a hook adds at
//! a prompt, as deferred loaders do: the mark's hook puts itself last again at each prompt,
//! for the next, as zsh runs a prompt's hooks as they were when it began; one a command adds
//! at the prompt leaves the prompt after it unmarked) and loses it when a command starts.
//! No variable holds the mark (it is made from the key where it is needed), so `allexport`
//! left on hands it to no command and printing one fakes no prompt; the integration's own
//! variables are declared before the user's files run (`warn_create_global`), and it reads
//! those the user's files may leave unset as `nounset` allows (`${PS0-}`), as bash's does.
//! With `setopt no_prompt_percent` (`%{ %}` would be shown, and a mark without them counted
//! in the prompt's width) `prompt_percent` is on while the prompt is shown, the `%` of `PS1`,
//! `PS2`, `RPS1`, `RPS2` and `SPROMPT` doubled (drawn as before; under `allexport` neither
//! its flag nor a prompt the user did not export is exported), both undone by the next hook;
//! not with `prompt_subst` as well (what its substitutions print would be read for `%`
//! escapes): the mark goes without `%{ %}` then, counted in the width (a wrapped line edited
//! draws askew).
//!
//! Only the session's own shell marks its prompts, and `echo "$PS1"` does not show the key: bash's
//! `PS1` and `PS0` name it (`${__termloom_key-}`, an unexported variable, expanded as the prompt is
//! shown, empty in a child under `set -u` that inherits them), while `promptvars` is on: at each
//! prompt `PROMPT_COMMAND` makes the marks hold the key itself if `shopt -u promptvars` turned it
//! off (`echo "$PS1"` shows it then, and they are unexported: no command inherits the key), and
//! name it again once it is back on. They and
//! `PROMPT_COMMAND`, which may have come from the environment, are unexported once (by the startup
//! file, or at the first prompt), so a nested shell started at the prompt draws no marks (it reads
//! as the command still running) and no command inherits them; one the user exports later stays
//! exported (but while `promptvars` is off, and after it: review xn), and a child gets a mark
//! without the key. zsh's `PS1` holds the mark only while the
//! prompt is shown (unexported meanwhile, then exported again if it was, `allexport` or not), so a
//! `PS1` the user exports stays so. The key itself is in the shell's memory (`echo
//! $__termloom_key`, `set` show it).
//!
//! Every mark carries the session's key (`k=KEY`, see `term::scan::MarkKey`), which the
//! startup files take from `TERMLOOM_MARK_KEY` and remove from the environment before the
//! user's own startup files run, so the shell's commands do not inherit it (the system-wide
//! ones, `/etc/bash.bashrc` and `/etc/zshenv`, run before them and see it). A login bash reads
//! no `--rcfile`, so it is refused.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};

use crate::term::scan::MarkKey;

/// bash's functions marking its prompts, in its startup file and, with `--norc`, defined by
/// the first prompt's `PROMPT_COMMAND`: `__termloom_prompt` runs first, `__termloom_marks`
/// last. The prompts name the key's variable while `promptvars` expands it (`echo "$PS1"`
/// does not show the key), and hold the key itself while it is off (`shopt -u promptvars`),
/// checked at each prompt, unexported then (review xl: an exported `PS1` handed the key on); `${__termloom_key-}`, so that a child inheriting an exported `PS1`
/// under `set -u` draws it (with no key). A `PS1` that held its mark as the prompt began, or
/// that the user's `PROMPT_COMMAND` (a theme's) set at this prompt, gets it back (review xl:
/// a theme's prompt after a command set `PS1` once); one replaced by a command alone stays
/// unmarked (the shell reads at a prompt that lost its mark). `__termloom_marks` puts
/// `__termloom_prompt` back first in `$PROMPT_COMMAND` when a hook put itself ahead of it
/// (bash-preexec: `$?` was already 0, and its `precmd` theme's `PS1` lost the mark), so the
/// status is the command's (`PIPESTATUS` is not kept for the hook), the hook's copy already
/// behind it dropped (one that puts itself first every prompt grew `PROMPT_COMMAND` a copy a
/// prompt; review xq: with `; `, a byte), and marks the `PS1` of that prompt; in a bash 5.1+ array it is taken out of the
/// elements after the first (a hook put ahead as an element of its own), and
/// `__termloom_marks` is put back last (a theme appended after it), but before a trailing
/// `__bp_interactive_mode` (review xq: bash-preexec's `preexec` ran at the prompt with the
/// previous command, and the typed one got none), which it runs again at the prompt where it
/// finds it newly after itself (bash-preexec's first).
macro_rules! bash_functions {
    () => {
        r#"__termloom_prompt() {
    local status=$? a=$- b='\[\033]133;B;k=' e='\007'
    set +a
    printf '\033]133;D;%s;k=%s\007\033]133;A;k=%s\007' "$status" "$__termloom_key" "$__termloom_key"
    __termloom_had= __termloom_ps1="${PS1-}"
    export -n __termloom_had __termloom_ps1
    if [[ "$PS1" == *"$b$__termloom_key$e"* || "$PS1" == *"$b"'${__termloom_key-}'"$e"* ]]; then __termloom_had=1; fi
    if [[ $a == *a* ]]; then set -a; fi
    return $status
}
__termloom_marks() {
    local want='${__termloom_key-}' other="$__termloom_key" b='\[\033]133;B;k=' c='\033]133;C;k=' e='\007' n=$'\n' a=$- k
    # `set -a` left on would export what this changes (PS1, PROMPT_COMMAND): off meanwhile.
    set +a
    # The user's PROMPT_COMMAND (a theme's) set PS1 at this prompt: it owns PS1.
    if [[ -n "${__termloom_ps1+set}" && "${PS1-}" != "$__termloom_ps1" ]]; then __termloom_had=1; fi
    unset __termloom_ps1
    # A hook that put itself first (bash-preexec) would take the command's status: back first.
    if [[ "$PROMPT_COMMAND" != __termloom_prompt && "$PROMPT_COMMAND" != __termloom_prompt[\;$n]* ]]; then
        # What went ahead goes right after it, and its copy already there (a hook that puts
        # itself first at every prompt) is dropped: PROMPT_COMMAND does not grow. It ran
        # before the prompt step: a PS1 it set (its precmd theme's) is marked.
        local pc="$PROMPT_COMMAND$n" ahead core rest
        __termloom_had=1
        ahead="${pc%%__termloom_prompt[;$n]*}"
        if [[ "$ahead" != "$pc" ]]; then
            rest="${pc#"$ahead"__termloom_prompt[;$n]}"
            rest="${rest#"${rest%%[! ]*}"}"
            core="${ahead%"${ahead##*[!;$n ]}"}"
            if [[ -n "$core" && "$rest" == "$core"[\;$n]* ]]; then rest="${rest#"$core"?}"; fi
            # Each joined by a line of its own: a separator's blank (`h; $PROMPT_COMMAND`)
            # kept would grow PROMPT_COMMAND a byte a prompt.
            rest="${rest#"${rest%%[! ]*}"}"
            pc="${core:+$core$n}$rest"
        fi
        pc="${pc//__termloom_prompt[;$n]/}"
        PROMPT_COMMAND="__termloom_prompt$n${pc%$n}"
    fi
    # A theme appended to PROMPT_COMMAND after startup runs after this step: it goes last
    # again (an array's element the user appended to, bash 5.1+, was element 0: this one ran
    # last), but before a preexec framework's arming step (bash-preexec's, an element or the
    # last line): a command run after it fires the DEBUG trap at the prompt, taking the typed
    # command's preexec.
    local arm=__bp_interactive_mode armed= t
    if (( BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 501 )) && [[ ${PROMPT_COMMAND@a} == *a* ]]; then
        # An element put ahead of element 0 (`PROMPT_COMMAND=(hook "${PROMPT_COMMAND[@]}")`)
        # had the prompt step put first in it: it is taken out of the others.
        local kept=("$PROMPT_COMMAND")
        for k in "${PROMPT_COMMAND[@]:1}"; do
            k="${k//__termloom_prompt[;$n]/}"
            [[ -z "$k" || "$k" == __termloom_prompt || "$k" == __termloom_marks ]] || kept+=("$k")
        done
        t="${kept[-1]%"${kept[-1]##*[!;$n ]}"}"
        if [[ ${#kept[@]} -gt 1 && "$t" == "$arm" ]]; then
            unset 'kept[-1]'
            armed=1
        elif [[ "$t" == *[\;$n\ ]"$arm" ]]; then
            t="${t%"$arm"}"
            kept[-1]="${t%"${t##*[!;$n ]}"}"
            armed=1
        fi
        kept+=(__termloom_marks ${armed:+"$arm"})
        if [[ "${kept[*]@Q}" != "${PROMPT_COMMAND[*]@Q}" ]]; then PROMPT_COMMAND=("${kept[@]}"); fi
    else
        t="${PROMPT_COMMAND%"${PROMPT_COMMAND##*[!;$n ]}"}"
        if [[ "$t" == *[\;$n\ ]"$arm" ]]; then
            t="${t%"$arm"}"
            t="${t%"${t##*[!;$n ]}"}"
            armed=1
        fi
        if [[ "$t" != *"$n"__termloom_marks || -n $armed && "$PROMPT_COMMAND" != *"$n"__termloom_marks"$n$arm" ]]; then
            t="${t//"$n"__termloom_marks/"$n":}"
            PROMPT_COMMAND="${t%"$n":}$n"__termloom_marks${armed:+"$n$arm"}
        fi
    fi
    if ! shopt -q promptvars; then want="$__termloom_key"; other='${__termloom_key-}'; fi
    if [[ "$PS1" == *"$b$other$e"* ]]; then PS1=${PS1//"$b$other$e"/"$b$want$e"}; fi
    if [[ "${PS0-}" == *"$c$other$e"* ]]; then PS0=${PS0//"$c$other$e"/"$c$want$e"}; fi
    if [[ -n "${__termloom_had-}" && "$PS1" != *"$b$want$e"* ]]; then PS1="$PS1$b$want$e"'\]'; fi
    # Holding the key itself, they go to no command (an export, `set -a`, would hand it on).
    if ! shopt -q promptvars; then export -n PS1 PS0; fi
    # An arming step newly found after this one (bash-preexec's install ran it at this prompt,
    # or it ran before this step): the DEBUG trap took this step for the typed command, so it is
    # run again (once: from the next prompt it runs after this step).
    k=${__termloom_armed-} __termloom_armed=$armed
    if [[ $a == *a* ]]; then set -a; fi
    if [[ -n $armed && -z $k ]] && declare -F "$arm" >/dev/null; then "$arm"; fi
    return 0
}
"#
    };
}

const BASH_RC: &str = concat!(
    r#"# termloom shell integration (bash): OSC 133 marks around prompts and commands.
__termloom_key="$TERMLOOM_MARK_KEY"
unset TERMLOOM_MARK_KEY
# bash itself has read the system-wide bashrc; read the user's, as bash would have.
if [ -r ~/.bashrc ]; then . ~/.bashrc; fi
# `set -a` left on by it would export the functions and variables below: off meanwhile.
case $- in *a*) __termloom_a=1; set +a ;; *) __termloom_a= ;; esac
"#,
    bash_functions!(),
    r#"# The prompts name the key's variable, expanded as they are shown (promptvars): `echo "$PS1"`
# does not show the key, nor a child that inherits them get it.
PS0="${PS0-}"'\033]133;C;k=${__termloom_key-}\007'
if ! ( PROMPT_COMMAND= ) 2>/dev/null; then
    # A readonly PROMPT_COMMAND takes no step: PS1 prints the prompt step's marks, `$?` being
    # the command's status as it is shown (a theme replacing PS1 is not marked again; with
    # `shopt -u promptvars` nothing in it expands: no mark carries the key).
    PS1='\[\033]133;D;$?;k=${__termloom_key-}\007\033]133;A;k=${__termloom_key-}\007\]'"${PS1-}"'\[\033]133;B;k=${__termloom_key-}\007\]'
    export -n PS1 PS0
else
    # bash 5.1+ runs a PROMPT_COMMAND array's elements in turn: the marks go in an element of
    # their own, last, so a theme the user appends to `$PROMPT_COMMAND` later (element 0)
    # runs before them.
    if (( BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 501 )); then
        if [[ -v PROMPT_COMMAND[@] && ${PROMPT_COMMAND[@]@a} == *a* ]]; then
            PROMPT_COMMAND[0]="__termloom_prompt${PROMPT_COMMAND[0]:+; ${PROMPT_COMMAND[0]}}"
            PROMPT_COMMAND+=(__termloom_marks)
        else
            PROMPT_COMMAND=("__termloom_prompt${PROMPT_COMMAND:+; $PROMPT_COMMAND}" __termloom_marks)
        fi
    else
        PROMPT_COMMAND="__termloom_prompt${PROMPT_COMMAND:+; $PROMPT_COMMAND}"$'\n'__termloom_marks
    fi
    PS1="${PS1-}"'\[\033]133;B;k=${__termloom_key-}\007\]'
    # Only this shell marks its prompts: the variables holding marks are unexported, once, so a
    # nested bash (or any command) does not inherit them; one the user exports later stays so.
    export -n PS1 PS0 PROMPT_COMMAND
    __termloom_marks
fi
if [[ -n $__termloom_a ]]; then set -a; fi
unset __termloom_a
"#
);

const ZSH_ENV: &str = r#"# termloom shell integration (zsh): load the user's .zshenv.
__termloom_key="$TERMLOOM_MARK_KEY"
unset TERMLOOM_MARK_KEY
__termloom_zdotdir="$ZDOTDIR"
# The user's .zshenv sees ZDOTDIR as zsh would give it: the user's own, or unset.
if [[ -n "${TERMLOOM_USER_ZDOTDIR+set}" ]]; then ZDOTDIR="$TERMLOOM_USER_ZDOTDIR"; else unset ZDOTDIR; fi
[[ -r "${ZDOTDIR:-$HOME}/.zshenv" ]] && . "${ZDOTDIR:-$HOME}/.zshenv"
# A .zshenv that moves ZDOTDIR (`export ZDOTDIR=${ZDOTDIR:-$HOME/.config/zsh}`) names where
# zsh reads the rest of the user's files: .zshrc takes them from there; one that unsets it
# leaves it unset.
if [[ -n "${ZDOTDIR+set}" ]]; then TERMLOOM_USER_ZDOTDIR="$ZDOTDIR"; else unset TERMLOOM_USER_ZDOTDIR; fi
ZDOTDIR="$__termloom_zdotdir"
"#;

const ZSH_RC: &str = r#"# termloom shell integration (zsh): OSC 133 marks around prompts and commands.
# ZDOTDIR as the user's .zshenv left it (zsh reads .zlogin there): set, or unset.
if [[ -n "${TERMLOOM_USER_ZDOTDIR+set}" ]]; then ZDOTDIR="$TERMLOOM_USER_ZDOTDIR"; else unset ZDOTDIR; fi
unset TERMLOOM_USER_ZDOTDIR
# Whether PS1 was exported before its mark; declared before the user's files run (their
# `setopt warn_create_global` would warn of it, `allexport` export it).
typeset -g __termloom_export= __termloom_pp=
typeset -ga __termloom_percent
[[ -r "${ZDOTDIR:-$HOME}/.zprofile" && -o login ]] && . "${ZDOTDIR:-$HOME}/.zprofile"
[[ -r "${ZDOTDIR:-$HOME}/.zshrc" ]] && . "${ZDOTDIR:-$HOME}/.zshrc"
__termloom_precmd() {
    print -n "\e]133;D;$?;k=$__termloom_key\a\e]133;A;k=$__termloom_key\a"
    __termloom_percent_off
}
# Under no_prompt_percent `%{ %}` would be shown, and a mark without them counted in the
# prompt's width: prompt_percent is on while the prompt is shown, the prompts' own `%`
# doubled (drawn as before), both undone at the next hook (preexec, or precmd after an
# empty line), each prompt restored as it was, exported or not. With prompt_subst too the
# mark goes without them (and counts in the width).
__termloom_percent_on() {
    local v
    # (`allexport` would export the flag, to every command: unexported, as __termloom_export.)
    __termloom_pp=1 __termloom_percent=()
    typeset -g +x __termloom_pp
    setopt prompt_percent
    for v in PS1 PS2 RPS1 RPS2 SPROMPT; do
        [[ "${(P)v-}" == *%* ]] || continue
        __termloom_percent+=("$v" "${(P)v}" "${(tP)v}")
        typeset -g "$v=${(P)v//[%]/%%}"
    done
}
__termloom_percent_off() {
    [[ -n "$__termloom_pp" ]] || return 0
    local i
    for (( i = 1; i < ${#__termloom_percent}; i += 3 )); do
        typeset -g "${__termloom_percent[i]}=${__termloom_percent[i+1]}"
        if [[ "${__termloom_percent[i+2]}" == *export* ]]; then
            export "${__termloom_percent[i]}"
        else
            typeset -g +x "${__termloom_percent[i]}"
        fi
    done
    __termloom_pp= __termloom_percent=()
    typeset -g +x __termloom_pp
    unsetopt prompt_percent
}
# PS1's mark, made from the key where it is needed: no variable holds it (`print` of one would
# fake a prompt, an `allexport` left on would hand it to every command).
__termloom_b() {
    if [[ -o prompt_percent ]]; then
        REPLY="%{"$'\e]133;B;k='"$__termloom_key"$'\a'"%}"
    else
        REPLY=$'\e]133;B;k='"$__termloom_key"$'\a'
    fi
}
# PS1 gets its mark as each prompt is drawn, after the startup files (a .zlogin's PS1 too)
# and the hooks they add, and loses it when a command starts: `echo $PS1` does not show the
# key, and a PS1 the user exports stays exported, without the mark (unexported while the
# prompt shows it), one not exported stays so (also under `allexport`).
__termloom_mark() {
    local REPLY
    # A hook added after this one (a deferred loader's, at a prompt) would replace PS1 after
    # it: this one goes last again, for the next prompt (zsh runs this prompt's as they were).
    if [[ "${precmd_functions[-1]-}" != __termloom_mark ]]; then
        precmd_functions=(${precmd_functions:#__termloom_mark} __termloom_mark)
    fi
    # Whether the user's PS1 is exported, seen before the `%` doubling's assignment (which
    # `allexport` exports).
    local was="${(t)PS1}"
    # (Not with prompt_subst: what its substitutions print would be read for `%` escapes.)
    [[ -o prompt_percent || -o prompt_subst ]] || __termloom_percent_on
    __termloom_b
    [[ "$PS1" == *"$REPLY" ]] && return 0
    if [[ "$was" == *export* ]]; then __termloom_export=1; else __termloom_export=; fi
    typeset -g +x __termloom_export
    PS1="$PS1$REPLY"
    typeset -g +x PS1
}
__termloom_preexec() {
    local REPLY
    __termloom_b
    PS1="${PS1%"$REPLY"}"
    __termloom_percent_off
    if [[ -n "$__termloom_export" ]]; then export PS1; else typeset -g +x PS1; fi
    print -n "\e]133;C;k=$__termloom_key\a"
}
precmd_functions=(__termloom_precmd ${precmd_functions[@]-} __termloom_mark)
preexec_functions+=(__termloom_preexec)
# A login shell reads .zlogin next, from ZDOTDIR: ours, which reads the user's (ZDOTDIR as
# the user's files left it) and puts the mark's hook last again, after the hooks it adds.
if [[ -o login && -n "${__termloom_zdotdir-}" ]]; then
    if [[ -n "${ZDOTDIR+set}" ]]; then TERMLOOM_USER_ZDOTDIR="$ZDOTDIR"; fi
    ZDOTDIR="$__termloom_zdotdir"
fi
unset __termloom_zdotdir
"#;

const ZSH_LOGIN: &str = r#"# termloom shell integration (zsh): load the user's .zlogin.
if [[ -n "${TERMLOOM_USER_ZDOTDIR+set}" ]]; then ZDOTDIR="$TERMLOOM_USER_ZDOTDIR"; else unset ZDOTDIR; fi
unset TERMLOOM_USER_ZDOTDIR
[[ -r "${ZDOTDIR:-$HOME}/.zlogin" ]] && . "${ZDOTDIR:-$HOME}/.zlogin"
precmd_functions=(${precmd_functions:#__termloom_mark} __termloom_mark)
"#;

/// What `bash --norc`'s `PS1` gets, the key named (expanded as the prompt is shown).
const PS1_MARK: &str = r"\[\033]133;B;k=${__termloom_key-}\007\]";

/// What `bash --norc`'s `PS0` gets.
const PS0_MARK: &str = r"\033]133;C;k=${__termloom_key-}\007";

/// What the first prompt's `PROMPT_COMMAND` of `bash --norc` runs once it has kept the key:
/// the functions, and in its place a `PROMPT_COMMAND` calling them.
const NORC_SETUP: &str = concat!(
    bash_functions!(),
    r#"if (( BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 501 )); then PROMPT_COMMAND=(__termloom_prompt __termloom_marks); else PROMPT_COMMAND=$'__termloom_prompt\n__termloom_marks'; fi
"#
);

/// The scripts, by file name.
const FILES: [(&str, &str); 4] =
    [("bashrc", BASH_RC), (".zshenv", ZSH_ENV), (".zshrc", ZSH_RC), (".zlogin", ZSH_LOGIN)];

/// The directory holding the integration scripts.
///
/// Every termloom process of a user shares one, `termloom-UID-shell-HASH` in the temporary
/// directory, named after the scripts' contents: it is made once and never removed, so
/// processes that end without dropping their engine (killed, or leaving with
/// `std::process::exit`) leave nothing behind. It is used only if it is a real directory of
/// this user that no one else may write to, holding exactly the expected scripts; otherwise
/// (another user made it first, say) this process makes a directory of its own, removed when
/// dropped. Either is readable by everyone (0755, the scripts 0644): a session may run as
/// another user ([`crate::SpawnSpec::user`]), whose shell must read them, and they hold
/// nothing secret (the key comes in the environment).
#[derive(Debug)]
pub(crate) struct ShellFiles {
    dir: PathBuf,
    /// The directory is this process's own, removed on drop.
    private: bool,
}

impl ShellFiles {
    /// The shared directory in the temporary directory, made if missing.
    pub(crate) fn create() -> io::Result<ShellFiles> {
        ShellFiles::create_in(&std::env::temp_dir())
    }

    /// The shared directory in `base`, made if missing: written under a fresh name first and
    /// renamed into place, so no process sees it half written.
    fn create_in(base: &Path) -> io::Result<ShellFiles> {
        let shared = base.join(format!(
            "termloom-{}-shell-{:016x}",
            rustix::process::geteuid().as_raw(),
            contents_hash()
        ));
        if trusted(&shared) {
            // Made private (0700) by an earlier termloom, which other users' shells cannot read.
            let _ = readable_by_all(&shared);
            return Ok(ShellFiles { dir: shared, private: false });
        }
        let fresh = fresh_dir(base)?;
        match std::fs::rename(&fresh, &shared) {
            Ok(()) => Ok(ShellFiles { dir: shared, private: false }),
            // Another process published it first.
            Err(_) if trusted(&shared) => {
                let _ = std::fs::remove_dir_all(&fresh);
                Ok(ShellFiles { dir: shared, private: false })
            }
            Err(_) => Ok(ShellFiles { dir: fresh, private: true }),
        }
    }

    /// Rewrites `argv` and the environment overlay `env` to start the shell with
    /// integration, its marks carrying `key`; `host` is what the child gets of the host's
    /// environment (credentials and `Config::env_deny` left out), below the overlay. Fails
    /// for programs other than bash and zsh.
    pub(crate) fn inject(
        &self,
        argv: &mut Vec<OsString>,
        env: &mut Vec<(OsString, Option<OsString>)>,
        host: &BTreeMap<OsString, OsString>,
        key: &MarkKey,
    ) -> Result<(), String> {
        let key = key.as_str();
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
                // A login shell reads its profile, never the startup file given with --rcfile.
                let login = argv.iter().skip(1).any(|a| {
                    let a = a.to_string_lossy();
                    a == "--login" || a.starts_with('-') && !a.starts_with("--") && a.contains('l')
                });
                if login {
                    return Err(
                        "shell integration needs bash as an interactive shell, not a login shell (`bash -l` reads no --rcfile, so no marks would be added); start `bash` itself".into(),
                    );
                }
                let norc = argv.iter().any(|a| a == "--norc");
                let mut rest: Vec<OsString> = argv.drain(1..).collect();
                if norc {
                    let ps1 = lookup(env, host, "PS1").unwrap_or_else(|| "\\s-\\v\\$ ".into());
                    let ps0 = lookup(env, host, "PS0").unwrap_or_default();
                    // No startup file runs: the variables come in the environment, the key
                    // in `PROMPT_COMMAND` alone. The first prompt's (before any command
                    // runs) keeps it in an unexported variable, which the prompts name (so
                    // `echo "$PS1"` does not show it), puts a `PROMPT_COMMAND` without it in
                    // its place and unexports the three, once: the shell's commands do not
                    // inherit the marks, a nested bash does not mark its prompts as this
                    // one's, and a variable the user exports later stays exported.
                    let b = format!("{ps1}{PS1_MARK}");
                    env.push(("PS1".into(), Some(b.into())));
                    env.push(("PS0".into(), Some(format!("{ps0}{PS0_MARK}").into())));
                    let d = format!(
                        r#"printf '\033]133;D;%s;k={key}\007\033]133;A;k={key}\007' "$?"; __termloom_key={key}
{NORC_SETUP}export -n PS1 PS0 PROMPT_COMMAND"#
                    );
                    env.push(("PROMPT_COMMAND".into(), Some(d.into())));
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
                    env.push(("TERMLOOM_MARK_KEY".into(), Some(key.into())));
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
                // `-f` (NO_RCS) reads no startup file, ours included.
                if zsh_reads_no_startup_file(&argv[1..]) {
                    return Err(
                        "shell integration needs zsh to read its startup files (`zsh -f`, NO_RCS, reads none, so no marks would be added); start `zsh` itself (it still reads your .zshrc) or `bash --norc`".into(),
                    );
                }
                // The user's startup files are where the session's environment says: the
                // spec's `ZDOTDIR`, else the host's (not the host's when the spec removes it
                // or the configuration's `env_deny` names it).
                if let Some(user) = lookup_os(env, host, "ZDOTDIR") {
                    env.push(("TERMLOOM_USER_ZDOTDIR".into(), Some(user)));
                }
                env.push(("ZDOTDIR".into(), Some(self.dir.clone().into())));
                env.push(("TERMLOOM_MARK_KEY".into(), Some(key.into())));
                if !argv.iter().any(|a| a == "-i") {
                    argv.push("-i".into());
                }
                Ok(())
            }
            _ => Err(format!(
                "shell integration works with bash and zsh, not {}",
                crate::error::quoted_os(&argv[0])
            )),
        }
    }
}

/// The value a variable will have in the child: from the overlay, else the host's as the
/// child gets it.
fn lookup(
    overlay: &[(OsString, Option<OsString>)],
    host: &BTreeMap<OsString, OsString>,
    name: &str,
) -> Option<String> {
    lookup_os(overlay, host, name).map(|v| v.to_string_lossy().into_owned())
}

/// The value a variable will have in the child, as it is: from the overlay, else the host's
/// as the child gets it.
fn lookup_os(
    overlay: &[(OsString, Option<OsString>)],
    host: &BTreeMap<OsString, OsString>,
    name: &str,
) -> Option<OsString> {
    match overlay.iter().rev().find(|(k, _)| k == name) {
        Some((_, value)) => value.clone(),
        None => host.get(OsStr::new(name)).cloned(),
    }
}

/// A new directory under `base` with the scripts in it, readable by everyone.
fn fresh_dir(base: &Path) -> io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut attempt = 0u32;
    let dir = loop {
        let dir = base.join(format!("termloom-{}-{stamp}-{attempt}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => break dir,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    let written = FILES.iter().try_for_each(|(name, text)| std::fs::write(dir.join(name), text));
    // Opened to others only once the scripts are complete (the umask may have narrowed them).
    if let Err(err) = written.and_then(|()| readable_by_all(&dir)) {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(err);
    }
    Ok(dir)
}

/// Makes `dir` (0755) and its scripts (0644) readable by everyone, where they are not.
fn readable_by_all(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let open = |path: &Path, mode: u32| {
        let meta = std::fs::symlink_metadata(path)?;
        if meta.permissions().mode() & 0o777 == mode {
            return Ok(());
        }
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    };
    FILES.iter().try_for_each(|(name, _)| open(&dir.join(name), 0o644))?;
    open(dir, 0o755)
}

/// Whether `dir` may be used: a directory (not a link) of this user that no one else may
/// write to, holding the scripts as regular files of this user with the expected contents.
fn trusted(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let uid = rustix::process::geteuid().as_raw();
    let ours = |path: &Path, dir: bool| {
        std::fs::symlink_metadata(path).is_ok_and(|meta| {
            let kind = if dir { meta.is_dir() } else { meta.is_file() };
            kind && meta.uid() == uid && meta.mode() & 0o022 == 0
        })
    };
    ours(dir, true)
        && FILES.iter().all(|(name, text)| {
            let path = dir.join(name);
            ours(&path, false) && std::fs::read(&path).is_ok_and(|bytes| bytes == text.as_bytes())
        })
}

/// A hash of the scripts (64-bit FNV-1a), naming the shared directory: a termloom with
/// other scripts uses another directory.
fn contents_hash() -> u64 {
    crate::digest::fnv1a(FILES.iter().flat_map(|(name, text)| name.bytes().chain(text.bytes())))
}

impl Drop for ShellFiles {
    fn drop(&mut self) {
        if self.private {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Whether zsh's arguments `args` turn its RCS option off, so that it reads no startup file:
/// `-f` in a cluster of option letters (`+f` turns it back on), `-o NO_RCS` or `+o RCS` (the
/// name attached or next, in any case, `_` and `-` ignored), `--no-rcs`; the options end at
/// the first argument that is none.
fn zsh_reads_no_startup_file(args: &[OsString]) -> bool {
    let name = |option: &str| option.to_ascii_lowercase().replace(['_', '-'], "");
    let mut off = false;
    let mut args = args.iter().map(|arg| arg.to_string_lossy());
    while let Some(arg) = args.next() {
        if arg == "--" || arg == "-" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            match name(long).as_str() {
                "norcs" => off = true,
                "rcs" => off = false,
                _ => {}
            }
            continue;
        }
        let (set, letters) = match (arg.strip_prefix('-'), arg.strip_prefix('+')) {
            (Some(letters), _) => (true, letters.to_owned()),
            (None, Some(letters)) => (false, letters.to_owned()),
            (None, None) => break,
        };
        for (at, letter) in letters.char_indices() {
            if letter == 'o' {
                let attached = &letters[at + 1..];
                let option = match attached.is_empty() {
                    true => args.next().map(|next| next.into_owned()).unwrap_or_default(),
                    false => attached.to_owned(),
                };
                match (set, name(&option).as_str()) {
                    (true, "norcs") | (false, "rcs") => off = true,
                    (true, "rcs") | (false, "norcs") => off = false,
                    _ => {}
                }
                break;
            }
            if letter == 'f' {
                off = set;
            }
        }
    }
    off
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_arguments_are_rewritten() {
        let files = ShellFiles::create().unwrap();
        let key = MarkKey::generate();
        let k = key.as_str();
        let mut argv: Vec<OsString> = vec!["bash".into(), "--noprofile".into()];
        let mut env = Vec::new();
        files.inject(&mut argv, &mut env, &BTreeMap::new(), &key).unwrap();
        assert_eq!(argv[1], "--rcfile");
        assert!(argv.iter().any(|a| a == "--noprofile") && argv.last().unwrap() == "-i");
        assert_eq!(env, [("TERMLOOM_MARK_KEY".into(), Some(k.into()))]);
        let mut argv: Vec<OsString> = vec!["bash".into(), "--norc".into()];
        let mut env = vec![("PS1".into(), Some("$ ".into()))];
        files.inject(&mut argv, &mut env, &BTreeMap::new(), &key).unwrap();
        assert_eq!(argv, ["bash", "--norc", "-i"]);
        // The prompts name the key's variable; only `PROMPT_COMMAND` carries it, once.
        assert_eq!(env[1].1.as_deref().unwrap(), r"$ \[\033]133;B;k=${__termloom_key-}\007\]");
        assert!(!env[2].1.as_deref().unwrap().to_string_lossy().contains(k), "{env:?}");
        assert!(env[3].1.as_deref().unwrap().to_string_lossy().contains(k), "{env:?}");
        assert!(
            files
                .inject(&mut vec!["python3".into()], &mut Vec::new(), &BTreeMap::new(), &key)
                .is_err()
        );
        let mut line: Vec<OsString> = vec!["bash".into(), "-lc".into(), "ls".into()];
        let refused = files.inject(&mut line, &mut Vec::new(), &BTreeMap::new(), &key).unwrap_err();
        assert!(refused.contains("interactive"));
        for login in ["-l", "--login", "-il"] {
            let mut argv: Vec<OsString> = vec!["bash".into(), login.into()];
            let refused =
                files.inject(&mut argv, &mut Vec::new(), &BTreeMap::new(), &key).unwrap_err();
            assert!(refused.contains("login shell"), "{login}: {refused}");
        }
    }

    /// The user's zsh startup files are found through the session's `ZDOTDIR`: the spec's
    /// value, and none when the spec removes it (the test process's own was read, whatever
    /// the spec said).
    #[test]
    fn zsh_finds_the_users_files_through_the_sessions_zdotdir() {
        let files = ShellFiles::create().unwrap();
        let key = MarkKey::generate();
        let user = |env: &[(OsString, Option<OsString>)]| {
            env.iter().rev().find(|(k, _)| k == "TERMLOOM_USER_ZDOTDIR").cloned()
        };
        let mut env = vec![("ZDOTDIR".into(), Some("/tmp/spec-z".into()))];
        files.inject(&mut vec!["zsh".into()], &mut env, &BTreeMap::new(), &key).unwrap();
        assert_eq!(user(&env), Some(("TERMLOOM_USER_ZDOTDIR".into(), Some("/tmp/spec-z".into()))));
        let host = BTreeMap::from([("ZDOTDIR".into(), "/tmp/host-z".into())]);
        let mut env = vec![("ZDOTDIR".into(), None)];
        files.inject(&mut vec!["zsh".into()], &mut env, &host, &key).unwrap();
        assert_eq!(user(&env), None, "{env:?}");
        // The host's as the child gets it, not the process's own (`env_deny` leaves it out).
        let mut env = Vec::new();
        files.inject(&mut vec!["zsh".into()], &mut env, &host, &key).unwrap();
        assert_eq!(user(&env), Some(("TERMLOOM_USER_ZDOTDIR".into(), Some("/tmp/host-z".into()))));
    }

    /// zsh reads the integration from a startup file: `zsh -f` (NO_RCS), which reads none,
    /// is refused (it started with no marks, and waits for its prompt failed later).
    #[test]
    fn zsh_without_startup_files_is_refused() {
        let files = ShellFiles::create().unwrap();
        let key = MarkKey::generate();
        let no_rcs: [&[&str]; 8] = [
            &["-f"],
            &["-if"],
            &["--no-rcs"],
            &["--NO_RCS"],
            &["-o", "norcs"],
            &["-oNO_RCS"],
            &["+o", "rcs"],
            &["-i", "+f", "-f"],
        ];
        for args in no_rcs {
            let mut argv: Vec<OsString> =
                std::iter::once("zsh").chain(args.iter().copied()).map(Into::into).collect();
            let refused =
                files.inject(&mut argv, &mut Vec::new(), &BTreeMap::new(), &key).unwrap_err();
            assert!(refused.contains("zsh -f"), "{args:?}: {refused}");
        }
        let reads: [&[&str]; 5] =
            [&["-d"], &["-ohistfindnodups"], &["-o", "rcs"], &["-f", "+f"], &["script", "-f"]];
        for args in reads {
            let mut argv: Vec<OsString> =
                std::iter::once("zsh").chain(args.iter().copied()).map(Into::into).collect();
            files.inject(&mut argv, &mut Vec::new(), &BTreeMap::new(), &key).unwrap();
        }
    }

    /// One directory serves every process and outlives them; one that cannot be trusted is
    /// not used, and the private one made instead is removed when dropped.
    #[test]
    fn the_shared_directory_is_reused_and_checked() {
        use std::os::unix::fs::PermissionsExt;
        let base = std::env::temp_dir().join(format!("termloom-shell-test-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let first = ShellFiles::create_in(&base).unwrap();
        let second = ShellFiles::create_in(&base).unwrap();
        assert!(!first.private && first.dir == second.dir, "{first:?} {second:?}");
        let shared = first.dir.clone();
        drop((first, second));
        assert_eq!(std::fs::read_to_string(shared.join("bashrc")).unwrap(), BASH_RC);
        // Nothing but the shared directory is left: the fresh one was renamed into place.
        assert_eq!(std::fs::read_dir(&base).unwrap().count(), 1);
        // Readable by everyone (a session may run as another user), whatever the umask; one
        // left private by an earlier termloom is opened when used.
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&shared), mode(&shared.join("bashrc"))), (0o755, 0o644));
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(!ShellFiles::create_in(&base).unwrap().private);
        assert_eq!(mode(&shared), 0o755);

        // Other contents, or a directory others may write to, are not used.
        let other_contents: &dyn Fn(&Path) =
            &|dir| std::fs::write(dir.join("bashrc"), "echo owned\n").unwrap();
        let writable_by_all: &dyn Fn(&Path) =
            &|dir| std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        for tamper in [other_contents, writable_by_all] {
            tamper(&shared);
            let files = ShellFiles::create_in(&base).unwrap();
            assert!(files.private && files.dir != shared, "{files:?}");
            assert_eq!(std::fs::read_to_string(files.dir.join("bashrc")).unwrap(), BASH_RC);
            let private = files.dir.clone();
            drop(files);
            assert!(!private.exists());
            std::fs::remove_dir_all(&shared).unwrap();
            assert!(!ShellFiles::create_in(&base).unwrap().private);
        }
        std::fs::remove_dir_all(&base).unwrap();
    }
}
