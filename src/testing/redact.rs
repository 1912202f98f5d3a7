//! [`Redactions`]: what changes from run to run, replaced or masked in snapshots.

use super::*;

/// Replacements for what changes from run to run, applied to snapshots as insta filters
/// (regular expressions and their replacements, in the order they were added) and usable on
/// any text with [`Redactions::apply`].
///
/// ```
/// use termloom::testing::Redactions;
///
/// let redactions = Redactions::new().clock_times().durations().pids().hex_addresses();
/// assert_eq!(
///     redactions.apply("12:34:56 pid 4242 took 1.5s at 0x7ffd1234"),
///     "[TIME] pid [PID] took [DURATION] at [ADDR]"
/// );
/// ```
#[derive(Clone, Default)]
pub struct Redactions {
    filters: Vec<(String, String)>,
    /// Patterns whose matches are masked cell by cell with [`MASK`].
    masks: Vec<String>,
    /// `filters`' patterns compiled, in the same order, each with the path it replaces when
    /// [`Redactions::path`] added it: compiled once, not on every line a screen redacts.
    compiled: Vec<Compiled>,
    /// `masks` compiled, in the same order.
    compiled_masks: Vec<regex::Regex>,
}

/// A filter's pattern compiled, and the path it replaces (see [`Redactions::path`]).
#[derive(Clone)]
struct Compiled {
    re: regex::Regex,
    path: Option<String>,
}

/// Two redactions are the same when their patterns and replacements are (the compiled forms
/// follow from them).
impl PartialEq for Redactions {
    fn eq(&self, other: &Redactions) -> bool {
        (&self.filters, &self.masks) == (&other.filters, &other.masks)
    }
}

impl Eq for Redactions {}

impl std::fmt::Debug for Redactions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactions")
            .field("filters", &self.filters)
            .field("masks", &self.masks)
            .finish()
    }
}

/// The pattern of [`Redactions::dates`]' dates with slashes: a month (1 to 12) and a day (1
/// to 31) in either order (US `%x`, or the day first), then a year of four digits, or of two
/// when the month and day have two each (as `%x` and `%D` write them: `05/17/24`; `4/8/16` is
/// a count as likely); or a year, a month and a day (`2024/05/17`). Not taken right after a
/// `/`, a `.` or a word character: a path (`/proc/12/08/26`, `refs/pull/12/10/20`) or a
/// version (`go1.21/12/99`). Group 1 is the character before, put back.
fn slashed_dates() -> String {
    let month = r"(?:0?[1-9]|1[0-2])";
    let day = r"(?:0?[1-9]|[12]\d|3[01])";
    let (month2, day2) = (r"(?:0[1-9]|1[0-2])", r"(?:0[1-9]|[12]\d|3[01])");
    format!(
        r"(^|[^/.\w])(?:\d{{4}}/{month2}/{day2}|(?:{month}/{day}|{day}/{month})/\d{{4}}|(?:{month2}/{day2}|{day2}/{month2})/\d{{2}})\b"
    )
}

