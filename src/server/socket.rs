//! Where a server listens and who may connect: the per-user directory (0700), a directory
//! named with `--socket` (checked, never changed), the socket
//! (0600), the lock that makes one server per socket, stale sockets, and peer credentials.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::fs::{FlockOperation, flock};

/// The directory of this user's server sockets: `$XDG_RUNTIME_DIR/termloom`, or
/// `termloom-UID` in the temporary directory.
pub fn socket_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => PathBuf::from(dir).join("termloom"),
        None => std::env::temp_dir().join(format!("termloom-{}", rustix::process::getuid())),
    }
}

/// The socket of the server labelled `label` (`-L NAME`; `default` without one).
pub fn socket_path(label: &str) -> PathBuf {
    socket_dir().join(label)
}

/// The bytes of a Unix socket's path, its terminating NUL included (`sun_path`).
const SUN_PATH: usize =
    if cfg!(any(target_os = "linux", target_os = "android")) { 108 } else { 104 };

/// Checks that `path` fits in a Unix socket's address, at most 107 bytes on Linux (103
/// elsewhere); the error names the path and its length. A longer path could neither be
/// listened on nor connected to.
pub fn check_socket_path(path: &Path) -> io::Result<()> {
    let length = path.as_os_str().len();
    if length < SUN_PATH {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "the socket path {} is {length} bytes, but a Unix socket's path may have at most {}; use a shorter one",
            path.display(),
            SUN_PATH - 1
        ),
    ))
}

/// Refuses a socket `path` where something other than a socket is (a file named with
/// `--socket` by mistake, a link, a directory): it is no server's socket, and termloom
/// replaces only a stale socket. An [`io::ErrorKind::AlreadyExists`] error that says so;
/// nothing there, or a socket, is no refusal.
pub fn check_socket_place(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    match fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_socket() => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} is not a socket, so not a termloom server's (termloom replaces only a stale socket); name another path for the socket, or remove it if it is no longer needed",
                path.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// Makes sure the directory of the socket `path` exists and is safe for the files a server
/// keeps beside its socket (lock, log, options): created private (0700) where it is missing;
/// this user's own. termloom's own directory ([`socket_dir`]) is made private if it is not; a
/// directory named with `--socket` is never changed (it may be shared, such as `/tmp`), and
/// is refused when others may write in it, since they could plant those files. Its parents
/// are checked too (`check_parents`): one that another user could replace it in is refused.
pub fn prepare_socket_dir(path: &Path) -> io::Result<()> {
    let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) else {
        return Ok(());
    };
    match fs::DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        Ok(()) => {}
        Err(err) => return Err(context(err, "creating the socket directory", dir)),
    }
    let meta = fs::symlink_metadata(dir).map_err(|e| context(e, "checking", dir))?;
    refusal(dir, &meta)?;
    if dir == socket_dir() && meta.mode() & 0o077 != 0 {
        return fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .map_err(|e| context(e, "making private", dir));
    }
    Ok(())
}

/// Checks, creating and changing nothing, that a server could keep its files beside the
/// socket `path`: [`prepare_socket_dir`]'s refusal of an existing directory (another user's,
/// a link, one with parents another user could swap, one named with `--socket` that other
/// users may write in, such as `/tmp`). A directory that is missing would be made private,
/// and termloom's own is made so.
pub fn check_socket_dir(path: &Path) -> io::Result<()> {
    let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) else {
        return Ok(());
    };
    match fs::symlink_metadata(dir) {
        Ok(meta) => refusal(dir, &meta),
        // Made private where it is missing: only the directories it would be made in, the
        // nearest that exists and those above it, may refuse it.
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            let named = std::path::absolute(dir).map_err(|e| context(e, "checking", dir))?;
            let uid = rustix::process::getuid().as_raw();
            match named.ancestors().skip(1).find(|parent| parent.exists()) {
                Some(existing) => {
                    check_parents(existing, uid)?;
                    check_parent(existing, dir, uid)
                }
                None => Ok(()),
            }
        }
        Err(_) => Ok(()),
    }
}

