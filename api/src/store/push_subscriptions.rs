//! `push_subscriptions`: the browsers (devices) each user enabled Web Push on (what they
//! are for is `crate::notifications::push`).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{deliveries, push_subscriptions};
use super::{DbConnection, StoreError};
use crate::ids::{PushSubscriptionId, UserId};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = push_subscriptions)]
pub struct PushSubscriptionRow {
    pub id: PushSubscriptionId,
    pub user_id: UserId,
    pub endpoint: String,
    /// The browser's P-256 public key (uncompressed point, base64url).
    pub p256dh: String,
    /// The browser's 16-byte authentication secret (base64url).
    pub auth: String,
    pub created_at: NaiveDateTime,
}

/// The user's subscriptions, oldest first.
pub fn list(
    conn: &mut DbConnection,
    user: &UserId,
) -> Result<Vec<PushSubscriptionRow>, StoreError> {
    Ok(push_subscriptions::table
        .filter(push_subscriptions::user_id.eq(user))
        .order((
            push_subscriptions::created_at.asc(),
            push_subscriptions::id.asc(),
        ))
        .select(PushSubscriptionRow::as_select())
        .load(conn)?)
}

/// The subscriptions of `users`, each user's in order of creation.
pub fn list_of(
    conn: &mut DbConnection,
    users: &[&UserId],
) -> Result<Vec<PushSubscriptionRow>, StoreError> {
    Ok(push_subscriptions::table
        .filter(push_subscriptions::user_id.eq_any(users))
        .order((
            push_subscriptions::created_at.asc(),
            push_subscriptions::id.asc(),
        ))
        .select(PushSubscriptionRow::as_select())
        .load(conn)?)
}

/// Subscription `id`, whoever owns it.
pub fn find(
    conn: &mut DbConnection,
    id: &PushSubscriptionId,
) -> Result<Option<PushSubscriptionRow>, StoreError> {
    Ok(push_subscriptions::table
        .find(id)
        .select(PushSubscriptionRow::as_select())
        .first(conn)
        .optional()?)
}

/// The subscriptions among `ids` that exist, whoever owns them.
pub fn find_many(
    conn: &mut DbConnection,
    ids: &[&PushSubscriptionId],
) -> Result<Vec<PushSubscriptionRow>, StoreError> {
    Ok(push_subscriptions::table
        .filter(push_subscriptions::id.eq_any(ids))
        .select(PushSubscriptionRow::as_select())
        .load(conn)?)
}

/// The subscription of an endpoint, whoever owns it.
pub fn by_endpoint(
    conn: &mut DbConnection,
    endpoint: &str,
) -> Result<Option<PushSubscriptionRow>, StoreError> {
    Ok(push_subscriptions::table
        .filter(push_subscriptions::endpoint.eq(endpoint))
        .select(PushSubscriptionRow::as_select())
        .first(conn)
        .optional()?)
}

pub fn count(conn: &mut DbConnection, user: &UserId) -> Result<i64, StoreError> {
    Ok(push_subscriptions::table
        .filter(push_subscriptions::user_id.eq(user))
        .count()
        .get_result(conn)?)
}

pub fn insert(conn: &mut DbConnection, row: &PushSubscriptionRow) -> Result<(), StoreError> {
    diesel::insert_into(push_subscriptions::table)
        .values(row)
        .execute(conn)?;
    Ok(())
}

/// New keys for an existing subscription (the browser re-subscribed).
pub fn set_keys(
    conn: &mut DbConnection,
    id: &PushSubscriptionId,
    p256dh: &str,
    auth: &str,
) -> Result<(), StoreError> {
    diesel::update(push_subscriptions::table.find(id))
        .set((
            push_subscriptions::p256dh.eq(p256dh),
            push_subscriptions::auth.eq(auth),
        ))
        .execute(conn)?;
    Ok(())
}

/// Deletes a subscription and its pending deliveries; `user: None` whoever owns it.
/// `false` if there was none.
pub fn delete(
    conn: &mut DbConnection,
    user: Option<&UserId>,
    id: &PushSubscriptionId,
) -> Result<bool, StoreError> {
    super::transaction(conn, |conn| delete_in(conn, user, id))
}

/// [`delete`] inside the caller's transaction.
pub fn delete_in(
    conn: &mut DbConnection,
    user: Option<&UserId>,
    id: &PushSubscriptionId,
) -> Result<bool, StoreError> {
    {
        let n = match user {
            Some(u) => diesel::delete(
                push_subscriptions::table
                    .filter(push_subscriptions::id.eq(id))
                    .filter(push_subscriptions::user_id.eq(u)),
            )
            .execute(conn)?,
            None => diesel::delete(push_subscriptions::table.find(id)).execute(conn)?,
        };
        if n > 0 {
            diesel::delete(
                deliveries::table
                    .filter(deliveries::channel.eq("push"))
                    .filter(deliveries::endpoint.eq(id.as_str()))
                    .filter(deliveries::status.eq("pending")),
            )
            .execute(conn)?;
        }
        Ok(n > 0)
    }
}
