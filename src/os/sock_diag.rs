//! The peer of a local (Unix domain) socket, asked of the kernel's socket diagnostics
//! (`NETLINK_SOCK_DIAG`, as `ss -x` asks): which socket the other end of a connection is, so
//! that a program polling the terminal and a socket whose other end is held outside its
//! session (`docker exec -it` on the daemon's socket) can be told from one polling a socket of
//! its own (an event loop's socketpair). Linux only; elsewhere nothing is known.

/// The inode of the socket at the other end of the connected local socket with inode `inode`
/// (as `/proc/PID/fd/N` names it, `socket:[INODE]`), or `None` when it has none or the kernel
/// does not say (no such socket in this network namespace, no socket diagnostics).
pub(crate) fn unix_peer(inode: u64) -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        linux::unix_peer(inode)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = inode;
        None
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use rustix::net::{
        AddressFamily, RecvFlags, SendFlags, SocketType, netlink, recv, sendto, socket,
    };

    /// `SOCK_DIAG_BY_FAMILY`: the request's message type.
    const SOCK_DIAG_BY_FAMILY: u16 = 20;
    /// `NLM_F_REQUEST`.
    const NLM_F_REQUEST: u16 = 1;
    /// `NLMSG_ERROR`: the answer's message type when the kernel refuses.
    const NLMSG_ERROR: u16 = 2;
    /// `AF_UNIX`.
    const AF_UNIX: u8 = 1;
    /// `UDIAG_SHOW_PEER`: ask for the peer's inode.
    const UDIAG_SHOW_PEER: u32 = 4;
    /// `UNIX_DIAG_PEER`: the attribute holding it.
    const UNIX_DIAG_PEER: u16 = 2;
    /// The size of `struct nlmsghdr`.
    const HEADER: usize = 16;
    /// The size of `struct unix_diag_msg`.
    const MESSAGE: usize = 16;

    pub(super) fn unix_peer(inode: u64) -> Option<u64> {
        let inode = u32::try_from(inode).ok()?;
        let diag =
            socket(AddressFamily::NETLINK, SocketType::DGRAM, Some(netlink::SOCK_DIAG)).ok()?;
        sendto(&diag, &request(inode), SendFlags::empty(), &netlink::SocketAddrNetlink::new(0, 0))
            .ok()?;
        let mut answer = [0u8; 512];
        let (len, _) = recv(&diag, &mut answer[..], RecvFlags::empty()).ok()?;
        peer_in(answer.get(..len)?, inode)
    }

    /// The request: a `struct nlmsghdr` and a `struct unix_diag_req` for the socket `inode`,
    /// in any state, with its peer, whatever its cookie.
    fn request(inode: u32) -> [u8; HEADER + 24] {
        let mut message = [0u8; HEADER + 24];
        message[0..4].copy_from_slice(&((HEADER + 24) as u32).to_ne_bytes());
        message[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        message[6..8].copy_from_slice(&NLM_F_REQUEST.to_ne_bytes());
        let body = &mut message[HEADER..];
        body[0] = AF_UNIX;
        body[4..8].copy_from_slice(&u32::MAX.to_ne_bytes());
        body[8..12].copy_from_slice(&inode.to_ne_bytes());
        body[12..16].copy_from_slice(&UDIAG_SHOW_PEER.to_ne_bytes());
        body[16..24].fill(0xff);
        message
    }

    /// The peer's inode in the kernel's answer about the socket `inode`.
    pub(super) fn peer_in(answer: &[u8], inode: u32) -> Option<u64> {
        let word = |at: usize| Some(u32::from_ne_bytes(answer.get(at..at + 4)?.try_into().ok()?));
        let half = |at: usize| Some(u16::from_ne_bytes(answer.get(at..at + 2)?.try_into().ok()?));
        let len = (word(0)? as usize).min(answer.len());
        if half(4)? == NLMSG_ERROR || word(HEADER + 4)? != inode {
            return None;
        }
        // The attributes (`struct rtattr`: length, type, value), each aligned to 4 bytes.
        let mut at = HEADER + MESSAGE;
        while at + 4 <= len {
            let size = half(at)? as usize;
            if size < 4 {
                return None;
            }
            if half(at + 2)? == UNIX_DIAG_PEER && size >= 8 {
                return word(at + 4).map(u64::from);
            }
            at += size.next_multiple_of(4);
        }
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// The inode of the socket with descriptor `fd` of this process.
    fn inode(fd: i32) -> u64 {
        let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
        let link = link.to_string_lossy();
        link.trim_start_matches("socket:[").trim_end_matches(']').parse().unwrap()
    }

    #[test]
    fn the_peer_of_a_socketpairs_end_is_its_other_end() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let (a, b) = (inode(a.as_raw_fd()), inode(b.as_raw_fd()));
        assert_eq!(unix_peer(a), Some(b));
        assert_eq!(unix_peer(b), Some(a));
    }

    #[test]
    fn a_socket_with_no_peer_or_none_at_all_has_none() {
        let dir = std::env::temp_dir().join(format!("termloom-sock-diag-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let listener = std::os::unix::net::UnixListener::bind(&dir).unwrap();
        assert_eq!(unix_peer(inode(listener.as_raw_fd())), None);
        let _ = std::fs::remove_file(&dir);
        assert_eq!(unix_peer(u64::from(u32::MAX)), None);
        assert_eq!(unix_peer(u64::MAX), None);
    }

    #[test]
    fn a_short_or_refused_answer_names_no_peer() {
        assert_eq!(linux::peer_in(&[], 1), None);
        assert_eq!(linux::peer_in(&[0; 8], 1), None);
        let mut refused = [0u8; 36];
        refused[0] = 36;
        refused[4] = 2;
        assert_eq!(linux::peer_in(&refused, 0), None);
        // An attribute whose length is below its own header ends the look.
        let mut looping = [0u8; 40];
        looping[0] = 40;
        looping[20..24].copy_from_slice(&7u32.to_ne_bytes());
        assert_eq!(linux::peer_in(&looping, 7), None);
    }
}
