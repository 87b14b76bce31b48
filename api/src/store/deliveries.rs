//! `deliveries`: the delivery queue of notifications sent outside the app (the worker is
//! `crate::workers::delivery`), and the fan-out marks on `notifications`.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::lease::Queue;
use super::outbox::NotificationRow;
use super::schema::{deliveries, notifications};
use super::{DbConnection, StoreError};
use crate::ids::{PushSubscriptionId, UserId, WebhookId};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = deliveries)]
pub struct DeliveryRow {
    pub id: String,
    pub notification_id: String,
    pub user_id: UserId,
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

impl DeliveryRow {
    /// The webhook a `webhook` delivery goes to: its `endpoint` column holds the
    /// endpoint's id (a push delivery's holds a subscription id, a mail's an address).
    pub fn webhook_id(&self) -> WebhookId {
        WebhookId::new(self.endpoint.as_str())
    }

    /// The subscription a `push` delivery goes to (see [`DeliveryRow::webhook_id`]).
    pub fn subscription_id(&self) -> PushSubscriptionId {
        PushSubscriptionId::new(self.endpoint.as_str())
    }
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

/// Inserts a fan-out batch's deliveries, many rows to a statement (one statement per row
/// made the fan-out of a burst slower than its sending).
pub fn insert_many(conn: &mut DbConnection, rows: &[DeliveryRow]) -> Result<(), StoreError> {
    // Well under either backend's limit of bound parameters (13 a row).
    const ROWS_PER_STATEMENT: usize = 500;
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
        // Diesel's multi-row insert is per backend, not over the `MultiConnection`.
        let insert = diesel::insert_into(deliveries::table).values(chunk);
        match conn {
            DbConnection::Pg(c) => insert.execute(c)?,
            DbConnection::Sqlite(c) => insert.execute(c)?,
        };
    }
    Ok(())
}

macro_rules! mine {
    ($id:expr, $lease:expr) => {
        deliveries::table
            .filter(deliveries::id.eq($id))
            .filter(deliveries::status.eq("pending"))
            .filter(deliveries::lease_until.eq(Some($lease)))
    };
}

/// The deliveries waiting for an attempt.
const PENDING_DELIVERIES: Queue = Queue {
    table: "deliveries",
    id: "id",
    due: "next_attempt_at",
    lease: "lease_until",
    only: "status = 'pending'",
    order: "",
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

/// The two lanes of the queue: HTTP (webhooks, Web Push) and mail (mails, digests). Each
/// is claimed and sent on its own, so neither ever waits for the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lane {
    Http,
    Mail,
}

impl Lane {
    pub const ALL: [Lane; 2] = [Lane::Http, Lane::Mail];

    /// The lane of a channel.
    pub fn of(channel: &str) -> Lane {
        match channel {
            "email" | "digest" => Lane::Mail,
            _ => Lane::Http,
        }
    }

    /// The condition on `channel` (the predicate of the lane's partial index).
    fn channels(self) -> &'static str {
        match self {
            Lane::Http => "channel IN ('webhook', 'push')",
            Lane::Mail => "channel IN ('email', 'digest')",
        }
    }

    /// The claim statement on SQLite (on PostgreSQL: [`PgClaim`]): like [`Queue::claim`]'s,
    /// on the lane's channels only (`deliveries_due_http_idx`, `deliveries_due_mail_idx`:
    /// soonest due first) and never for the `endpoint`s or accounts of the excluded lists
    /// (those that already have their share of attempts in flight).
    fn claim_sql_sqlite(self) -> String {
        format!(
            "UPDATE deliveries SET lease_until = ?1 WHERE id IN (\
               SELECT id FROM deliveries WHERE next_attempt_at <= ?2 \
                 AND status = 'pending' AND {channels} \
                 AND (lease_until IS NULL OR lease_until <= ?2) \
                 AND endpoint NOT IN (SELECT value FROM json_each(?4)) \
                 AND user_id NOT IN (SELECT value FROM json_each(?5)) \
               ORDER BY next_attempt_at LIMIT ?3) \
             RETURNING id AS id",
            channels = self.channels()
        )
    }
}

#[derive(diesel::QueryableByName)]
struct Claimed {
    #[diesel(sql_type = diesel::sql_types::Text)]
    id: String,
}

