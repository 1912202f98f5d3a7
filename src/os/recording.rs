//! Recording a session in asciicast v2 (the format `asciinema play` and `asciinema cat` read):
//! a header line, then one JSON array per event, `[seconds, "o" | "i" | "r" | "m", data]`.
//!
//! The file is made and its header written on the spawning thread (a path named by the
//! caller gets a new file beside it, renamed over it once the program started:
//! [`Recorder::commit`]; a file that cannot be replaced, or one a link of /proc names, is
//! written in place); events are handed to a
//! writer thread of the recording's own over a bounded channel, so the reactor never waits on
//! the disk. Should the writer fall behind by more than the channel holds (4,096 events or
//! 8 MiB of them, whichever comes first), events are dropped
//! and a marker says how many (with the next event queued, or at the end of the file),
//! rather than the reactor blocking. A file's recording stops at
//! its size bound (`Config::recording_file_bytes`), with a last marker that says so (and how
//! many events were dropped before it, should the writer have been behind). A
//! recording in memory keeps the header and the newest events within its bound instead (the
//! oldest go first; the header then gives the size of the newest resize among them).

use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::OpenOptions;
use std::io::{self, BufWriter, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
use serde_json::json;

use crate::types::SessionId;

/// Events queued for the writer before newer ones are dropped.
const QUEUE: usize = 4096;
/// Bytes of events queued for the writer before newer ones are dropped (an event of one read
/// of control bytes, escaped, is up to 384 KiB).
const QUEUE_BYTES: usize = 8 << 20;

/// Where a recording's events go.
#[derive(Debug)]
enum Sink {
    /// To the writer thread of a file.
    File(FileCast),
    /// Kept in memory.
    Memory(MemoryCast),
}

/// A recording to a file: the writer thread's queue, and the file's size bound.
#[derive(Debug)]
struct FileCast {
    tx: Sender<String>,
    /// Bytes queued for the writer.
    queued: Arc<AtomicUsize>,
    /// Bytes of lines handed to the writer, the header's included.
    written: u64,
    /// The most bytes the file may take (its last marker aside).
    limit: u64,
    /// The bound was reached: nothing more is recorded.
    full: bool,
    /// The line the writer adds after the last one queued: the marker of events dropped
    /// that no later event carried (the recorder's drop sets it).
    last_line: Arc<Mutex<Option<String>>>,
    /// What went wrong: the write that failed, once one did (nothing more is written), and
    /// a rename that failed.
    trouble: Arc<Trouble>,
}

/// A recording kept in memory: the header and the newest events within `limit` bytes, and
/// the newest output event before them even when it is larger.
#[derive(Debug)]
struct MemoryCast {
    header: serde_json::Value,
    /// Each event shared, so that a copy of the recording ([`Recorder::snapshot`]) costs the
    /// reactor a pointer an event, its text joined by the caller.
    events: VecDeque<Arc<str>>,
    bytes: usize,
    limit: usize,
    /// Events dropped from the front to stay within the limit.
    dropped: u64,
    /// How many events came after the newest output event, if there is one: it is never
    /// dropped.
    after_output: Option<usize>,
    /// The size of the newest resize dropped, which the events kept were drawn at (until a
    /// resize kept): the header says it instead of the starting size.
    resized: Option<(u64, u64)>,
}

/// A session's recording.
#[derive(Debug)]
pub(crate) struct Recorder {
    sink: Sink,
    started: Instant,
    /// The end of the last output chunk when it split a UTF-8 character.
    partial: Vec<u8>,
    /// The same for input (a paste is queued in pieces).
    partial_input: Vec<u8>,
    /// Events dropped since the last one that was queued.
    dropped: u64,
    /// Whether input is recorded too.
    input: bool,
    /// Input was left out since the last input recorded ([`Recorder::input_withheld`]): its
    /// marker is in the recording already.
    withholding: bool,
    path: Option<PathBuf>,
    /// Disconnects when the writer thread has flushed its last event (a file's recording).
    written: Option<Receiver<()>>,
    /// Where the file is, and whether it is the recorder's own.
    place: Place,
}

/// Where a recording's file is, and what of it is the recorder's own to remove should the
/// session not start.
#[derive(Debug)]
enum Place {
    /// A file made afresh beside the path, `temp` in the directory `dir`, renamed over `name`
    /// once the session started ([`Recorder::commit`]): whatever was at the path until then
    /// is left as it was, and a reader who had it open never sees the recording.
    /// `kept` is the temporary file's path, which a rename that failed leaves it at.
    Fresh { dir: OwnedFd, temp: OsString, name: OsString, kept: PathBuf },
    /// A file made at the path itself, which did not exist (a name the engine picked).
    Made,
    /// A FIFO, a device or a file written to in place, or the recorder's own file once the
    /// session started ([`Recorder::commit`]): not removed.
    Kept,
}

/// How many temporary names are tried, each after the last existed, before the recording is
/// refused (another's file by each of 16 random names is no accident).
const TEMP_TRIES: u32 = 16;

/// A temporary name for a recording's file, `.termloom-recording-XXXXXXXXXXXXXXXX.tmp`, of 64
/// random bits (the kernel's `getrandom`, or `/dev/urandom` where a sandbox refuses the call):
/// one no one can make beforehand to fail the recording. The names were
/// `.termloom-recording-PID-N.tmp`, N counting from 0, and the owner of the directory (or
/// anyone, in a sticky one: `/tmp`) who made the next hundred failed it. Its error carries no
/// OS error code, so that it is never taken for the directory's own refusal (which makes the
/// recording written in place).
fn temp_name() -> io::Result<OsString> {
    let mut random = [0u8; 8];
    let mut filled = 0;
    while filled < random.len() {
        match rustix::rand::getrandom(&mut random[filled..], rustix::rand::GetRandomFlags::empty())
        {
            Ok(n) => filled += n,
            Err(rustix::io::Errno::INTR) => {}
            // A seccomp filter (Docker's answers `EPERM`) or an old kernel (`ENOSYS`).
            Err(_) => {
                use std::io::Read;
                let urandom = std::fs::File::open("/dev/urandom")
                    .and_then(|mut file| file.read_exact(&mut random));
                urandom.map_err(|err| {
                    io::Error::other(format!("no random source for a temporary name: {err}"))
                })?;
                break;
            }
        }
    }
    Ok(OsString::from(format!(".termloom-recording-{:016x}.tmp", u64::from_ne_bytes(random))))
}

/// Makes a new file, mode 0600, in `dir` under the first name of `names` (one a try, at most
/// [`TEMP_TRIES`]) that does not exist: the file and its name.
fn make_temp(
    dir: &OwnedFd,
    mut names: impl FnMut() -> io::Result<OsString>,
) -> io::Result<(OwnedFd, OsString)> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut tries = 1;
    loop {
        let temp = names()?;
        match rustix::fs::openat(dir, &temp, flags, Mode::from_raw_mode(0o600)) {
            Ok(file) => return Ok((file, temp)),
            Err(rustix::io::Errno::EXIST) if tries < TEMP_TRIES => tries += 1,
            Err(rustix::io::Errno::EXIST) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("each of {TEMP_TRIES} random temporary names tried exists"),
                ));
            }
            Err(err) => return Err(err.into()),
        }
    }
}

/// Symbolic links followed one after another before the path is refused (Linux's own bound).
const MAX_LINKS: usize = 40;

