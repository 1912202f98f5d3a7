//! The rules of a [`Policy`] and how a request is decided.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::shell_line::basename;
use super::{RequestedCommand, SpawnRequest, Verdict};
use crate::error::{Error, Result};

/// What a rule (or the policy's default) decides.
/// Ordered by strictness: `Allow < Ask < Deny`. The default (for a [`Rule::default`]) is
/// `Deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The start goes ahead.
    Allow,
    /// A person is asked first; without one to ask, the start is denied.
    Ask,
    /// The start is refused and nothing is forked.
    #[default]
    Deny,
}

impl Decision {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

/// One rule: what it matches and what it decides. Every matcher given must match; a rule
/// with none matches every program.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// A name for messages; unnamed rules are called `rule N` (from 1, in order).
    #[serde(default)]
    pub name: Option<String>,
    /// Program patterns. A pattern without a slash matches the program's name (the last
    /// component of the word, so `rm` matches `/bin/rm` too); one with a slash matches where
    /// the program was found (its `.` and `..` resolved), before and after symbolic links are
    /// followed. `*` and `?` are wildcards that do not match `/`; `**` matches any run of
    /// characters, `/` included. Empty: any program.
    #[serde(default)]
    pub program: Vec<String>,
    /// A regular expression searched in the arguments joined by single spaces (`^-rf\b`).
    #[serde(default)]
    pub args: Option<String>,
    /// Working directories: the rule matches a start in one of them or below, or a command
    /// line that changes to one (`cd DIR`, `env -C DIR`, see [`SpawnRequest::dirs`]). An
    /// allowing rule matches only where every directory the line runs in is among them.
    #[serde(default)]
    pub cwd: Vec<PathBuf>,
    /// Environment names: the rule matches a start that sets or removes one of them (through
    /// the request's environment or an assignment on the command line). A `*` in one matches
    /// any run of characters but `/`, and `?` any one, as in program patterns
    /// (`GIT_CONFIG_KEY_*`); as to [`Policy::guarded_env`], such a family names itself and the
    /// plain names it matches.
    #[serde(default)]
    pub env: Vec<String>,
    /// What the rule decides.
    pub decision: Decision,
    /// Why, shown to the person asked and in the error of a denied start.
    #[serde(default)]
    pub reason: Option<String>,
}

/// Variables that change what a program runs or loads: a start that sets one is asked about
/// even where a rule allows its program, unless that rule names the variable in its `env`.
/// An entry with a `*` (any run of characters but `/`) names a family (`GIT_CONFIG_KEY_*`:
/// `GIT_CONFIG_KEY_0`, ...), which a
/// rule's `env` names by the same pattern.
pub const DEFAULT_GUARDED_ENV: &[&str] = &[
    "PATH",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PROMPT_COMMAND",
    "PS4",
    "ZDOTDIR",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "NODE_OPTIONS",
    "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    // With a `GIT_CONFIG_COUNT` the start does not set (the host's own), each pair is a
    // `git -c`: `alias.x=!cmd`.
    "GIT_CONFIG_KEY_*",
    "GIT_CONFIG_VALUE_*",
    // bash defines a function of each (`BASH_FUNC_ls%%=() { cmd; }` replaces `ls`).
    "BASH_FUNC_*",
    // Where git, and many others, read their configuration (`core.pager`, aliases).
    "XDG_CONFIG_HOME",
    // vim's and ex's startup commands (`:!cmd`).
    "VIMINIT",
    "EXINIT",
    // glibc's character set converters, loaded as code by any program calling `iconv_open`.
    "GCONV_PATH",
    "PERLLIB",
    "RUBYLIB",
    "NODE_PATH",
    "JAVA_TOOL_OPTIONS",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "HOME",
    "PYTHONHOME",
    "PYTHONUSERBASE",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "SUDO_EDITOR",
    "SHELL",
    "GIT_DIR",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "GIT_SSH",
    "GIT_PROXY_COMMAND",
    "GIT_TEMPLATE_DIR",
];

/// A spawn policy: rules in order, a default, and the environment names it guards.
///
/// The first rule that matches a program decides for it; a start that runs several programs
/// (a shell command line) gets the strictest of their decisions. What a rule cannot see is
/// listed in the README and SECURITY.md (`eval`, scripts' contents, programs started by
/// programs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The decision where no rule matches. Default: allow.
    pub default: Decision,
    /// The rules, in order.
    pub rules: Vec<Rule>,
    /// See [`DEFAULT_GUARDED_ENV`] (the default).
    pub guarded_env: Vec<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            default: Decision::Allow,
            rules: Vec::new(),
            guarded_env: DEFAULT_GUARDED_ENV.iter().map(|s| (*s).to_owned()).collect(),
        }
    }
}

impl Policy {
    /// A policy that denies every start (valid: a host may allow nothing).
    pub fn deny_all() -> Policy {
        Policy { default: Decision::Deny, ..Policy::default() }
    }

    /// Checks every rule: patterns, regular expressions and names. The error names the rule
    /// by its position (and name) and what is wrong with it.
    pub fn validate(&self) -> Result<()> {
        for (index, rule) in self.rules.iter().enumerate() {
            let bad = |message: String| Error::InvalidConfig {
                field: "policy",
                message: format!("rule {} ({}): {message}", index + 1, self.rule_name(index)),
            };
            if let Some(pattern) = &rule.args {
                regex::Regex::new(pattern).map_err(|e| {
                    bad(format!(
                        "`args` {} is not a valid regular expression: {}",
                        crate::error::quoted(pattern),
                        crate::error::regex_problem(&e)
                    ))
                })?;
            }
            if rule.program.iter().any(|p| p.is_empty()) {
                return Err(bad("`program` holds an empty pattern".into()));
            }
            if rule.program.iter().any(|p| p.contains('/') && !p.starts_with('/')) {
                return Err(bad(
                    "a `program` pattern with a slash must be an absolute path (a bare name matches the program's name)".into(),
                ));
            }
            if rule.cwd.iter().any(|d| !d.is_absolute()) {
                return Err(bad("`cwd` entries must be absolute paths".into()));
            }
            if rule.env.iter().any(|n| n.is_empty() || n.contains('=')) {
                return Err(bad("`env` entries must be variable names".into()));
            }
            if rule.name.as_deref().is_some_and(str::is_empty) {
                return Err(bad("`name` is empty; leave it out or name the rule".into()));
            }
        }
        Ok(())
    }

