//! Who sent a reply, as this server checks it (`DJAMBI_MAIL_AUTH=aligned`), with
//! `mail-auth`: a DKIM signature that passes, by a domain aligned with the `From`, or an
//! SPF pass for the SMTP session's `MAIL FROM`, aligned with the `From`. A header
//! `Authentication-Results` inside the mail is never read: whoever sent the mail may have
//! written it.
//!
//! - **One `From`**: the mail has exactly one `From` as the DKIM verifier reads it too, and
//!   it is the player's verified address (the use case has already refused a mail with a
//!   second `From` or a malformed field name, which parsers read differently).
//! - **DKIM** counts when the signature verifies, its `h=` covers `From`, it has no `l=`
//!   (a body length tag would let text be added after the signed part), and its `d=` is
//!   aligned with the `From` domain. Both ways of delivery check it: the SMTP listener
//!   and `POST /v1/inbound-mail` (the raw message is all it takes).
//! - **SPF** needs the connecting address, the `EHLO` name and the `MAIL FROM`, so only the
//!   SMTP listener has it; the HTTP endpoint checks DKIM alone (it never trusts a
//!   `Received` or `Received-SPF` header either). Behind the site's MTA the connecting
//!   address is the MTA's, so SPF fails there and DKIM is what counts; SPF counts when the
//!   listener is the MX itself.
//! - **Aligned** is DMARC's relaxed alignment without a public suffix list: the two
//!   domains are equal, or one is a subdomain of the other and the shorter has at least
//!   two labels (`com` never aligns with anything).
//!
//! The DNS servers are `DJAMBI_MAIL_DNS` (the tests run their own), else the system's.

use std::net::SocketAddr;

use mail_auth::hickory_resolver::config::{NameServerConfigGroup, ResolverConfig, ResolverOpts};
use mail_auth::{AuthenticatedMessage, DkimResult, MessageAuthenticator, SpfResult};
use tokio::sync::OnceCell;

use super::Envelope;

/// What authenticated a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pass {
    /// A DKIM signature of this domain.
    Dkim(String),
    /// The SPF record of this `MAIL FROM` domain.
    Spf(String),
}

/// The DKIM and SPF checks, with their resolver (made on first use).
pub struct Authenticator {
    dns: Vec<SocketAddr>,
    resolver: OnceCell<Option<MessageAuthenticator>>,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("dns", &self.dns)
            .finish_non_exhaustive()
    }
}

impl Authenticator {
    /// Checks with these DNS servers (empty: the system's).
    pub fn new(dns: Vec<SocketAddr>) -> Authenticator {
        Authenticator {
            dns,
            resolver: OnceCell::new(),
        }
    }

    async fn resolver(&self) -> Option<&MessageAuthenticator> {
        self.resolver
            .get_or_init(|| async {
                let made = if self.dns.is_empty() {
                    MessageAuthenticator::new_system_conf()
                } else {
                    let mut group = NameServerConfigGroup::with_capacity(2 * self.dns.len());
                    for a in &self.dns {
                        group.merge(NameServerConfigGroup::from_ips_clear(
                            &[a.ip()],
                            a.port(),
                            true,
                        ));
                    }
                    let mut opts = ResolverOpts::default();
                    opts.timeout = std::time::Duration::from_secs(3);
                    opts.attempts = 2;
                    MessageAuthenticator::new(ResolverConfig::from_parts(None, vec![], group), opts)
                };
                match made {
                    Ok(r) => Some(r),
                    Err(e) => {
                        tracing::error!(error = %e, "no DNS resolver for DKIM and SPF: replies by mail cannot be authenticated");
                        None
                    }
                }
            })
            .await
            .as_ref()
    }

    /// The first aligned pass of the mail whose single `From` is `from` (the player's
    /// verified address), if any.
    ///
    /// The `From` is read again here, as the DKIM verifier reads it: unless that reading
    /// too finds exactly one `From`, equal to `from`, nothing passes. So a signature (or an
    /// SPF pass) counts only for the very `From` the use case matched against the player,
    /// never for another `From` beside it that a different parser would have read.
    pub async fn check(&self, raw: &[u8], from: &str, envelope: Option<&Envelope>) -> Option<Pass> {
        let from_domain = domain_of(from)?;
        let msg = AuthenticatedMessage::parse(raw)?;
        if !matches!(msg.from.as_slice(), [only] if only.eq_ignore_ascii_case(from.trim())) {
            tracing::debug!(froms = msg.from.len(), "the DKIM reading of From differs");
            return None;
        }
        let resolver = self.resolver().await?;
        for out in resolver.verify_dkim(&msg).await {
            let Some(sig) = out.signature() else {
                continue;
            };
            let covers_from = sig.h.iter().any(|h| h.eq_ignore_ascii_case("from"));
            if *out.result() == DkimResult::Pass
                && covers_from
                && sig.l == 0
                && aligned(&sig.d, &from_domain)
            {
                return Some(Pass::Dkim(sig.d.to_ascii_lowercase()));
            }
            tracing::debug!(result = ?out.result(), d = %sig.d, "a DKIM signature that does not count");
        }
        let env = envelope?;
        let mail_from_domain = domain_of(&env.mail_from)?;
        if !aligned(&mail_from_domain, &from_domain) {
            return None;
        }
        let helo = if env.helo.is_empty() {
            "unknown"
        } else {
            env.helo.as_str()
        };
        let spf = resolver
            .verify_spf(mail_auth::spf::verify::SpfParameters::verify_mail_from(
                env.peer,
                helo,
                "djambi",
                &env.mail_from,
            ))
            .await;
        tracing::debug!(result = ?spf.result(), domain = %spf.domain(), "SPF");
        (spf.result() == SpfResult::Pass).then_some(Pass::Spf(mail_from_domain))
    }
}

/// The domain of an address, lower case, without a trailing dot.
pub fn domain_of(address: &str) -> Option<String> {
    let (_, d) = address.trim().trim_matches(['<', '>']).rsplit_once('@')?;
    let d = d.trim_end_matches('.').to_ascii_lowercase();
    (!d.is_empty()).then_some(d)
}

/// DMARC's relaxed alignment without a public suffix list (see the module).
pub fn aligned(a: &str, b: &str) -> bool {
    let a = a.trim_end_matches('.').to_ascii_lowercase();
    let b = b.trim_end_matches('.').to_ascii_lowercase();
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a == b {
        return true;
    }
    let (short, long) = if a.len() < b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    short.contains('.') && long.ends_with(&format!(".{short}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_is_relaxed_but_never_by_a_bare_suffix() {
        assert!(aligned("example.org", "EXAMPLE.org."));
        assert!(aligned("mail.example.org", "example.org"));
        assert!(aligned("example.org", "mail.example.org"));
        assert!(!aligned("org", "example.org"));
        assert!(!aligned("evil-example.org", "example.org"));
        assert!(!aligned("a.example.org", "b.example.org"));
        assert!(!aligned("", "example.org"));
        assert_eq!(
            domain_of("A@Mail.Example.org").as_deref(),
            Some("mail.example.org")
        );
        assert_eq!(domain_of("<>"), None);
        assert_eq!(domain_of("nobody"), None);
    }
}