/// What a path to record to stands for, its symbolic links followed.
#[derive(Debug)]
enum Resolved {
    /// A regular file, or nothing: replaced by a recording made afresh beside it, or written
    /// in place when it cannot be replaced ([`beside`]).
    File(PathBuf),
    /// A FIFO or a device (`/dev/null`, a terminal): written as it is, opened without
    /// following a link (one put there since would be another's to check).
    AsIs(PathBuf),
    /// A link of /proc (`/proc/self/fd/1`, where `/dev/stdout` and `/dev/fd/1` lead): it names
    /// an open file (a pipe, a memfd, a deleted file, the file a shell redirected output to)
    /// whatever the text it reads as, so it is opened through the link and written in place,
    /// never replaced.
    Through(PathBuf),
}

/// Whether `path` names a directory by its very spelling: it ends in `/`, `/.` or `..`.
fn names_a_directory(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let last = bytes.rsplit(|&b| b == b'/').next().unwrap_or(bytes);
    bytes.ends_with(b"/") || last == b"." || last == b".."
}

/// Whether the symbolic link at `path` is one of /proc's (on procfs: `/proc/self/fd/N`).
fn on_procfs(path: &Path) -> bool {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::open(path, flags, Mode::empty())
        .and_then(rustix::fs::fstatfs)
        .is_ok_and(|fs| fs.f_type == rustix::fs::PROC_SUPER_MAGIC)
}

/// Follows the symbolic links at the end of `path`, each of them only if the caller (the
/// effective user) or root owns it: a link of another user is refused, as a root caller led
/// by it (into that user's directory, or from it into the system's) would replace a file of
/// the link owner's choosing (`/etc/shadow`). A dangling link stands for the file it names;
/// a link of /proc stands for itself ([`Resolved::Through`]). A path that ends in `/` (or
/// `/.`, `..`) is refused: it names a directory.
fn resolve(path: &Path) -> io::Result<Resolved> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    let mut path = path.to_owned();
    for _ in 0..MAX_LINKS {
        if names_a_directory(&path) {
            let named = crate::error::quoted_os(path.as_os_str());
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                format!("{named} names a directory (it ends in `/`): name a file"),
            ));
        }
        let metadata = match std::fs::symlink_metadata(&path) {
            Ok(metadata) => metadata,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Resolved::File(path)),
            Err(err) => return Err(err),
        };
        let kind = metadata.file_type();
        if kind.is_file() {
            return Ok(Resolved::File(path));
        }
        if kind.is_dir() {
            return Err(io::Error::new(io::ErrorKind::IsADirectory, "it is a directory"));
        }
        if !kind.is_symlink() {
            return Ok(Resolved::AsIs(path));
        }
        // A link of /proc names an open file, not a path: its text (`pipe:[7]`,
        // `/memfd:rec (deleted)`, `/tmp/x (deleted)`) is no place to make a file. It is
        // checked before its owner: no one plants a link of /proc (the kernel makes each, owned
        // by the process it is of), and root recording to another user's process's
        // descriptor (`/proc/PID/fd/1`) was refused as led by another's link.
        if on_procfs(&path) {
            return Ok(Resolved::Through(path));
        }
        let owner = metadata.uid();
        if owner != me && owner != 0 {
            let link = crate::error::quoted_os(path.as_os_str());
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "the symbolic link {link} is another user's (uid {owner}), and a recording follows only the caller's or root's: remove it, or name the file it points to"
                ),
            ));
        }
        let target = std::fs::read_link(&path)?;
        path = path.parent().map_or_else(|| target.clone(), |dir| dir.join(&target));
    }
    Err(rustix::io::Errno::LOOP.into())
}

/// The descriptor of this process's that the link of /proc `link` is (`/proc/self/fd/1`,
/// where `/dev/stdout` leads), if it is one.
fn own_descriptor(link: &Path) -> Option<std::os::fd::RawFd> {
    let fd = link.file_name()?.to_str()?.parse().ok()?;
    let dir = std::fs::canonicalize(link.parent()?).ok()?;
    let process = Path::new("/proc").join(std::process::id().to_string());
    let own = dir == process.join("fd")
        || (dir.starts_with(process.join("task")) && dir.file_name()? == "fd");
    own.then_some(fd)
}

/// Makes a regular file written in place private (mode 0600) and empties it, as the
/// recording it is to hold needs; anything else (a pipe, a device) is left as it is.
fn in_place(file: std::fs::File) -> io::Result<std::fs::File> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = file.metadata()?;
    if metadata.is_file() {
        if metadata.permissions().mode() & 0o7077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(|err| {
                io::Error::new(err.kind(), format!("cannot make it private (mode 0600): {err}"))
            })?;
        }
        file.set_len(0)?;
    }
    Ok(file)
}

/// Whether the file `file` in the directory `dir` cannot be replaced by a rename, which
/// would then fail only once the program had started: it is a mount point (a single-file
/// bind mount, as Docker and Kubernetes make: `EBUSY`), or another user's in a sticky
/// directory (`/tmp`) that is not the caller's either (`EPERM`). A mount is told by its
/// mount id; by the device only where the id is unknown (before Linux 5.8): on overlayfs a
/// file's device may differ from its directory's, and every file there was taken for a mount
/// point and written in place, root's recording through a hard link planted there included.
fn unreplaceable(dir: &rustix::fs::Statx, file: &rustix::fs::Statx) -> bool {
    use rustix::fs::{StatxAttributes, StatxFlags};
    let mount_root = has(file, StatxAttributes::MOUNT_ROOT);
    let mnt_ids = StatxFlags::from_bits_retain(dir.stx_mask & file.stx_mask);
    let other_mount = mnt_ids.contains(StatxFlags::MNT_ID) && dir.stx_mnt_id != file.stx_mnt_id;
    let other_device = !mnt_ids.contains(StatxFlags::MNT_ID)
        && (dir.stx_dev_major, dir.stx_dev_minor) != (file.stx_dev_major, file.stx_dev_minor);
    let me = rustix::process::geteuid().as_raw();
    let sticky =
        u32::from(dir.stx_mode) & 0o1000 != 0 && me != 0 && file.stx_uid != me && dir.stx_uid != me;
    let append_only_dir = has(dir, StatxAttributes::APPEND);
    mount_root || other_mount || other_device || sticky || append_only_dir
}

/// Whether statx reports `attribute` set on its file (one the filesystem does not report
/// counts as unset).
fn has(stat: &rustix::fs::Statx, attribute: rustix::fs::StatxAttributes) -> bool {
    stat.stx_attributes_mask.contains(attribute) && stat.stx_attributes.contains(attribute)
}