/// Refuses the existing socket directory `dir` (whose metadata is `meta`, not followed
/// through a link) where a server may not keep its files: its parents could be swapped by
/// another user (`check_parents`), it is no directory of this user's, or, named with
/// `--socket`, other users may write in it.
fn refusal(dir: &Path, meta: &fs::Metadata) -> io::Result<()> {
    let uid = rustix::process::getuid().as_raw();
    check_parents(dir, uid)?;
    if !meta.is_dir() || meta.uid() != uid {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a directory of this user (uid {uid}); remove it or pick another socket with --socket",
                dir.display()
            ),
        ));
    }
    if dir == socket_dir() {
        return Ok(());
    }
    shared_with_others(dir, meta)
}

/// Refuses directory `dir` (whose metadata is `meta`) when other users may write in it.
fn shared_with_others(dir: &Path, meta: &fs::Metadata) -> io::Result<()> {
    if meta.mode() & 0o022 == 0 {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "other users may write in {} (mode {:o}), where the server keeps its lock, log and options beside the socket; put the socket in a directory only you can write to",
            dir.display(),
            meta.mode() & 0o7777
        ),
    ))
}

/// Refuses a socket directory `dir` that another user could swap for one of theirs after the
/// checks: every directory above it, as named and as resolved, must belong to this user or to
/// root, and may be writable by others only with the sticky bit (`/tmp`: there only an entry's
/// owner may rename or remove it); a link on the way must belong to this user or to root.
fn check_parents(dir: &Path, uid: u32) -> io::Result<()> {
    let named = std::path::absolute(dir).map_err(|e| context(e, "checking", dir))?;
    let resolved = fs::canonicalize(dir).map_err(|e| context(e, "checking", dir))?;
    let parents = named.ancestors().skip(1).chain(resolved.ancestors().skip(1));
    for parent in named.ancestors().skip(1).filter(|p| p.is_symlink()).chain(parents) {
        check_parent(parent, dir, uid)?;
    }
    Ok(())
}

/// Refuses `parent`, a directory above the socket directory `dir` (or a link on the way),
/// that another user could replace `dir` in (see [`check_parents`]).
fn check_parent(parent: &Path, dir: &Path, uid: u32) -> io::Result<()> {
    let meta = fs::symlink_metadata(parent).map_err(|e| context(e, "checking", parent))?;
    let why = if meta.uid() != uid && meta.uid() != 0 {
        format!("it belongs to uid {}", meta.uid())
    } else if meta.is_dir() && meta.mode() & 0o022 != 0 && meta.mode() & 0o1000 == 0 {
        format!("others may write in it (mode {:o}) and it is not sticky", meta.mode() & 0o7777)
    } else {
        return Ok(());
    };
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "{} holds the socket directory {}, but {why}, so the directory could be replaced; put the socket under directories only you (or root) can change",
            parent.display(),
            dir.display()
        ),
    ))
}

fn context(err: io::Error, doing: &str, path: &Path) -> io::Error {
    io::Error::new(err.kind(), format!("{doing} {}: {err}", path.display()))
}

/// A listening socket and the lock that makes it this server's; dropping it removes the
/// socket.
#[derive(Debug)]
pub(crate) struct Bound {
    pub listener: UnixListener,
    pub path: PathBuf,
    /// Held (locked) for the server's life; it also records the ids given out
    /// ([`Bound::first_id`], [`record_next_id`]).
    pub lock: File,
    /// The id the last server on this socket would have given next, which this one starts
    /// from (1 for the first server).
    pub first_id: u64,
    /// The device and inode of the socket's file, to remove only that file when done.
    file: (u64, u64),
}

impl Bound {
    /// The socket's file, to tell whether clients can still reach this server.
    pub(crate) fn file(&self) -> SocketFile {
        SocketFile { path: self.path.clone(), file: self.file }
    }
}

/// The file a server listens on, by path and by device and inode.
#[derive(Debug, Clone)]
pub(crate) struct SocketFile {
    path: PathBuf,
    file: (u64, u64),
}

