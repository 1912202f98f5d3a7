//! What a thread's descriptors are: the terminal, pipes, sockets and their connections, an
//! `ssh` relay's proxies; the descriptors a poll watches.

use super::*;

/// Whether a descriptor's target (a `/proc/PID/fd/N` link) is a terminal.
pub(super) fn is_terminal(target: &str) -> bool {
    ["/dev/pts/", "/dev/tty", "/dev/console", "/dev/ptmx"]
        .iter()
        .any(|prefix| target.starts_with(prefix))
}

/// The most descriptors of a poll-family call looked at for a terminal.
pub(super) const WATCHED_LOOKED_AT: u64 = 1024;

/// Whether the poll-family call `name` (arguments in `syscall`) of the thread at `base`
/// waits on a terminal among its descriptors: a `poll` or `ppoll` array and a `select`
/// or `pselect6` read set are read from the process's memory, an epoll set from its
/// `fdinfo`. `None` when that cannot be read, or not whole (more than
/// [`WATCHED_LOOKED_AT`] descriptors, or an epoll set within the set).
pub(super) fn watches_terminal(
    base: &str,
    name: &str,
    syscall: &str,
    looks: &Looks,
) -> Option<bool> {
    let (fds, mut whole) = watched_descriptors(base, name, syscall, false, looks)?;
    for fd in fds {
        let Ok(target) = fs::read_link(format!("{base}/fd/{fd}")) else { continue };
        let target = target.to_string_lossy();
        if is_terminal(&target) {
            return Some(true);
        }
        whole &= target != "anon_inode:[eventpoll]";
    }
    whole.then_some(false)
}

/// Whether every descriptor the poll-family call `name` waits on, to read or to write,
/// is a terminal (and there is at least one, all of them looked at): nothing but input or
/// its timer can wake it, a program asking for a key or a line by a deadline (bash's
/// `read -n1 -t 30`, `pselect6` on descriptor 0 alone), where an event loop at work on a
/// timer waits on descriptors of its own beside the terminal (node's REPL: a pipe and an
/// eventfd in its epoll set) (see [`Shown::Unanswered`]).
pub(super) fn waits_on_terminal_alone(
    base: &str,
    name: &str,
    syscall: &str,
    looks: &Looks,
) -> bool {
    waits_on_only(base, name, syscall, looks, is_terminal)
}

/// Whether every descriptor the poll-family call `name` waits on, to read or to write,
/// is a pipe (and there is at least one, all of them looked at): the call then waits on
/// the processes at the pipes' other ends, as a blocked `read` or `write` on a pipe does.
pub(super) fn waits_on_pipes(base: &str, name: &str, syscall: &str, looks: &Looks) -> bool {
    waits_on_only(base, name, syscall, looks, |target| target.starts_with("pipe:"))
}

/// Whether every descriptor the poll-family call `name` waits on, to read or to write,
/// links to a target `kind` accepts (`/dev/pts/3`, `pipe:[1234]`), and there is at least
/// one, all of them looked at.
pub(super) fn waits_on_only(
    base: &str,
    name: &str,
    syscall: &str,
    looks: &Looks,
    kind: impl Fn(&str) -> bool,
) -> bool {
    waits_on_every(base, name, syscall, looks, |link| {
        fs::read_link(link).is_ok_and(|target| kind(&target.to_string_lossy()))
    })
}

/// Whether the poll-family call `name` waits, to read or to write, on descriptors that
/// `test` accepts by their link (`/proc/PID/task/TID/fd/N`) alone, and there is at least one,
/// all of them looked at.
fn waits_on_every(
    base: &str,
    name: &str,
    syscall: &str,
    looks: &Looks,
    test: impl Fn(&str) -> bool,
) -> bool {
    let Some((fds, true)) = watched_descriptors(base, name, syscall, true, looks) else {
        return false;
    };
    !fds.is_empty() && fds.iter().all(|fd| test(&format!("{base}/fd/{fd}")))
}