/// Refuses a recording whose file the kernel keeps from being replaced or emptied whoever
/// asks, root too: the `file` there (if any) is immutable or append-only, or its directory
/// `dir` is append-only and no file is there (`chattr +i`, `chattr +a`: statx's attributes,
/// the flags of `FS_IOC_GETFLAGS`, on the filesystems that have them). Before, the program ran,
/// the rename after its start failed (`EPERM`), and the whole recording was left under its
/// temporary name while the report said its file lacked the rest. (A file already in an
/// append-only directory cannot be replaced but can be emptied: [`beside`] writes it in
/// place; an immutable directory is told by the new file it refuses, and the recording is
/// then written in place too.)
fn fixed(dir: &rustix::fs::Statx, file: Option<&rustix::fs::Statx>) -> io::Result<()> {
    use rustix::fs::StatxAttributes;
    let refused = |what: &str| {
        let message = format!(
            "{what}, which no one may replace, root included: name another path, or take the flag off (chattr)"
        );
        Err(io::Error::new(io::ErrorKind::PermissionDenied, message))
    };
    if let Some(file) = file {
        if has(file, StatxAttributes::IMMUTABLE) {
            return refused("it is immutable (chattr +i)");
        }
        if has(file, StatxAttributes::APPEND) {
            return refused("it is append-only (chattr +a)");
        }
    }
    if file.is_none() && has(dir, StatxAttributes::APPEND) {
        return refused(
            "its directory is append-only (chattr +a): a file made there could never be removed or renamed",
        );
    }
    Ok(())
}

/// Refuses to write in place into a regular `file` that has other names (hard links):
/// writing it would write each of them. Where the recording cannot replace the file
/// ([`unreplaceable`], a directory the caller may not write), whoever could make its name a
/// link (the owner of the directory, or of a file in a sticky `/tmp`) could have linked it to
/// a file of the caller's, which the recording, what was typed included, would empty and
/// fill: without `fs.protected_hardlinks` any file, with it one the linker may read and write.
/// Such a link is the caller's own file, owned by the caller, so the owner tells nothing: any
/// file with more than one name is refused (the caller's own links too; name another path).
///
/// `seen` is the file's `statx` taken before it was opened by its name; `unwritable_dir` its
/// directory's, when the file is written in place because the caller may not write it (a
/// mount point's name, an append-only or immutable directory's cannot be made a link again
/// and again). The count of names cannot be trusted alone: whoever may write the directory
/// can link the name to the caller's file and rename another file over it again around the
/// open, and a rename lowers the count before the name changes (one start in about 20 under
/// load saw one name). What cannot change under the caller is decisive: the caller's own
/// file (the opened file's owner) is refused where someone else may write names into its
/// directory (its owner neither the caller nor root, or writable by its group or others).
/// The file opened must also be the one seen (device and inode), with one name both then and
/// once open.
fn shared_by_links(
    file: &std::fs::File,
    seen: &rustix::fs::Statx,
    unwritable_dir: Option<&rustix::fs::Statx>,
) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let metadata = file.metadata()?;
    let caller = rustix::process::geteuid().as_raw();
    let others_write_names = unwritable_dir.is_some_and(|dir| {
        (dir.stx_uid != caller && dir.stx_uid != 0) || u32::from(dir.stx_mode) & 0o022 != 0
    });
    if metadata.is_file() && metadata.uid() == caller && others_write_names {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "it is your own file in a directory you may not write and others may: it cannot be replaced, and whoever may write that directory could have made its name a link to your file, which a recording written in place would empty and fill: name another path",
        ));
    }
    let same = metadata.ino() == seen.stx_ino
        && metadata.dev() == rustix::fs::makedev(seen.stx_dev_major, seen.stx_dev_minor);
    if !same {
        return Err(io::Error::other(
            "it was replaced by another file while it was being opened: name a path in a directory no one else may write",
        ));
    }
    if metadata.is_file() && (metadata.nlink() > 1 || seen.stx_nlink > 1) {
        let links = metadata.nlink().max(u64::from(seen.stx_nlink));
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "it cannot be replaced, and written in place it would write each of its {links} names (hard links), any of which another could have made: name another path"
            ),
        ));
    }
    Ok(())
}

/// Takes the lock a recording holds on its regular file while it writes it, so that another
/// recording to the same path can tell ([`locked`]); a file locked already (another recording
/// writes into it in place) is refused.
fn lock(file: std::fs::File) -> io::Result<std::fs::File> {
    use rustix::fs::FlockOperation;
    if file.metadata()?.is_file() {
        // Only a lock held elsewhere refuses: a filesystem without locks records unlocked.
        let locked = rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive);
        if let Err(rustix::io::Errno::WOULDBLOCK) = locked {
            return Err(recorded_already());
        }
    }
    Ok(file)
}

/// Whether the file `name` in `dir` is locked by a recording writing it (another session's,
/// here or in another process; see [`lock`]).
fn locked(dir: &OwnedFd, name: &std::ffi::OsStr) -> bool {
    use rustix::fs::{FlockOperation, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY;
    let Ok(file) = rustix::fs::openat(dir, name, flags | OFlags::CLOEXEC, Mode::empty()) else {
        return false;
    };
    let shared = rustix::fs::flock(&file, FlockOperation::NonBlockingLockShared);
    matches!(shared, Err(rustix::io::Errno::WOULDBLOCK))
}

/// The error of a path another session's recording is being written to.
fn recorded_already() -> io::Error {
    io::Error::other(
        "another session is recording to it, or another program locks it (its file is locked, as a recording locks the file it writes): name another path, or wait until that session or program ends",
    )
}

/// Makes the recording's file for the regular file (or nothing) at `path`: a new file, mode
/// 0600, beside it (in its directory, under a temporary name of the recorder's), to be
/// renamed over `path` once the session starts. When `path` names a file that cannot be
/// replaced (a mount point, a file of a directory the caller cannot write, [`unreplaceable`]),
/// the recording is written into it in place instead, as into a file of /proc ([`in_place`]).
fn beside(path: &Path) -> io::Result<(std::fs::File, Place)> {
    use rustix::fs::{AtFlags, Mode, OFlags, StatxFlags};
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names no file (it ends in `..` or `/`)",
        )
    })?;
    let dir_path = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let dir = rustix::fs::open(
        dir_path,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mask = StatxFlags::TYPE
        | StatxFlags::MODE
        | StatxFlags::UID
        | StatxFlags::MNT_ID
        | StatxFlags::INO
        | StatxFlags::NLINK;
    let nofollow = AtFlags::SYMLINK_NOFOLLOW | AtFlags::NO_AUTOMOUNT;
    let existing = match rustix::fs::statx(&dir, name, nofollow, mask) {
        Ok(file) if u32::from(file.stx_mode) & 0o170000 == 0o100000 => Some(file),
        Ok(_) => None,
        Err(rustix::io::Errno::NOENT) => None,
        Err(err) => return Err(err.into()),
    };
    let here = rustix::fs::statx(&dir, "", AtFlags::EMPTY_PATH | nofollow, mask)?;
    fixed(&here, existing.as_ref())?;
    let write_in_place = |seen: &rustix::fs::Statx, unwritable_dir: bool| {
        let flags = OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let file = std::fs::File::from(rustix::fs::openat(&dir, name, flags, Mode::empty())?);
        shared_by_links(&file, seen, unwritable_dir.then_some(&here))?;
        Ok((in_place(lock(file)?)?, Place::Kept))
    };
    if let Some(file) = &existing {
        if locked(&dir, name) {
            return Err(recorded_already());
        }
        if unreplaceable(&here, file) {
            return write_in_place(file, false);
        }
    }
    match make_temp(&dir, temp_name) {
        Ok((file, temp)) => {
            let file = lock(file.into())?;
            let kept = dir_path.join(&temp);
            Ok((file, Place::Fresh { dir, temp, name: name.to_owned(), kept }))
        }
        // A file of a directory the caller may not write (or on a read-only mount) is
        // written into as it is, as it was before recordings were made afresh.
        Err(err) => match &existing {
            Some(seen)
                if [
                    rustix::io::Errno::ACCESS,
                    rustix::io::Errno::PERM,
                    rustix::io::Errno::ROFS,
                ]
                .iter()
                .any(|refusal| err.raw_os_error() == Some(refusal.raw_os_error())) =>
            {
                write_in_place(seen, true)
            }
            _ => {
                let dir = crate::error::quoted_os(dir_path.as_os_str());
                let message = format!("cannot make a file in its directory {dir}: {err}");
                Err(io::Error::new(err.kind(), message))
            }
        },
    }
}

