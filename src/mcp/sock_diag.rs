//! The owner of one TCP socket, asked of the kernel by its addresses (Linux's
//! `NETLINK_SOCK_DIAG`, an `inet_diag` request for one socket, not a dump): a cost that does
//! not grow with the sockets open, where `/proc/net/tcp` lists them all.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use rustix::net::netlink::{SOCK_DIAG, SocketAddrNetlink};
use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};

/// `SOCK_DIAG_BY_FAMILY`, the request and answer's message type.
const SOCK_DIAG_BY_FAMILY: u16 = 20;
/// `NLM_F_REQUEST`.
const NLM_F_REQUEST: u16 = 1;
/// `NLMSG_ERROR`, the kernel's error answer.
const NLMSG_ERROR: u16 = 2;
/// `ENOENT`, negated in an error answer: no such socket.
const ENOENT: i32 = 2;
/// `TCP_ESTABLISHED`.
const ESTABLISHED: u8 = 1;
/// `TCP_LISTEN`.
const LISTEN: u8 = 10;
/// The `nlmsghdr` before each message.
const HEADER: usize = 16;
/// `struct inet_diag_sockid`: ports, addresses, interface, cookie.
const SOCKID: usize = 48;

/// What the kernel said of a socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Found: its owner's uid when it is connected and owned, `None` when it is not (a
    /// socket its owner closed is orphaned, its inode 0, and listed with uid 0).
    Found(Option<u32>),
    /// Not found: no such socket (`ENOENT`, or another socket in its place: a listener on
    /// the address asked about, which the kernel gives when no connection matches). The
    /// kernel says so too without `tcp_diag`: [`listens`] tells the two apart.
    Absent,
    /// It could not be asked (no netlink, an answer not understood): another way must be
    /// taken.
    Unknown,
}

/// What the kernel says of the socket at `at` connected to `to`.
pub(crate) fn owner(at: SocketAddr, to: SocketAddr) -> Lookup {
    let (at, to) = (canonical(at), canonical(to));
    match ask(at, to) {
        Some(answer) => read_answer(&answer, at, to),
        None => Lookup::Unknown,
    }
}

/// Whether the kernel answers for the socket listening at `local` (a lookup that finds no
/// connection gives the listener): then netlink works, and a socket it does not find is
/// gone.
pub(crate) fn listens(local: SocketAddr) -> bool {
    let local = canonical(local);
    let anywhere = match local.ip() {
        IpAddr::V4(_) => SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
        IpAddr::V6(_) => SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0)),
    };
    ask(local, anywhere).is_some_and(|answer| {
        let kind = answer.get(4..6).map(|k| u16::from_ne_bytes([k[0], k[1]]));
        kind == Some(SOCK_DIAG_BY_FAMILY) && answer.get(HEADER + 1) == Some(&LISTEN)
    })
}

/// `at` with an IPv4-mapped IPv6 address as its IPv4 one.
fn canonical(at: SocketAddr) -> SocketAddr {
    SocketAddr::new(at.ip().to_canonical(), at.port())
}