/// Claims up to `limit` due deliveries of `lane` until `until`, none to the endpoints
/// `busy` nor of the accounts `busy_users`.
pub fn claim_lane(
    conn: &mut DbConnection,
    lane: Lane,
    now: NaiveDateTime,
    until: NaiveDateTime,
    limit: i64,
    busy: &[String],
    busy_users: &[UserId],
) -> Result<Vec<String>, StoreError> {
    use diesel::sql_types::{BigInt, Text, Timestamp};
    let rows: Vec<Claimed> = match conn {
        DbConnection::Pg(c) => {
            return Ok(PgClaim {
                lane,
                now,
                until,
                limit,
                busy,
                busy_users,
            }
            .load::<String>(c)?);
        }
        DbConnection::Sqlite(c) => diesel::sql_query(lane.claim_sql_sqlite())
            .bind::<Timestamp, _>(until)
            .bind::<Timestamp, _>(now)
            .bind::<BigInt, _>(limit)
            .bind::<Text, _>(serde_json::to_string(busy).unwrap_or_else(|_| "[]".into()))
            .bind::<Text, _>(serde_json::to_string(busy_users).unwrap_or_else(|_| "[]".into()))
            .load(c)?,
    };
    Ok(rows.into_iter().map(|r| r.id).collect())
}

/// The claim of a lane on PostgreSQL ([`Lane::claim_sql_sqlite`]'s, locking what it takes
/// with `FOR UPDATE SKIP LOCKED`), as a statement diesel keeps prepared per connection
/// (its text is the lane's): an `sql_query` is parsed and planned afresh each time, half
/// a millisecond of the database's for each claim of a burst.
struct PgClaim<'a> {
    lane: Lane,
    now: NaiveDateTime,
    until: NaiveDateTime,
    limit: i64,
    busy: &'a [String],
    busy_users: &'a [UserId],
}

impl diesel::query_builder::QueryId for PgClaim<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl diesel::query_builder::Query for PgClaim<'_> {
    type SqlType = diesel::sql_types::Text;
}

impl diesel::query_builder::QueryFragment<diesel::pg::Pg> for PgClaim<'_> {
    fn walk_ast<'b>(
        &'b self,
        mut out: diesel::query_builder::AstPass<'_, 'b, diesel::pg::Pg>,
    ) -> QueryResult<()> {
        use diesel::sql_types::{Array, BigInt, Text, Timestamp};
        out.push_sql("UPDATE deliveries SET lease_until = ");
        out.push_bind_param::<Timestamp, _>(&self.until)?;
        out.push_sql(" WHERE id IN (SELECT id FROM deliveries WHERE next_attempt_at <= ");
        out.push_bind_param::<Timestamp, _>(&self.now)?;
        out.push_sql(" AND status = 'pending' AND ");
        out.push_sql(self.lane.channels());
        out.push_sql(" AND (lease_until IS NULL OR lease_until <= ");
        out.push_bind_param::<Timestamp, _>(&self.now)?;
        out.push_sql(") AND endpoint <> ALL(");
        out.push_bind_param::<Array<Text>, _>(&self.busy)?;
        out.push_sql(") AND user_id <> ALL(");
        out.push_bind_param::<Array<Text>, _>(&self.busy_users)?;
        out.push_sql(") ORDER BY next_attempt_at LIMIT ");
        out.push_bind_param::<BigInt, _>(&self.limit)?;
        out.push_sql(" FOR UPDATE SKIP LOCKED) RETURNING id");
        Ok(())
    }
}

impl RunQueryDsl<diesel::PgConnection> for PgClaim<'_> {}

/// Claims until `until` the other due, unclaimed digest items of the addresses of the
/// digest items among `claimed` (a day's digest goes as one mail); their ids.
pub fn claim_digest_rest(
    conn: &mut DbConnection,
    claimed: &[String],
    now: NaiveDateTime,
    until: NaiveDateTime,
) -> Result<Vec<String>, StoreError> {
    if claimed.is_empty() {
        return Ok(Vec::new());
    }
    let addresses: Vec<String> = deliveries::table
        .filter(deliveries::id.eq_any(claimed))
        .filter(deliveries::channel.eq("digest"))
        .select(deliveries::endpoint)
        .distinct()
        .load(conn)?;
    if addresses.is_empty() {
        return Ok(Vec::new());
    }
    let free = || {
        deliveries::lease_until
            .is_null()
            .or(deliveries::lease_until.le(now))
    };
    let ids: Vec<String> = deliveries::table
        .filter(deliveries::channel.eq("digest"))
        .filter(deliveries::status.eq("pending"))
        .filter(deliveries::endpoint.eq_any(&addresses))
        .filter(deliveries::next_attempt_at.le(now))
        .filter(free())
        .filter(deliveries::id.ne_all(claimed))
        .select(deliveries::id)
        .load(conn)?;
    if ids.is_empty() {
        return Ok(ids);
    }
    // Only those still free when claimed (another instance may have taken some).
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(&ids))
            .filter(free()),
    )
    .set(deliveries::lease_until.eq(Some(until)))
    .execute(conn)?;
    Ok(deliveries::table
        .filter(deliveries::id.eq_any(&ids))
        .filter(deliveries::lease_until.eq(Some(until)))
        .select(deliveries::id)
        .load(conn)?)
}