#[cfg(test)]
thread_local! {
    /// How many patterns this thread compiled, for the tests.
    pub(super) static COMPILED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Compiles a pattern (counted for the tests).
fn compile(pattern: &str) -> Result<regex::Regex, regex::Error> {
    #[cfg(test)]
    COMPILED.with(|count| count.set(count.get() + 1));
    regex::Regex::new(pattern)
}

/// The character that stands for each cell a [`Redactions::mask`] hides.
pub const MASK: char = '▒';

impl Redactions {
    /// No redactions.
    pub fn new() -> Redactions {
        Redactions::default()
    }

    /// Replaces matches of a regular expression (regex crate syntax) with `replacement`, which
    /// may name groups as `$1` or `${name}`.
    ///
    /// # Panics
    ///
    /// When `pattern` is not a valid regular expression.
    #[track_caller]
    pub fn regex(mut self, pattern: &str, replacement: &str) -> Redactions {
        let re = match compile(pattern) {
            Ok(re) => re,
            Err(e) => panic!("termloom: bad redaction pattern {pattern:?}: {e}"),
        };
        self.push_filter((pattern.to_owned(), replacement.to_owned()), Compiled { re, path: None });
        self
    }

    /// Adds a filter last, but a path's before the first filter of a shorter path that holds
    /// it (`<crate>/target` before `<crate>`, whichever was added first), so that the more
    /// specific path is replaced whole.
    fn push_filter(&mut self, filter: (String, String), compiled: Compiled) {
        let holds = |outer: &str, inner: &str| {
            inner.len() > outer.len()
                && inner.starts_with(outer)
                && (outer.ends_with('/')
                    || inner[outer.len()..].starts_with('/')
                    || inner[outer.len()..].starts_with(r"\/"))
        };
        let at = compiled.path.as_deref().and_then(|path| {
            self.compiled.iter().position(|c| c.path.as_deref().is_some_and(|p| holds(p, path)))
        });
        let at = at.unwrap_or(self.filters.len());
        self.filters.insert(at, filter);
        self.compiled.insert(at, compiled);
    }

    /// Masks the matches of a regular expression cell by cell: each cell becomes [`MASK`], so
    /// the columns after it stay where they were (a wide character's two cells become two
    /// marks). When the pattern has a group named `mask`, only that group is masked and the
    /// rest of the match, a context the regex crate cannot look ahead or behind for, stays
    /// (`(?P<mask>\d+%) done`). For values whose width is fixed but whose text changes, such
    /// as a clock in a
    /// status bar or a column of process ids; a replacement ([`Redactions::regex`]) reads
    /// better where alignment does not matter.
    ///
    /// ```
    /// use termloom::testing::Redactions;
    ///
    /// let masked = Redactions::new().mask(r"\d{2}:\d{2}").apply("| 09:41 | ready |");
    /// assert_eq!(masked, "| ▒▒▒▒▒ | ready |");
    /// ```
    ///
    /// # Panics
    ///
    /// When `pattern` is not a valid regular expression.
    #[track_caller]
    pub fn mask(mut self, pattern: &str) -> Redactions {
        let re = match compile(pattern) {
            Ok(re) => re,
            Err(e) => panic!("termloom: bad mask pattern {pattern:?}: {e}"),
        };
        self.masks.push(pattern.to_owned());
        self.compiled_masks.push(re);
        self
    }

    /// Replaces every occurrence of a literal text.
    pub fn literal(self, text: &str, replacement: &str) -> Redactions {
        self.regex(&regex::escape(text), &replacement.replace('$', "$$"))
    }

    /// Replaces a path (as given and canonicalized) with `replacement`: `/tmp/x/notes.txt`
    /// becomes `[NAME]/notes.txt`. Only where the path ends: before a `/`, at the end of the
    /// text or before a character that does not go on a file name (a blank, a quote, `:`...),
    /// dots ending a sentence before them (`saved in /tmp/x.`), not before a letter, a digit or
    /// one of `_.-+~@%` (`/tmp/xy` and `/tmp/x.bak` stay). And only where the path begins: at
    /// the start of the text or after a character that is none of those nor `/` (a blank, a
    /// quote, `=`, `:`, an opening bracket, a box-drawing border...), so that a longer path ending
    /// with it stays (`/mnt/tmp/x` and `./tmp/x` are other files), and so does one right
    /// after a letter or a digit (`v2/tmp/x`), or a `]` (a replacement's end: a folder of the
    /// same name under the path, `[NAME]/tmp/x/a`, stays); after a short option (`-I/tmp/x`,
    /// `-L/tmp/x`, as a compiler's command line has them), a diff's or a response file's sign
    /// at a word's start (`+/tmp/x`, `-/tmp/x`, `@/tmp/x`) and in a `file://` URL
    /// (`file:///tmp/x/a` becomes `file://[NAME]/a`) it is replaced. A path right after
    /// another (`/tmp/x:/tmp/x/bin`) is replaced as well: the filter is applied twice (also
    /// as an insta filter, [`Redactions::apply_to`]), the character between them serving as
    /// the first one's end and then as the second one's start. A path goes before a shorter
    /// one added earlier that holds it (`<crate>/target` before `<crate>`, in
    /// [`Redactions::and`] too), so that the longer one is replaced whole whatever the order
    /// they were added in. The path as JSON may write it, each `/` escaped (`\/tmp\/x`), is
    /// replaced the same way (`"[NAME]\/notes.txt"`).
    ///
    /// ```
    /// use std::path::Path;
    /// use termloom::testing::Redactions;
    ///
    /// let redactions = Redactions::new().path(Path::new("/w/app"), "[APP]");
    /// assert_eq!(
    ///     redactions.apply("PATH=/w/app/bin:/w/app /mnt/w/app file:///w/app -I/w/app"),
    ///     "PATH=[APP]/bin:[APP] /mnt/w/app file://[APP] -I[APP]"
    /// );
    /// ```
    pub fn path(self, path: &Path, replacement: &str) -> Redactions {
        self.path_ending(path, replacement, r"/|\.*(?:[^\w.\-+~@%]|$)")
    }

    /// [`Redactions::path`], the path's end told by `ending`, a pattern of what follows it.
    fn path_ending(mut self, path: &Path, replacement: &str, ending: &str) -> Redactions {
        let trimmed = |form: String| match form.trim_end_matches('/') {
            "" => form,
            kept => kept.to_owned(),
        };
        let mut forms = vec![trimmed(path.to_string_lossy().into_owned())];
        if let Ok(canonical) = path.canonicalize() {
            forms.push(trimmed(canonical.to_string_lossy().into_owned()));
        }
        // As JSON may write it, each `/` escaped (`\/w\/c`: PHP's `json_encode`, some loggers).
        let escaped: Vec<String> =
            forms.iter().filter(|f| f.contains('/')).map(|f| f.replace('/', r"\/")).collect();
        forms.extend(escaped);
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        forms.dedup();
        for form in forms.into_iter().filter(|f| !f.is_empty()) {
            // The characters before and after the path are matched and put back (the regex
            // crate has no look-around); the mapping of a styled screen's runs keeps them
            // where they were.
            let pattern = format!(r"({PATH_START}){}({ending})", regex::escape(&form));
            let re = compile(&pattern).expect("an escaped path is a valid regular expression");
            let with = format!("${{1}}{}${{2}}", replacement.replace('$', "$$"));
            self.push_filter((pattern, with), Compiled { re, path: Some(form) });
        }
        self
    }

    /// Replaces the directory of the crate under test with `[CRATE]`: `CARGO_MANIFEST_DIR` as
    /// `cargo test` sets it for the test binary (a checkout's path differs between machines);
    /// nothing when the test was run another way.
    pub fn crate_dir(self) -> Redactions {
        match std::env::var_os("CARGO_MANIFEST_DIR") {
            Some(dir) if !dir.is_empty() => self.path(Path::new(&dir), "[CRATE]"),
            _ => self,
        }
    }

    /// Replaces the target directory of the tests' build with `[TARGET]`: where the test
    /// binary runs from (`<target>/debug/deps/`, as `cargo test` builds it, or
    /// `<target>/<triple>/debug/deps/` with `--target`), and `CARGO_TARGET_DIR` when it names
    /// an absolute path. A `CARGO_TARGET_DIR` outside the crate, or a workspace's shared
    /// `target/`, is not inside [`Redactions::crate_dir`]: a binary of the package
    /// (`env!("CARGO_BIN_EXE_app")`) or a file the build wrote shows it. Nothing when the test
    /// binary does not run from a `deps/` folder and no such variable is set. With
    /// [`Redactions::crate_dir`], in either order, the target directory is replaced first (a
    /// path before a shorter one that holds it, see [`Redactions::path`]): the default
    /// `<crate>/target/debug/app` is `[TARGET]/debug/app`, as a `CARGO_TARGET_DIR` elsewhere
    /// (CI's) gives it, not `[CRATE]/target/debug/app`.
    pub fn target_dir(mut self) -> Redactions {
        for dir in target_dirs() {
            self = self.path(&dir, "[TARGET]");
        }
        self
    }

    /// Replaces a temporary home directory with `[HOME]` (every [`TestSession`] does this for
    /// its own).
    pub fn home(self, home: &Path) -> Redactions {
        // A session's home is named for it alone: a name that goes on after it is another
        // file beside it (`$HOME.bak`, `$HOME-old`), its own name redacted too. It begins
        // where a path of `Redactions::path` does.
        self.path_ending(home, "[HOME]", r"/|[^\w]|$")
    }

    /// Replaces every [`TestSession`]'s temporary home directory (`/tmp/termloom-home-…`,
    /// whichever session's, also JSON-escaped: `\/tmp\/termloom-home-…`) with `[HOME]`: what a snapshot of a [`Screen`], a
    /// [`StyledScreen`] or a [`Session`] gets, which do not know the session they came from.
    pub fn test_homes(self) -> Redactions {
        self.regex(r"\\?/(?:[^\s/\\]+\\?/)*termloom-home-\d{7}-\d{4}", "[HOME]")
    }

    /// Replaces the name of the user running the tests with `[USER]` where it stands as a
    /// word (a prompt's `user@host`, `whoami`, a process list's user column): it differs
    /// between a developer's machine and CI. The name is the password database's for this
    /// process's user (programs such as `whoami` and `ps` read it there), or `USER` when the
    /// database has none. The word is replaced wherever it stands, whatever it means there:
    /// as `root` (CI runs as root) it also replaces a file's owner `root` and the word in
    /// `the root directory`, which on a developer's machine stay as they are; a screen that
    /// shows such words may need its own pattern instead.
    pub fn user(self) -> Redactions {
        let name = user_name().unwrap_or_default();
        self.word(&name, "[USER]")
    }

    /// Replaces this machine's host name with `[HOST]` where it stands as a word (a prompt's
    /// `user@host`, `uname -n`, `hostname`). As with [`Redactions::user`], a host name that is
    /// also a common word (`localhost`, `build`) is replaced wherever it stands.
    pub fn hostname(self) -> Redactions {
        let uname = rustix::system::uname();
        let name = uname.nodename().to_string_lossy().into_owned();
        self.word(&name, "[HOST]")
    }

    /// Replaces `text` where it stands as a word (no letter, digit or `_` on either side);
    /// nothing when it is empty. The sides are tested without taking the characters there
    /// (`\b` beside a word character of `text`, `\B` beside another), so that a separator
    /// between two occurrences (`root root`) serves both.
    fn word(self, text: &str, replacement: &str) -> Redactions {
        let (Some(first), Some(last)) = (text.chars().next(), text.chars().last()) else {
            return self;
        };
        // A word character as the pattern's `\b` takes it.
        let word = regex::Regex::new(r"\w").expect("a valid regular expression");
        let side = |c: char| match word.is_match(c.encode_utf8(&mut [0; 4])) {
            true => r"\b",
            false => r"\B",
        };
        let pattern = format!("{}{}{}", side(first), regex::escape(text), side(last));
        self.regex(&pattern, &replacement.replace('$', "$$"))
    }

    /// Replaces clock times with seconds, such as `09:41:07` or `9:41:07.123`, with `[TIME]`;
    /// also the time of an ISO 8601 timestamp, after its `T` and before its `Z`: with
    /// [`Redactions::dates`], `2024-05-17T09:41:07.5Z` becomes `[DATE]T[TIME]Z`, in either
    /// order. Milliseconds after a comma (Python's `logging`: `09:41:07,123 INFO`) are taken
    /// with the time only when a blank or the end follows them: in `09:00:00,10:00:00` or a
    /// comma-separated `09:41:07,200,OK` the comma separates fields.
    pub fn clock_times(self) -> Redactions {
        // `\b` cannot stand between the `T` and the hour, nor between the seconds and a `Z`
        // (all word characters): a `T` after a digit (or after `[DATE]`) and a `Z` are
        // matched and put back, and so is the blank after a logging time's milliseconds.
        self.regex(r"(\b|[\d\]]T)\d{1,2}:\d{2}:\d{2},\d{3}(\s|$)", "${1}[TIME]${2}")
            .regex(r"(\b|[\d\]]T)\d{1,2}:\d{2}:\d{2}(\.\d+)?(Z\b|\b)", "${1}[TIME]${3}")
    }

    /// Replaces clock times to the minute, such as `19:03` or `9:41` (as `ls -l`, mc's file
    /// panels and status bars show them), with `[TIME]`; seconds after them are taken too
    /// (`19:03:27`, `19:03:27.5`; [`Redactions::clock_times`] knows more forms). Opt-in apart from
    /// `clock_times`: a number, a colon and two digits is also a position (`12:30`, line and
    /// column, as editors' status lines show it), a ratio or a score, which it would replace
    /// too; those after a colon or a dot (`main.rs:12:30`, `v1.19:03`) or beside a letter
    /// are left alone. The hour is 0 to 23, the minutes 00 to 59.
    ///
    /// ```
    /// use termloom::testing::Redactions;
    ///
    /// let redactions = Redactions::new().short_times();
    /// assert_eq!(
    ///     redactions.apply("at 19:03, 9:41:07; main.rs:12:30"),
    ///     "at [TIME], [TIME]; main.rs:12:30"
    /// );
    /// ```
    pub fn short_times(self) -> Redactions {
        // The character before is taken and put back (`\b` would hold after a colon); the
        // one after is not taken, so that `19:03 19:04` has both replaced.
        self.regex(r"(^|[^\w:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?\b", "${1}[TIME]")
    }

    /// Replaces dates written with an English month, abbreviated or whole, and the day
    /// (`Dec  7`, `December 17`: `ls -l`, mc's panels, `date`, logs), and a year after them
    /// (`Jan  2  2020`, `Jan 2, 2020`), with `[DATE]`; also the day, the month and the year
    /// (`8 Dec 2026`: `date -R`, mail and HTTP headers), and the day of the week before either
    /// (`Tue Dec  8`, `Tue, 08 Dec 2026`), which changes with the date. A time after them is
    /// left to [`Redactions::short_times`] (or [`Redactions::clock_times`]): `Dec  7 19:03`
    /// becomes `[DATE] [TIME]` with both, `date`'s `Tue Dec  8 00:31:07 UTC 2026` becomes
    /// `[DATE] [TIME] UTC 2026`, its year after the zone left (a number alone). The kit's
    /// sessions run in the C locale (`LC_ALL=C.UTF-8`), where programs name months and days
    /// so; another locale's names (`déc.`, `Dez`), which only a session given its own
    /// `LC_ALL` shows, are left as they are. The words are replaced wherever they stand (`May
    /// 3` in a sentence too); where columns must stay, as in a file panel, use
    /// [`Redactions::file_times`]. Dates in numbers are [`Redactions::dates`]'.
    ///
    /// ```
    /// use termloom::testing::Redactions;
    ///
    /// let redactions = Redactions::new().month_days().clock_times();
    /// assert_eq!(
    ///     redactions.apply("Tue Dec  8 00:31:07 UTC 2026; Date: Tue, 08 Dec 2026 00:31:07 GMT"),
    ///     "[DATE] [TIME] UTC 2026; Date: [DATE] [TIME] GMT"
    /// );
    /// ```
    pub fn month_days(self) -> Redactions {
        let day = r"(?:[1-9]|[12]\d|3[01])";
        self.regex(
            &format!(
                r"\b(?:(?:{WEEKDAYS}),? {{1,2}})?(?:(?:{MONTH_NAMES}) {{1,2}}0?{day}(?:,? {{1,2}}\d{{4}})?|0?{day} (?:{MONTH_NAMES}),? \d{{4}})\b"
            ),
            "[DATE]",
        )
    }

    /// Replaces the modification time of a file listing, a month's abbreviation, the day and
    /// a time or a year as `ls -l` and mc's panels lay them out in twelve cells
    /// (`Dec  7 19:03`, `Jan  2  2020`), with twelve [`MASK`] marks: the columns after it
    /// stay where they were (mc's panel border), whether the file is recent (a time) or older
    /// (a year). A plain replacement, as [`Redactions::regex`] makes: it also serves
    /// [`snapshot_settings`]. For a listing's other columns that differ between machines
    /// (a directory's size, the owner), see [`Redactions::user`] or a pattern of your own.
    ///
    /// Limits: the month is one of the twelve English abbreviations, `Jan` to `Dec`, as the C
    /// locale writes them (the kit's sessions run with `LC_ALL=C.UTF-8`); a listing in
    /// another locale (`déc.`, `Dez`, `12月`, a session given its own `LC_ALL` or `LANG`)
    /// is left as it is. mc's panels show the twelve cells in a terminal of 70 columns or
    /// more (two panels side by side: the kit's default 80 columns are enough); narrower,
    /// mc cuts the column's start (`c  7 19:03` at 60 columns, `  7 19:03` at 50): what is
    /// left of it between the panel's borders (`│`, or `|` with `mc -a`), nine cells at
    /// least, is masked as many cells as it has. GNU `tar tv` writes ISO dates
    /// (`2026-12-07 19:03`): see [`Redactions::dates`] and [`Redactions::short_times`].
    ///
    /// ```
    /// use termloom::testing::Redactions;
    ///
    /// let redactions = Redactions::new().file_times();
    /// let listing = "│ notes.txt │   3│Dec  7 19:03│\n-rw-r--r-- 1 3 Jan  2  2020 old";
    /// assert_eq!(
    ///     redactions.apply(listing),
    ///     "│ notes.txt │   3│▒▒▒▒▒▒▒▒▒▒▒▒│\n-rw-r--r-- 1 3 ▒▒▒▒▒▒▒▒▒▒▒▒ old"
    /// );
    /// // mc at 60 columns: the column's start cut.
    /// let cut = "│ notes.txt │    3│c  7 19:03│";
    /// assert_eq!(redactions.apply(cut), "│ notes.txt │    3│▒▒▒▒▒▒▒▒▒▒│");
    /// ```
    pub fn file_times(self) -> Redactions {
        let marks = |cells: usize| -> String { std::iter::repeat_n(MASK, cells).collect() };
        // The day and a year or a time, nine cells; before them, the month whole or, in mc's
        // narrower panels, what is left of its end, between the column's borders.
        let rest = r"[ 1-3]\d (?: \d{4}|[0-2]\d:[0-5]\d)";
        let mut redactions = self.regex(&format!(r"\b(?:{MONTHS}) {rest}\b"), &marks(12));
        for (cut, cells) in [("[a-z]{2} ", 11), ("[a-z] ", 10), (" ", 9)] {
            redactions = redactions.regex(
                &format!(r"([│|]){cut}{rest}([│|])"),
                &format!("${{1}}{}${{2}}", marks(cells)),
            );
        }
        redactions
    }

    /// Masks the disk usage mc shows in the bottom border of each file panel,
    /// `└──── 184G / 252G (72%) ─┘`, cell by cell with [`MASK`] (as [`Redactions::mask`]
    /// does), together with the blank and the run of `─` mc draws before it: the text changes
    /// from run to run (the disk fills) and its width from machine to machine
    /// (`1.2T / 2.0T (60%)`), and the border's length with it, but not the two together: the
    /// row is the same on every machine. It takes two sizes with a unit (`K` to `Y`, `k` to
    /// `y` with mc's SI units, decimals allowed; `0`, mc's empty disk, alone), a slash, a
    /// percentage in brackets, and then the border's end, ` ─┘` (` -+` with `mc -a`'s ASCII
    /// border, whose run before is of `-`), which stays: `Progress 3 / 4 (75%)` or
    /// `3G / 4G (75%) copied` is left as it is. As a mask, it cannot be an insta filter
    /// ([`snapshot_settings`] panics on it).
    ///
    /// ```
    /// use termloom::testing::Redactions;
    ///
    /// let redactions = Redactions::new().disk_usage();
    /// assert_eq!(redactions.apply("└─── 2G / 9G (22%) ─┘"), "└▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒ ─┘");
    /// assert_eq!(redactions.apply("Progress 3 / 4 (75%) done"), "Progress 3 / 4 (75%) done");
    /// ```
    pub fn disk_usage(self) -> Redactions {
        let size = r"(?:\d+(?:[.,]\d+)?[KMGTPEZYkmgtpezy]|0)";
        let usage = format!(r"{size} / {size} \(\d{{1,3}}%\)");
        self.mask(&format!(r"(?P<mask>─* ?{usage}) ─┘"))
            .mask(&format!(r"(?P<mask>-* ?{usage}) -\+"))
    }

    /// Replaces ISO dates (`2024-05-17`) with `[DATE]`, also the date of an ISO 8601
    /// timestamp (`2024-05-17T09:41:07Z` becomes `[DATE]T09:41:07Z`; see
    /// [`Redactions::clock_times`] for the time); and dates in numbers with slashes and a
    /// year: `2024/05/17`, and `05/17/24` or `05/17/2024` (the C locale's `%x` and `%D`, as
    /// `date +%x` and `strftime` write them in the kit's sessions; `17/05/2024` too, either
    /// way round). A month is 1 to 12 and a day 1 to 31; a two-digit year is taken only after
    /// a two-digit month and day (`4/8/16` is as likely a count); and no date is taken right
    /// after a `/`, a `.` or a word character (`frames 24/30/60`, `cache 4/8/16`,
    /// `/proc/12/08/26`, `go1.21/12/99` stay). A day and a month without a year (`12/08`)
    /// are left as they are: as likely a ratio, a count or a page (`3/4`, `12/08 done`); a
    /// pattern of your own can take them where a screen shows such a date
    /// ([`Redactions::regex`]). For dates with a
    /// month's name, see [`Redactions::month_days`].
    ///
    /// ```
    /// use termloom::testing::Redactions;
    ///
    /// let redactions = Redactions::new().dates();
    /// assert_eq!(
    ///     redactions.apply("2024-05-17, 2024/05/17, 05/17/24, 17/05/2024; 12/08 done"),
    ///     "[DATE], [DATE], [DATE], [DATE]; 12/08 done"
    /// );
    /// ```
    pub fn dates(self) -> Redactions {
        // `\b` cannot stand between the day and a `T` (both word characters): a `T` and what
        // follows it, the hour's first digit (or `[TIME]`, redacted first), are matched and
        // put back.
        self.regex(r"\b\d{4}-\d{2}-\d{2}(T[\d\[]|\b)", "[DATE]${1}")
            .regex(&slashed_dates(), "${1}[DATE]")
    }

    /// Replaces durations with a unit (`1.5s`, `250ms`, `3 µs`, `2m10s`) with `[DURATION]`.
    pub fn durations(self) -> Redactions {
        self.regex(r"\b(\d+h)?(\d+m)?\d+(\.\d+)?\s?(ns|us|µs|ms|s)\b", "[DURATION]")
    }

    /// Replaces the number after the word `pid` or `process`, in any case (as in `pid 4242`,
    /// `PID: 4242`, `(process 4242)`), with `[PID]`; the word stays: `process [PID]`.
    pub fn pids(self) -> Redactions {
        self.regex(r"\b(?i:(pid|process))(\s*[:=]?\s*)\d+\b", "$1$2[PID]")
    }

    /// Replaces a given process id wherever it appears as a number of its own: a small pid
    /// (in a container, where pids start at 1) can also be a count or a size on the screen,
    /// which is then replaced too.
    pub fn pid(self, pid: i32) -> Redactions {
        self.regex(&format!(r"\b{pid}\b"), "[PID]")
    }

    /// Replaces hexadecimal addresses of at least four digits (`0x7ffd1234`) with `[ADDR]`.
    pub fn hex_addresses(self) -> Redactions {
        self.regex(r"\b0x[0-9a-fA-F]{4,}\b", "[ADDR]")
    }

    /// Adds every filter and mask of `other` after this one's.
    /// (A path of `other` goes before a shorter one of this that holds it, as
    /// [`Redactions::path`] says.)
    pub fn and(mut self, other: Redactions) -> Redactions {
        for (filter, compiled) in other.filters.into_iter().zip(other.compiled) {
            self.push_filter(filter, compiled);
        }
        self.masks.extend(other.masks);
        self.compiled_masks.extend(other.compiled_masks);
        self
    }

    /// The replacements as (regular expression, replacement) pairs, in order.
    pub fn filters(&self) -> &[(String, String)] {
        &self.filters
    }

    /// The masks' regular expressions, in order.
    pub fn masks(&self) -> &[String] {
        &self.masks
    }

    /// Applies the redactions to a text: the replacements in order, then the masks.
    pub fn apply(&self, text: &str) -> String {
        self.apply_mapped(text).text
    }

    /// [`Redactions::apply`], keeping track of where each character of `text` went.
    fn apply_mapped(&self, text: &str) -> Mapped {
        let mut mapped = Mapped::new(text);
        for ((_, replacement), compiled) in self.filters.iter().zip(&self.compiled) {
            // A path's filter twice: see `Redactions::path`.
            for _ in 0..passes(compiled) {
                mapped.replace(&compiled.re, |found, out| found.expand(replacement, out));
            }
        }
        for re in &self.compiled_masks {
            let grouped = re.capture_names().flatten().any(|name| name == "mask");
            mapped.replace(re, |found, out| {
                let whole = found.get(0).expect("group 0 is the match");
                // A `mask` group that took no part in the match masks nothing.
                let Some(masked) = found.name("mask").or((!grouped).then_some(whole)) else {
                    out.push_str(whole.as_str());
                    return;
                };
                let (start, end) = (masked.start() - whole.start(), masked.end() - whole.start());
                let cells = unicode_width::UnicodeWidthStr::width(masked.as_str());
                out.push_str(&whole.as_str()[..start]);
                out.extend(std::iter::repeat_n(MASK, cells));
                out.push_str(&whole.as_str()[end..]);
            });
        }
        mapped
    }

    /// Applies the redactions to a screen's rows and title (see [`Redactions::apply`]); the
    /// size and modes stay as they are. Rows the terminal wrapped (a line longer than the
    /// width goes on in the next row) are redacted as the one line they show, so a path
    /// wrapped over two rows is still found; a line a redaction changed is laid out again over
    /// the same rows, cut at the terminal's width (the last of its rows keeps what is left
    /// over, and rows it no longer needs are left empty). Every other row stays as it was, and
    /// so does an empty line (a pattern that matches the empty text is not applied there).
    /// A cursor on a changed line moves with the text after the change (after a prompt that
    /// shows a redacted path, it is where the redacted prompt ends), so its position does not
    /// depend on what was redacted either.
    ///
    /// [`assert_screen_snapshot!`] redacts a [`TestSession`]'s screen this way.
    pub fn apply_to_screen(&self, screen: &Screen) -> Screen {
        self.redact_screen(screen, &mut Vec::new())
    }

    /// Applies the redactions to a styled screen: its screen as
    /// [`Redactions::apply_to_screen`] does, and its runs of colours and attributes moved with
    /// the text on the lines a redaction changed, so that they still cover the cells they
    /// styled (a run over a replaced text covers its replacement; what a replacement puts
    /// back as it was at either end of its match, such as a pattern's `${1}` or a mask's
    /// context, keeps its own runs).
    ///
    /// [`assert_screen_snapshot!`] redacts [`TestSession::with_styles`] this way.
    pub fn apply_to_styled_screen(&self, styled: &StyledScreen) -> StyledScreen {
        let mut runs = styled.runs.clone();
        let screen = self.redact_screen(&styled.screen, &mut runs);
        StyledScreen { screen, runs }
    }

    /// [`Redactions::apply_to_screen`], moving `runs` (of that screen) with the text.
    fn redact_screen(&self, screen: &Screen, runs: &mut Vec<crate::StyleRun>) -> Screen {
        let mut out = screen.clone();
        if self.filters.is_empty() && self.masks.is_empty() {
            return out;
        }
        out.title = self.apply(&screen.title);
        let cols = screen.cols.max(1);
        let wraps = |row: usize| screen.wrapped.get(row).copied().unwrap_or(false);
        let mut first = 0;
        while first < screen.lines.len() {
            let mut end = first + 1;
            while end < screen.lines.len() && wraps(end - 1) {
                end += 1;
            }
            // The logical line: a wrapped row is as wide as the terminal, its trailing blanks
            // (trimmed from the row's text) included.
            let mut line = String::new();
            for row in first..end {
                line.push_str(&screen.lines[row]);
                if row + 1 < end {
                    let width =
                        crate::term::screen::cell_col(&screen.lines[row], screen.lines[row].len());
                    line.extend(std::iter::repeat_n(' ', usize::from(cols.saturating_sub(width))));
                }
            }
            // (An empty line has nothing to redact: most of a big screen's rows.)
            if line.is_empty() {
                first = end;
                continue;
            }
            let mapped = self.apply_mapped(&line);
            let redacted = &mapped.text;
            if *redacted != line {
                out.lines.splice(first..end, split_rows(redacted, cols, end - first));
                let rows = first as u16..end as u16;
                let (mut moved, mut kept) = (Vec::new(), Vec::new());
                for run in runs.drain(..) {
                    match rows.contains(&run.row) {
                        true => moved.extend(mapped.move_run(
                            &line,
                            run,
                            first as u16,
                            end as u16,
                            cols,
                        )),
                        false => kept.push(run),
                    }
                }
                kept.extend(moved);
                kept.sort_by_key(|run| (run.row, run.col));
                *runs = kept;
                let row = usize::from(screen.cursor.row);
                if (first..end).contains(&row) {
                    let at = (row - first) * usize::from(cols) + usize::from(screen.cursor.col);
                    let moved = moved_offset(&line, redacted, at);
                    let last = end - first - 1;
                    let (down, col) = match moved / usize::from(cols) {
                        down if down > last => (last, moved - last * usize::from(cols)),
                        down => (down, moved % usize::from(cols)),
                    };
                    out.cursor.row = (first + down) as u16;
                    out.cursor.col = col.min(usize::from(cols) - 1) as u16;
                }
            }
            first = end;
        }
        out
    }

    /// Applies the redactions to a screen snapshot's rows and title only: the size, cursor
    /// and style lines are the snapshot's own and stay as they are. The text does not say
    /// which rows the terminal wrapped, so each row is redacted alone: redact the screen with
    /// [`Redactions::apply_to_screen`] before formatting it to find texts wrapped over rows.
    pub fn apply_to_screen_snapshot(&self, snapshot: &str) -> String {
        if self.filters.is_empty() && self.masks.is_empty() {
            return snapshot.to_owned();
        }
        let mut out = String::with_capacity(snapshot.len());
        for line in snapshot.split_inclusive('\n') {
            let row = line.find(" │").filter(|&at| {
                at > 0 && line[..at].trim_start().chars().all(|c| c.is_ascii_digit())
            });
            match (row, line.strip_prefix("title: ")) {
                (Some(at), _) => {
                    let start = at + " │".len();
                    out.push_str(&line[..start]);
                    out.push_str(&self.apply(&line[start..]));
                }
                (None, Some(title)) => {
                    out.push_str("title: ");
                    out.push_str(&self.apply(title));
                }
                (None, None) => out.push_str(line),
            }
        }
        out
    }

    /// Adds the replacements to insta settings as filters.
    ///
    /// # Panics
    ///
    /// When there are masks, which insta filters cannot apply (a filter replaces a match with
    /// a fixed text, a mask with as many marks as the match has cells): mask the text with
    /// [`Redactions::apply`] before asserting it.
    #[track_caller]
    pub fn apply_to(&self, settings: &mut insta::Settings) {
        if !self.masks.is_empty() {
            panic!(
                "termloom: insta settings cannot mask {:?}: insta filters replace a match with a fixed text; mask the text with Redactions::apply before asserting it, or replace the match with Redactions::regex",
                self.masks
            );
        }
        for ((pattern, replacement), compiled) in self.filters.iter().zip(&self.compiled) {
            for _ in 0..passes(compiled) {
                settings.add_filter(pattern, replacement.as_str());
            }
        }
    }
}

/// A text redacted, with where each character boundary of the original went.
struct Mapped {
    /// The redacted text.
    text: String,
    /// For each character boundary of the original (0 to its length), that boundary in
    /// `text`, for what begins there: inside a replaced match, the replacement's start.
    starts: Vec<usize>,
    /// The same for what ends there: inside a replaced match, the replacement's end.
    ends: Vec<usize>,
}

impl Mapped {
    /// `text` unchanged.
    fn new(text: &str) -> Mapped {
        let boundaries: Vec<usize> = (0..=text.chars().count()).collect();
        Mapped { text: text.to_owned(), starts: boundaries.clone(), ends: boundaries }
    }

    /// Replaces every match of `re` with what `with` writes, as `Regex::replace_all` does,
    /// and moves the boundaries.
    fn replace(
        &mut self,
        re: &regex::Regex,
        mut with: impl FnMut(&regex::Captures<'_>, &mut String),
    ) {
        // (start, end, replacement's length) in characters of the text before the change.
        let mut changes = Vec::new();
        let (mut out, mut last, mut chars) = (String::new(), 0, 0);
        for found in re.captures_iter(&self.text) {
            let whole = found.get(0).expect("group 0 is the match");
            let kept = &self.text[last..whole.start()];
            out.push_str(kept);
            let start = chars + kept.chars().count();
            let end = start + whole.as_str().chars().count();
            let before = out.len();
            with(&found, &mut out);
            // What the replacement puts back as it was at either end (a pattern's `${1}`
            // before the replaced text, a mask's context) is kept, not replaced: a run that
            // ends before it does not spread over the replacement.
            let (same_start, same_end) = kept_ends(whole.as_str(), &out[before..]);
            let len = out[before..].chars().count();
            if (same_start, same_end) != (end - start, len) {
                changes.push((start + same_start, end - same_end, len - same_start - same_end));
            }
            (last, chars) = (whole.end(), end);
        }
        out.push_str(&self.text[last..]);
        self.text = out;
        move_boundaries(&mut self.starts, &changes, false);
        move_boundaries(&mut self.ends, &changes, true);
    }

    /// `run`, on rows `first..last_row` of a logical line `line` laid out over rows of `cols`
    /// cells, moved to where its cells went in the redacted text (laid out as
    /// [`split_rows`] does: the last row takes what is left over): one run per row it now
    /// covers, none if it covered nothing.
    fn move_run(
        &self,
        line: &str,
        run: crate::StyleRun,
        first: u16,
        last_row: u16,
        cols: u16,
    ) -> Vec<crate::StyleRun> {
        use unicode_width::UnicodeWidthStr;
        let cols_n = usize::from(cols);
        let offset = usize::from(run.row - first) * cols_n + usize::from(run.col);
        let (old_width, new_width) = (line.width(), self.text.width());
        // A cell offset within the original text, as where it went in the redacted text.
        let moved = |cells: usize, map: &[usize]| {
            let mut width = 0;
            let at = line.chars().take_while(|&c| {
                let before = width;
                width += usize::from(crate::term::screen::char_cells(c));
                before < cells
            });
            let at = map[at.count()];
            self.text.chars().take(at).collect::<String>().width()
        };
        // Cells past the text (a status bar's or a selection's colour filling the row) keep
        // their columns, but for what the redacted text now covers.
        let end = offset + usize::from(run.width);
        let from = match offset >= old_width {
            true => offset.max(new_width),
            false => moved(offset, &self.starts),
        };
        let to = match end > old_width {
            true => end.max(new_width),
            false => moved(end, &self.ends),
        };
        let last = usize::from(last_row - first - 1);
        let place = |cells: usize| match cells / cols_n {
            row if row > last => (last, cells - last * cols_n),
            row => (row, cells % cols_n),
        };
        let mut pieces = Vec::new();
        let (mut at, stop) = (from, to);
        while at < stop {
            let (row, col) = place(at);
            let room = if row == last { usize::MAX } else { cols_n - col };
            let width = (stop - at).min(room).min(cols_n.saturating_sub(col));
            if width == 0 {
                break;
            }
            let mut piece = run.clone();
            (piece.row, piece.col, piece.width) = (first + row as u16, col as u16, width as u16);
            pieces.push(piece);
            at += (stop - at).min(room);
        }
        pieces
    }
}

/// How many characters at the start and at the end of `found` a replacement `with` keeps as
/// they were, leaving at least one character of `found` replaced (a replacement that only
/// adds text replaces the match's last character, or its first); `(matched, replacement's
/// length)` when they are the same text.
fn kept_ends(found: &str, with: &str) -> (usize, usize) {
    let (old, new): (Vec<char>, Vec<char>) = (found.chars().collect(), with.chars().collect());
    if old == new {
        return (old.len(), new.len());
    }
    let start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let end = old[start..].iter().rev().zip(new[start..].iter().rev()).take_while(|(a, b)| a == b);
    let mut end = end.count();
    if !old.is_empty() && start + end >= old.len() {
        match end {
            0 => return (old.len() - 1, 0),
            _ => end = old.len() - start - 1,
        }
    }
    (start, end)
}

/// Where cell offset `at` of `line` is in `redacted`, the same line redacted: before the
/// part that changed it stays, after it (the cursor past a prompt that showed a redacted
/// path, say) it moves by the change in width, and inside it goes to the changed part's end.
fn moved_offset(line: &str, redacted: &str, at: usize) -> usize {
    use unicode_width::UnicodeWidthStr;
    let same_start = line.chars().zip(redacted.chars()).take_while(|(a, b)| a == b).count();
    let rest = |s: &str| s.chars().skip(same_start).collect::<Vec<_>>();
    let (old_rest, new_rest) = (rest(line), rest(redacted));
    let same_end = old_rest.iter().rev().zip(new_rest.iter().rev()).take_while(|(a, b)| a == b);
    let tail: String = old_rest[old_rest.len() - same_end.count()..].iter().collect();
    let before: String = line.chars().take(same_start).collect();
    let (old_width, new_width, after) = (line.width(), redacted.width(), tail.width());
    if at <= before.width() {
        at
    } else if at >= old_width - after {
        at + new_width - old_width
    } else {
        new_width - after
    }
}

/// `line` cut into `rows` rows of at most `cols` cells (a wide character that does not fit
/// goes to the next row), trailing blanks trimmed; the last row takes whatever is left over,
/// and rows left without text are empty.
pub(super) fn split_rows(line: &str, cols: u16, rows: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut width = 0u16;
    for c in line.chars() {
        let cells = crate::term::screen::char_cells(c);
        if cells > 0 && width + cells > cols && width > 0 && out.len() < rows {
            out.push(String::new());
            width = 0;
        }
        width += cells;
        out.last_mut().expect("one row at least").push(c);
    }
    for row in &mut out {
        row.truncate(row.trim_end_matches(' ').len());
    }
    out.resize(rows.max(1), String::new());
    out
}

/// Moves `boundaries` (non-decreasing, in characters of a text before `changes`: (start, end,
/// replacement's length), in order, not overlapping) to the text after them: one inside a
/// replaced match to the replacement's start, or its end for `ends`. One walk over both
/// (each boundary looked up among the changes anew cost boundaries × changes: 4 s for a
/// 100 KB text with 7,600 paths replaced, review xf).
fn move_boundaries(boundaries: &mut [usize], changes: &[(usize, usize, usize)], ends: bool) {
    // (The changes wholly before the boundary, and what they added to its place.)
    let (mut passed, mut added) = (0, 0isize);
    for at in boundaries {
        while let Some(&(start, end, len)) = changes.get(passed) {
            if *at <= start || *at < end {
                break;
            }
            added += len as isize - (end - start) as isize;
            passed += 1;
        }
        let inside = changes.get(passed).filter(|&&(start, end, _)| start < *at && *at < end);
        let moved = match inside {
            Some(&(start, _, len)) => (if ends { start + len } else { start }) as isize,
            None => *at as isize,
        };
        *at = (moved + added) as usize;
    }
}

/// What may stand before a path [`Redactions::path`] replaces, a pattern: the start of the
/// text or a character that does not go on a file name (`/` neither: `/mnt/x` is not `/x`;
/// nor `]`, which ends the kit's replacements: `[CRATE]/w/c` of a crate at `/w/c` holding a
/// folder `w/c` is not replaced again by the second pass, nor a crate's path in `[HOME]`'s
/// rest by another filter), either with a short option after it (`-I/x`, `-L/x`, as
/// compilers take them) or a diff's or a response file's sign (`+/x`, `-/x`, `@/x`), or a
/// `file://` URL's scheme (also JSON-escaped, `file:\/\/`).
const PATH_START: &str = r"(?:^|[^\w.\-+~@%/\]])(?:-[A-Za-z]|[-+@])?|file://|file:\\/\\/";

/// How many times a filter is applied: a path's twice, so that one right after another, the
/// character between them taken as the first one's end, is replaced too.
fn passes(compiled: &Compiled) -> usize {
    match compiled.path {
        Some(_) => 2,
        None => 1,
    }
}

/// The months' English abbreviations, as a regular expression's alternatives.
const MONTHS: &str = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec";

/// The months' English names, whole or abbreviated (`Sept` too), as a regular expression's
/// alternatives.
const MONTH_NAMES: &str = "Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|\
                           Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?";

/// The days of the week in English, whole or abbreviated, as a regular expression's
/// alternatives.
const WEEKDAYS: &str =
    "Mon(?:day)?|Tue(?:sday)?|Wed(?:nesday)?|Thu(?:rsday)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?";

/// The target directories of the running test binary's build (see
/// [`Redactions::target_dir`]), absolute.
fn target_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    // `<target>/<profile>/deps/<binary>`, or with `--target`
    // `<target>/<triple>/<profile>/deps/<binary>`: a triple such as `x86_64-unknown-linux-gnu`
    // has two dashes at least, and beside it is the same profile's folder for the host
    // (build scripts), `<target>/<profile>`.
    let exe = std::env::current_exe().ok();
    let from_exe = exe.as_deref().and_then(|exe| {
        let deps = exe.parent()?;
        let profile = deps.parent().filter(|_| deps.file_name() == Some("deps".as_ref()))?;
        let (above, name) = (profile.parent()?, profile.file_name()?);
        let triple = above.file_name()?.to_string_lossy().matches('-').count() >= 2
            && above.parent().is_some_and(|up| up.join(name).is_dir());
        match triple {
            true => above.parent(),
            false => Some(above),
        }
    });
    dirs.extend(from_exe.map(Path::to_path_buf));
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from)
        && dir.is_absolute()
    {
        dirs.push(dir);
    }
    dirs
}

