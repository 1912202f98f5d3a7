//! The owner of one TCP socket, asked of the kernel by its addresses (Linux's
//! `NETLINK_SOCK_DIAG`, an `inet_diag` request for one socket, not a dump): a cost that does
//! not grow with the sockets open, where `/proc/net/tcp` lists them all.

use std::net::{IpAddr, SocketAddr};

use rustix::net::netlink::{SOCK_DIAG, SocketAddrNetlink};
use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};

/// `SOCK_DIAG_BY_FAMILY`, the request and answer's message type.
const SOCK_DIAG_BY_FAMILY: u16 = 20;
/// `NLM_F_REQUEST`.
const NLM_F_REQUEST: u16 = 1;
/// `TCP_ESTABLISHED`.
const ESTABLISHED: u8 = 1;
/// The `nlmsghdr` before each message.
const HEADER: usize = 16;
/// `struct inet_diag_sockid`: ports, addresses, interface, cookie.
const SOCKID: usize = 48;

/// What the kernel says of the socket at `at` connected to `to`: `Some(Some(uid))` when it
/// is connected and owned, `Some(None)` when it is not (a socket its owner closed is
/// orphaned, its inode 0), `None` when the kernel did not find it (as it says too without
/// `tcp_diag`) or could not be asked (no netlink, an answer not understood): then another way
/// must be taken.
pub(crate) fn owner(at: SocketAddr, to: SocketAddr) -> Option<Option<u32>> {
    let family = match (at.ip(), to.ip()) {
        (IpAddr::V4(_), IpAddr::V4(_)) => AddressFamily::INET,
        (IpAddr::V6(_), IpAddr::V6(_)) => AddressFamily::INET6,
        _ => return None,
    };
    let socket = rustix::net::socket_with(
        AddressFamily::NETLINK,
        SocketType::DGRAM,
        SocketFlags::CLOEXEC,
        Some(SOCK_DIAG),
    )
    .ok()?;
    let request = request(family, at, to);
    let kernel = SocketAddrNetlink::new(0, 0);
    rustix::net::sendto(&socket, &request, SendFlags::empty(), &kernel).ok()?;
    // The kernel answers within the send: nothing to wait for.
    let mut answer = [0u8; 1024];
    let (_, length) = rustix::net::recv(&socket, &mut answer, RecvFlags::DONTWAIT).ok()?;
    read_answer(answer.get(..length)?, at, to)
}

/// An `inet_diag_req_v2` for the TCP socket at `at` connected to `to`, behind its header.
fn request(family: AddressFamily, at: SocketAddr, to: SocketAddr) -> Vec<u8> {
    let length = HEADER + 8 + SOCKID;
    let mut message = Vec::with_capacity(length);
    message.extend_from_slice(&(length as u32).to_ne_bytes());
    message.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    message.extend_from_slice(&NLM_F_REQUEST.to_ne_bytes());
    message.extend_from_slice(&1u32.to_ne_bytes()); // sequence
    message.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel assigns it
    message.extend_from_slice(&[family.as_raw() as u8, 6 /* IPPROTO_TCP */, 0, 0]);
    message.extend_from_slice(&u32::MAX.to_ne_bytes()); // every state
    message.extend_from_slice(&sockid(at, to));
    message
}

/// The `inet_diag_sockid` of the socket at `at` connected to `to`, the cookie left out.
fn sockid(at: SocketAddr, to: SocketAddr) -> [u8; SOCKID] {
    let mut id = [0u8; SOCKID];
    id[0..2].copy_from_slice(&at.port().to_be_bytes());
    id[2..4].copy_from_slice(&to.port().to_be_bytes());
    for (address, start) in [(at.ip(), 4), (to.ip(), 20)] {
        match address {
            IpAddr::V4(ip) => id[start..start + 4].copy_from_slice(&ip.octets()),
            IpAddr::V6(ip) => id[start..start + 16].copy_from_slice(&ip.octets()),
        }
    }
    // The interface (0, any), then INET_DIAG_NOCOOKIE.
    id[40..48].fill(0xff);
    id
}

/// The owner in the kernel's `answer` (see [`owner`]).
fn read_answer(answer: &[u8], at: SocketAddr, to: SocketAddr) -> Option<Option<u32>> {
    let word = |at: usize| Some(u32::from_ne_bytes(answer.get(at..at + 4)?.try_into().ok()?));
    let kind = u16::from_ne_bytes(answer.get(4..6)?.try_into().ok()?);
    // NLMSG_ERROR is the kernel's "no such socket", or that it could not look.
    if kind != SOCK_DIAG_BY_FAMILY {
        return None;
    }
    // inet_diag_msg: family, state, timer, retransmits, the socket's id, then expires,
    // the queues, uid and inode.
    let state = *answer.get(HEADER + 1)?;
    let id = answer.get(HEADER + 4..HEADER + 4 + SOCKID)?;
    if id[..40] != sockid(at, to)[..40] {
        return None;
    }
    let uid = word(HEADER + 4 + SOCKID + 12)?;
    let inode = word(HEADER + 4 + SOCKID + 16)?;
    Some((state == ESTABLISHED && inode != 0).then_some(uid))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connected socket's owner is this process's uid, at either end; a socket that does
    /// not exist is not found.
    #[test]
    fn finds_a_connected_sockets_owner() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let client = std::net::TcpStream::connect(local).unwrap();
        let (served, peer) = listener.accept().unwrap();
        let uid = rustix::process::geteuid().as_raw();
        assert_eq!(owner(peer, local), Some(Some(uid)));
        assert_eq!(owner(local, peer), Some(Some(uid)));
        drop((client, served));
        let gone: SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert_eq!(owner(gone, local), None);
    }
}
