//! Snapshots: [`SnapshotSource`], insta's settings, [`assert_screen_snapshot!`], and
//! pictures of failed snapshots.

use super::*;

/// Something [`assert_screen_snapshot!`] can snapshot: a [`TestSession`], a [`Session`], a
/// [`Screen`], or with colours and attributes a [`StyledScreen`] or
/// [`TestSession::with_styles`].
pub trait SnapshotSource {
    /// The text to store, before redaction.
    fn snapshot_text(&self) -> String;

    /// Where the snapshot goes.
    fn snapshot_folder(&self) -> SnapshotFolder {
        SnapshotFolder::CrateRoot
    }

    /// The styled screen, drawn as a picture when the snapshot does not match (every source
    /// of the kit has one).
    fn snapshot_picture(&self) -> Option<StyledScreen> {
        None
    }

    /// The text to store: [`SnapshotSource::snapshot_text`] with the redactions applied to
    /// its rows and title.
    fn redacted_snapshot_text(&self) -> String {
        self.snapshot_redactions().apply_to_screen_snapshot(&self.snapshot_text())
    }

    /// The redactions to apply: by default every [`TestSession`]'s temporary home
    /// ([`Redactions::test_homes`]).
    fn snapshot_redactions(&self) -> Redactions {
        Redactions::new().test_homes()
    }

    /// A line describing what was snapshotted, stored in the snapshot's header.
    fn snapshot_description(&self) -> Option<String> {
        None
    }
}

impl SnapshotSource for TestSession {
    fn snapshot_text(&self) -> String {
        format_screen(&self.screen())
    }

    /// The screen redacted with [`Redactions::apply_to_screen`], which sees texts wrapped
    /// over rows, then formatted: [`TestSession::snapshot`].
    fn redacted_snapshot_text(&self) -> String {
        self.snapshot()
    }

    fn snapshot_redactions(&self) -> Redactions {
        self.redactions.clone()
    }

    fn snapshot_description(&self) -> Option<String> {
        Some(format!("`{}`", self.command))
    }

    fn snapshot_folder(&self) -> SnapshotFolder {
        self.snapshot_folder
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        self.session.styled_screen().ok()
    }
}

impl SnapshotSource for WithStyles<'_> {
    fn snapshot_text(&self) -> String {
        format_styled_screen(&self.0.styled_screen())
    }

    /// The styled screen's rows and title redacted with [`Redactions::apply_to_styled_screen`]
    /// (the `styles:` section's runs move with the text), then formatted:
    /// [`TestSession::styled_snapshot`].
    fn redacted_snapshot_text(&self) -> String {
        self.0.styled_snapshot()
    }

    fn snapshot_redactions(&self) -> Redactions {
        self.0.snapshot_redactions()
    }

    fn snapshot_description(&self) -> Option<String> {
        self.0.snapshot_description()
    }

    fn snapshot_folder(&self) -> SnapshotFolder {
        self.0.snapshot_folder()
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        self.0.snapshot_picture()
    }
}

impl SnapshotSource for StyledScreen {
    fn snapshot_text(&self) -> String {
        format_styled_screen(self)
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        Some(self.clone())
    }
}

impl SnapshotSource for Session {
    fn snapshot_text(&self) -> String {
        match self.screen() {
            Ok(screen) => format_screen(&screen),
            Err(e) => panic!("termloom: cannot read the screen of session {}: {e}", self.id()),
        }
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        self.styled_screen().ok()
    }
}

impl SnapshotSource for Screen {
    fn snapshot_text(&self) -> String {
        format_screen(self)
    }

    /// The screen without colours (a plain screen has none).
    fn snapshot_picture(&self) -> Option<StyledScreen> {
        Some(StyledScreen { screen: self.clone(), runs: Vec::new() })
    }
}

impl<T: SnapshotSource + ?Sized> SnapshotSource for &T {
    fn snapshot_text(&self) -> String {
        (**self).snapshot_text()
    }

    fn redacted_snapshot_text(&self) -> String {
        (**self).redacted_snapshot_text()
    }

    fn snapshot_redactions(&self) -> Redactions {
        (**self).snapshot_redactions()
    }

    fn snapshot_description(&self) -> Option<String> {
        (**self).snapshot_description()
    }

    fn snapshot_folder(&self) -> SnapshotFolder {
        (**self).snapshot_folder()
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        (**self).snapshot_picture()
    }
}

/// A snapshot source that can wait for its program, for [`assert_screen_snapshot!`]'s
/// `after = "text"`: a [`TestSession`] and [`TestSession::with_styles`]. Not public API.
#[doc(hidden)]
pub trait __SettleAfter {
    /// Waits for `text` on the screen, then for the program to wait for input with a settled
    /// screen, or to exit (its screen then final).
    #[track_caller]
    fn __settle_after(&self, text: &str);
}

