//! Who owns the other end of a TCP connection on this host: the uid the kernel lists for the
//! peer's socket in `/proc/net/tcp` and `/proc/net/tcp6` (Linux). The secret page serves only
//! peers of its own uid, so another local user holding its address cannot use it.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The uid owning the socket at `peer` connected to `local` (the server's end), from the
/// kernel's tables; `None` when not found (then the peer is not served).
#[cfg(target_os = "linux")]
pub(crate) fn peer_uid(peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().find_map(|table| {
        let text = std::fs::read_to_string(table).ok()?;
        text.lines().skip(1).find_map(|line| uid_in(line, peer, local))
    })
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
    }
}