/// The kernel's answer to a request for the socket at `at` connected to `to`; `None` when
/// it could not be asked.
fn ask(at: SocketAddr, to: SocketAddr) -> Option<Vec<u8>> {
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
    Some(answer.get(..length)?.to_vec())
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

/// The owner in the kernel's `answer` for the socket at `at` connected to `to` (see
/// [`owner`]).
fn read_answer(answer: &[u8], at: SocketAddr, to: SocketAddr) -> Lookup {
    read(answer, at, to).unwrap_or(Lookup::Unknown)
}

fn read(answer: &[u8], at: SocketAddr, to: SocketAddr) -> Option<Lookup> {
    let word = |at: usize| Some(u32::from_ne_bytes(answer.get(at..at + 4)?.try_into().ok()?));
    let kind = u16::from_ne_bytes(answer.get(4..6)?.try_into().ok()?);
    if kind == NLMSG_ERROR {
        // struct nlmsgerr: the error, negated.
        let error = word(HEADER)? as i32;
        return Some(if error == -ENOENT { Lookup::Absent } else { Lookup::Unknown });
    }
    if kind != SOCK_DIAG_BY_FAMILY {
        return None;
    }
    // inet_diag_msg: family, state, timer, retransmits, the socket's id, then expires,
    // the queues, uid and inode. The family is the socket's: a dual-stack client's
    // (AF_INET6, connected to ::ffff:127.0.0.1) is answered for an AF_INET request, its
    // addresses mapped.
    let (family, state) = (*answer.get(HEADER)?, *answer.get(HEADER + 1)?);
    let id = answer.get(HEADER + 4..HEADER + 4 + SOCKID)?;
    if addresses(family, id)? != (at, to) {
        // Another socket in its place (a listener at `at`): this one is not there.
        return Some(Lookup::Absent);
    }
    let uid = word(HEADER + 4 + SOCKID + 12)?;
    let inode = word(HEADER + 4 + SOCKID + 16)?;
    Some(Lookup::Found((state == ESTABLISHED && inode != 0).then_some(uid)))
}

/// The two ends an `inet_diag_sockid` of `family` names, mapped IPv4 addresses as IPv4.
fn addresses(family: u8, id: &[u8]) -> Option<(SocketAddr, SocketAddr)> {
    let port = |at: usize| Some(u16::from_be_bytes(id.get(at..at + 2)?.try_into().ok()?));
    let address = |at: usize| -> Option<IpAddr> {
        if u16::from(family) == AddressFamily::INET.as_raw() {
            Some(IpAddr::V4(Ipv4Addr::from(<[u8; 4]>::try_from(id.get(at..at + 4)?).ok()?)))
        } else if u16::from(family) == AddressFamily::INET6.as_raw() {
            let v6 = Ipv6Addr::from(<[u8; 16]>::try_from(id.get(at..at + 16)?).ok()?);
            Some(IpAddr::V6(v6).to_canonical())
        } else {
            None
        }
    };
    Some((SocketAddr::new(address(4)?, port(0)?), SocketAddr::new(address(20)?, port(2)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    /// A listener on 127.0.0.1, a client connected to it and the served end, and the
    /// client's address as the server sees it.
    fn connected(
        client: impl FnOnce(SocketAddr) -> TcpStream,
    ) -> (TcpListener, TcpStream, TcpStream, SocketAddr) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = client(listener.local_addr().unwrap());
        let (served, peer) = listener.accept().unwrap();
        (listener, client, served, peer)
    }

    /// An address where no socket is.
    fn nowhere() -> SocketAddr {
        TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
    }

    /// A connected socket's owner is this process's uid, at either end; a socket that does
    /// not exist is not found.
    #[test]
    fn finds_a_connected_sockets_owner() {
        let (listener, client, served, peer) = connected(|at| TcpStream::connect(at).unwrap());
        let local = listener.local_addr().unwrap();
        let uid = rustix::process::geteuid().as_raw();
        assert_eq!(owner(peer, local), Lookup::Found(Some(uid)));
        assert_eq!(owner(local, peer), Lookup::Found(Some(uid)));
        drop((client, served));
        assert_eq!(owner(nowhere(), local), Lookup::Absent);
    }

    /// A client closed after connecting is orphaned (FIN_WAIT1 or 2, inode 0, listed with
    /// uid 0) while the server's end is open: no owner, whatever uid the kernel lists (run
    /// as root, uid 0 passed for the server's own).
    #[test]
    fn a_closed_clients_socket_has_no_owner() {
        let (listener, client, _served, peer) = connected(|at| TcpStream::connect(at).unwrap());
        drop(client);
        assert_eq!(owner(peer, listener.local_addr().unwrap()), Lookup::Found(None));
    }

    /// Asked for a connection that does not exist from an address a listener holds, the
    /// kernel answers with the listener (LISTEN, its peer's port 0): not found, and not
    /// taken for the connection's socket (its uid, the server's own, was the answer).
    #[test]
    fn a_listener_in_the_place_asked_about_is_not_the_socket() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let at = listener.local_addr().unwrap();
        let to = nowhere();
        assert_eq!(owner(at, to), Lookup::Absent);
        assert!(listens(at));
        assert!(!listens(nowhere()));
    }

    /// A dual-stack client (an AF_INET6 socket connected to ::ffff:127.0.0.1) is answered
    /// with its family and its addresses mapped: found (it never was, the tables read
    /// instead).
    #[test]
    fn finds_a_dual_stack_clients_owner() {
        let (listener, _client, _served, peer) = connected(|at| {
            let mapped =
                SocketAddr::new(IpAddr::V6(Ipv4Addr::LOCALHOST.to_ipv6_mapped()), at.port());
            TcpStream::connect(mapped).unwrap()
        });
        let uid = rustix::process::geteuid().as_raw();
        assert_eq!(owner(peer, listener.local_addr().unwrap()), Lookup::Found(Some(uid)));
    }

    /// Run as root, a client socket made by a thread running as `nobody` is that uid's
    /// (a uid read from the wrong field, or the server's own, is not).
    #[test]
    fn finds_another_uids_socket() {
        if !rustix::process::geteuid().is_root() {
            return;
        }
        let (listener, _client, _served, peer) = connected(|at| {
            std::thread::spawn(move || {
                let nobody = rustix::process::Uid::from_raw(65534);
                rustix::thread::set_thread_res_uid(nobody, nobody, nobody).unwrap();
                TcpStream::connect(at).unwrap()
            })
            .join()
            .unwrap()
        });
        assert_eq!(owner(peer, listener.local_addr().unwrap()), Lookup::Found(Some(65534)));
    }
}