impl __SettleAfter for TestSession {
    #[track_caller]
    fn __settle_after(&self, text: &str) {
        self.wait_for_screen_text(text).settled(format!(
            "waiting, after {text:?} was shown, for the program to wait for input with a still screen (or to exit)"
        ));
    }
}

impl __SettleAfter for WithStyles<'_> {
    #[track_caller]
    fn __settle_after(&self, text: &str) {
        self.0.__settle_after(text);
    }
}

impl<T: __SettleAfter + ?Sized> __SettleAfter for &T {
    #[track_caller]
    fn __settle_after(&self, text: &str) {
        (**self).__settle_after(text);
    }
}

/// insta settings for screen snapshots: snapshots stored in `snapshot_dir` (use
/// `concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots")` for the crate's top-level `snapshots/`
/// folder), named `<test file>__<name>.snap`, with the redactions as filters. Starts from the
/// settings in effect, so an enclosing `insta::with_settings!` still applies.
///
/// Masks ([`Redactions::mask`]) cannot be insta filters (a filter replaces a match with a fixed
/// text, a mask with as many marks as the match has cells): mask the text with
/// [`Redactions::apply`] before asserting it.
///
/// # Panics
///
/// When `redactions` has masks, which the settings would silently leave out.
///
/// [`assert_screen_snapshot!`] uses it; call it directly to snapshot something else in the
/// same place:
///
/// ```no_run
/// use termloom::testing::{Redactions, snapshot_settings};
///
/// let settings = snapshot_settings(
///     concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
///     &Redactions::new().clock_times(),
/// );
/// settings.bind(|| insta::assert_snapshot!("report", "generated at 12:00:00"));
/// ```
#[track_caller]
pub fn snapshot_settings(
    snapshot_dir: impl AsRef<Path>,
    redactions: &Redactions,
) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(snapshot_dir.as_ref());
    settings.set_prepend_module_to_snapshot(true);
    settings.set_omit_expression(true);
    redactions.apply_to(&mut settings);
    settings
}

/// The settings [`assert_screen_snapshot!`] binds: a source's folder (`crate_snapshots` for
/// [`SnapshotFolder::CrateRoot`]), no filters (the text is redacted already, in its rows
/// only). Not public API.
#[doc(hidden)]
pub fn __settings_for(folder: SnapshotFolder, crate_snapshots: &str) -> insta::Settings {
    match folder {
        SnapshotFolder::CrateRoot => snapshot_settings(crate_snapshots, &Redactions::new()),
        SnapshotFolder::Insta => {
            let mut settings = insta::Settings::clone_current();
            settings.set_omit_expression(true);
            settings
        }
    }
}