    /// The name messages give rule `index` (from 0).
    fn rule_name(&self, index: usize) -> String {
        match &self.rules[index].name {
            Some(name) => name.clone(),
            None => format!("rule {}", index + 1),
        }
    }

    /// Decides a request.
    pub fn decide(&self, request: &SpawnRequest) -> Verdict {
        let default = Verdict {
            decision: self.default,
            rule: "default".into(),
            reason: format!(
                "no rule matches, and the policy's default is {}",
                self.default.as_str()
            ),
        };
        // What does not change from command to command is resolved once: the rules' regular
        // expressions and directories, the request's directory.
        let rules: Vec<Compiled> = self.rules.iter().map(Compiled::of).collect();
        // Where the line's commands may run: the start's directory and those it changes to.
        let line_dirs = request.dirs.iter().flatten().map(|d| canonical(d));
        let cwds: Vec<PathBuf> =
            std::iter::once(canonical(&request.cwd)).chain(line_dirs).collect();
        let names = SetNames::of(request, self.families());
        let verdicts = request.commands.iter().map(|command| {
            let seen = Seen::of(command, &cwds, &names);
            match rules.iter().position(|r| r.matches(&seen)) {
                Some(index) => self.by_rule(index, &seen),
                None => default.clone(),
            }
        });
        let lost = request.dirs.is_none() && self.rules.iter().any(|r| !r.cwd.is_empty());
        let lost = lost.then(|| {
            "it changes to a directory that cannot be told, and rules name working directories"
                .to_owned()
        });
        let unreadable = request.unreadable.clone().or(lost).map(|why| Verdict {
            decision: self.strictest(),
            rule: "too_complex".into(),
            reason: format!(
                "the command line is too complex to check ({why}), so it gets the policy's strictest decision"
            ),
        });
        // The strictest verdict wins; among equals, the first.
        verdicts
            .chain(unreadable)
            .reduce(|kept, next| if next.decision > kept.decision { next } else { kept })
            .unwrap_or(default)
    }

    /// The patterns (with a `*` or `?`) in `guarded_env` and the rules' `env`: families of
    /// names.
    fn families(&self) -> impl Iterator<Item = &str> {
        let rules = self.rules.iter().flat_map(|rule| rule.env.iter());
        let names = self.guarded_env.iter().chain(rules).map(String::as_str);
        names.filter(|name| is_family(name))
    }

    /// The strictest decision this policy can give any start: what a line it cannot read
    /// gets (whatever it hides could be that).
    fn strictest(&self) -> Decision {
        let rules = self.rules.iter().map(|r| r.decision);
        let guards = self.rules.iter().any(|r| r.decision == Decision::Allow)
            && !self.guarded_env.is_empty();
        rules
            .chain([self.default])
            .chain(guards.then_some(Decision::Ask))
            .max()
            .unwrap_or(Decision::Deny)
    }

    /// The verdict of rule `index` for a command, made `ask` when it allows a start that
    /// sets a guarded variable it does not name.
    fn by_rule(&self, index: usize, seen: &Seen) -> Verdict {
        let rule = &self.rules[index];
        let command = seen.command;
        let name = self.rule_name(index);
        if rule.decision == Decision::Allow {
            // A family is named by the same pattern; a name, by itself or a family of it.
            let named = |guard: &str| {
                let by_family = |e: &String| !is_family(guard) && is_family(e) && glob(e, guard);
                rule.env.iter().any(|e| e == guard || by_family(e))
            };
            let guarded = self.guarded_env.iter().filter(|g| !named(g)).find_map(|g| seen.sets(g));
            if let Some(variable) = guarded {
                return Verdict {
                    decision: Decision::Ask,
                    rule: "guarded_env".into(),
                    reason: format!(
                        "rule {name:?} allows {}, but the start sets {variable}, which changes what runs",
                        crate::error::quoted(&command.program)
                    ),
                };
            }
        }
        let reason = rule.reason.clone().unwrap_or_else(|| {
            let program = crate::error::quoted(&command.program);
            format!("rule {name:?} decides {} for {program}", rule.decision.as_str())
        });
        Verdict { decision: rule.decision, rule: name, reason }
    }
}

/// A rule ready to be matched: its regular expression compiled, its directories canonical.
struct Compiled<'a> {
    rule: &'a Rule,
    args: Option<regex::Regex>,
    cwd: Vec<PathBuf>,
}

impl<'a> Compiled<'a> {
    fn of(rule: &'a Rule) -> Compiled<'a> {
        // `validate` refused a bad expression; one that slipped past matches nothing.
        let args = rule.args.as_ref().map(|p| regex::Regex::new(p).unwrap_or_else(|_| never()));
        Compiled { rule, args, cwd: rule.cwd.iter().map(|d| canonical(d)).collect() }
    }

    fn matches(&self, seen: &Seen) -> bool {
        let rule = self.rule;
        let program_matches =
            rule.program.is_empty() || rule.program.iter().any(|p| seen.program_matches(p));
        let args_match = self.args.as_ref().is_none_or(|re| re.is_match(&seen.args));
        // An allowing rule holds only where every directory the line runs in is among its
        // own; a denying or asking rule wherever one is.
        let within = |cwd: &PathBuf| self.cwd.iter().any(|d| cwd.starts_with(d));
        let cwd_matches = self.cwd.is_empty()
            || match rule.decision {
                Decision::Allow => seen.cwds.iter().all(within),
                Decision::Ask | Decision::Deny => seen.cwds.iter().any(within),
            };
        let env_matches = rule.env.is_empty() || rule.env.iter().any(|e| seen.sets(e).is_some());
        program_matches && args_match && cwd_matches && env_matches
    }
}

/// A regular expression that matches nothing.
fn never() -> regex::Regex {
    regex::Regex::new(r"[^\s\S]").expect("a valid expression")
}

/// The names a request sets, ready to be asked about each command in constant time: the
/// line's assignments are one list for all its commands, each holding only its length.
struct SetNames<'a> {
    /// Set or removed by the request's environment.
    env: HashSet<&'a str>,
    /// Set by the line, with where in [`SpawnRequest::line_assigns`] each is first set.
    line: HashMap<&'a str, usize>,
    /// For each family the policy names (a pattern with a `*` or `?`, in `guarded_env` or a rule's
    /// `env`), the names of it the request sets, found once for all its commands.
    families: HashMap<&'a str, Family<'a>>,
}

