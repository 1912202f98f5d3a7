//! Who owns the other end of a TCP connection on this host: the uid the kernel gives for the
//! peer's socket, asked of it for that socket alone ([`sock_diag`]), or else found in
//! `/proc/net/tcp` and `/proc/net/tcp6` (Linux). The secret page serves only peers of its own
//! uid, so another local user holding its address cannot use it.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

#[cfg(target_os = "linux")]
use super::sock_diag;
use crate::os::procfs::overflow_uid;

/// The uid owning the socket at `peer` connected to `local` (the server's end); `None` when
/// not found (then the peer is not served).
///
/// The kernel is asked for that socket alone; where it cannot be (or does not find it), the
/// tables, which list every TCP socket of the network namespace (the host's when it has none
/// of its own), are read a line at a time up to the peer's line, and only a line holding the
/// peer's address as the table writes it is parsed. (The whole of both tables was read and
/// every line split, for every connection: 30 ms in a debug build with 10,000 sockets open.)
/// A peer the kernel says is gone (it answers for the listener at `local`, so netlink works)
/// is refused without reading the tables: another uid connecting and resetting in a loop made
/// every connection read them to the end.
#[cfg(target_os = "linux")]
pub(crate) fn peer_uid(peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    peer_uid_or(peer, local, || in_tables(peer, local))
}

/// [`peer_uid`], `tables` the way taken when the kernel cannot say.
#[cfg(target_os = "linux")]
fn peer_uid_or(
    peer: SocketAddr,
    local: SocketAddr,
    tables: impl FnOnce() -> Option<u32>,
) -> Option<u32> {
    match sock_diag::owner(peer, local) {
        sock_diag::Lookup::Found(uid) => uid,
        sock_diag::Lookup::Absent if sock_diag::listens(local) => None,
        sock_diag::Lookup::Absent | sock_diag::Lookup::Unknown => tables(),
    }
}

/// [`peer_uid`] from `/proc/net/tcp` and `/proc/net/tcp6`.
#[cfg(target_os = "linux")]
fn in_tables(peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    [("/proc/net/tcp", false), ("/proc/net/tcp6", true)].iter().find_map(|&(table, six)| {
        let needle = written(peer, six)?;
        let file = std::fs::File::open(table).ok()?;
        uid_among(std::io::BufReader::with_capacity(64 * 1024, file), &needle, peer, local)
    })
}

/// The uid of the first line of `table` whose socket is at `peer` (written `needle`) connected
/// to `local`; lines after it are not read, and a line without `needle` is not parsed.
fn uid_among(
    mut table: impl std::io::BufRead,
    needle: &str,
    peer: SocketAddr,
    local: SocketAddr,
) -> Option<u32> {
    let mut line = String::new();
    loop {
        line.clear();
        if table.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line.contains(needle)
            && let Some(uid) = uid_in(&line, peer, local)
        {
            return Some(uid);
        }
    }
}

/// `at` as `/proc/net/tcp` (or, `six`, `/proc/net/tcp6`, an IPv4 address mapped) writes it;
/// `None` for an IPv6 address, which the IPv4 table cannot hold.
fn written(at: SocketAddr, six: bool) -> Option<String> {
    let octets = match (at.ip(), six) {
        (IpAddr::V4(ip), false) => {
            return Some(format!("{:08X}:{:04X}", u32::from_ne_bytes(ip.octets()), at.port()));
        }
        (IpAddr::V4(ip), true) => ip.to_ipv6_mapped().octets(),
        (IpAddr::V6(ip), true) => ip.octets(),
        (IpAddr::V6(_), false) => return None,
    };
    let words: String = octets
        .chunks(4)
        .map(|word| format!("{:08X}", u32::from_ne_bytes(word.try_into().unwrap_or_default())))
        .collect();
    Some(format!("{words}:{:04X}", at.port()))
}

/// The uid whose peers the page serves: the server's own, unless it is the kernel's overflow
/// uid (`/proc/sys/kernel/overflowuid`, 65534), which netlink and `/proc` report for a user
/// another user namespace cannot map: a server running as it (`nobody` in a container) could
/// not tell the person from another namespace's user, and opens no page.
pub(crate) fn own_uid() -> std::io::Result<u32> {
    let euid = rustix::process::geteuid().as_raw();
    if cfg!(target_os = "linux") && euid == overflow_uid() {
        return Err(std::io::Error::other(format!(
            "this server runs as uid {euid}, which the kernel also gives a user of another user namespace: the page could not tell the person from them"
        )));
    }
    Ok(euid)
}

/// Elsewhere the kernel's tables are not read: the uid is taken to be the server's own.
#[cfg(not(target_os = "linux"))]
pub(crate) fn peer_uid(_peer: SocketAddr, _local: SocketAddr) -> Option<u32> {
    Some(rustix::process::geteuid().as_raw())
}

/// The uid of a table `line` when its socket is at `peer` connected to `local`, still
/// connected and owned: a socket its owner closed is orphaned (no longer `ESTABLISHED`, its
/// inode 0) and listed with uid 0, though what it sent can still be read.
fn uid_in(line: &str, peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let (at, to) = (address(fields.get(1)?)?, address(fields.get(2)?)?);
    let owned = *fields.get(3)? == ESTABLISHED && *fields.get(9)? != "0";
    (at == peer && to == local && owned).then(|| fields.get(7)?.parse().ok())?
}

/// The state the tables write for a connected socket (`TCP_ESTABLISHED`).
const ESTABLISHED: &str = "01";

