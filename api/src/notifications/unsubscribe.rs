//! The one-click unsubscribe of notification mails (RFC 8058): a signed token names the
//! user (see [`super::email::unsubscribe_token`]); using it turns mail off for every kind.

use super::email::check_unsubscribe_token;
use super::{NotificationError, Notifications, settings};
use crate::store;

impl Notifications<'_> {
    /// The user an unsubscribe token names (`NotFound` unless its signature holds).
    pub fn unsubscribe_user(&self, token: &str) -> Result<String, NotificationError> {
        check_unsubscribe_token(self.signing_secret, token)
            .ok_or_else(|| NotificationError::NotFound("no such unsubscribe link".into()))
    }

    /// Turns mail (and the digest) off for every kind; the feed and webhooks stay.
    pub async fn unsubscribe(&self, token: &str) -> Result<(), NotificationError> {
        let user = self.unsubscribe_user(token)?;
        let at = self.clock.now();
        store::run(self.pool, move |conn| {
            store::transaction(conn, |conn| {
                let mut s = settings::load(conn, &user)?;
                for ch in s.kinds.values_mut() {
                    ch.email = false;
                }
                s.email_digest = false;
                settings::save(conn, &user, &s, at)
            })
        })
        .await?;
        Ok(())
    }
}