/// When the next pending delivery that is not claimed is due (the `deliveries_due_idx`
/// index, soonest first), if any.
pub fn next_due(
    conn: &mut DbConnection,
    now: NaiveDateTime,
) -> Result<Option<NaiveDateTime>, StoreError> {
    Ok(deliveries::table
        .filter(deliveries::status.eq("pending"))
        .filter(
            deliveries::lease_until
                .is_null()
                .or(deliveries::lease_until.le(now)),
        )
        .order(deliveries::next_attempt_at.asc())
        .select(deliveries::next_attempt_at)
        .first::<NaiveDateTime>(conn)
        .optional()?)
}

/// Gives a claimed delivery back unattempted (if its lease is still `lease`), due as it
/// was (its endpoint had its share of attempts in flight, or the worker stopped).
pub fn give_back(
    conn: &mut DbConnection,
    id: &str,
    lease: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::update(mine!(id, lease))
        .set(deliveries::lease_until.eq(None::<NaiveDateTime>))
        .execute(conn)?;
    Ok(())
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
    // Their notifications in one query (a claim's jobs share few).
    let mut wanted: Vec<&str> = rows.iter().map(|d| d.notification_id.as_str()).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let notes: std::collections::HashMap<String, NotificationRow> = notifications::table
        .filter(notifications::id.eq_any(&wanted))
        .select(NotificationRow::as_select())
        .load(conn)?
        .into_iter()
        .map(|n: NotificationRow| (n.id.clone(), n))
        .collect();
    rows.into_iter()
        .map(|d| match notes.get(&d.notification_id) {
            Some(note) => Ok((d, note.clone())),
            // The foreign key keeps every delivery's notification.
            None => Err(StoreError::Corrupt(format!(
                "delivery {}: no notification {}",
                d.id, d.notification_id
            ))),
        })
        .collect()
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

/// One delivered attempt, for [`delivered_many`].
#[derive(Debug, Clone)]
pub struct Delivered {
    pub id: String,
    pub lease: NaiveDateTime,
    pub attempts: i32,
    pub status: Option<i32>,
}

/// Records many deliveries as delivered at `at` (each if its lease is still its own):
/// one statement on PostgreSQL, where a statement per attempt made recording a burst's
/// outcomes as long as sending it.
pub fn delivered_many(
    conn: &mut DbConnection,
    done: &[Delivered],
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    match conn {
        DbConnection::Pg(c) => {
            use diesel::sql_types::{Array, Integer, Nullable, Text, Timestamp};
            let ids: Vec<&str> = done.iter().map(|d| d.id.as_str()).collect();
            let leases: Vec<NaiveDateTime> = done.iter().map(|d| d.lease).collect();
            let attempts: Vec<i32> = done.iter().map(|d| d.attempts).collect();
            let statuses: Vec<Option<i32>> = done.iter().map(|d| d.status).collect();
            diesel::sql_query(
                "UPDATE deliveries d SET status = 'delivered', attempts = v.attempts, \
                   delivered_at = $5, lease_until = NULL, last_status = v.status, \
                   last_error = NULL \
                 FROM unnest($1, $2, $3, $4) AS v(id, lease, attempts, status) \
                 WHERE d.id = v.id AND d.status = 'pending' AND d.lease_until = v.lease",
            )
            .bind::<Array<Text>, _>(ids)
            .bind::<Array<Timestamp>, _>(leases)
            .bind::<Array<Integer>, _>(attempts)
            .bind::<Array<Nullable<Integer>>, _>(statuses)
            .bind::<Timestamp, _>(at)
            .execute(c)?;
        }
        // One process on a local file: a statement each costs no round trip.
        DbConnection::Sqlite(_) => {
            for d in done {
                delivered(conn, &d.id, d.lease, d.attempts, d.status, at)?;
            }
        }
    }
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