impl SocketFile {
    /// The socket's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether its path still names it: `false` once it was removed (its directory too:
    /// `/run/user/UID` at logout) or replaced, when no client can reach its server any more.
    /// A look that fails otherwise (a network filesystem's passing error, a permission) says
    /// nothing of the socket: taken as still there, its sessions are not closed for it.
    pub(crate) fn reachable(&self) -> bool {
        self.is_at_path().unwrap_or_else(|err| !names_nothing(&err))
    }

    /// Whether its path names it now (the error: the look failed).
    fn is_at_path(&self) -> io::Result<bool> {
        fs::symlink_metadata(&self.path).map(|meta| (meta.dev(), meta.ino()) == self.file)
    }
}

/// Whether a look at a path failed because nothing is there: it, or a directory on the way
/// to it, is gone (`ENOENT`), or is no directory (`ENOTDIR`).
fn names_nothing(err: &io::Error) -> bool {
    use rustix::io::Errno;
    matches!(Errno::from_io_error(err), Some(Errno::NOENT | Errno::NOTDIR))
}

impl Drop for Bound {
    /// Removes the socket, if it is still this server's: once its file and lock were removed
    /// (the runtime directory cleaned at logout), another server may listen at the same path,
    /// and its socket is left to it.
    fn drop(&mut self) {
        // Looked at while the listener is still open (fields drop after this): the open
        // socket keeps its inode in use, so no file made since can have the same device and
        // inode. Once the listener closed, a new socket at the path could be given that inode
        // again and be taken for this one.
        if self.file().is_at_path().unwrap_or(false) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Binds the server socket at `path`: its directory private, one server per socket (a lock
/// file beside it), a stale socket (its server gone) replaced, the socket 0600.
pub(crate) fn bind(path: &Path) -> io::Result<Bound> {
    check_socket_path(path)?;
    // Refused before the lock file is made beside it: a refusal leaves nothing behind (a
    // server listening there is told by the lock).
    look_at(path)?;
    prepare_socket_dir(path)?;
    let lock_path = with_suffix(path, ".lock");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .mode(0o600)
        // A link in its place is refused, not followed (see the log's opening).
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(&lock_path)
        .map_err(|e| context(e, "opening the lock file", &lock_path))?;
    take_lock(&lock, path)?;
    // The lock is ours, so a socket that refuses connections there belongs to a server that
    // is gone, and anything else there is left alone (looked at again: it may have come
    // since the look above).
    match look_at(path)? {
        Found::Nothing => {}
        Found::Listening => {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("something is listening on {} already; use another socket", path.display()),
            ));
        }
        Found::Stale => {
            log::info!("termloom server: replacing the stale socket {}", path.display());
            fs::remove_file(path).map_err(|e| context(e, "removing the stale socket", path))?;
        }
    }
    let first_id = recorded_next_id(&lock);
    let listener = UnixListener::bind(path).map_err(|e| context(e, "listening on", path))?;
    let meta = fs::symlink_metadata(path).map_err(|e| context(e, "checking", path))?;
    let bound =
        Bound { listener, path: path.to_owned(), lock, first_id, file: (meta.dev(), meta.ino()) };
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))
        .map_err(|e| context(e, "making private", path))?;
    Ok(bound)
}

/// How long a server waits for the lock of one that no longer listens on the socket (see
/// `take_lock`). A client that starts a server waits longer for it to listen, so that it
/// sees such a server fail, saying why, rather than give up first.
pub const CLOSING_WAIT: Duration = Duration::from_secs(10);

