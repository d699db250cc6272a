//! The unit every per-client limit counts: one IPv4 address, or one IPv6 /64.
//!
//! An IPv6 customer is normally given a whole /64 (often a /56 or /48), and picks a fresh
//! address inside it at will (privacy extensions rotate it on their own). Counting full IPv6
//! addresses would give one person 2^64 budgets; counting the /64 gives them one, like an IPv4
//! address. An IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, what a dual-stack socket reports
//! for an IPv4 peer) is that IPv4 address.
//!
//! The checkout rate limit, the checkout's wallet-hold caps and the login throttles all count by
//! [`ClientKey`]; the audit log keeps the full address for people to read.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A client as the limits see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientKey {
    V4(Ipv4Addr),
    /// The first 64 bits of the address; the rest is zero.
    V6Net(Ipv6Addr),
}

impl ClientKey {
    pub fn of(ip: IpAddr) -> Self {
        match ip.to_canonical() {
            IpAddr::V4(v4) => Self::V4(v4),
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !(u128::from(u64::MAX));
                Self::V6Net(Ipv6Addr::from(prefix))
            }
        }
    }

    /// The key of an address as the audit log stores it. Text that is not an address (`local`
    /// for the command line) is its own key.
    pub fn key_text(addr: &str) -> String {
        match addr.trim().parse::<IpAddr>() {
            Ok(ip) => Self::of(ip).to_string(),
            Err(_) => addr.to_string(),
        }
    }
}

impl From<IpAddr> for ClientKey {
    fn from(ip: IpAddr) -> Self {
        Self::of(ip)
    }
}

/// `203.0.113.7` or `2001:db8:1:2::/64`: the form stored in the database.
impl fmt::Display for ClientKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::V4(v4) => write!(f, "{v4}"),
            Self::V6Net(net) => write!(f, "{net}/64"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key(s: &str) -> ClientKey {
        ClientKey::of(s.parse().expect("ip"))
    }

    #[test]
    fn an_ipv6_64_is_one_client_and_its_neighbour_another() {
        assert_eq!(
            key("2001:db8:1:2::1"),
            key("2001:db8:1:2:ffff:ffff:ffff:ffff")
        );
        assert_eq!(key("2001:db8:1:2:abcd::9").to_string(), "2001:db8:1:2::/64");
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db9:1:2::1"));
    }

    #[test]
    fn ipv4_addresses_stay_whole_and_mapped_ones_are_ipv4() {
        assert_eq!(key("203.0.113.7").to_string(), "203.0.113.7");
        assert_ne!(key("203.0.113.7"), key("203.0.113.8"));
        assert_eq!(key("::ffff:203.0.113.7"), key("203.0.113.7"));
        assert_eq!(ClientKey::key_text("::ffff:203.0.113.7"), "203.0.113.7");
    }

    #[test]
    fn text_that_is_not_an_address_is_its_own_key() {
        assert_eq!(ClientKey::key_text("local"), "local");
        assert_eq!(ClientKey::key_text("2001:db8::5"), "2001:db8::/64");
    }

    proptest! {
        #[test]
        fn addresses_share_a_key_exactly_when_they_share_the_first_64_bits(
            a in any::<u128>(),
            b in any::<u128>(),
        ) {
            let (ia, ib) = (Ipv6Addr::from(a), Ipv6Addr::from(b));
            // Mapped IPv4 addresses are IPv4 clients: covered by the next property.
            prop_assume!(ia.to_ipv4_mapped().is_none() && ib.to_ipv4_mapped().is_none());
            let same = ClientKey::of(IpAddr::V6(ia)) == ClientKey::of(IpAddr::V6(ib));
            prop_assert_eq!(same, a >> 64 == b >> 64);
        }

        #[test]
        fn any_address_in_a_64_has_the_key_of_its_network(net in any::<u64>(), host in any::<u64>()) {
            let addr = Ipv6Addr::from((u128::from(net) << 64) | u128::from(host));
            prop_assume!(addr.to_ipv4_mapped().is_none());
            let key = ClientKey::of(IpAddr::V6(addr));
            prop_assert_eq!(key, ClientKey::V6Net(Ipv6Addr::from(u128::from(net) << 64)));
            // The stored text parses back to the same network.
            let text = key.to_string();
            let network = text.strip_suffix("/64").expect("suffix");
            prop_assert_eq!(ClientKey::key_text(network), text);
        }

        #[test]
        fn a_mapped_ipv4_address_is_the_ipv4_client(v4 in any::<u32>()) {
            let v4 = Ipv4Addr::from(v4);
            prop_assert_eq!(
                ClientKey::of(IpAddr::V6(v4.to_ipv6_mapped())),
                ClientKey::of(IpAddr::V4(v4))
            );
            prop_assert_eq!(ClientKey::of(IpAddr::V4(v4)), ClientKey::V4(v4));
        }
    }
}
