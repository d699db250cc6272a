//! Who sent a request, as the login throttle, the checkout rate limit, sessions and the audit
//! log see it, and where the client is when a trusted proxy says.
//!
//! By default the client is the TCP peer and `X-Forwarded-For` is ignored: any client can
//! write that header, so trusting it would let an attacker pick a fresh address for every
//! guess (escaping the throttle) or name a victim's address (throttling the victim). Behind a
//! reverse proxy the peer is the proxy, so every client would share one address and one
//! throttle budget; `STOREFRONT_TRUSTED_PROXIES` names the proxies, and only for a request
//! whose peer is one of them is the header read: from the right (the entry the nearest proxy
//! appended) past every trusted proxy, to the first address the proxies did not vouch for.
//! Entries left of it were written by the client and are never believed.
//!
//! Limits count a client by its [`ClientKey`] (an IPv4 address or an IPv6 /64, see
//! [`client_key`]); the audit log and sessions keep the full address ([`client_addr`]).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use actix_web::HttpRequest;
use actix_web::http::header::HeaderName;

use crate::config::TrustedProxies;
pub use crate::domain::ClientKey;
use crate::web::AppState;

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The client's address; `0.0.0.0` when the server does not know the peer (never over TCP).
pub fn client_ip(req: &HttpRequest) -> IpAddr {
    let Some(peer) = req.peer_addr().map(|a| a.ip()) else {
        return IpAddr::V4(Ipv4Addr::UNSPECIFIED);
    };
    match req.app_data::<actix_web::web::Data<AppState>>() {
        Some(state) if !state.settings.trusted_proxies.is_empty() => {
            let forwarded = req
                .headers()
                .get_all(X_FORWARDED_FOR)
                .filter_map(|value| value.to_str().ok());
            resolve(peer, forwarded, &state.settings.trusted_proxies)
        }
        _ => peer.to_canonical(),
    }
}

/// The country of the client's address as the trusted proxy in front of the shop names it
/// (`STOREFRONT_CLIENT_COUNTRY_HEADER`, e.g. Cloudflare's `CF-IPCountry`): evidence of where
/// a taxed sale's customer is. `None` unless the request's TCP peer is a trusted proxy, the
/// header is set and its value is a country (`XX`, `T1` and other non-countries are not).
pub fn client_country(req: &HttpRequest) -> Option<crate::domain::tax::CountryCode> {
    let state = req.app_data::<actix_web::web::Data<AppState>>()?;
    let header = state.settings.client_country_header.as_ref()?;
    let peer = req.peer_addr()?.ip();
    if !state.settings.trusted_proxies.contains(peer) {
        return None;
    }
    let value = req.headers().get(header)?.to_str().ok()?;
    crate::domain::tax::CountryCode::parse(value.trim()).ok()
}

/// The unit the request is counted under by every per-client limit.
pub fn client_key(req: &HttpRequest) -> ClientKey {
    ClientKey::of(client_ip(req))
}

/// [`client_ip`] as text, the way the audit log and sessions store it.
pub fn client_addr(req: &HttpRequest) -> String {
    client_ip(req).to_string()
}

/// The client behind `peer`, given the `X-Forwarded-For` header lines in order. An entry that
/// is not an address stops the walk at the last proxy: a malformed chain is not evidence.
fn resolve<'a>(
    peer: IpAddr,
    forwarded_for: impl Iterator<Item = &'a str>,
    trusted: &TrustedProxies,
) -> IpAddr {
    let mut client = peer.to_canonical();
    if !trusted.contains(client) {
        return client;
    }
    let entries: Vec<&str> = forwarded_for.flat_map(|line| line.split(',')).collect();
    for entry in entries.into_iter().rev() {
        let Some(addr) = parse_entry(entry.trim()) else {
            return client;
        };
        client = addr.to_canonical();
        if !trusted.contains(client) {
            return client;
        }
    }
    client
}

/// `203.0.113.7`, `2001:db8::1`, and the forms with a port some proxies write
/// (`203.0.113.7:4711`, `[2001:db8::1]:4711`).
fn parse_entry(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    fn proxies(raw: &str) -> TrustedProxies {
        TrustedProxies::parse(raw).expect("proxies")
    }

    #[test]
    fn without_trusted_proxies_the_header_is_ignored() {
        let none = TrustedProxies::default();
        let got = resolve(ip("198.51.100.9"), ["203.0.113.7"].into_iter(), &none);
        assert_eq!(got, ip("198.51.100.9"));
    }

    #[test]
    fn a_peer_that_is_not_a_trusted_proxy_cannot_name_a_client() {
        let trusted = proxies("10.0.0.0/8");
        let got = resolve(ip("198.51.100.9"), ["203.0.113.7"].into_iter(), &trusted);
        assert_eq!(got, ip("198.51.100.9"));
    }

    #[test]
    fn behind_trusted_proxies_the_first_untrusted_hop_from_the_right_is_the_client() {
        let trusted = proxies("10.0.0.0/8");
        // The client forged the leftmost entry; the proxies appended the rest.
        let got = resolve(
            ip("10.0.0.2"),
            ["1.2.3.4, 203.0.113.7", "10.0.0.1"].into_iter(),
            &trusted,
        );
        assert_eq!(got, ip("203.0.113.7"));
        let got = resolve(ip("10.0.0.2"), ["[2001:db8::1]:4711"].into_iter(), &trusted);
        assert_eq!(got, ip("2001:db8::1"));
        let got = resolve(
            ip("::ffff:10.0.0.2"),
            ["203.0.113.7:80"].into_iter(),
            &trusted,
        );
        assert_eq!(got, ip("203.0.113.7"));
    }

    #[test]
    fn a_missing_or_malformed_chain_stops_at_the_last_proxy() {
        let trusted = proxies("10.0.0.0/8");
        assert_eq!(
            resolve(ip("10.0.0.2"), std::iter::empty(), &trusted),
            ip("10.0.0.2")
        );
        let got = resolve(
            ip("10.0.0.2"),
            ["203.0.113.7, not-an-ip, 10.0.0.1"].into_iter(),
            &trusted,
        );
        assert_eq!(got, ip("10.0.0.1"));
    }
}
