//! `webhooks`: the users' endpoints (what they are for is `crate::notifications::webhooks`).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{deliveries, webhooks};
use super::{DbConnection, StoreError};
use crate::ids::{UserId, WebhookId};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = webhooks)]
pub struct WebhookRow {
    pub id: WebhookId,
    pub user_id: UserId,
    pub url: String,
    pub secret: String,
    pub previous_secret: Option<String>,
    pub previous_until: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub disabled_at: Option<NaiveDateTime>,
    pub disabled_reason: Option<String>,
    pub consecutive_failures: i32,
}

impl WebhookRow {
    /// The secrets that sign at `now`: the current one, and the previous one during its
    /// grace period.
    pub fn signing_secrets(&self, now: NaiveDateTime) -> Vec<&str> {
        let mut v = vec![self.secret.as_str()];
        if let (Some(p), Some(until)) = (&self.previous_secret, self.previous_until) {
            if until > now {
                v.push(p);
            }
        }
        v
    }
}

/// The user's endpoints, oldest first.
pub fn list(conn: &mut DbConnection, user: &UserId) -> Result<Vec<WebhookRow>, StoreError> {
    Ok(webhooks::table
        .filter(webhooks::user_id.eq(user))
        .order((webhooks::created_at.asc(), webhooks::id.asc()))
        .select(WebhookRow::as_select())
        .load(conn)?)
}

/// The endpoints of `users`, each user's in order of creation.
pub fn list_of(conn: &mut DbConnection, users: &[&UserId]) -> Result<Vec<WebhookRow>, StoreError> {
    Ok(webhooks::table
        .filter(webhooks::user_id.eq_any(users))
        .order((webhooks::created_at.asc(), webhooks::id.asc()))
        .select(WebhookRow::as_select())
        .load(conn)?)
}

/// The user's endpoint `id`.
pub fn get(
    conn: &mut DbConnection,
    user: &UserId,
    id: &WebhookId,
) -> Result<Option<WebhookRow>, StoreError> {
    Ok(webhooks::table
        .filter(webhooks::user_id.eq(user))
        .filter(webhooks::id.eq(id))
        .select(WebhookRow::as_select())
        .first(conn)
        .optional()?)
}

/// Endpoint `id`, whoever owns it.
pub fn find(conn: &mut DbConnection, id: &WebhookId) -> Result<Option<WebhookRow>, StoreError> {
    Ok(webhooks::table
        .find(id)
        .select(WebhookRow::as_select())
        .first(conn)
        .optional()?)
}

pub fn count(conn: &mut DbConnection, user: &UserId) -> Result<i64, StoreError> {
    Ok(webhooks::table
        .filter(webhooks::user_id.eq(user))
        .count()
        .get_result(conn)?)
}

pub fn insert(conn: &mut DbConnection, row: &WebhookRow) -> Result<(), StoreError> {
    diesel::insert_into(webhooks::table)
        .values(row)
        .execute(conn)?;
    Ok(())
}

/// Deletes an endpoint and its deliveries; `false` if there was none.
pub fn delete(conn: &mut DbConnection, user: &UserId, id: &WebhookId) -> Result<bool, StoreError> {
    super::transaction(conn, |conn| {
        let n = diesel::delete(
            webhooks::table
                .filter(webhooks::user_id.eq(user))
                .filter(webhooks::id.eq(id)),
        )
        .execute(conn)?;
        if n > 0 {
            diesel::delete(
                deliveries::table
                    .filter(deliveries::channel.eq("webhook"))
                    .filter(deliveries::endpoint.eq(id.as_str())),
            )
            .execute(conn)?;
        }
        Ok(n > 0)
    })
}

/// Puts `secret` in place; the old one keeps signing until `previous_until`. Returns the
/// row (`None`: the user has no such endpoint).
pub fn rotate(
    conn: &mut DbConnection,
    user: &UserId,
    id: &WebhookId,
    secret: &str,
    previous_until: NaiveDateTime,
) -> Result<Option<WebhookRow>, StoreError> {
    super::transaction(conn, |conn| {
        let Some(row) = get(conn, user, id)? else {
            return Ok(None);
        };
        diesel::update(webhooks::table.find(id))
            .set((
                webhooks::secret.eq(secret),
                webhooks::previous_secret.eq(Some(&row.secret)),
                webhooks::previous_until.eq(Some(previous_until)),
            ))
            .execute(conn)?;
        get(conn, user, id)
    })
}

/// A delivery succeeded: the endpoint's failures in a row start again from 0.
pub fn reset_failures(conn: &mut DbConnection, id: &WebhookId) -> Result<(), StoreError> {
    diesel::update(webhooks::table.find(id))
        .set(webhooks::consecutive_failures.eq(0))
        .execute(conn)?;
    Ok(())
}

/// Counts a failed attempt against an endpoint.
pub fn add_failure(conn: &mut DbConnection, id: &WebhookId) -> Result<(), StoreError> {
    diesel::update(webhooks::table.find(id))
        .set(webhooks::consecutive_failures.eq(webhooks::consecutive_failures + 1))
        .execute(conn)?;
    Ok(())
}

/// Disables an endpoint (if it is not already); `true` if this call disabled it.
pub fn disable(
    conn: &mut DbConnection,
    id: &WebhookId,
    at: NaiveDateTime,
    reason: &str,
) -> Result<bool, StoreError> {
    let n = diesel::update(
        webhooks::table
            .find(id)
            .filter(webhooks::disabled_at.is_null()),
    )
    .set((
        webhooks::disabled_at.eq(Some(at)),
        webhooks::disabled_reason.eq(Some(reason)),
    ))
    .execute(conn)?;
    Ok(n > 0)
}