/// The names of one family (`GIT_CONFIG_KEY_*`) a request sets.
struct Family<'a> {
    /// One its environment sets or removes.
    env: Option<&'a str>,
    /// The first the line sets, and where in [`SpawnRequest::line_assigns`].
    line: Option<(usize, &'a str)>,
}

impl<'a> SetNames<'a> {
    fn of(request: &'a SpawnRequest, families: impl Iterator<Item = &'a str>) -> SetNames<'a> {
        let env: HashSet<&str> = request.env.iter().map(|(k, _)| k.as_str()).collect();
        let mut line = HashMap::new();
        for (at, name) in request.line_assigns.iter().enumerate() {
            line.entry(name.as_str()).or_insert(at);
        }
        let families = families
            .map(|pattern| {
                let env = env.iter().copied().filter(|name| glob(pattern, name)).min();
                let first = line.iter().filter(|(name, _)| glob(pattern, name));
                let line = first.map(|(name, &at)| (at, *name)).min();
                (pattern, Family { env, line })
            })
            .collect();
        SetNames { env, line, families }
    }
}

/// One command of a request as the rules see it.
struct Seen<'a> {
    command: &'a RequestedCommand,
    /// Where it was found, as found and with links followed.
    paths: Vec<String>,
    args: String,
    /// The directories the line may run it in.
    cwds: &'a [PathBuf],
    names: &'a SetNames<'a>,
}

impl<'a> Seen<'a> {
    fn of(command: &'a RequestedCommand, cwds: &'a [PathBuf], names: &'a SetNames<'a>) -> Seen<'a> {
        let paths = command
            .path
            .iter()
            .flat_map(|p| [Some(p.clone()), std::fs::canonicalize(p).ok()])
            .flatten()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        Seen { command, paths, args: command.args.join(" "), cwds, names }
    }

    /// A variable the command's start sets or removes that `pattern` (a name, or a family
    /// with a `*` or `?`) names: through the request's environment, its own assignments, or an
    /// assignment earlier in the line.
    fn sets<'p>(&'p self, pattern: &'p str) -> Option<&'p str> {
        let Some(family) = self.names.families.get(pattern) else {
            let line = self.names.line.get(pattern);
            let set = self.names.env.contains(pattern)
                || self.command.assigns.iter().any(|a| a == pattern)
                || line.is_some_and(|&at| at < self.command.set_before);
            return set.then_some(pattern);
        };
        let earlier = family.line.filter(|&(at, _)| at < self.command.set_before);
        let own = || self.command.assigns.iter().find(|a| glob(pattern, a)).map(String::as_str);
        family.env.or(earlier.map(|(_, name)| name)).or_else(own)
    }

    /// A pattern without a slash matches the program's name; one with a slash, where it was
    /// found.
    fn program_matches(&self, pattern: &str) -> bool {
        if pattern.contains('/') {
            self.paths.iter().any(|p| glob(pattern, p))
        } else {
            glob(pattern, basename(&self.command.program))
        }
    }
}

/// `path` with its links followed, when it exists.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// Whether an environment name of a policy's is a pattern (`GIT_CONFIG_KEY_*`): a family of
/// names, matched by [`glob`].
fn is_family(name: &str) -> bool {
    name.contains(['*', '?'])
}