/// This process's user name in the password database (`/etc/passwd`), else `USER`.
fn user_name() -> Option<String> {
    let uid = rustix::process::getuid().as_raw().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .map(|line| line.split(':').collect::<Vec<_>>())
        .find(|fields| fields.get(2) == Some(&uid.as_str()))
        .and_then(|fields| fields.first().map(|name| (*name).to_owned()))
        .or_else(|| std::env::var("USER").ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many paths in a long text cost time in proportion to the text (review xf: each
    /// character's place was looked up among all the replacements, 4 s for 7,600 paths in
    /// 100 KB; these 20,000 in 300 KB took minutes), and every character keeps its place.
    #[test]
    fn many_paths_replaced_cost_time_in_proportion() {
        let krate = Redactions::new().path(Path::new("/w/c"), "[C]");
        let text = "at /w/c/src/lib.rs:1 ".repeat(20_000);
        let started = std::time::Instant::now();
        let mapped = krate.apply_mapped(&text);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "took {:?}",
            started.elapsed()
        );
        assert_eq!(mapped.text, "at [C]/src/lib.rs:1 ".repeat(20_000));
        let piece = "at /w/c/src/lib.rs:1 ".chars().count();
        let last = 19_999 * piece;
        // The last piece's `/w/c` went to its `[C]`: its start to the replacement's start,
        // its end to the replacement's end; the text after it moved by what each took away.
        let moved = 19_999 * "at [C]/src/lib.rs:1 ".chars().count();
        assert_eq!((mapped.starts[last + 3], mapped.ends[last + 5]), (moved + 3, moved + 6));
        assert_eq!(mapped.starts[last + piece], moved + "at [C]/src/lib.rs:1 ".len());
    }
}
