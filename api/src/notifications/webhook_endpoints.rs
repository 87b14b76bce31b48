//! The use cases of a user's webhook endpoints: register, list, delete, rotate the
//! secret, and the recent deliveries (the signing and the address rules are
//! [`super::webhooks`]).

use chrono::TimeDelta;

use super::webhooks::{DeliveryRow, WebhookRow, check_url_resolving, new_secret};
use super::{NotificationError, Notifications};
use crate::ids::{UserId, WebhookId};
use crate::store::{self, StoreError};

/// Endpoints per user.
/// The deliveries `GET /v1/me/webhooks/{id}/deliveries` shows.
pub const RECENT_DELIVERIES: i64 = 50;

impl Notifications<'_> {
    /// `POST /v1/me/webhooks`: registers an endpoint (its URL checked and resolved); the
    /// answer is the only one that shows its secret.
    pub async fn create_webhook(
        &self,
        user: &UserId,
        url: &str,
    ) -> Result<WebhookRow, NotificationError> {
        let url = check_url_resolving(url, self.config.webhook_allow_private)
            .await
            .map_err(|m| NotificationError::field("url", m))?;
        let row = WebhookRow {
            id: WebhookId::new(uuid::Uuid::now_v7().to_string()),
            user_id: user.clone(),
            url: url.to_string(),
            secret: new_secret(),
            previous_secret: None,
            previous_until: None,
            created_at: self.clock.now(),
            disabled_at: None,
            disabled_reason: None,
            consecutive_failures: 0,
        };
        let r = row.clone();
        let limit = self.config.quota_webhooks;
        store::run(self.pool, move |conn| {
            store::transaction(conn, |conn| {
                if store::webhooks::count(conn, &r.user_id)? as u64 >= limit {
                    return Err(NotificationError::Quota(crate::quota::Exceeded::held(
                        "webhooks",
                        limit,
                        format!(
                            "an account may hold at most {limit} webhook endpoints \
                             (DJAMBI_QUOTA_WEBHOOKS); delete one first"
                        ),
                    )));
                }
                store::webhooks::insert(conn, &r)?;
                Ok(())
            })
        })
        .await?;
        Ok(row)
    }

    /// `GET /v1/me/webhooks`: the user's endpoints, oldest first.
    pub async fn webhooks(&self, user: &UserId) -> Result<Vec<WebhookRow>, NotificationError> {
        let user = user.clone();
        Ok(store::run(self.pool, move |conn| store::webhooks::list(conn, &user)).await?)
    }

    /// `DELETE /v1/me/webhooks/{id}`: the endpoint and its deliveries.
    pub async fn delete_webhook(
        &self,
        user: &UserId,
        id: &WebhookId,
    ) -> Result<(), NotificationError> {
        let (user, i) = (user.clone(), id.clone());
        let found = store::run(self.pool, move |conn| {
            store::webhooks::delete(conn, &user, &i)
        })
        .await
        .map_err(|e: StoreError| NotificationError::from(e))?;
        if !found {
            return Err(no_webhook(id));
        }
        Ok(())
    }

    /// `POST /v1/me/webhooks/{id}/secret`: a new secret; the previous one keeps signing
    /// for `webhook_secret_grace`.
    pub async fn rotate_webhook_secret(
        &self,
        user: &UserId,
        id: &WebhookId,
    ) -> Result<WebhookRow, NotificationError> {
        let grace = TimeDelta::from_std(self.config.webhook_secret_grace).unwrap_or_default();
        let until = self.clock.now() + grace;
        let (user, i, secret) = (user.clone(), id.clone(), new_secret());
        store::run(self.pool, move |conn| {
            store::webhooks::rotate(conn, &user, &i, &secret, until)
        })
        .await
        .map_err(|e: StoreError| NotificationError::from(e))?
        .ok_or_else(|| no_webhook(id))
    }

    /// `GET /v1/me/webhooks/{id}/deliveries`: the most recent deliveries to one of the
    /// user's endpoints, newest first, each with its notification's kind.
    pub async fn webhook_deliveries(
        &self,
        user: &UserId,
        id: &WebhookId,
    ) -> Result<Vec<(DeliveryRow, String)>, NotificationError> {
        let (user, i) = (user.clone(), id.clone());
        store::run(self.pool, move |conn| {
            if store::webhooks::get(conn, &user, &i)?.is_none() {
                return Ok(None);
            }
            store::deliveries::recent_for_endpoint(conn, i.as_str(), RECENT_DELIVERIES).map(Some)
        })
        .await
        .map_err(|e: StoreError| NotificationError::from(e))?
        .ok_or_else(|| no_webhook(id))
    }
}

fn no_webhook(id: &WebhookId) -> NotificationError {
    NotificationError::NotFound(format!("no webhook {id}"))
}
