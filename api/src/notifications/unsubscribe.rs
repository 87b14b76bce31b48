//! The one-click unsubscribe of notification mails (RFC 8058): a signed token names the
//! user and the user's unsubscribe version (see [`super::email::unsubscribe_token`]);
//! using it turns mail off for every kind. Changing the password or the address bumps the
//! version (`store::users::bump_unsubscribe_version`), so the links of older mails (and
//! whoever read them, in a mailbox or a log) stop working; a link of the current version
//! keeps working.

use super::email::check_unsubscribe_token;
use super::{NotificationError, Notifications, settings};
use crate::ids::UserId;
use crate::store;

/// Whom an unsubscribe link names.
#[derive(Debug, Clone)]
pub struct Unsubscriber {
    pub user_id: UserId,
    /// The account's language preference (`None`: not set).
    pub language: Option<String>,
}

impl Notifications<'_> {
    /// The user an unsubscribe token names (`NotFound` unless its signature holds and its
    /// version is the user's current one).
    pub async fn unsubscribe_user(&self, token: &str) -> Result<UserId, NotificationError> {
        Ok(self.unsubscriber(token).await?.user_id)
    }

    /// The user an unsubscribe token names and the language their pages are read in
    /// (see [`Self::unsubscribe_user`]).
    pub async fn unsubscriber(&self, token: &str) -> Result<Unsubscriber, NotificationError> {
        let gone = || NotificationError::NotFound("no such unsubscribe link".into());
        let (user, version) =
            check_unsubscribe_token(self.signing_secret, token).ok_or_else(gone)?;
        let u = user.clone();
        let current = store::run(self.pool, move |conn| {
            store::users::unsubscribe_version_and_language(conn, &u)
        })
        .await?;
        match current {
            Some((v, language)) if v == version => Ok(Unsubscriber {
                user_id: user,
                language,
            }),
            _ => Err(NotificationError::NotFound(
                "this unsubscribe link is no longer valid (the account's password or address \
                 changed since it was mailed); use the link of a newer mail or the settings"
                    .into(),
            )),
        }
    }

    /// Turns mail (and the digest) off for every kind; the feed and webhooks stay.
    pub async fn unsubscribe(&self, token: &str) -> Result<(), NotificationError> {
        let user = self.unsubscribe_user(token).await?;
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