/// Takes the socket's `lock`, the one server on `path`'s. A server that holds it and
/// listens there is running: refused at once, saying `termloom kill-server` stops it. One
/// that holds it and does not listen there (its socket removed, as by `rm`, or shut at a
/// stop) is closing its sessions and exits, which `kill-server` cannot hasten (it cannot
/// reach it): its lock is waited for, at most [`CLOSING_WAIT`] (less than a client waits for
/// the server it started), and is safe to take then, since a server never makes its socket
/// again and removes only its own. Past that, an [`io::ErrorKind::ResourceBusy`] error says
/// it is closing (one that listens is [`io::ErrorKind::AddrInUse`]).
fn take_lock(lock: &File, path: &Path) -> io::Result<()> {
    let deadline = Instant::now() + CLOSING_WAIT;
    let listening = loop {
        if flock(lock, FlockOperation::NonBlockingLockExclusive).is_ok() {
            return Ok(());
        }
        // (A server that took the lock and is about to listen is waited for too.)
        let listening = matches!(look_at(path)?, Found::Listening);
        if listening || Instant::now() >= deadline {
            break listening;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (kind, why) = match listening {
        true => (
            io::ErrorKind::AddrInUse,
            format!(
                "a termloom server is already running on {}; stop it with `termloom kill-server`, or use another socket (-L NAME)",
                path.display()
            ),
        ),
        false => (
            io::ErrorKind::ResourceBusy,
            format!(
                "the termloom server of {} is closing: its socket was removed, so no client (not `termloom kill-server`) can reach it, and it closes its sessions, each given its close grace, and exits; it still had not after {} s: start one again once it has, or use another socket (-L NAME)",
                path.display(),
                CLOSING_WAIT.as_secs()
            ),
        ),
    };
    Err(io::Error::new(kind, why))
}

/// What is at a server socket's path.
enum Found {
    Nothing,
    /// A stream socket something accepts connections on.
    Listening,
    /// A socket that refuses connections: nothing listens on it (a server that is gone).
    Stale,
}

/// Tells what is at the socket `path` by connecting to it. Only a socket that refuses the
/// connection (`ECONNREFUSED`) is stale; anything else there is refused, and left alone: no
/// socket ([`check_socket_place`]), or a socket a connection fails on otherwise, which may be
/// another program's (a datagram socket, one this user may not connect to, one whose
/// listener's queue is full), as an [`io::ErrorKind::AlreadyExists`] error that says why.
fn look_at(path: &Path) -> io::Result<Found> {
    check_socket_place(path)?;
    if fs::symlink_metadata(path).is_err() {
        // Nothing there (or nothing this user may see: listening there fails, saying why).
        return Ok(Found::Nothing);
    }
    match UnixStream::connect(path) {
        Ok(_) => Ok(Found::Listening),
        Err(err) if err.kind() == io::ErrorKind::ConnectionRefused => Ok(Found::Stale),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(Found::Nothing),
        Err(err) => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} is a socket that cannot be told to be a stopped server's: connecting to it failed with \"{err}\", where a stopped server's socket refuses the connection; it may be another program's (a datagram socket, or one this user may not connect to), so it is left alone; name another path for the socket, or remove it if it is no longer needed",
                path.display()
            ),
        )),
    }
}

/// The next session id the lock file records (see [`record_next_id`]): 1 when it records
/// none (a new socket, or a server of a termloom that did not record them).
fn recorded_next_id(lock: &File) -> u64 {
    let mut text = [0; 32];
    let read = rustix::io::pread(lock, &mut text, 0).unwrap_or(0);
    let text = std::str::from_utf8(&text[..read]).unwrap_or_default();
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|id| (1..=crate::reactor::MAX_FIRST_ID).contains(id))
        .unwrap_or(1)
}

/// Records in the lock file (which only the server holding it writes) an id above every one
/// the server may have given out, so that the next server on the socket numbers its sessions
/// on from there: an id a caller kept never names a later server's session. Always 21 bytes
/// at the start of the file, so a record replaces the last one whole. Not synced to the
/// disk: a server that is killed leaves its record in the page cache for the next one, and
/// only a crash of the machine loses it, which also ends every session an id could name (the
/// socket's directory is normally a tmpfs, gone with them).
pub(crate) fn record_next_id(lock: &File, next: u64) -> io::Result<()> {
    let text = format!("{next:020}\n");
    let written = rustix::io::pwrite(lock, text.as_bytes(), 0)?;
    match written == text.len() {
        true => Ok(()),
        false => Err(io::Error::new(io::ErrorKind::WriteZero, "the record was cut short")),
    }
}

