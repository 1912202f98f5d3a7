//! The watch on stdout of `termloom mcp` and its proxy (`termloom mcp --server`): whether the
//! host stopped reading though nothing is written ([`watch_stdout`]).

use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, epoll, poll};
use rustix::io::Errno;

/// How long stdin is given to end after stdout's reader is seen gone: a host that closes both
/// (exits: the kernel closes its descriptors one by one, in its own numbers' order) ends
/// the server or the proxy as the end of its input does, whichever it closed first.
pub(super) const BOTH_CLOSED_WITHIN: Duration = Duration::from_millis(250);

/// Calls `gone` once stdout's last reader is gone, though nothing is written: the server
/// stops (see `super::mcp`), the proxy (`termloom mcp --server`) exits. An answer written
/// while another process still held a copy of the pipe's read end (a child the host forked,
/// until its `exec`) went into the pipe, and the server waited for the next request for ever.
/// A thread waits on stdout for nothing but its end: `POLLERR` (a pipe with no reader left)
/// or `POLLHUP` (a socket or terminal hung up); on a stream socket also its reading half shut
/// by the host (`shutdown(SHUT_RD)`), which no poll flag reports: each wake-up of the socket
/// (edge-triggered `EPOLLOUT`: the peer's shutdown wakes it, as its reads of what was written
/// do) tries an empty send, which fails with `EPIPE` then (it was noticed only when the next
/// answer was written). That holds for a Unix stream socket, whose shut reading half the
/// sender sees; not for TCP, whose peer's `SHUT_RD` sends nothing: the send succeeds, and
/// such a host is seen gone only once it closes the socket. Its price: a wake-up and an empty send each time the host reads what
/// was written (20,000 pings through a socket, debug build: 0.30-0.36 s of the server's CPU,
/// 0.21-0.25 s before). Not when stdin ends too within [`BOTH_CLOSED_WITHIN`] (before or
/// after): a host that closes both, in either order, ends the input as usual (exit 0). A file
/// or `/dev/null` never reports an end: the thread sleeps for good. Not open (`POLLNVAL`),
/// it ends.
pub(super) fn watch_stdout(gone: impl FnOnce() + Send + 'static) {
    let watch = move || {
        let stdout = std::io::stdout();
        let ended = match rustix::net::sockopt::socket_type(&stdout) {
            Ok(rustix::net::SocketType::STREAM) => socket_ended(&stdout),
            _ => None,
        };
        let ended = ended.unwrap_or_else(|| hung_up(&stdout));
        if ended && !stdin_ends_within(BOTH_CLOSED_WITHIN) {
            gone();
        }
    };
    if let Err(err) = std::thread::Builder::new().name("termloom-stdout".into()).spawn(watch) {
        say!("termloom: cannot watch stdout ({err}); a closed one is seen at the next answer");
    }
}

/// Waits until `fd` reports `POLLERR` or `POLLHUP` (true) or is not open (false).
fn hung_up(fd: &impl std::os::fd::AsFd) -> bool {
    loop {
        let mut fds = [PollFd::new(fd, PollFlags::empty())];
        match poll(&mut fds, None) {
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(_) => return false,
        }
        // `POLLNVAL`: not open; nothing else is asked for.
        return fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP);
    }
}

/// Waits on a stream socket until its peer is gone or no longer reads (true), or it is not
/// open (false); `None` when it cannot be waited on so (see [`hung_up`]). "No longer reads"
/// is a Unix stream socket's peer's `shutdown(SHUT_RD)`; a TCP peer's is not visible here
/// (nothing goes on the wire), only its close.
///
/// Linux only (epoll): a port waits with kqueue (ARCHITECTURE.md's "Platforms").
fn socket_ended(socket: &impl std::os::fd::AsFd) -> Option<bool> {
    let epoll = epoll::create(epoll::CreateFlags::CLOEXEC).ok()?;
    let flags = epoll::EventFlags::OUT | epoll::EventFlags::ET;
    epoll::add(&epoll, socket, epoll::EventData::new_u64(0), flags).ok()?;
    let none =
        epoll::Event { flags: epoll::EventFlags::empty(), data: epoll::EventData::new_u64(0) };
    let mut events = [none; 1];
    loop {
        match epoll::wait(&epoll, &mut events, None) {
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(_) => return None,
        }
        // (Copied out: the event is a packed struct.)
        let seen = { events[0].flags };
        if seen.intersects(epoll::EventFlags::ERR | epoll::EventFlags::HUP) {
            return Some(true);
        }
        // Nothing is sent; a socket whose sending half is shut (the peer's reading half)
        // refuses even that.
        let flags = rustix::net::SendFlags::NOSIGNAL | rustix::net::SendFlags::DONTWAIT;
        match rustix::net::send(socket, &[], flags) {
            Err(Errno::PIPE | Errno::CONNRESET) => return Some(true),
            Err(Errno::BADF | Errno::NOTSOCK) => return Some(false),
            _ => {}
        }
    }
}

/// Whether stdin's other end is gone, or goes within `within`: `POLLHUP` (a pipe whose
/// writers all closed it, a socket shut both ways, a terminal hung up) or `POLLRDHUP` (a
/// socket whose peer shut its writing half), though requests may be left to read.
pub(super) fn stdin_ends_within(within: Duration) -> bool {
    let stdin = std::io::stdin();
    let until = Instant::now() + within;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let left = Timespec::try_from(left).unwrap_or(Timespec { tv_sec: 0, tv_nsec: 0 });
        let mut fds = [PollFd::new(&stdin, PollFlags::RDHUP)];
        match poll(&mut fds, Some(&left)) {
            Ok(0) => return false,
            Ok(_) => return fds[0].revents().intersects(PollFlags::HUP | PollFlags::RDHUP),
            Err(Errno::INTR) => continue,
            Err(_) => return false,
        }
    }
}