/// Opens the recording's file at `path` for writing, and where it is. With `new`, a file is
/// made at `path` itself, mode 0600, unless something is there (a symbolic link included:
/// the error is then `AlreadyExists`). Without, the symbolic links at its end are followed
/// ([`resolve`]); a regular file there, or nothing, gets a new file, mode 0600, made beside
/// it and renamed over it once the session starts, so that a recording, which may hold what
/// was typed, is never written into a file others may read or have open, unless it cannot
/// be replaced ([`beside`]); a file named by a link of /proc is written through the link, in
/// place; anything else (a FIFO, a device, `/dev/null`) is written to as it is, neither
/// changed nor truncated.
fn open(path: &Path, new: bool) -> io::Result<(std::fs::File, Place)> {
    if new {
        let file = OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
        return Ok((file, Place::Made));
    }
    match resolve(path)? {
        Resolved::File(path) => beside(&path),
        Resolved::AsIs(path) => {
            let nofollow = rustix::fs::OFlags::NOFOLLOW.bits() as i32;
            let file = OpenOptions::new().write(true).custom_flags(nofollow).open(path)?;
            Ok((file, Place::Kept))
        }
        Resolved::Through(path) => match own_descriptor(&path) {
            // This process's own descriptor (`/dev/stdout`): written as the process prints,
            // at the descriptor's offset, so that what else goes there is kept beside it.
            Some(fd) => {
                // SAFETY: the descriptor is borrowed only for the `fcntl` that duplicates it;
                // one closed meanwhile fails with `EBADF`.
                let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
                let dup = rustix::io::fcntl_dupfd_cloexec(fd, 0)?;
                Ok((std::fs::File::from(dup), Place::Kept))
            }
            None => Ok((in_place(OpenOptions::new().write(true).open(path)?)?, Place::Kept)),
        },
    }
}

/// The header of a recording of a `cols`x`rows` terminal whose program has `TERM=term`.
fn header(cols: u16, rows: u16, term: Option<&str>) -> serde_json::Value {
    let timestamp = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    json!({
        "version": 2,
        "width": cols,
        "height": rows,
        "timestamp": timestamp,
        "env": term.map_or_else(|| json!({}), |term| json!({ "TERM": term })),
    })
}

/// The size a resize event (`[seconds, "r", "COLSxROWS"]`) sets, if `event` is one.
fn resize_of(event: &str) -> Option<(u64, u64)> {
    let rest = &event[event.find(',')? + 1..];
    if !rest.starts_with("\"r\",") {
        return None;
    }
    let (_, _, size): (f64, String, String) = serde_json::from_str(event).ok()?;
    let (cols, rows) = size.split_once('x')?;
    Some((cols.parse().ok()?, rows.parse().ok()?))
}

impl Recorder {
    /// Makes the recording's file for `path` (see [`open`]: with `new`, at `path` itself;
    /// without, afresh beside it, for [`Recorder::commit`] to rename over it), writes the
    /// header for a `cols`x`rows` terminal and starts the writer thread; the file takes at
    /// most `limit` bytes and a last marker. Should the header not be written (a full disk),
    /// the file made is removed and `path` is left as it was.
    pub(crate) fn create(
        path: &Path,
        (cols, rows): (u16, u16),
        input: bool,
        new: bool,
        term: Option<&str>,
        limit: u64,
    ) -> io::Result<Recorder> {
        let (file, place) = open(path, new)?;
        let mut out = BufWriter::new(file);
        let header = header(cols, rows, term).to_string();
        if let Err(err) = writeln!(out, "{header}").and_then(|()| out.flush()) {
            remove(path, &place);
            return Err(err);
        }
        let (tx, rx) = crossbeam_channel::bounded::<String>(QUEUE);
        let (alive, flushed) = crossbeam_channel::bounded::<()>(0);
        let queued = Arc::new(AtomicUsize::new(0));
        let unqueued = Arc::clone(&queued);
        let last_line = Arc::new(Mutex::new(None::<String>));
        let last = Arc::clone(&last_line);
        let trouble = Arc::new(Trouble::default());
        let failed = Arc::clone(&trouble);
        let named = crate::error::quoted_os(path.as_os_str());
        std::thread::Builder::new().name("termloom-recorder".into()).spawn(move || {
            // The first write that fails ends the file's writing (a full disk, a closed pipe):
            // the error is kept for `SessionInfo::recording_error` and the rest is dropped.
            let fail = |err: io::Error| {
                log::warn!("termloom: writing the recording {named} failed: {err}; later events are not recorded");
                let _ = failed.failed.set(err.to_string());
            };
            for line in rx.iter() {
                unqueued.fetch_sub(line.len(), Ordering::Relaxed);
                if failed.failed.get().is_some() {
                    continue;
                }
                let mut result = writeln!(out, "{line}");
                // Flush when the queue is drained, so a reader of the file sees what happened.
                if result.is_ok() && rx.is_empty() {
                    result = out.flush();
                }
                if let Err(err) = result {
                    fail(err);
                }
            }
            // The recorder is gone (it set the last line before its queue closed).
            if failed.failed.get().is_none() {
                let last = last.lock().unwrap_or_else(|e| e.into_inner()).take();
                let result = match last {
                    Some(line) => writeln!(out, "{line}").and_then(|()| out.flush()),
                    None => out.flush(),
                };
                if let Err(err) = result {
                    fail(err);
                }
            }
            // The file is closed before anyone waiting for the recording is told.
            drop(out);
            drop(alive);
        })?;
        let written = header.len() as u64 + 1;
        let cast = FileCast { tx, queued, written, limit, full: false, last_line, trouble };
        let mut recorder = Recorder::with(Sink::File(cast), input, Some(path.to_owned()));
        recorder.written = Some(flushed);
        recorder.place = place;
        Ok(recorder)
    }

    /// A recording kept in memory, at most `limit` bytes of events (the oldest go first).
    pub(crate) fn in_memory(
        cols: u16,
        rows: u16,
        input: bool,
        limit: usize,
        term: Option<&str>,
    ) -> Recorder {
        let cast = MemoryCast {
            header: header(cols, rows, term),
            events: VecDeque::new(),
            bytes: 0,
            limit,
            dropped: 0,
            after_output: None,
            resized: None,
        };
        Recorder::with(Sink::Memory(cast), input, None)
    }

    fn with(sink: Sink, input: bool, path: Option<PathBuf>) -> Recorder {
        Recorder {
            sink,
            started: Instant::now(),
            partial: Vec::new(),
            partial_input: Vec::new(),
            dropped: 0,
            input,
            withholding: false,
            path,
            written: None,
            place: Place::Kept,
        }
    }