/// An address as the tables write it (`0100007F:1F90`: the address's 32-bit words in host
/// order, the port in hex); an IPv4-mapped IPv6 address is taken as its IPv4 one.
fn address(text: &str) -> Option<SocketAddr> {
    let (ip, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let mut bytes = Vec::with_capacity(16);
    for word in (0..ip.len()).step_by(8) {
        let word = u32::from_str_radix(ip.get(word..word + 8)?, 16).ok()?;
        bytes.extend_from_slice(&word.to_ne_bytes());
    }
    let ip = match <[u8; 16]>::try_from(bytes.as_slice()) {
        Ok(v6) => {
            Ipv6Addr::from(v6).to_ipv4_mapped().map_or(IpAddr::V6(Ipv6Addr::from(v6)), IpAddr::V4)
        }
        Err(_) => IpAddr::V4(Ipv4Addr::from(<[u8; 4]>::try_from(bytes.as_slice()).ok()?)),
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_kernels_tables() {
        let v4 = "   3: 0100007F:A1B2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 12345";
        let (peer, local) = ("127.0.0.1:41394".parse().unwrap(), "127.0.0.1:8080".parse().unwrap());
        if cfg!(target_endian = "little") {
            assert_eq!(uid_in(v4, peer, local), Some(1000));
            assert_eq!(uid_in(v4, local, peer), None);
            // Closed by its owner (FIN_WAIT1, orphaned: uid 0, inode 0): no owner is known.
            let orphan = "   3: 0100007F:A1B2 0100007F:1F90 05 00000000:00000000 00:00000000 00000000     0        0 0";
            assert_eq!(uid_in(orphan, peer, local), None);
            let v6 = "   0: 0000000000000000FFFF00000100007F:A1B2 0000000000000000FFFF00000100007F:1F90 01 00000000:00000000 00:00000000 00000000  33        0 1";
            assert_eq!(uid_in(v6, peer, local), Some(33));
        }
        // A real connection's peer is found, owned by this process's uid.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (_served, peer) = listener.accept().unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        let local = listener.local_addr().unwrap();
        assert_eq!(peer_uid(peer, local), Some(rustix::process::geteuid().as_raw()));
        assert_eq!(in_tables(peer, local), Some(rustix::process::geteuid().as_raw()));
        // As the table writes it.
        let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
        let needle = written(peer, false).unwrap();
        assert!(
            table.lines().any(|line| line.contains(&needle) && uid_in(line, peer, local).is_some()),
            "{needle}"
        );
        assert!(written("[::1]:80".parse().unwrap(), false).is_none());
        if cfg!(target_endian = "little") {
            let mapped = written("127.0.0.1:41394".parse().unwrap(), true).unwrap();
            assert_eq!(mapped, "0000000000000000FFFF00000100007F:A1B2");
        }
    }

    /// The reading stops at the peer's line: what follows it is not read (the whole table was
    /// read first, 10,000 sockets' lines when that many are open, and every line split).
    #[test]
    fn stops_reading_at_the_peers_line() {
        if cfg!(target_endian = "big") {
            return;
        }
        /// Fails every read: the table past the peer's line.
        struct Unread;
        impl std::io::Read for Unread {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("read past the peer's line"))
            }
        }
        let (peer, local) = ("127.0.0.1:41394".parse().unwrap(), "127.0.0.1:8080".parse().unwrap());
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
            \x20  0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7\n\
            \x20  1: 0100007F:A1B2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 12345\n";
        let reader = std::io::BufReader::new(std::io::Read::chain(table.as_bytes(), Unread));
        let needle = written(peer, false).unwrap();
        assert_eq!(uid_among(reader, &needle, peer, local), Some(1000));
    }

    /// A peer the kernel does not find while it answers for the listener (netlink works) is
    /// refused without reading the tables (they were read to the end, on every connection a
    /// stranger reset); a dual-stack peer (AF_INET6, ::ffff:127.0.0.1) is found by netlink
    /// (its answer's mapped addresses did not match, and the tables were read).
    #[test]
    fn reads_no_table_for_a_peer_gone_or_a_dual_stack_one() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let unread = || -> Option<u32> { panic!("the tables were read") };
        let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        assert_eq!(peer_uid_or(gone, local, unread), None);
        let mapped =
            SocketAddr::new(IpAddr::V6(Ipv4Addr::LOCALHOST.to_ipv6_mapped()), local.port());
        let _client = std::net::TcpStream::connect(mapped).unwrap();
        let (_served, peer) = listener.accept().unwrap();
        let uid = rustix::process::geteuid().as_raw();
        assert_eq!(peer_uid_or(peer, local, unread), Some(uid));
        // Where the kernel cannot say, the tables are read.
        let elsewhere: SocketAddr = "[::1]:1".parse().unwrap();
        assert_eq!(peer_uid_or(elsewhere, local, || Some(7)), Some(7));
    }

    /// The peer is found among many sockets, wherever the kernel lists it.
    #[test]
    fn finds_its_peer_among_many_sockets() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let open: Vec<_> = (0..1_000)
            .map(|_| {
                let client = std::net::TcpStream::connect(local).unwrap();
                let (served, peer) = listener.accept().unwrap();
                (client, served, peer)
            })
            .collect();
        let uid = rustix::process::geteuid().as_raw();
        for (_, _, peer) in open.iter().step_by(97) {
            assert_eq!(peer_uid(*peer, local), Some(uid), "{peer}");
            assert_eq!(in_tables(*peer, local), Some(uid), "{peer}");
        }
    }
}