/// Asserts a screen snapshot with insta, stored in the top-level `snapshots/` folder of the
/// crate whose test calls it (or insta's own, see [`SnapshotFolder`]).
///
/// `assert_screen_snapshot!(session)` names the snapshot after the test function (a second
/// one in the same test gets `-2`...); `assert_screen_snapshot!("name", session)` names it.
/// `session` is a [`TestSession`] (or its
/// [`with_styles`](crate::testing::TestSession::with_styles)), a [`Session`],
/// a [`Screen`] or a [`StyledScreen`] (or a reference to
/// one); a `TestSession`'s redactions are
/// applied to the rows and the title (never to the size; the cursor and the style runs move
/// with the text on a changed line; a [`Redactions::mask`] keeps the columns) and its command
/// line is the snapshot's description.
///
/// `assert_screen_snapshot!("name", session, after = "text")` (or, named after the test,
/// `assert_screen_snapshot!(session, after = "text")`) first waits for `text` on the screen,
/// for the program to wait for input and for the screen to settle, or for the program to exit
/// (a command that prints its result and ends): one call per step (for a `TestSession` or its
/// [`with_styles`](crate::testing::TestSession::with_styles)).
/// The source is evaluated once.
///
/// A mismatch fails the test with a diff and leaves a `.snap.new` file for
/// `cargo insta review`; `INSTA_UPDATE=always` (or `cargo insta test --accept`) writes the new
/// snapshots, and with `CI=true` nothing is written.
///
/// ```no_run
/// use termloom::assert_screen_snapshot;
/// use termloom::testing::TestSession;
///
/// let vim = TestSession::builder("vim").args(["-u", "NONE", "notes.txt"]).start();
/// vim.wait_for_screen_text("notes.txt").wait_stable();
/// assert_screen_snapshot!("vim_empty_file", vim);
/// ```
#[macro_export]
macro_rules! assert_screen_snapshot {
    ($source:expr, after = $text:expr $(,)?) => {{
        let __termloom_after = &$source;
        $crate::testing::__SettleAfter::__settle_after(__termloom_after, $text);
        $crate::assert_screen_snapshot!(__termloom_after);
    }};
    ($source:expr $(,)?) => {{
        let __termloom_source = &$source;
        let __termloom_text =
            $crate::testing::SnapshotSource::redacted_snapshot_text(__termloom_source);
        let __termloom_guard = $crate::__termloom_snapshot_settings!(__termloom_source);
        let __termloom_picture = $crate::testing::__PictureOnFailure(
            $crate::testing::SnapshotSource::snapshot_picture(__termloom_source),
        );
        $crate::testing::insta::assert_snapshot!(__termloom_text);
        drop(__termloom_picture);
        drop(__termloom_guard);
    }};
    ($name:expr, $source:expr, after = $text:expr $(,)?) => {{
        let __termloom_after = &$source;
        $crate::testing::__SettleAfter::__settle_after(__termloom_after, $text);
        $crate::assert_screen_snapshot!($name, __termloom_after);
    }};
    ($name:expr, $source:expr $(,)?) => {{
        let __termloom_source = &$source;
        let __termloom_text =
            $crate::testing::SnapshotSource::redacted_snapshot_text(__termloom_source);
        let __termloom_guard = $crate::__termloom_snapshot_settings!(__termloom_source);
        let __termloom_picture = $crate::testing::__PictureOnFailure(
            $crate::testing::SnapshotSource::snapshot_picture(__termloom_source),
        );
        $crate::testing::insta::assert_snapshot!($name, __termloom_text);
        drop(__termloom_picture);
        drop(__termloom_guard);
    }};
}

/// Binds the snapshot settings for [`assert_screen_snapshot!`] (not public API).
#[doc(hidden)]
#[macro_export]
macro_rules! __termloom_snapshot_settings {
    ($source:expr) => {{
        let mut __termloom_settings = $crate::testing::__settings_for(
            $crate::testing::SnapshotSource::snapshot_folder($source),
            ::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        );
        if let ::core::option::Option::Some(description) =
            $crate::testing::SnapshotSource::snapshot_description($source)
        {
            __termloom_settings.set_description(description);
        }
        __termloom_settings.bind_to_scope()
    }};
}

/// Where pictures of failed screens go: `termloom-screens/` in the target directory of the
/// test binary (`target/termloom-screens/`), or in the temporary directory.
fn pictures_dir() -> PathBuf {
    let exe = std::env::current_exe().ok();
    let target = exe.as_deref().and_then(|exe| {
        let deps = exe.parent()?;
        (deps.file_name()? == "deps").then(|| deps.parent()?.parent())?
    });
    target.map_or_else(std::env::temp_dir, Path::to_path_buf).join("termloom-screens")
}

/// Writes `styled` as an SVG picture named after the running test; its path, or `None` if it
/// could not be written.
pub(super) fn save_picture(styled: &StyledScreen) -> Option<PathBuf> {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let dir = pictures_dir();
    std::fs::create_dir_all(&dir).ok()?;
    let test = std::thread::current().name().unwrap_or("test").replace("::", "__");
    let number = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("{test}-{}-{number}.svg", std::process::id()));
    std::fs::write(&path, styled.to_svg(&crate::SvgOptions::default())).ok()?;
    Some(path)
}

/// Saves a picture of a snapshot's screen if the snapshot assertion fails (it is dropped while
/// the test panics). Not public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct __PictureOnFailure(pub Option<StyledScreen>);

impl Drop for __PictureOnFailure {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(path) = self.0.as_ref().and_then(save_picture)
        {
            eprintln!("termloom: picture of the screen: {}", path.display());
        }
    }
}

/// A [`TestSessionBuilder`] for a binary of the package under test, by its name:
/// `bin!("todo")` is `TestSession::builder(env!("CARGO_BIN_EXE_todo"))` (Cargo builds the
/// package's binaries for its integration tests and names them in these variables).
///
/// ```ignore
/// use termloom::testing::bin;
///
/// let app = bin!("todo").arg("--demo").start();
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __termloom_bin {
    ($name:literal) => {
        $crate::testing::TestSession::builder(::core::env!(::core::concat!(
            "CARGO_BIN_EXE_",
            $name
        )))
    };
}

#[doc(inline)]
pub use crate::__termloom_bin as bin;
pub use crate::assert_screen_snapshot;