    /// Puts the recording's file at its path, once the session has started: a file made
    /// afresh is renamed over what was there (a reader who had that open goes on reading what
    /// it held), and from then on no file is the recorder's to remove. Should the rename fail
    /// (the program runs already, and records), the recording stays under its temporary name,
    /// which [`SessionInfo::recording_error`](crate::SessionInfo::recording_error) gives.
    pub(crate) fn commit(&mut self) {
        let Place::Fresh { dir, temp, name, kept } =
            std::mem::replace(&mut self.place, Place::Kept)
        else {
            return;
        };
        // Another session's recording that took the path since this one was made is not
        // replaced (it would be lost): this one stays where it is, and says so.
        let renamed = match locked(&dir, &name) {
            true => Err(recorded_already()),
            false => rustix::fs::renameat(&dir, &temp, &dir, &name).map_err(io::Error::from),
        };
        if let Err(err) = renamed {
            let path = self.path.as_deref().unwrap_or(Path::new(""));
            let path = crate::error::quoted_os(path.as_os_str());
            // Whole (a path is bounded: PATH_MAX), as it is where the recording is to be found.
            let at = format!("{kept:?}");
            let note = format!(
                "the recording could not be put at {path} ({err}): it is whole at {at}, the temporary name it was made under"
            );
            log::warn!("termloom: {note}");
            if let Sink::File(cast) = &self.sink {
                cast.trouble.note(note, kept);
            }
        }
    }

    /// Ends a recording whose session did not start: the file the recorder made goes (what
    /// was at the path before stays, a file, a FIFO or a device: `/dev/null` too), as it
    /// does whenever a recorder not committed is dropped.
    pub(crate) fn abandon(self) {
        drop(self);
    }

    /// What disconnects once a file's recording is all on disk: its writer thread ends after
    /// the recorder is dropped and the queue is written and flushed.
    pub(crate) fn written(&self) -> Option<Receiver<()>> {
        self.written.clone()
    }

    /// Where the error that stopped a file's recording will be, should a write to the file
    /// fail (a full disk, a closed pipe); `None` for a recording in memory.
    pub(crate) fn failure(&self) -> Option<Arc<Trouble>> {
        match &self.sink {
            Sink::File(cast) => Some(Arc::clone(&cast.trouble)),
            Sink::Memory(_) => None,
        }
    }

    /// The file recorded to, if it is a file.
    pub(crate) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The recording so far, when it is kept in memory: asciicast v2 text, the header then the
    /// newest events, one per line (a marker first when older ones were dropped).
    #[cfg(test)]
    pub(crate) fn contents(&self) -> Option<String> {
        self.snapshot().map(Snapshot::text)
    }

    /// The recording so far, when it is kept in memory, as its events shared, not copied: the
    /// reactor takes it (a pointer an event; 384 MiB copied as text took it 0.7 s) and the
    /// caller joins it ([`Snapshot::text`]) on its own thread.
    pub(crate) fn snapshot(&self) -> Option<Snapshot> {
        let Sink::Memory(cast) = &self.sink else { return None };
        let mut header = cast.header.clone();
        if let Some((cols, rows)) = cast.resized {
            (header["width"], header["height"]) = (json!(cols), json!(rows));
        }
        let mut head = header.to_string();
        head.push('\n');
        if cast.dropped > 0 {
            let at = cast.events.front().and_then(|e| e.get(1..e.find(',')?)).unwrap_or("0");
            let note =
                format!("termloom: {} older events dropped (the memory bound)", cast.dropped);
            head.push_str(&json!([at.parse::<f64>().unwrap_or(0.0), "m", note]).to_string());
            head.push('\n');
        }
        Some(Snapshot { head, events: cast.events.iter().cloned().collect(), bytes: cast.bytes })
    }

    /// Hands one event line (`output`: of output) to the sink; false if it had to be dropped.
    fn deliver(&mut self, line: String, output: bool) -> bool {
        match &mut self.sink {
            Sink::File(cast) => {
                let len = line.len();
                if cast.queued.load(Ordering::Relaxed) + len > QUEUE_BYTES {
                    return false;
                }
                cast.queued.fetch_add(len, Ordering::Relaxed);
                if let Err(TrySendError::Full(_)) = cast.tx.try_send(line) {
                    cast.queued.fetch_sub(len, Ordering::Relaxed);
                    return false;
                }
                cast.written += len as u64 + 1;
                true
            }
            Sink::Memory(cast) => {
                cast.bytes += line.len() + 1;
                cast.events.push_back(Arc::from(line));
                cast.after_output = if output { Some(0) } else { cast.after_output.map(|n| n + 1) };
                while cast.bytes > cast.limit {
                    let Some(front) = cast.events.front() else { break };
                    let newest_output =
                        cast.after_output.is_some_and(|n| cast.events.len() == n + 1);
                    // The newest output stays, even alone larger than the bound (one read, a
                    // full-screen redraw), while the events after it fit: a recording that
                    // ends before the program did misleads.
                    if newest_output && cast.bytes - (front.len() + 1) <= cast.limit {
                        break;
                    }
                    if newest_output {
                        cast.after_output = None;
                    }
                    let old = cast.events.pop_front().expect("front exists");
                    cast.bytes -= old.len() + 1;
                    cast.dropped += 1;
                    cast.resized = resize_of(&old[..]).or(cast.resized);
                }
                true
            }
        }
    }

    fn event(&mut self, kind: &str, data: &str) {
        if let Sink::File(cast) = &self.sink
            && (cast.full || cast.trouble.failed.get().is_some())
        {
            return;
        }
        let seconds = (self.started.elapsed().as_secs_f64() * 1e6).round() / 1e6;
        let behind = (self.dropped > 0).then(|| self.behind_note(seconds));
        // The line is written directly: [seconds, "kind", "escaped data"].
        let escaped = serde_json::to_string(data).unwrap_or_default();
        let mut line = String::with_capacity(escaped.len() + 24);
        let _ = write!(line, "[{seconds},\"{kind}\",{escaped}]");
        let needed = behind.as_ref().map_or(0, |note| note.len() + 1) + line.len() + 1;
        if let Sink::File(cast) = &mut self.sink
            && cast.written + needed as u64 > cast.limit
        {
            cast.full = true;
            // The last line, past the bound; should the writer be behind (its queue full),
            // the writer adds it after the lines queued, as the recorder's drop would.
            let note = bound_note(seconds, cast.limit, self.dropped);
            let last_line = Arc::clone(&cast.last_line);
            if !self.deliver(note.clone(), false) {
                *last_line.lock().unwrap_or_else(|e| e.into_inner()) = Some(note);
            }
            return;
        }
        if let Some(note) = behind {
            if !self.deliver(note, false) {
                self.dropped += 1;
                return;
            }
            self.dropped = 0;
        }
        if !self.deliver(line, kind == "o") {
            self.dropped += 1;
        }
    }

    /// The marker of the events dropped since the last one queued, at `seconds`.
    fn behind_note(&self, seconds: f64) -> String {
        let note = format!("termloom: {} events dropped (the recording fell behind)", self.dropped);
        json!([seconds, "m", note]).to_string()
    }

    /// Output the program wrote; a UTF-8 character split between two reads is recorded whole
    /// with the second.
    pub(crate) fn output(&mut self, bytes: &[u8]) {
        let mut partial = std::mem::take(&mut self.partial);
        self.whole_characters("o", &mut partial, bytes);
        self.partial = partial;
    }