/// `path` with `suffix` added to its file name.
pub(crate) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Connects to the server listening on `socket`, refusing one that another user runs, before
/// anything is sent to it: a socket in a directory another user made (`termloom-UID` in a
/// shared temporary directory, made before this user's first server) would otherwise hand
/// them every command, text typed and `--env` value, and let them forge every answer. The
/// server's process must run as this user or as root, as the server checks its clients
/// (`SO_PEERCRED`); a refusal is an [`io::ErrorKind::PermissionDenied`] error that names
/// its uid. A path too long for a socket is an [`io::ErrorKind::InvalidInput`] error
/// ([`check_socket_path`]), and a path where something other than a socket is (a directory,
/// a file named with `--socket` by mistake, a link that leads to no listening socket, even
/// one that leads nowhere), which refuses connections as a stopped server's socket does or
/// is missing as no server's is, is [`check_socket_place`]'s [`io::ErrorKind::AlreadyExists`]
/// error saying it is no server's socket, not taken for a server that is not running (nor
/// one started there, which would refuse the path too).
pub fn connect(socket: &Path) -> io::Result<UnixStream> {
    check_socket_path(socket)?;
    let stream = UnixStream::connect(socket).map_err(|err| match err.kind() {
        io::ErrorKind::ConnectionRefused | io::ErrorKind::NotFound => {
            check_socket_place(socket).err().unwrap_or(err)
        }
        _ => err,
    })?;
    let ours = rustix::process::getuid().as_raw();
    match peer_uid(&stream) {
        Ok(uid) if uid == ours || uid == 0 => Ok(stream),
        Ok(uid) => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the server listening on {} runs as uid {uid}, not as this user (uid {ours}) or root: it could read what is sent to it and forge its answers, so nothing was sent; remove that socket (or the directory holding it, if another user made it) or use another socket (-L NAME, --socket PATH)",
                socket.display()
            ),
        )),
        Err(why) => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "cannot tell whose server listens on {}: {why}; nothing was sent",
                socket.display()
            ),
        )),
    }
}

/// Whether the peer of `stream` may use this server: the same user, or root. `Err` says who
/// it is.
pub(crate) fn check_peer(stream: &UnixStream) -> Result<(), String> {
    let who = peer_uid(stream)
        .map_err(|why| format!("this termloom server cannot tell who connected: {why}"));
    who.and_then(|uid| {
        let ours = rustix::process::getuid().as_raw();
        if uid == ours || uid == 0 {
            Ok(())
        } else {
            Err(format!(
                "this termloom server belongs to uid {ours}; uid {uid} may not use it (start your own server)"
            ))
        }
    })
}

/// The uid of the process at the other end of `stream` (`SO_PEERCRED`). `Err` when it cannot
/// be read, or when it reads as the overflow uid in a user namespace that leaves some users
/// unmapped (`unshare --user` without a uid map): every such user reads as that one uid, so
/// it names nobody in particular, and would pass for this user's own where this user is
/// unmapped too.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn peer_uid(stream: &UnixStream) -> Result<u32, String> {
    let uid = rustix::net::sockopt::socket_peercred(stream)
        .map(|cred| cred.uid.as_raw())
        .map_err(|err| format!("cannot read the peer's credentials: {err}"))?;
    if uid != crate::os::procfs::overflow_uid() || maps_every_uid() {
        return Ok(uid);
    }
    Err(format!(
        "its uid reads as {uid}, the overflow uid, which stands for every user this user namespace does not map (termloom run under `unshare --user` without a uid map), so whose it is cannot be told; run termloom outside that namespace, or map this user's uid in it"
    ))
}