/// `*` matches any run of characters but `/`, `**` any run at all, `?` any one character but
/// `/`; everything else itself. A path's `*` therefore stays in its directory: `/usr/bin/*`
/// matches `/usr/bin/ls`, not `/usr/bin/sub/ls`.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // `matches[j]`: whether the pattern read so far matches `t[..j]` (one row per pattern
    // character: linear memory, pattern × text time).
    let mut matches = vec![false; t.len() + 1];
    matches[0] = true;
    let mut pi = 0;
    while pi < p.len() {
        let double = p[pi] == '*' && p.get(pi + 1) == Some(&'*');
        let mut next = vec![false; t.len() + 1];
        match p[pi] {
            '*' => {
                next[0] = matches[0];
                for j in 1..=t.len() {
                    let extends = next[j - 1] && (double || t[j - 1] != '/');
                    next[j] = matches[j] || extends;
                }
            }
            c => {
                for j in 1..=t.len() {
                    let one = if c == '?' { t[j - 1] != '/' } else { t[j - 1] == c };
                    next[j] = matches[j - 1] && one;
                }
            }
        }
        matches = next;
        pi += if double { 2 } else { 1 };
    }
    matches[t.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SpawnSpec;

    fn request(spec: SpawnSpec) -> SpawnRequest {
        SpawnRequest::of(&spec, PathBuf::from("/tmp"))
    }

    fn rule(program: &[&str], decision: Decision) -> Rule {
        Rule {
            program: program.iter().map(|s| (*s).to_owned()).collect(),
            decision,
            ..Rule::default()
        }
    }

    #[test]
    fn globs() {
        assert!(glob("py*", "python3"));
        assert!(glob("/usr/bin/*", "/usr/bin/ls"));
        assert!(glob("?s", "ls"));
        assert!(!glob("ls", "lsof"));
        assert!(glob("*", ""));
        assert!(!glob("a*b", "acd"));
        assert!(!glob("/usr/bin/*", "/usr/bin/sub/ls"));
        assert!(!glob("/usr/bin/?", "/usr/bin//"));
        assert!(!glob("/usr/*/ls", "/usr/a/b/ls"));
        assert!(glob("/usr/**/ls", "/usr/a/b/ls"));
        assert!(glob("/usr/**", "/usr/a/b/ls"));
        assert!(glob("*.*", "a.b.c"));
    }

    #[test]
    fn the_first_matching_rule_decides_and_the_strictest_command_wins() {
        let policy = Policy {
            default: Decision::Ask,
            rules: vec![
                Rule {
                    name: Some("no rm -rf".into()),
                    args: Some(r"-rf\b".into()),
                    ..rule(&["rm"], Decision::Deny)
                },
                rule(&["rm", "ls", "echo"], Decision::Allow),
            ],
            ..Policy::default()
        };
        policy.validate().unwrap();
        assert_eq!(policy.decide(&request(SpawnSpec::new("ls"))).decision, Decision::Allow);
        assert_eq!(
            policy.decide(&request(SpawnSpec::new("rm").arg("x"))).decision,
            Decision::Allow
        );
        let denied = policy.decide(&request(SpawnSpec::new("/bin/rm").args(["-rf", "/"])));
        assert_eq!((denied.decision, denied.rule.as_str()), (Decision::Deny, "no rm -rf"));
        assert_eq!(policy.decide(&request(SpawnSpec::new("vim"))).rule, "default");
        let line = policy.decide(&request(SpawnSpec::shell("ls; echo $(rm -rf ~)")));
        assert_eq!(line.decision, Decision::Deny);
        assert_eq!(policy.decide(&request(SpawnSpec::shell("ls | vim -"))).decision, Decision::Ask);
    }

    #[test]
    fn guarded_variables_turn_allow_into_ask() {
        let mut policy =
            Policy { rules: vec![rule(&["ls"], Decision::Allow)], ..Policy::default() };
        let preload = request(SpawnSpec::new("ls").env("LD_PRELOAD", "/tmp/x.so"));
        let verdict = policy.decide(&preload);
        assert_eq!((verdict.decision, verdict.rule.as_str()), (Decision::Ask, "guarded_env"));
        let inline = policy.decide(&request(SpawnSpec::shell("PATH=/tmp/evil ls")));
        assert_eq!(inline.decision, Decision::Ask);
        policy.rules[0].env = vec!["LD_PRELOAD".into()];
        assert_eq!(policy.decide(&preload).decision, Decision::Allow);
    }

    #[test]
    fn guarded_families_turn_allow_into_ask() {
        let mut policy =
            Policy { rules: vec![rule(&["git", "bash"], Decision::Allow)], ..Policy::default() };
        // A `git -c alias.x=!cmd` through the environment, with the count the host's own.
        let pair = SpawnSpec::new("git")
            .env("GIT_CONFIG_KEY_0", "alias.x")
            .env("GIT_CONFIG_VALUE_0", "!touch /tmp/pwned")
            .arg("x");
        let verdict = policy.decide(&request(pair.clone()));
        assert_eq!((verdict.decision, verdict.rule.as_str()), (Decision::Ask, "guarded_env"));
        assert!(verdict.reason.contains("GIT_CONFIG_KEY_0"), "{}", verdict.reason);
        let inline = SpawnSpec::shell("GIT_CONFIG_VALUE_7='!sh' git x");
        assert_eq!(policy.decide(&request(inline)).decision, Decision::Ask);
        let function = SpawnSpec::new("bash").env("BASH_FUNC_ls%%", "() { touch /tmp/pwned; }");
        assert_eq!(policy.decide(&request(function)).decision, Decision::Ask);
        // Named by the allowing rule as families: allowed; a family is named only as one.
        policy.rules[0].env = vec!["GIT_CONFIG_KEY_*".into(), "GIT_CONFIG_VALUE_*".into()];
        assert_eq!(policy.decide(&request(pair.clone())).decision, Decision::Allow);
        policy.rules[0].env = vec!["GIT_CONFIG_KEY_*".into(), "GIT_CONFIG_VALUE_0".into()];
        let verdict = policy.decide(&request(pair));
        assert!(verdict.reason.contains("GIT_CONFIG_VALUE_0"), "{}", verdict.reason);
        // A name is named by a family of it.
        policy.rules[0].env = vec!["LD_*".into()];
        let preload = SpawnSpec::new("git").env("LD_PRELOAD", "/tmp/x.so").arg("status");
        assert_eq!(policy.decide(&request(preload)).decision, Decision::Allow);
        // A rule's own family (with `?` too) matches a start that sets one of it.
        let deny =
            Rule { env: vec!["GIT_CONFIG_VALUE_?".into()], ..rule(&["git"], Decision::Deny) };
        let denying = Policy { rules: vec![deny], ..Policy::default() };
        let pair = SpawnSpec::new("git").env("GIT_CONFIG_VALUE_3", "x").arg("status");
        assert_eq!(denying.decide(&request(pair)).decision, Decision::Deny);
        // Nothing else is taken for a family member.
        let plain = SpawnSpec::new("git").env("GIT_CONFIG_KEYS", "x").arg("status");
        assert_eq!(policy.decide(&request(plain)).decision, Decision::Allow);
    }

    #[test]
    fn paths_cwd_and_env_rules() {
        let policy = Policy {
            default: Decision::Deny,
            rules: vec![
                Rule { cwd: vec!["/tmp".into()], ..rule(&["/*/sh", "/*/*/sh"], Decision::Allow) },
                Rule { env: vec!["SECRET_TOKEN".into()], ..rule(&[], Decision::Deny) },
            ],
            ..Policy::default()
        };
        assert_eq!(policy.decide(&request(SpawnSpec::new("sh"))).decision, Decision::Allow);
        let elsewhere = SpawnRequest::of(&SpawnSpec::new("sh"), PathBuf::from("/"));
        assert_eq!(policy.decide(&elsewhere).decision, Decision::Deny);
        assert_eq!(policy.decide(&request(SpawnSpec::new("./sh"))).decision, Decision::Deny);
    }

    #[test]
    fn malformed_rules_are_named_by_position() {
        let policy = Policy {
            rules: vec![
                rule(&["ls"], Decision::Allow),
                Rule { args: Some("(".into()), ..rule(&[], Decision::Deny) },
            ],
            ..Policy::default()
        };
        let err = policy.validate().unwrap_err().to_string();
        assert!(err.contains("rule 2") && err.contains("args"), "{err}");
        let relative =
            Policy { rules: vec![rule(&["bin/ls"], Decision::Allow)], ..Policy::default() };
        assert!(relative.validate().unwrap_err().to_string().contains("absolute"));
        Policy::deny_all().validate().unwrap();
        let err = Policy::from_toml_str("[[rules]]\nprogram = [\"ls\"]\ndecision = \"maybe\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("maybe"), "{err}");
        assert!(Policy::from_toml_str("[[rules]]\nprogram = [\"ls\"]\n").is_err());
    }

    /// `default = "allow"` and a rule denying `touch`: the audit's deny-list policy.
    fn deny_touch() -> Policy {
        Policy {
            rules: vec![rule(&["touch", "/usr/bin/touch"], Decision::Deny)],
            ..Policy::default()
        }
    }

    /// `default = "deny"` and a rule allowing what is in /usr/bin: the audit's allow-list.
    fn allow_usr_bin() -> Policy {
        Policy {
            default: Decision::Deny,
            rules: vec![rule(&["/usr/bin/*"], Decision::Allow)],
            ..Policy::default()
        }
    }

    /// `default = "deny"` and a rule allowing every program: only guarded variables are asked
    /// about.
    fn allow_all_programs() -> Policy {
        Policy {
            default: Decision::Deny,
            rules: vec![rule(&[], Decision::Allow)],
            ..Policy::default()
        }
    }

    /// Every line runs `touch` (or sets a guarded variable); none may be allowed.
    fn assert_allowed(policy: &Policy, lines: &[&str]) {
        for line in lines {
            let verdict = policy.decide(&request(SpawnSpec::shell(*line)));
            assert_eq!(verdict.decision, Decision::Allow, "{line:?}: {verdict:?}");
        }
    }

    fn assert_not_allowed(policy: &Policy, lines: &[&str]) {
        let allowed: Vec<&&str> = lines
            .iter()
            .filter(|line| {
                policy.decide(&request(SpawnSpec::shell(**line))).decision == Decision::Allow
            })
            .collect();
        assert!(allowed.is_empty(), "allowed: {allowed:#?}");
    }

    #[test]
    fn a_bare_assignment_of_a_guarded_variable_is_asked_about() {
        assert_not_allowed(
            &allow_all_programs(),
            &[
                "PATH=/tmp/evil; ls /",
                "PATH+=:/tmp/evil; ls /",
                "export PATH=/tmp/evil; ls /",
                "declare -x PATH=/tmp/evil; ls /",
                "typeset -x PATH=/tmp/evil; ls /",
                "readonly PATH=/tmp/evil; ls /",
                "f() { local -x PATH=/tmp/evil; ls /; }; f",
                "printf -v PATH /tmp/evil; ls /",
                "read PATH <<< /tmp/evil; ls /",
                "for PATH in /tmp/evil; do ls /; done",
                "declare -n p=PATH; p=/tmp/evil; ls /",
                "printf -vPATH /tmp/evil; ls /",
                "unset PATH; ls /",
                "HOME=/tmp/evil bash -l",
                "GIT_CONFIG_GLOBAL=/tmp/evil git status",
                "n=PATH; export $n=/tmp/evil; ls /",
                "n=PATH; declare \"$n\"=/tmp/evil; ls /",
                "BASH_CMDS[ls]=/tmp/evil; ls /",
            ],
        );
        assert_not_allowed(
            &deny_touch(),
            &["trap 'touch F' EXIT", "trap -- 'touch F' INT TERM", "mapfile -C 'touch F' x"],
        );
        let verdict = allow_usr_bin().decide(&request(SpawnSpec::shell("PATH=/tmp/evil; ls /")));
        assert_eq!((verdict.decision, verdict.rule.as_str()), (Decision::Ask, "guarded_env"));
        let plain =
            allow_all_programs().decide(&request(SpawnSpec::shell("A=1; export B=2; ls /")));
        assert_eq!(plain.decision, Decision::Allow);
    }

    #[test]
    fn env_split_strings_and_shell_option_clusters_are_looked_into() {
        assert_not_allowed(
            &deny_touch(),
            &[
                "env -S 'touch F'",
                "env -S'touch F'",
                "env -iS 'touch F'",
                "env --split-string='touch F'",
                "env --split-string 'touch F'",
                "bash -ce 'touch F'",
                "bash -c -- 'touch F'",
                "sh -ec 'touch F'",
                "bash -o pipefail -c 'touch F'",
                "bash -O extglob -c 'touch F'",
                "bash --rcfile /dev/null -c 'touch F'",
                "busybox sh -c 'touch F'",
                "fish --command='touch F'",
            ],
        );
    }

    #[test]
    fn limits_fail_closed() {
        let deep = format!("echo {}touch F{}", "$(".repeat(17), ")".repeat(17));
        let many = format!("{}touch F", "true;".repeat(4096));
        for line in [deep, many] {
            let verdict = deny_touch().decide(&request(SpawnSpec::shell(line.clone())));
            assert_eq!(verdict.decision, Decision::Deny, "{verdict:?}");
            assert!(verdict.reason.contains("too complex"), "{verdict:?}");
        }
        // Nothing to deny: a policy that allows everything allows a long line too.
        let many = "true;".repeat(5000);
        assert_eq!(
            Policy::default().decide(&request(SpawnSpec::shell(many))).decision,
            Decision::Allow
        );
    }

    /// `part` repeated to 128 KiB, after `head`.
    fn long_line(head: &str, part: &str) -> String {
        let mut line = head.to_owned();
        while line.len() + part.len() <= 128 * 1024 {
            line.push_str(part);
        }
        line
    }

    #[test]
    fn a_long_line_of_any_shape_is_checked_quickly() {
        let names: String = (0..700).map(|i| format!("v{i}=1;")).collect();
        let exports: String = (0..2000).map(|i| format!("export v{i}=1;")).collect();
        let lines = [
            long_line(&names, "x;"),
            long_line(&exports, "ls;"),
            long_line("", "v=1;"),
            long_line("", "A=1 "),
            long_line("", "x "),
            long_line("", "sudo "),
            long_line("", "$("),
            long_line("", "$(x)"),
            long_line("", "\"$(x)"),
            long_line("", "${"),
            long_line("", "$(("),
            long_line("", "(("),
            long_line("", "<<E "),
            long_line("", "<<E\n"),
            long_line("", "`"),
            long_line("", "case x in "),
            long_line("", "[[ ( "),
            long_line("", "a=("),
            long_line("", "env -S'x "),
            long_line("", "bash -c 'x;"),
            long_line("", "cd a;"),
            long_line("", "cd ../a;"),
            long_line("", "env -C a x;"),
        ];
        for line in &lines {
            let start = std::time::Instant::now();
            for policy in [deny_touch(), allow_usr_bin()] {
                policy.decide(&request(SpawnSpec::shell(line.clone())));
            }
            let took = start.elapsed();
            let shape = &line[line.len() - 20..];
            // About a second at most in a debug build on a quiet machine; a reading that is
            // quadratic in the line's length took 16 s for 13 KB, so hours for these 128 KiB.
            // The bound leaves a loaded machine (a CI runner, a parallel build) ten times that.
            assert!(took < std::time::Duration::from_secs(20), "…{shape:?} took {took:?}");
        }
        // Past the bound on names, the line is doubted.
        let many: String = (0..2000).map(|i| format!("v{i}=1;")).collect();
        let verdict = deny_touch().decide(&request(SpawnSpec::shell(many)));
        assert_eq!(verdict.rule, "too_complex", "{verdict:?}");
    }

    #[test]
    fn substitutions_end_where_the_shell_ends_them() {
        assert_not_allowed(
            &deny_touch(),
            &[
                "echo $(echo ')'; touch F)",
                "echo $(echo \")\"; touch F)",
                "echo $(echo $'\\')'; touch F)",
                "echo $(echo a # )\ntouch F\n)",
                "echo $(case a in a) touch F;; esac)",
                "echo <(echo ')'; touch F)",
                "echo `echo \\`touch F\\``",
                "cat <<EOF\nit's\nEOF\ntouch F",
                "cat <<EOF\n$(touch F)\nEOF",
                "$(echo touch) F",
                "/usr/bin/tou?h F",
                "{touch,F}",
            ],
        );
        let heredoc = "cat <<'EOF'\n$(touch F)\nEOF\nls";
        assert_eq!(
            deny_touch().decide(&request(SpawnSpec::shell(heredoc))).decision,
            Decision::Allow
        );
    }

    #[test]
    fn quoting_and_continuations_are_decoded_as_bash_does() {
        assert_not_allowed(
            &deny_touch(),
            &[
                "$'touch' F",
                "$'\\x74ouch' F",
                "$'\\164ouch' F",
                "$\"touch\" F",
                "tou\\\nch F",
                "\"tou\\\nch\" F",
            ],
        );
    }

    #[test]
    fn keywords_and_wrapper_options_are_skipped() {
        assert_not_allowed(
            &deny_touch(),
            &[
                "coproc touch F",
                "coproc NAME { touch F; }",
                "time -p touch F",
                "! touch F",
                "{ touch F; }",
                "( touch F )",
                "function f { touch F; }; f",
                "env - touch F",
                "xargs --max-args 1 touch",
                "xargs --max-a 1 touch",
                "xargs -in touch F",
                "sudo --user root touch F",
                "sudo --user=root touch F",
                "sudo -uroot touch F",
                "stdbuf --output L touch F",
                "stdbuf --output=L touch F",
                "timeout --signal KILL 5 touch F",
                "nice --adjustment 5 touch F",
                "su --command='touch F' root",
                "su --command 'touch F' root",
                "su -c'touch F' root",
            ],
        );
    }

    #[test]
    fn a_path_pattern_is_not_matched_by_a_path_that_leaves_its_directory() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("termloom-glob-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let evil = dir.join("evil");
        std::fs::write(&evil, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
        let escaped = format!("/usr/bin/../..{}", evil.display());
        let relative = format!("../..{}", evil.display());
        let at_usr_bin = |spec| SpawnRequest::of(&spec, PathBuf::from("/usr/bin"));
        for request in [
            request(SpawnSpec::new(&escaped)),
            request(SpawnSpec::shell(format!("{escaped} x"))),
            request(SpawnSpec::new(format!(
                "/usr/bin//.{}",
                escaped.trim_start_matches("/usr/bin")
            ))),
            at_usr_bin(SpawnSpec::new(&relative)),
            at_usr_bin(SpawnSpec::shell(&relative)),
        ] {
            let verdict = allow_usr_bin().decide(&request);
            assert_eq!(verdict.decision, Decision::Deny, "{request:?}: {verdict:?}");
            assert_eq!(request.commands[0].path.as_deref(), Some(evil.as_path()));
        }
        let fine = request(SpawnSpec::new("/usr/bin/../bin/./env"));
        assert_eq!(fine.commands[0].path.as_deref(), Some(Path::new("/usr/bin/env")));
        assert_eq!(allow_usr_bin().decide(&fine).decision, Decision::Allow);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn arithmetic_case_patterns_and_arrays_are_allowed_by_an_allow_list() {
        assert_allowed(
            &allow_usr_bin(),
            &[
                "echo $((1+2))",
                "x=$((1+2)); echo $x $[1+2] $((a[1]))",
                "for ((i=0;i<3;i++)); do echo $i; done",
                "(( i++ )) || echo",
                "case x in a) echo a;; *) echo b;; esac",
                "arr=(a b); files=(*.txt); echo ${files[@]}",
            ],
        );
        assert_not_allowed(&allow_usr_bin(), &["echo $(( $(/tmp/evil) ))", "(( $(/tmp/evil) ))"]);
    }

    #[test]
    fn expansions_here_documents_and_escapes_do_not_hide_commands() {
        assert_not_allowed(
            &deny_touch(),
            &[
                "echo ${x:- #}; touch F",
                "echo ${x:-<<EOF}\ntouch F",
                "echo ${a[1<<2]}\ntouch F",
                "echo \"$(echo ${x:-)}; touch F)\"",
                "echo \"${x:-\"'\"}\"; touch F",
                "echo $[1<<2]\ntouch F",
                "cat <<$(x)\nhi\n$(x)\ntouch F",
                "cat <<`x`\nhi\n`x`\ntouch F",
                "echo $(cat <<EOF)\nit's\nEOF\ntouch F",
                "echo \"`echo \\\"'\\\"; touch F`\"",
                "$\\\n(echo touch) F",
                "X=touch; $\\\nX F",
                "$'\\564ouch' F",
                "{fd}>/dev/null touch F",
                "for x do touch F; done",
            ],
        );
    }

    #[test]
    fn wrapper_options_are_read_against_all_of_their_options() {
        assert_not_allowed(
            &deny_touch(),
            &[
                "sudo --login touch F",
                "sudo --l touch F",
                "su root -- -c 'touch F'",
                "env -S 'touch\\_F'",
                "zsh -c '=touch F'",
                "zsh -c 'echo /(e:\"touch F\":)'",
            ],
        );
    }

    #[test]
    fn env_and_sudo_take_any_name_before_an_equals_sign_as_a_variable() {
        // GNU env sets every word with a `=` before its program, sudo every one not starting
        // with it, whether or not the name could be a shell variable's.
        assert_not_allowed(
            &deny_touch(),
            &[
                "env X.Y=1 touch F",
                "env 'A-B=1' touch F",
                "env =x touch F",
                "env -S 'X.Y=1 touch F'",
                "sudo X.Y=1 touch F",
                "sudo -u root A-B=1 touch F",
            ],
        );
        let mut policy = allow_usr_bin();
        policy.rules.push(rule(&["sudo"], Decision::Allow));
        assert_allowed(&policy, &["env X.Y=1 ls", "sudo A-B=1 ls"]);
    }

    #[test]
    fn a_word_is_an_assignment_only_as_bash_reads_one() {
        // Where an assignment may stand, bash reads `NAME[` to its `]`, blanks and operators
        // included: the program after it runs.
        assert_not_allowed(
            &deny_touch(),
            &[
                "A[ x ]=1 touch F",
                "A[ ; ]=1 touch F",
                "x=1 A[ \"]\" ]=1 touch F",
                ">/dev/null A[ x ]+=1 touch F",
                "echo $(A[ ) ]=1 touch F)",
                "true && A[ # ]=1 touch F",
                "A[ x=1 touch F",
            ],
        );
        // A quoted, escaped or expanded name makes no assignment: the word is the program.
        assert_not_allowed(
            &allow_usr_bin(),
            &["\"A\"=1 ls", "A\"B\"=1 ls", "'A'=1 ls", "A\\=1 ls", "$'A'=1 ls", "A=1 ! ls"],
        );
        assert_allowed(
            &allow_usr_bin(),
            &["A=1 ls", "A+=1 ls", "A=\"1 2\" ls", "A[0]=1 ls", "A\\\nB=1 ls", "echo A[ x ]=1"],
        );
        assert_allowed(&deny_touch(), &["A=1 >/dev/null B[ x ]=1 touch F"]);
    }

    #[test]
    fn a_line_a_posix_shell_runs_is_not_read_with_bash_syntax_it_does_not_have() {
        // dash (`sh` on Debian) reads `$'…'` as `$` and a quoted string ending at the first
        // quote, `((…))` as subshells, `$[` as text and `[[` as a command.
        let lines = [
            "echo $'it\\'s\ntouch F #'",
            "((touch F))",
            "echo $[ ; touch F ]",
            "[[ x ; touch F ; ]]",
        ];
        for shell in ["sh", "dash", "/bin/sh", "ash"] {
            let argv: Vec<SpawnRequest> = lines
                .iter()
                .map(|line| request(SpawnSpec::new(shell).args(["-c", line])))
                .collect();
            for request in argv {
                let verdict = deny_touch().decide(&request);
                assert_eq!(verdict.decision, Decision::Deny, "{request:?}: {verdict:?}");
            }
        }
        assert_not_allowed(
            &deny_touch(),
            &[
                "sh -c \"((touch F))\"",
                "busybox sh -c '((touch F))'",
                "su nobody -c '((touch F))'",
                "su -s /bin/sh root -c '[[ x; touch F; ]]'",
            ],
        );
        // What reads alike in both stays allowed.
        assert_allowed(
            &deny_touch(),
            &[
                "sh -c 'echo $((1+2)); ls; [ -f x ] || grep [[:digit:]] f'",
                "bash -c \"echo $'x'; ((i++))\"",
            ],
        );
    }

    #[test]
    fn a_relative_program_after_cd_is_not_allowed() {
        let mut policy = allow_usr_bin();
        policy.rules.push(rule(&["cd", "pushd", "sh"], Decision::Allow));
        let at = |line: &str| SpawnRequest::of(&SpawnSpec::shell(line), PathBuf::from("/usr/bin"));
        assert_eq!(policy.decide(&at("./ls")).decision, Decision::Allow);
        for line in ["cd /tmp && ./ls", "pushd /tmp; ./ls", "cd /tmp && sh -c './ls'"] {
            let verdict = policy.decide(&at(line));
            assert_eq!(verdict.decision, Decision::Deny, "{line:?}: {verdict:?}");
        }
        assert_eq!(policy.decide(&at("cd /tmp && /usr/bin/ls")).decision, Decision::Allow);
    }

    #[test]
    fn su_shell_options_chdir_chroot_and_gdb_commands_do_not_hide_programs() {
        assert_not_allowed(
            &deny_touch(),
            &[
                "su -s /usr/bin/touch root F",
                "su root -s /usr/bin/touch F",
                "su --shell=/usr/bin/touch root F",
                "su -s /usr/bin/touch root",
                "gdb -batch -ex run --args touch F",
                "gdb -x cmds --args touch F",
                "gdb -batch -ex 'shell touch F'",
                "gdb --eval-command=run touch",
                "xargs -I{} sh -c '{}'",
                "xargs -I % bash -c 'echo %'",
                "xargs -i sh -c 'x {}'",
                "xargs sh -c",
                "xargs -0 env",
                "xargs nice sudo",
                "xargs -I{} {} F",
                "strace -o '|touch F' true",
                "strace -fo'!touch F' true",
                "strace --output='|touch F' true",
                "strace --output '|touch F' true",
                "ltrace -a 3 touch F",
                "ltrace -w 3 touch F",
                "env -a x touch F",
                "env --argv0 x touch F",
                "test -v 'a[$(touch F)]'",
                "[ -v 'a[`touch F`]' ]",
                "printf -v 'a[$(touch F)]' x",
                "unset 'a[$(touch F)]'",
                "declare -i x; x='a[$(touch F)]'",
                "x+='a[`touch F`]'",
            ],
        );
        let mut usr_bin = allow_usr_bin();
        usr_bin.rules.push(rule(&["chroot", "sudo", "git"], Decision::Allow));
        let at = |line: &str| SpawnRequest::of(&SpawnSpec::shell(line), PathBuf::from("/usr/bin"));
        for line in [
            "env -C /tmp ./ls",
            "env --chdir=/tmp ./ls",
            "sudo -D /tmp ./ls",
            "sudo --chdir /tmp ./ls",
            "chroot /tmp /usr/bin/ls",
            "sudo -R /tmp /usr/bin/ls",
        ] {
            let verdict = usr_bin.decide(&at(line));
            assert_eq!(verdict.decision, Decision::Deny, "{line:?}: {verdict:?}");
        }
        assert_not_allowed(&usr_bin, &["env -u PATH ls", "env --unset=LD_PRELOAD ls"]);
        assert_allowed(
            &usr_bin,
            &[
                "gdb -q --args ls -l",
                "chroot / ls",
                "su root -c ls",
                "printf -v x '%s[$y]' a",
                "a[1]=$(ls); x=$(ls -d /[a-z]*)",
                "env -C /tmp ls",
                "xargs -I{} cp {} /tmp",
                "xargs sh -c 'ls \"$@\"' sh",
                "xargs",
            ],
        );
    }

    #[test]
    fn variables_that_make_git_sudo_or_su_run_a_program_are_guarded() {
        let mut policy = allow_usr_bin();
        policy.rules.push(rule(&["git", "sudo", "su"], Decision::Allow));
        assert_not_allowed(
            &policy,
            &[
                "GIT_EXTERNAL_DIFF='touch F;' git diff",
                "GIT_EDITOR='touch F' git commit",
                "GIT_SEQUENCE_EDITOR='touch F' git rebase -i HEAD~2",
                "GIT_DIR=/tmp/evil/.git git status",
                "GIT_SSH=/tmp/evil git fetch",
                "SHELL=/usr/bin/touch sudo -s",
                "SHELL=/usr/bin/touch su -m root F",
            ],
        );
    }

    #[test]
    fn rules_on_working_directories_follow_the_line_where_it_changes_directory() {
        let deny_etc = Policy {
            rules: vec![Rule { cwd: vec!["/etc".into()], ..rule(&[], Decision::Deny) }],
            ..Policy::default()
        };
        assert_not_allowed(
            &deny_etc,
            &[
                "cd /etc && ls",
                "cd /tmp; cd ../etc/ssh; ls",
                "pushd /etc; ls",
                "env -C /etc ls",
                "sudo -D /etc ls",
                "cd \"$X\" && ls",
                "cd - && ls",
                "cd && ls",
                "popd; ls",
                "CDPATH=/ cd etc && ls",
            ],
        );
        assert_eq!(
            deny_etc.decide(&request(SpawnSpec::new("env").args(["-C", "/etc", "ls"]))).decision,
            Decision::Deny
        );
        assert_allowed(&deny_etc, &["cd /var && ls", "cd ./x; ls", "ls /etc"]);
        let only_tmp = Policy {
            default: Decision::Deny,
            rules: vec![Rule { cwd: vec!["/tmp".into()], ..rule(&[], Decision::Allow) }],
            ..Policy::default()
        };
        assert_not_allowed(&only_tmp, &["cd /etc && ls", "cd .. && ls", "env -C / ls"]);
        assert_allowed(&only_tmp, &["cd /tmp/x && ls", "ls"]);
    }

    #[test]
    fn autocd_makes_a_directory_named_as_a_command_a_change_that_cannot_be_told() {
        let deny_etc = Policy {
            rules: vec![Rule { cwd: vec!["/etc".into()], ..rule(&[], Decision::Deny) }],
            ..Policy::default()
        };
        // An interactive bash with `autocd` runs `/etc` as `cd -- /etc`.
        let typed = |line: &str| request(SpawnSpec::interactive_shell().typed_line(line));
        for line in ["shopt -s autocd; /etc; ls", "shopt -s $OPT; /etc; ls"] {
            let verdict = deny_etc.decide(&typed(line));
            assert_eq!(verdict.decision, Decision::Deny, "{line:?}: {verdict:?}");
        }
        assert_eq!(deny_etc.decide(&typed("shopt -s extglob; ls")).decision, Decision::Allow);
    }

    #[test]
    fn everyday_lines_stay_allowed() {
        assert_allowed(
            &deny_touch(),
            &[
                "ls -l | grep x && echo \"$(date)\" > out",
                "sudo -u root ls; env -i A=1 ls; timeout 5 nice -n 3 ls",
                "bash -c 'ls; echo ok'",
                "cat <<EOF\nhello 'world\nEOF\nls",
                "for f in a b; do echo $f; done",
            ],
        );
    }
}