    /// Input typed or pasted into the session, when input is recorded; a character split
    /// between two pieces of a paste is recorded whole with the second.
    pub(crate) fn input(&mut self, bytes: &[u8]) {
        if self.input {
            self.withholding = false;
            let mut partial = std::mem::take(&mut self.partial_input);
            self.whole_characters("i", &mut partial, bytes);
            self.partial_input = partial;
        }
    }

    /// Whether input is recorded too.
    pub(crate) fn records_input(&self) -> bool {
        self.input
    }

    /// Input typed at a password prompt (a password typed as ordinary input: see
    /// `SpawnSpec::record_input`), which is not recorded: a marker ([`WITHHELD_INPUT`])
    /// stands for each run of it, when input is recorded.
    pub(crate) fn input_withheld(&mut self) {
        if self.input && !self.withholding {
            self.withholding = true;
            self.partial_input.clear();
            self.event("m", WITHHELD_INPUT);
        }
    }

    /// Records `bytes` after the unfinished character `partial` held back from the last
    /// event of this kind, holding back the one they end with, if any.
    fn whole_characters(&mut self, kind: &str, partial: &mut Vec<u8>, bytes: &[u8]) {
        if partial.is_empty()
            && let Ok(text) = std::str::from_utf8(bytes)
        {
            return self.event(kind, text);
        }
        let mut data = std::mem::take(partial);
        data.extend_from_slice(bytes);
        *partial = data.split_off(complete_len(&data));
        if !data.is_empty() {
            let text = String::from_utf8_lossy(&data).into_owned();
            self.event(kind, &text);
        }
    }

    /// The terminal was resized.
    pub(crate) fn resize(&mut self, cols: u16, rows: u16) {
        self.event("r", &format!("{cols}x{rows}"));
    }

    /// A marker (a wait that ended, with what ended it).
    pub(crate) fn marker(&mut self, label: &str) {
        self.event("m", label);
    }
}

/// What went wrong with a file's recording, for
/// [`SessionInfo::recording_error`](crate::SessionInfo::recording_error).
#[derive(Debug, Default)]
pub(crate) struct Trouble {
    /// The error of the write that failed, once one did: nothing more is written.
    failed: OnceLock<String>,
    /// Why the recording is not at the path named (a rename that failed), and where it is.
    misplaced: OnceLock<(String, PathBuf)>,
}

impl Trouble {
    /// Says why the recording is not where it was asked for, and where it is: `kept`.
    fn note(&self, misplaced: String, kept: PathBuf) {
        let _ = self.misplaced.set((misplaced, kept));
    }

    /// What went wrong, if anything: where the recording is, if not at its path, then the
    /// write that failed.
    pub(crate) fn error(&self) -> Option<String> {
        match (self.misplaced.get(), self.failed.get()) {
            (Some((misplaced, _)), Some(failed)) => {
                Some(format!("{misplaced}{THEN_A_WRITE_FAILED}{failed}"))
            }
            (misplaced, failed) => misplaced.map(|(note, _)| note).or(failed).cloned(),
        }
    }

    /// Where the recording is when it could not be put at its path (its temporary name).
    pub(crate) fn kept_at(&self) -> Option<PathBuf> {
        self.misplaced.get().map(|(_, kept)| kept.clone())
    }

    /// Whether a write to the recording's file failed (it lacks the rest).
    pub(crate) fn write_failed(&self) -> bool {
        self.failed.get().is_some()
    }
}

/// What joins the note of a recording kept elsewhere and the error of a write to it that
/// failed later, in [`Trouble::error`]: a result too short for both gives the write's error,
/// after it.
pub(crate) const THEN_A_WRITE_FAILED: &str = "; then a write to it failed, and it lacks the rest: ";

/// A recording in memory as a request took it: its header (and marker of dropped events),
/// then its events shared with the recorder.
#[derive(Debug)]
pub(crate) struct Snapshot {
    head: String,
    events: Vec<Arc<str>>,
    /// The events' bytes, a line break each included.
    bytes: usize,
}

impl Snapshot {
    /// The recording as asciicast v2 text: the head, then an event a line.
    pub(crate) fn text(self) -> String {
        let mut text = String::with_capacity(self.head.len() + self.bytes);
        text.push_str(&self.head);
        for event in &self.events {
            text.push_str(event);
            text.push('\n');
        }
        text
    }
}

/// The marker that stands for input left out of a recording: typed at a password prompt,
/// while the session's terminal did not echo.
pub(crate) const WITHHELD_INPUT: &str =
    "input left out: typed while the terminal did not echo (a password, perhaps)";

/// The marker that ends a file's recording at its bound of `limit` bytes, at `seconds`; it
/// also counts the `dropped` events that no marker told yet (the writer was behind), whose
/// own marker it takes the place of.
fn bound_note(seconds: f64, limit: u64, dropped: u64) -> String {
    let mut note = format!(
        "termloom: the recording stopped at its bound of {limit} bytes (recording_file_bytes); later events are not recorded"
    );
    if dropped > 0 {
        let _ = write!(note, "; before it, {dropped} events dropped (the recording fell behind)");
    }
    json!([seconds, "m", note]).to_string()
}

impl Drop for Recorder {
    /// Events dropped since the last one queued are said at the end of a file's recording:
    /// its writer adds the marker after the lines queued (the queue may still be full). A
    /// file the recorder made for a session that did not start (it was never committed: the
    /// start failed, or something panicked between) is removed.
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            remove(path, &self.place);
        }
        if self.dropped == 0 {
            return;
        }
        let seconds = (self.started.elapsed().as_secs_f64() * 1e6).round() / 1e6;
        let mut note = self.behind_note(seconds);
        if let Sink::File(cast) = &self.sink
            && !cast.full
        {
            // Within the bound, or the bound's own last line.
            if cast.written + note.len() as u64 + 1 > cast.limit {
                note = bound_note(seconds, cast.limit, self.dropped);
            }
            *cast.last_line.lock().unwrap_or_else(|e| e.into_inner()) = Some(note);
        }
    }
}

/// The length of `data` without the unfinished UTF-8 character at its end, if there is one;
/// invalid bytes before it do not hide it.
fn complete_len(data: &[u8]) -> usize {
    let mut start = 0;
    loop {
        match std::str::from_utf8(&data[start..]) {
            Ok(_) => return data.len(),
            Err(err) => match err.error_len() {
                None => return start + err.valid_up_to(),
                Some(invalid) => start += err.valid_up_to() + invalid,
            },
        }
    }
}

/// How long closing a session or the engine waits for a recording's writer to finish.
const WRITER_DEADLINE: Duration = Duration::from_secs(10);

/// The file recordings whose writer threads may still be writing, by session, so that
/// closing a session (or the engine) returns only once its recording is on disk. Finished
/// ones are pruned whenever one is added, so it holds at most the live recordings.
#[derive(Debug, Clone, Default)]
pub(crate) struct Writers(Arc<Mutex<HashMap<SessionId, Receiver<()>>>>);

impl Writers {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Receiver<()>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers session `id`'s recording writer.
    pub(crate) fn add(&self, id: SessionId, written: Receiver<()>) {
        let mut map = self.map();
        map.retain(|_, done| !is_done(done));
        map.insert(id, written);
    }

    /// Waits (up to a deadline) until session `id`'s recording, if it has one, is on disk.
    pub(crate) fn wait(&self, id: SessionId) {
        let written = self.map().remove(&id);
        if let Some(written) = written {
            finish(&written, Instant::now() + WRITER_DEADLINE);
        }
    }