/// Whether this process's user namespace maps every uid (the initial one does: `0 0
/// 4294967295` in `/proc/self/uid_map`), so that no user reads as the overflow uid; `false`
/// when it cannot be read.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn maps_every_uid() -> bool {
    let Ok(map) = fs::read_to_string("/proc/self/uid_map") else {
        return false;
    };
    let counts = map.lines().filter_map(|line| line.split_whitespace().nth(2)?.parse::<u64>().ok());
    counts.sum::<u64>() >= u64::from(u32::MAX)
}

/// The process at the other end of `stream` (`SO_PEERCRED`), by which a server counts the
/// waits of a client's connections together; `None` when it cannot be told (elsewhere than
/// Linux, or a peer in a PID namespace the server cannot see, which reads as 0).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn peer_process(stream: &UnixStream) -> Option<i32> {
    let cred = rustix::net::sockopt::socket_peercred(stream).ok()?;
    Some(cred.pid.as_raw_nonzero().get()).filter(|pid| *pid > 0)
}

/// Elsewhere it cannot be told.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn peer_process(_stream: &UnixStream) -> Option<i32> {
    None
}

/// Elsewhere the socket's and directory's modes are the check (macOS would use getpeereid).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn peer_uid(_stream: &UnixStream) -> Result<u32, String> {
    Ok(rustix::process::getuid().as_raw())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a path that names nothing (gone, or through a file) is a socket gone: a look that
    /// fails otherwise (a network filesystem's passing error; here a name too long) is not,
    /// where before every failed look closed the server's sessions.
    #[test]
    fn only_a_path_that_names_nothing_is_a_socket_gone() {
        let at = |path: PathBuf| SocketFile { path, file: (0, 0) };
        assert!(at(PathBuf::from(format!("/{}", "x".repeat(5000)))).reachable());
        assert!(!at(std::env::temp_dir().join("termloom-no-such-directory/s")).reachable());
        assert!(!at(PathBuf::from("/proc/self/stat/s")).reachable());
    }

    #[test]
    fn a_second_server_is_refused_and_a_stale_socket_replaced() {
        let dir = std::env::temp_dir().join(format!("termloom-socket-test-{}", std::process::id()));
        let path = dir.join("s");
        let first = bind(&path).unwrap();
        let meta = fs::metadata(&path).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600);
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        let err = bind(&path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse, "{err}");
        drop(first);
        assert!(!path.exists(), "a server removes its socket");
        // A server that died without removing its socket: the lock is free, the socket stale.
        drop(UnixListener::bind(&path).unwrap());
        assert!(path.exists());
        let again = bind(&path).unwrap();
        drop(again);
        assert!(!path.exists());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_socket_directory_others_could_replace_is_refused() {
        let top =
            std::env::temp_dir().join(format!("termloom-parents-test-{}", std::process::id()));
        let socket = top.join("shared").join("mine").join("s");
        fs::create_dir_all(socket.parent().unwrap()).unwrap();
        let shared = top.join("shared");
        // Writable by others, not sticky: anyone could rename `mine` away and put theirs.
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o777)).unwrap();
        let err = prepare_socket_dir(&socket).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied, "{err}");
        assert!(err.to_string().contains("not sticky"), "{err}");
        // Through a link the resolved parents are checked as well.
        let link = top.join("link");
        std::os::unix::fs::symlink(&shared, &link).unwrap();
        let through_link = link.join("mine").join("s");
        let err = prepare_socket_dir(&through_link).unwrap_err();
        assert!(err.to_string().contains("not sticky"), "{err}");
        // Sticky, as /tmp is: only an entry's owner may rename it.
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
        prepare_socket_dir(&socket).unwrap();
        prepare_socket_dir(&through_link).unwrap();
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o755)).unwrap();
        prepare_socket_dir(&socket).unwrap();
        // A parent of another user's (where this runs as root, `nobody`'s).
        if rustix::process::getuid().is_root() {
            let nobody = rustix::process::Uid::from_raw(65534);
            rustix::fs::chown(&shared, Some(nobody), None).unwrap();
            let err = prepare_socket_dir(&socket).unwrap_err();
            assert!(err.to_string().contains("belongs to uid 65534"), "{err}");
        }
        let _ = fs::remove_dir_all(&top);
    }
}
