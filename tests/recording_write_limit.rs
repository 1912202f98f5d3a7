//! A recording kept under its temporary name whose later write fails: in a test binary of its
//! own, since the file size limit it sets (`RLIMIT_FSIZE`) holds for the whole process.

mod common;

use common::*;
use termloom::Until;

/// A recording that could not be put at its path (kept whole under its temporary name) and
/// whose file then could not be written to its end says both: `recording_write_failed`, and a
/// heading that says it lacks the rest. Before, the heading said only `recording not at its
/// path`, which reads as whole (review ur).
#[test]
fn a_recording_kept_elsewhere_whose_write_failed_says_it_lacks_the_rest() {
    let dir = TestDir::new("recording-kept-write-fails");
    let path = dir.join("out.cast");
    let engine = engine();
    let (session, kept) = kept_recording(&engine, &path);
    let info = session.info().unwrap();
    assert!(!info.recording_write_failed, "{info:?}");
    assert_eq!(info.recording_heading(), Some("recording not at its path"));
    // Writes past the file's size now fail (EFBIG, the signal ignored).
    let size = std::fs::metadata(&kept).unwrap().len();
    // SAFETY: ignoring a signal and lowering a limit of this process, with valid arguments;
    // no other test runs in this binary.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let limit = libc::rlimit { rlim_cur: size + 200, rlim_max: libc::RLIM_INFINITY };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
    session.send_text(&format!("{}\n", "y".repeat(2_000))).unwrap();
    expect(&session, Until::text("yyyy"));
    session.close().unwrap();
    let info = session.info().unwrap();
    assert!(info.recording_write_failed, "{info:?}");
    assert_eq!(info.recording_kept_at.as_ref(), Some(&kept));
    assert_eq!(info.recording_heading(), Some("recording not at its path, and it lacks the rest"));
}