    /// Waits (up to one deadline for all) until every recording is on disk.
    pub(crate) fn wait_all(&self) {
        let all: Vec<_> = self.map().drain().map(|(_, written)| written).collect();
        let deadline = Instant::now() + WRITER_DEADLINE;
        for written in all {
            finish(&written, deadline);
        }
    }
}

/// Removes the file the recorder made at `place` for `path`, if it made one.
fn remove(path: &Path, place: &Place) {
    match place {
        Place::Fresh { dir, temp, .. } => {
            let _ = rustix::fs::unlinkat(dir, temp, rustix::fs::AtFlags::empty());
        }
        Place::Made => {
            let _ = std::fs::remove_file(path);
        }
        Place::Kept => {}
    }
}

/// Whether a writer has ended.
fn is_done(written: &Receiver<()>) -> bool {
    matches!(written.try_recv(), Err(crossbeam_channel::TryRecvError::Disconnected))
}

/// Waits until a writer ends or the deadline passes (a disk that hangs is logged, not waited
/// on forever).
fn finish(written: &Receiver<()>, deadline: Instant) {
    if let Err(RecvTimeoutError::Timeout) = written.recv_deadline(deadline) {
        log::warn!("termloom: a recording's writer is still writing after {WRITER_DEADLINE:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file is a mount point by its mount id where the kernel gives it, whatever its
    /// device: on overlayfs whose layers lie on different filesystems, every file's device
    /// differs from its directory's, and each was written in place (a hard link planted
    /// there to a file of root's, root's recording went into that file).
    #[test]
    fn a_file_on_the_mount_of_its_directory_is_replaceable_whatever_its_device() {
        use rustix::fs::{Statx, StatxFlags};
        let look = |mnt_id: u64, dev_minor: u32| {
            // SAFETY: `Statx` is plain data, every field an integer.
            let mut stat: Statx = unsafe { std::mem::zeroed() };
            stat.stx_mask = StatxFlags::MNT_ID.bits();
            stat.stx_mnt_id = mnt_id;
            stat.stx_dev_minor = dev_minor;
            stat.stx_mode = 0o40755;
            stat
        };
        assert!(!unreplaceable(&look(7, 44), &look(7, 43)), "an overlay's file");
        assert!(unreplaceable(&look(7, 44), &look(8, 44)), "a bind mount's file");
        let mut unknown = look(0, 43);
        unknown.stx_mask = 0;
        assert!(unreplaceable(&look(7, 44), &unknown), "no mount id: the device tells");
    }

    #[test]
    fn a_recording_is_asciicast_v2_with_characters_whole() {
        let dir = std::env::temp_dir().join(format!("termloom-rec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.cast");
        let mut recorder =
            Recorder::create(&path, (80, 24), false, false, Some("xterm-256color"), 1 << 20)
                .unwrap();
        let bytes = "é!".as_bytes();
        recorder.output(&bytes[..1]);
        recorder.output(&bytes[1..]);
        recorder.input(b"ignored");
        recorder.resize(100, 30);
        recorder.marker("matched");
        recorder.commit();
        let written = recorder.written().expect("a file's recording has a writer");
        drop(recorder);
        // The writer thread ends once the recorder is gone, after its last line.
        finish(&written, Instant::now() + WRITER_DEADLINE);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        let lines: Vec<serde_json::Value> =
            text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[0]["version"], 2);
        assert_eq!((lines[0]["width"].as_u64(), lines[0]["height"].as_u64()), (Some(80), Some(24)));
        assert_eq!(lines[1][1], "o");
        assert_eq!(lines[1][2], "é!");
        assert_eq!(lines[2][1], "r");
        assert_eq!(lines[2][2], "100x30");
        assert_eq!(lines[3][2], "matched");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_recording_to_a_file_stops_at_its_bound_and_says_so() {
        let dir = std::env::temp_dir().join(format!("termloom-rec-bound-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.cast");
        let limit = 4096;
        let mut recorder = Recorder::create(&path, (80, 24), false, false, None, limit).unwrap();
        // 200 events of about 50 bytes: 10 KB, far within the writer's queue.
        let events = 200;
        for i in 0..events {
            recorder.output(format!("line {i} of some length\r\n").as_bytes());
        }
        recorder.commit();
        let written = recorder.written().expect("a file's recording has a writer");
        drop(recorder);
        finish(&written, Instant::now() + WRITER_DEADLINE);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> =
            text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let last = lines.last().unwrap();
        assert_eq!(last[1], "m", "{text}");
        assert!(last[2].as_str().unwrap().contains("stopped at its bound of 4096 bytes"), "{text}");
        let before_marker = text.len() - text.lines().last().unwrap().len() - 1;
        assert!(before_marker as u64 <= limit, "{before_marker} bytes");
        assert!(before_marker as u64 > limit - 100, "the bound is used: {before_marker} bytes");
        assert!(lines.len() - 2 < events, "later events are not recorded");
        assert!(lines.iter().all(|l| !l.to_string().contains("fell behind")), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A recording that reaches its bound while its writer is behind (its queue full: the
    /// file is a FIFO nobody reads yet) still ends with the marker that says so. Before, that
    /// marker was dropped with the events, and the file ended on an ordinary event, as if the
    /// session had ended there.
    #[test]
    fn a_recording_that_reaches_its_bound_while_behind_says_so() {
        use std::io::Read;
        let dir = std::env::temp_dir().join(format!("termloom-rec-behind-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("cast.fifo");
        let _ = std::fs::remove_file(&fifo);
        let mode = rustix::fs::Mode::from_raw_mode(0o600);
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, mode, 0).unwrap();
        let (read_now, wait) = crossbeam_channel::bounded::<()>(1);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut file = std::fs::File::open(&fifo).unwrap();
                let _ = wait.recv_timeout(Duration::from_secs(60));
                let mut text = String::new();
                file.read_to_string(&mut text).unwrap();
                text
            })
        };
        let limit = 2 << 20;
        let mut recorder = Recorder::create(&fifo, (80, 24), false, false, None, limit).unwrap();
        // 10,000 markers of about 130 bytes: the pipe takes at most 64 KiB and the writer's
        // buffer 8 KiB of them (600 markers), the queue 4,096; the rest are dropped. Then an
        // event past the bound: about 700 KB were queued, 1.9 MB more would pass 2 MiB.
        for i in 0..10_000 {
            recorder.marker(&format!(
                "a marker of about a hundred bytes, number {i:05}, {}",
                "x".repeat(40)
            ));
        }
        recorder.output("y".repeat(1_900_000).as_bytes());
        let written = recorder.written().expect("a file's recording has a writer");
        drop(recorder);
        let _ = read_now.send(());
        let text = reader.join().unwrap();
        finish(&written, Instant::now() + WRITER_DEADLINE);
        let last = text.lines().last().unwrap();
        assert!(last.contains("stopped at its bound of 2097152 bytes"), "{last}");
        assert!(!text.contains("yyyy"), "the event past the bound is not recorded");
        // The last marker counts the markers dropped (before, the count was lost with the
        // marker of dropped events the bound's took the place of): with those recorded, all.
        let recorded = text.matches("a marker of about a hundred bytes").count();
        let dropped: usize = last
            .split("before it, ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("the last marker counts the events dropped: {last}"));
        assert!(recorded < 10_000, "{recorded} markers recorded: the writer fell behind");
        assert_eq!(recorded + dropped, 10_000, "{recorded} recorded, {dropped} dropped");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_recording_in_memory_keeps_the_newest_events_within_its_bound() {
        let mut recorder = Recorder::in_memory(80, 24, true, 200, None);
        recorder.input(b"typed");
        for i in 0..20 {
            recorder.output(format!("line {i}\r\n").as_bytes());
        }
        let text = recorder.contents().unwrap();
        let lines: Vec<serde_json::Value> =
            text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[0]["version"], 2);
        assert_eq!(lines[1][1], "m");
        assert!(lines[1][2].as_str().unwrap().contains("older events dropped"));
        assert_eq!(lines.last().unwrap()[2], "line 19\r\n");
        assert!(text.len() < 200 + lines[0].to_string().len() + 100, "{}", text.len());
        assert!(!text.contains("typed"), "the oldest events went first");
    }

    #[test]
    fn a_recording_in_memory_keeps_its_newest_output_within_one_event_of_its_bound() {
        let mut recorder = Recorder::in_memory(80, 24, true, 1024, None);
        let redraw = "x".repeat(4000);
        recorder.output(redraw.as_bytes());
        recorder.marker("after");
        let text = recorder.contents().unwrap();
        assert!(text.contains(&redraw) && text.contains("after"), "{text}");
        // Markers alone past the bound push the output out too: the bound holds.
        for _ in 0..100 {
            recorder.marker("a marker of some length, again and again");
        }
        let text = recorder.contents().unwrap();
        assert!(!text.contains(&redraw), "{text}");
        assert!(text.len() < 1024 + 300, "{}", text.len());
    }

    /// A fresh directory for a test's recordings.
    fn test_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("termloom-rec-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The names in `dir`.
    fn names(dir: &Path) -> Vec<String> {
        let entries = std::fs::read_dir(dir).unwrap().flatten();
        let mut names: Vec<_> =
            entries.map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    /// A recorder dropped before its session started (a panic between its making and its
    /// commit) removes the file it made. Before, the temporary file was left behind.
    #[test]
    fn a_recording_not_committed_leaves_no_file() {
        let dir = test_dir("uncommitted");
        let path = dir.join("a.cast");
        let panicked = std::panic::catch_unwind(|| {
            let _recorder = Recorder::create(&path, (80, 24), false, false, None, 1 << 20);
            panic!("between the recorder's making and its commit");
        });
        assert!(panicked.is_err());
        assert!(names(&dir).is_empty(), "{:?}", names(&dir));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A recording is made whatever names of the old scheme exist beside its path (a
    /// directory's owner, or anyone in a sticky `/tmp`, could make them beforehand): its
    /// temporary name is random. Before, `.termloom-recording-PID-N.tmp` for the next hundred
    /// numbers N failed it ("File exists").
    #[test]
    fn a_recording_is_made_whatever_temporary_names_exist_beside_it() {
        let dir = test_dir("planted");
        for n in 0..1000 {
            let name = format!(".termloom-recording-{}-{n}.tmp", std::process::id());
            std::fs::write(dir.join(name), "planted").unwrap();
        }
        let path = dir.join("a.cast");
        let mut recorder = Recorder::create(&path, (80, 24), false, false, None, 1 << 20)
            .expect("the recording is made");
        recorder.commit();
        assert_eq!(recorder.failure().unwrap().error(), None);
        drop(recorder);
        assert!(std::fs::read_to_string(&path).unwrap().starts_with("{\""));
        assert_eq!(names(&dir).len(), 1001, "no temporary file is left");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A temporary name that exists (a collision, or one planted) is tried again under
    /// another, a bounded number of times.
    #[test]
    fn a_temporary_name_that_exists_is_tried_again_a_bounded_number_of_times() {
        use rustix::fs::{Mode, OFlags};
        let dir = test_dir("collision");
        std::fs::write(dir.join("taken-1"), "").unwrap();
        std::fs::write(dir.join("taken-2"), "").unwrap();
        let handle =
            rustix::fs::open(&dir, OFlags::PATH | OFlags::DIRECTORY, Mode::empty()).unwrap();
        let mut offered = ["taken-1", "taken-2", "free"].into_iter();
        let (_, made) = make_temp(&handle, || Ok(offered.next().unwrap().into())).unwrap();
        assert_eq!(made, "free");
        let mut tries = 0;
        let err = make_temp(&handle, || {
            tries += 1;
            Ok("taken-1".into())
        })
        .expect_err("every name offered exists");
        assert_eq!((err.kind(), tries), (io::ErrorKind::AlreadyExists, TEMP_TRIES));
        let first = temp_name().unwrap();
        assert_ne!(first, temp_name().unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A recording whose rename fails after the start (here its path was made immutable
    /// since: `chattr +i`) says it is whole, and where, not that it lacks the rest.
    #[test]
    fn a_recording_that_cannot_be_put_at_its_path_says_where_it_is_whole() {
        let dir = test_dir("unrenamed");
        let path = dir.join("a.cast");
        std::fs::write(&path, "old").unwrap();
        let mut recorder = Recorder::create(&path, (80, 24), false, false, None, 1 << 20).unwrap();
        let fixed = std::process::Command::new("chattr").arg("+i").arg(&path).status();
        if !fixed.is_ok_and(|status| status.success()) {
            assert!(std::env::var_os("CI").is_none(), "chattr +i failed");
            eprintln!("skipped: chattr +i does not work here (not root, or no attributes)");
            return;
        }
        recorder.commit();
        let _ = std::process::Command::new("chattr").arg("-i").arg(&path).status();
        let trouble = recorder.failure().unwrap();
        let (error, kept) = (trouble.error().unwrap(), trouble.kept_at().unwrap());
        assert!(error.contains("it is whole at") && !error.contains("lacks the rest"), "{error}");
        assert!(error.contains(kept.file_name().unwrap().to_str().unwrap()), "{error}");
        drop(recorder);
        assert!(std::fs::read_to_string(&kept).unwrap().starts_with("{\""));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Of two recordings made for one path before either started, the second to start does
    /// not replace the first's file (which would be lost): it stays under its temporary name,
    /// and its error says so and where. Before, the second replaced the first without a word.
    #[test]
    fn a_recording_does_not_replace_another_taking_its_path() {
        let dir = test_dir("taken");
        let path = dir.join("a.cast");
        let mut first = Recorder::create(&path, (80, 24), false, false, None, 1 << 20).unwrap();
        let mut second = Recorder::create(&path, (80, 24), false, false, None, 1 << 20).unwrap();
        first.output(b"from-the-first");
        second.output(b"from-the-second");
        first.commit();
        second.commit();
        let trouble = second.failure().unwrap();
        let error = trouble.error().expect("the second recording says where it is");
        assert!(error.contains("another session is recording to it"), "{error}");
        assert_eq!(first.failure().unwrap().error(), None);
        for recorder in [first, second] {
            let written = recorder.written().unwrap();
            drop(recorder);
            finish(&written, Instant::now() + WRITER_DEADLINE);
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("from-the-first"), "{text}");
        let kept = names(&dir).into_iter().find(|name| name != "a.cast").expect("kept");
        assert!(error.contains(&kept), "{error}");
        let text = std::fs::read_to_string(dir.join(&kept)).unwrap();
        assert!(text.contains("from-the-second"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
