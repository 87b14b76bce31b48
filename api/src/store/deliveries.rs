//! `deliveries`: the delivery queue of notifications sent outside the app (the worker is
//! `crate::workers::delivery`), and the fan-out marks on `notifications`.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::lease::Queue;
use super::outbox::NotificationRow;
use super::schema::{deliveries, notifications};
use super::{DbConnection, StoreError};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = deliveries)]
pub struct DeliveryRow {
    pub id: String,
    pub notification_id: String,
    pub user_id: String,
    pub channel: String,
    pub endpoint: String,
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: NaiveDateTime,
    pub lease_until: Option<NaiveDateTime>,
    pub last_error: Option<String>,
    pub last_status: Option<i32>,
    pub created_at: NaiveDateTime,
    pub delivered_at: Option<NaiveDateTime>,
}

/// Up to `limit` notifications not fanned out yet, oldest first; locked (`FOR UPDATE SKIP
/// LOCKED`) on PostgreSQL, so call it inside a transaction.
pub fn lock_unfanned(
    conn: &mut DbConnection,
    limit: i64,
) -> Result<Vec<NotificationRow>, StoreError> {
    macro_rules! q {
        () => {
            notifications::table
                .filter(notifications::fanned_out_at.is_null())
                .order((notifications::created_at.asc(), notifications::id.asc()))
                .limit(limit)
                .select(NotificationRow::as_select())
        };
    }
    Ok(match conn {
        DbConnection::Pg(c) => q!().for_update().skip_locked().load(c)?,
        DbConnection::Sqlite(c) => q!().load(c)?,
    })
}

/// Marks notifications fanned out.
pub fn mark_fanned_out(
    conn: &mut DbConnection,
    ids: &[&str],
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::update(notifications::table.filter(notifications::id.eq_any(ids)))
        .set(notifications::fanned_out_at.eq(Some(at)))
        .execute(conn)?;
    Ok(())
}

pub fn insert(conn: &mut DbConnection, row: &DeliveryRow) -> Result<(), StoreError> {
    diesel::insert_into(deliveries::table)
        .values(row)
        .execute(conn)?;
    Ok(())
}

/// The deliveries waiting for an attempt.
const PENDING_DELIVERIES: Queue = Queue {
    table: "deliveries",
    id: "id",
    due: "next_attempt_at",
    lease: "lease_until",
    only: "status = 'pending'",
};

/// Claims up to `limit` due deliveries until `until`.
pub fn claim(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    until: NaiveDateTime,
    limit: i64,
) -> Result<Vec<String>, StoreError> {
    Ok(PENDING_DELIVERIES.claim(conn, now, until, limit)?)
}

/// The deliveries `ids`, each with its notification.
pub fn load(
    conn: &mut DbConnection,
    ids: &[String],
) -> Result<Vec<(DeliveryRow, NotificationRow)>, StoreError> {
    let rows: Vec<DeliveryRow> = deliveries::table
        .filter(deliveries::id.eq_any(ids))
        .select(DeliveryRow::as_select())
        .load(conn)?;
    let mut out = Vec::with_capacity(rows.len());
    for d in rows {
        let note: NotificationRow = notifications::table
            .find(&d.notification_id)
            .select(NotificationRow::as_select())
            .first(conn)?;
        out.push((d, note));
    }
    Ok(out)
}

macro_rules! mine {
    ($id:expr, $lease:expr) => {
        deliveries::table
            .filter(deliveries::id.eq($id))
            .filter(deliveries::status.eq("pending"))
            .filter(deliveries::lease_until.eq(Some($lease)))
    };
}

/// Records a delivery as delivered (if its lease is still `lease`).
pub fn delivered(
    conn: &mut DbConnection,
    id: &str,
    lease: NaiveDateTime,
    attempts: i32,
    status: Option<i32>,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::update(mine!(id, lease))
        .set((
            deliveries::status.eq("delivered"),
            deliveries::attempts.eq(attempts),
            deliveries::delivered_at.eq(Some(at)),
            deliveries::lease_until.eq(None::<NaiveDateTime>),
            deliveries::last_status.eq(status),
            deliveries::last_error.eq(None::<String>),
        ))
        .execute(conn)?;
    Ok(())
}

/// Records a failed attempt (if its lease is still `lease`): pending again at `next`, or
/// dead.
#[allow(clippy::too_many_arguments)]
pub fn failed(
    conn: &mut DbConnection,
    id: &str,
    lease: NaiveDateTime,
    attempts: i32,
    dead: bool,
    next: NaiveDateTime,
    status: Option<i32>,
    error: &str,
) -> Result<(), StoreError> {
    diesel::update(mine!(id, lease))
        .set((
            deliveries::status.eq(if dead { "dead" } else { "pending" }),
            deliveries::attempts.eq(attempts),
            deliveries::next_attempt_at.eq(next),
            deliveries::lease_until.eq(None::<NaiveDateTime>),
            deliveries::last_status.eq(status),
            deliveries::last_error.eq(Some(error)),
        ))
        .execute(conn)?;
    Ok(())
}

/// Records a delivery as dead (if its lease is still `lease`).
pub fn dead(
    conn: &mut DbConnection,
    id: &str,
    lease: NaiveDateTime,
    why: &str,
) -> Result<(), StoreError> {
    diesel::update(mine!(id, lease))
        .set((
            deliveries::status.eq("dead"),
            deliveries::lease_until.eq(None::<NaiveDateTime>),
            deliveries::last_error.eq(Some(why)),
        ))
        .execute(conn)?;
    Ok(())
}

/// The pending deliveries to a webhook endpoint die.
pub fn kill_pending_of_endpoint(
    conn: &mut DbConnection,
    endpoint: &str,
    why: &str,
) -> Result<(), StoreError> {
    diesel::update(
        deliveries::table
            .filter(deliveries::channel.eq("webhook"))
            .filter(deliveries::endpoint.eq(endpoint))
            .filter(deliveries::status.eq("pending")),
    )
    .set((
        deliveries::status.eq("dead"),
        deliveries::last_error.eq(Some(why)),
    ))
    .execute(conn)?;
    Ok(())
}

/// Recent deliveries to one endpoint, newest first, each with its notification's kind.
pub fn recent_for_endpoint(
    conn: &mut DbConnection,
    endpoint: &str,
    limit: i64,
) -> Result<Vec<(DeliveryRow, String)>, StoreError> {
    Ok(deliveries::table
        .inner_join(notifications::table.on(notifications::id.eq(deliveries::notification_id)))
        .filter(deliveries::endpoint.eq(endpoint))
        .order((deliveries::created_at.desc(), deliveries::id.desc()))
        .limit(limit)
        .select((DeliveryRow::as_select(), notifications::kind))
        .load(conn)?)
}