/// Whether the descriptor at `link` (`/proc/PID/task/TID/fd/N`) is the controlling terminal,
/// the device `tty`, or `/dev/tty`, which opens it. A link to a file is followed to its
/// device number from the kernel's cached metadata alone ([`open_device()`]): a FUSE file's
/// is its server's to give, and one that never answers froze the reactor; so a terminal
/// reached through a path outside `/dev` (a chroot's bind-mounted `pts`) counts too.
pub(super) fn is_controlling_terminal(link: &str, tty: u64) -> bool {
    let Ok(target) = fs::read_link(link) else { return false };
    let target = target.to_string_lossy();
    // (The link's metadata is the open file's: a terminal opened as `/dev/tty` reads as that
    // node's device, not the terminal behind it. `pipe:[…]`, `socket:[…]` are no file.)
    target == "/dev/tty" || target.starts_with('/') && open_device(link) == Some(tty)
}

/// Whether the poll-family call `name` waits, to read or to write, on terminals and
/// Internet sockets alone, at least one of them connected (all of them looked at): a relay
/// to a terminal across the network (`ssh`: its connection and the terminal; a listening
/// socket beside, `ssh -L`). When `proxied` (an `ssh`), pipes count as its connection when
/// they lead to a child that carries it ([`carries_connection`]: `ssh` through a
/// `ProxyCommand` or `ProxyJump`). An event loop has descriptors of its own besides (node's
/// eventfd and pipes, asyncio's socketpair), and is judged as before.
pub(super) fn relays_across_network(
    base: &str,
    name: &str,
    syscall: &str,
    looks: &Looks,
    proxied: bool,
) -> bool {
    let Some((fds, true)) = watched_descriptors(base, name, syscall, true, looks) else {
        return false;
    };
    // Every descriptor a terminal, a pipe or an Internet socket (the cheap look first),
    // then the tables those sockets are listed in, each read once, until one is connected.
    let mut sockets: Vec<(&'static str, u64)> = Vec::new();
    let mut pipes: Vec<u64> = Vec::new();
    for fd in fds {
        let link = format!("{base}/fd/{fd}");
        let Ok(target) = fs::read_link(&link) else { return false };
        let target = target.to_string_lossy();
        if is_terminal(&target) {
            continue;
        }
        match bracketed(&target, "pipe:") {
            Some(pipe) if proxied => pipes.push(pipe),
            Some(_) => return false,
            None => {
                let Some(socket) = inet_socket(&link, &target) else { return false };
                sockets.push(socket);
            }
        }
    }
    let process = base.find("/task/").map_or(base, |end| &base[..end]);
    if pipes.is_empty() {
        return any_connected(process, &mut sockets);
    }
    let Some(pid) = process.strip_prefix("/proc/").and_then(|pid| pid.parse::<i32>().ok()) else {
        return false;
    };
    children(pid, None).iter().any(|child| carries_connection(child.pid, &pipes, looks, PROXY_HOPS))
}

/// How many proxies in a row a relay's connection is followed through (`ssh -J a,b,c`).
pub(super) const PROXY_HOPS: usize = 4;

/// Whether process `pid` holds every one of `pipes` and carries the connection of the
/// process at their other ends: it holds an Internet socket that is connected (`ssh -W`
/// or `nc` for `ssh`'s `ProxyCommand`), or, `hops` allowing, a child of its own carries
/// its other pipes (`ssh -J a,b`). The pipes are looked at first, the tables of sockets
/// only for a process that holds them all (among the descriptors `looks` has room for).
pub(super) fn carries_connection(pid: i32, pipes: &[u64], looks: &Looks, hops: usize) -> bool {
    let (held, mut sockets) = pipes_and_sockets(pid, looks);
    if !pipes.iter().all(|pipe| held.contains(pipe)) {
        return false;
    }
    if any_connected(&format!("/proc/{pid}"), &mut sockets) {
        return true;
    }
    let own: Vec<u64> = held.into_iter().filter(|pipe| !pipes.contains(pipe)).collect();
    hops > 1
        && !own.is_empty()
        && children(pid, None)
            .iter()
            .any(|child| carries_connection(child.pid, &own, looks, hops - 1))
}

/// The pipes and the Internet sockets (a table and an inode each) among the descriptors
/// of process `pid` that `looks` has room for.
pub(super) fn pipes_and_sockets(pid: i32, looks: &Looks) -> (Vec<u64>, Vec<(&'static str, u64)>) {
    let (mut pipes, mut sockets) = (Vec::new(), Vec::new());
    find_descriptor(pid, looks, |path, target| {
        if let Some(pipe) = bracketed(target, "pipe:") {
            pipes.push(pipe);
        } else if let Some(socket) = inet_socket(path, target) {
            sockets.push(socket);
        }
        None::<()>
    });
    (pipes, sockets)
}

/// Whether the process of the thread at `base` runs `ssh` (its `comm`).
pub(super) fn runs_ssh(base: &str) -> bool {
    let process = base.find("/task/").map_or(base, |end| &base[..end]);
    crate::os::procfs::read_text(&format!("{process}/comm"))
        .is_ok_and(|comm| comm.trim_end() == "ssh")
}

/// Whether member `proxy` of a group is a proxy `ssh` started for its connection (see
/// [`carries_connection`]): `reader`, the member that reads the terminal, runs `ssh`, and
/// `proxy` descends from it through members (each a proxy of the one before, `ssh -J
/// a,b`), holds a pipe its parent holds and an Internet socket that is connected.
pub(super) fn proxy_of_ssh(
    proxy: &ProcStat,
    reader: i32,
    members: &[ProcStat],
    looks: &Looks,
) -> bool {
    // Up from its parent to the reader, every one an `ssh` of the group.
    let mut up = proxy.ppid;
    for hop in 1.. {
        let Some(parent) = members.iter().find(|m| m.pid == up) else { return false };
        if parent.comm != "ssh" {
            return false;
        }
        if up == reader {
            break;
        }
        if hop == PROXY_HOPS {
            return false;
        }
        up = parent.ppid;
    }
    let (parents_pipes, _) = pipes_and_sockets(proxy.ppid, looks);
    let (pipes, mut sockets) = pipes_and_sockets(proxy.pid, looks);
    pipes.iter().any(|pipe| parents_pipes.contains(pipe))
        && any_connected(&format!("/proc/{}", proxy.pid), &mut sockets)
}

/// The number in a descriptor's link `target` such as `pipe:[123]` of the kind `kind`
/// (`pipe:`, `socket:`).
pub(super) fn bracketed(target: &str, kind: &str) -> Option<u64> {
    target.strip_prefix(kind)?.strip_prefix('[')?.strip_suffix(']')?.parse().ok()
}

/// The table of `/proc/PID/net` and the inode of the Internet socket the descriptor at
/// `link` (linked to `target`) is; `None` for any other descriptor.
pub(super) fn inet_socket(link: &str, target: &str) -> Option<(&'static str, u64)> {
    let inode = bracketed(target, "socket:")?;
    let mut protocol = [0u8; 32];
    let len = rustix::fs::getxattr(link, "system.sockprotoname", &mut protocol[..]).ok()?;
    Some((inet_table(&protocol[..len])?, inode))
}

/// Whether one of `sockets` (a table and an inode each) is connected, by the tables of
/// `process` (`/proc/PID`), each read once.
pub(super) fn any_connected(process: &str, sockets: &mut [(&'static str, u64)]) -> bool {
    sockets.sort_unstable();
    sockets.chunk_by(|a, b| a.0 == b.0).any(|same_table| {
        fs::read_to_string(format!("{process}/net/{}", same_table[0].0)).is_ok_and(|listed| {
            same_table.iter().any(|&(_, inode)| connected_in(&listed, inode) == Some(true))
        })
    })
}

/// Whether the poll-family call `name` waits on sockets and pipes alone, at least one
/// socket (all of them looked at).
pub(super) fn waits_on_sockets(base: &str, name: &str, syscall: &str, looks: &Looks) -> bool {
    let Some((fds, true)) = watched_descriptors(base, name, syscall, true, looks) else {
        return false;
    };
    let targets: Vec<String> = fds
        .iter()
        .filter_map(|fd| fs::read_link(format!("{base}/fd/{fd}")).ok())
        .map(|target| target.to_string_lossy().into_owned())
        .collect();
    targets.len() == fds.len()
        && targets.iter().any(|t| t.starts_with("socket:"))
        && targets.iter().all(|t| t.starts_with("socket:") || t.starts_with("pipe:"))
}

/// Whether the poll-family call `name` (arguments in `syscall`) of the thread at `base` waits
/// on inotify descriptors, beside none but pipes it only writes (`tail -f | grep`: its output,
/// polled for its reader's end) and, in a `poll` or `ppoll`, descriptors it asks no event to
/// read of (`journalctl -f` polls its output, the terminal, so, for its hang-up), all of them
/// looked at: a program following files, which reads no key.
pub(super) fn polls_followed_files(base: &str, name: &str, syscall: &str, looks: &Looks) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some((fds, true)) = watched_descriptors(base, name, syscall, true, looks) else {
        return false;
    };
    // The descriptors a `poll` or `ppoll` asks something to read of (all, for other calls).
    let read = match name {
        "poll" | "ppoll" => match polled_for_reading(base, syscall) {
            Some(read) => read,
            None => return false,
        },
        _ => fds.clone(),
    };
    let mut inotify = false;
    for fd in &fds {
        let link = format!("{base}/fd/{fd}");
        let Ok(target) = fs::read_link(&link) else { return false };
        let target = target.to_string_lossy();
        // (A descriptor's link has the permissions it was opened with: `l-wx` written only.)
        let written_only =
            || fs::symlink_metadata(&link).is_ok_and(|meta| meta.permissions().mode() & 0o444 == 0);
        match &*target {
            "anon_inode:inotify" if read.contains(fd) => inotify = true,
            _ if !read.contains(fd) && (is_terminal(&target) || target.starts_with("pipe:")) => {}
            pipe if pipe.starts_with("pipe:") && written_only() => {}
            _ => return false,
        }
    }
    inotify
}

/// The events of a `pollfd` that wait for something to read: `POLLIN`, `POLLPRI`,
/// `POLLRDNORM`, `POLLRDBAND`.
const POLL_READS: i16 = 0x1 | 0x2 | 0x40 | 0x80;

/// The descriptors of the `poll` or `ppoll` array (arguments in `syscall`; its first
/// [`WATCHED_LOOKED_AT`] entries) of the thread at `base` that ask for an event to read;
/// `None` when the array cannot be read.
fn polled_for_reading(base: &str, syscall: &str) -> Option<Vec<u64>> {
    let entries = poll_entries(base, syscall)?;
    Some(
        entries
            .into_iter()
            .filter(|&(_, events)| events & POLL_READS != 0)
            .map(|(fd, _)| fd)
            .collect(),
    )
}

/// Whether the `poll` or `ppoll` call `name` (arguments in `syscall`) of the thread at `base`
/// asks no event to read of one of its descriptors (its hang-up, or room to write): read from
/// its array alone, no descriptor looked at.
pub(super) fn polls_one_not_to_read(base: &str, name: &str, syscall: &str) -> bool {
    matches!(name, "poll" | "ppoll")
        && poll_entries(base, syscall)
            .is_some_and(|entries| entries.iter().any(|&(_, events)| events & POLL_READS == 0))
}

/// The descriptors of the `poll` or `ppoll` array (arguments in `syscall`; its first
/// [`WATCHED_LOOKED_AT`] entries) of the thread at `base`, with the events each asks for
/// (entries with no descriptor left out); `None` when the array cannot be read.
fn poll_entries(base: &str, syscall: &str) -> Option<Vec<(u64, i16)>> {
    // struct pollfd { int fd; short events; short revents; }
    let count = syscall_arg(syscall, 1)?.min(WATCHED_LOOKED_AT) as usize;
    let mut raw = vec![0u8; count * 8];
    let array = syscall_arg(syscall, 0)?;
    read_memory(base, array, &mut raw).ok()?;
    Some(
        raw.chunks_exact(8)
            .filter_map(|entry| {
                let fd = u64::try_from(i32::from_ne_bytes(entry[..4].try_into().ok()?)).ok()?;
                Some((fd, i16::from_ne_bytes([entry[4], entry[5]])))
            })
            .collect(),
    )
}

/// The descriptors the poll-family call `name` (arguments in `syscall`) of the thread at
/// `base` waits on, and whether that is all of them (at most [`WATCHED_LOOKED_AT`] are
/// read): a `poll` or `ppoll` array, a `select` or `pselect6` read set (and its write set
/// when `writes`), read from the process's memory, or an epoll set from its `fdinfo`.
/// `None` when they cannot be read, or the probe (`looks`) has no room left to look at
/// them all.
pub(super) fn watched_descriptors(
    base: &str,
    name: &str,
    syscall: &str,
    writes: bool,
    looks: &Looks,
) -> Option<(Vec<u64>, bool)> {
    if looks.spent() {
        return None;
    }
    let (fds, whole) = watched_descriptors_of(base, name, syscall, writes)?;
    looks.take(fds.len()).then_some((fds, whole))
}

/// The descriptors the poll-family call `name` (arguments in `syscall`) of the thread at
/// `base` waits on to read, and whether that is all of them: as [`watched_descriptors`] (a
/// `select` or `pselect6` read set), but an entry of a `poll` or `ppoll` array, or an item
/// of an epoll set, only when it asks for an event to read ([`POLL_READS`]; epoll's bits for
/// them are the same). `journalctl -f` polls the terminal for its hang-up alone: no read of
/// it. `None` as for [`watched_descriptors`].
pub(super) fn watched_for_reading(
    base: &str,
    name: &str,
    syscall: &str,
    looks: &Looks,
) -> Option<(Vec<u64>, bool)> {
    if looks.spent() {
        return None;
    }
    let (fds, whole) = match name {
        "poll" | "ppoll" => {
            (polled_for_reading(base, syscall)?, syscall_arg(syscall, 1)? <= WATCHED_LOOKED_AT)
        }
        "epoll_wait" | "epoll_pwait" | "epoll_pwait2" | "epoll_wait_old" => {
            let (items, whole) = epoll_items(base, syscall)?;
            let reads = items.into_iter().filter(|&(_, events)| events & POLL_READS != 0);
            (reads.map(|(fd, _)| fd).collect(), whole)
        }
        _ => return watched_descriptors(base, name, syscall, false, looks),
    };
    looks.take(fds.len()).then_some((fds, whole))
}

/// The items of the epoll set the `epoll_wait`-family call (arguments in `syscall`) of the
/// thread at `base` waits on, from its `fdinfo` (its first [`WATCHED_LOOKED_AT`]), each with
/// its events ([`epoll_item`]), and whether that is all of them; `None` when it cannot be
/// read.
fn epoll_items(base: &str, syscall: &str) -> Option<(Vec<(u64, i16)>, bool)> {
    let info = read_fdinfo(&format!("{base}/fdinfo/{}", syscall_arg(syscall, 0)?))?;
    let items: Vec<(u64, i16)> = info.lines().filter_map(epoll_item).collect();
    let whole = items.len() as u64 <= WATCHED_LOOKED_AT;
    Some((items.into_iter().take(WATCHED_LOOKED_AT as usize).collect(), whole))
}

/// An item of an epoll set as its `fdinfo` line gives it (`tfd: 5 events: 19 data: …`,
/// the events in hexadecimal): its descriptor, and the low bits of its events, where the
/// ones to read are ([`POLL_READS`]).
fn epoll_item(line: &str) -> Option<(u64, i16)> {
    let mut words = line.strip_prefix("tfd:")?.split_ascii_whitespace();
    let fd = words.next()?.parse().ok()?;
    let events = words.skip_while(|&word| word != "events:").nth(1)?;
    let events = u32::from_str_radix(events, 16).ok()?;
    Some((fd, (events & 0xffff) as u16 as i16))
}

/// See [`watched_descriptors`].
pub(super) fn watched_descriptors_of(
    base: &str,
    name: &str,
    syscall: &str,
    writes: bool,
) -> Option<(Vec<u64>, bool)> {
    let arg = |n: usize| syscall_arg(syscall, n);
    Some(match name {
        "poll" | "ppoll" => {
            let whole = arg(1)? <= WATCHED_LOOKED_AT;
            let fds = poll_entries(base, syscall)?.into_iter().map(|(fd, _)| fd).collect();
            (fds, whole)
        }
        "select" | "pselect6" => {
            let count = arg(0)?.min(WATCHED_LOOKED_AT);
            let sets: &[usize] = if writes { &[1, 2] } else { &[1] };
            let sets: Vec<u64> = sets.iter().map(|&n| arg(n)).collect::<Option<_>>()?;
            // With no set given, nothing is watched, however large the count.
            let whole = arg(0)? <= WATCHED_LOOKED_AT || sets.iter().all(|&set| set == 0);
            let mut fds = Vec::new();
            for set in sets {
                if set == 0 {
                    continue;
                }
                // An array of `long`s, descriptor n at bit n % 64 of word n / 64.
                let mut raw = vec![0u8; count.div_ceil(64) as usize * 8];
                read_memory(base, set, &mut raw).ok()?;
                let words: Vec<u64> = raw
                    .chunks_exact(8)
                    .filter_map(|word| Some(u64::from_ne_bytes(word.try_into().ok()?)))
                    .collect();
                fds.extend(
                    (0..count).filter(|fd| words[(fd / 64) as usize] & (1 << (fd % 64)) != 0),
                );
            }
            (fds, whole)
        }
        "epoll_wait" | "epoll_pwait" | "epoll_pwait2" | "epoll_wait_old" => {
            let (items, whole) = epoll_items(base, syscall)?;
            (items.into_iter().map(|(fd, _)| fd).collect(), whole)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::stalled_fuse::StalledFuse;
    use super::*;

    /// An epoll set's item is read from its `fdinfo` line, its events in hexadecimal.
    #[test]
    fn an_epoll_items_events_are_read_in_hexadecimal() {
        let line = "tfd:        5 events:       19 data:                5  pos:0 ino:3 sdev:d";
        assert_eq!(epoll_item(line), Some((5, 0x19)));
        assert_eq!(epoll_item("tfd:        0 events:        0 data: 0"), Some((0, 0)));
        assert_eq!(epoll_item("pos:	0"), None);
    }

    /// A descriptor of a file on a FUSE file system whose server never answers
    /// ([`StalledFuse`]), held by `cat` blocked reading it, is no terminal, told without
    /// asking the file system (its metadata, a FUSE `GETATTR` never answered, waited until the
    /// server died).
    #[test]
    fn a_file_on_a_stalled_file_system_is_told_from_the_terminal_without_asking_it() {
        let look = |link: &str| is_controlling_terminal(link, 0);
        let Some(told) = StalledFuse::look_at_a_reader("fuse-fd", look) else { return };
        assert!(told.blocked, "cat blocked reading the file");
        assert_eq!(told.answer, Ok(false), "told within 5 s, and not the terminal");
        assert!(told.unmounted);
    }
}
