//! `storefront healthcheck`: asks this container's own shop for `GET /healthz` and exits 0 on a
//! 200, 1 otherwise. It is the image's `HEALTHCHECK`, so the runtime image needs no HTTP client
//! of its own; it speaks just enough HTTP/1.1 over a plain socket for that one request.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::time::Duration;

use super::CliError;

/// Whole-check budget: a health check that hangs is a failed one.
const TIMEOUT: Duration = Duration::from_secs(3);

/// The address to ask: the listen address, with a wildcard (`0.0.0.0`, `[::]`) replaced by the
/// loopback address of the same family.
pub fn target(bind: SocketAddr) -> SocketAddr {
    let ip = match bind.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, bind.port())
}

pub fn run(bind: SocketAddr) -> Result<(), CliError> {
    let addr = target(bind);
    let fail = |why: String| CliError::Incomplete(format!("unhealthy: {addr}: {why}"));
    let mut stream =
        TcpStream::connect_timeout(&addr, TIMEOUT).map_err(|e| fail(format!("connect: {e}")))?;
    stream
        .set_read_timeout(Some(TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(TIMEOUT)))
        .map_err(|e| fail(e.to_string()))?;
    let request = format!(
        "GET /healthz HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: storefront-healthcheck\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| fail(format!("send: {e}")))?;
    // The status line is all that is read: at most 64 bytes, whatever the server sends.
    let mut head = [0u8; 64];
    let mut len = 0;
    while len < head.len() && !head[..len].contains(&b'\n') {
        match stream.read(&mut head[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) => return Err(fail(format!("read: {e}"))),
        }
    }
    let line = String::from_utf8_lossy(&head[..len]);
    let status = line.split_whitespace().nth(1).unwrap_or("none");
    if status == "200" {
        Ok(())
    } else {
        Err(fail(format!("GET /healthz answered {status}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_bind_is_asked_on_loopback() {
        let v4: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert_eq!(target(v4), "127.0.0.1:8080".parse().unwrap());
        let v6: SocketAddr = "[::]:9000".parse().unwrap();
        assert_eq!(target(v6), "[::1]:9000".parse().unwrap());
        let exact: SocketAddr = "10.1.2.3:80".parse().unwrap();
        assert_eq!(target(exact), exact);
    }

    #[test]
    fn nothing_listening_is_unhealthy() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap();
        // The listener is dropped: the port is closed now.
        let err = run(port).unwrap_err();
        assert!(
            err.to_string().starts_with("unhealthy: 127.0.0.1:"),
            "{err}"
        );
    }
}
