//! Leased claims on a work queue kept in a table: the due-work worker (games), the
//! reminders and the notification deliveries each claim their due rows the same way, so
//! that several server instances share the work and a crashed one's rows come back.
//!
//! A claim sets the rows' lease column to `until` on up to `limit` rows that are due
//! (`due <= now`) and not leased (the lease is empty or has run out), soonest due first,
//! and returns their ids. On PostgreSQL the rows are picked `FOR UPDATE SKIP LOCKED`, so
//! concurrent claimers never wait for each other nor claim the same row; SQLite
//! serialises writers, so the plain statement is enough there.

use chrono::NaiveDateTime;
use diesel::QueryableByName;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamp};

use super::DbConnection;

/// A table used as a work queue. Every name is a fixed identifier of the schema, never
/// input.
#[derive(Debug, Clone, Copy)]
pub struct Queue {
    pub table: &'static str,
    /// The key returned for each claimed row.
    pub id: &'static str,
    /// When a row is due.
    pub due: &'static str,
    /// Until when a row is claimed (`NULL`: never claimed).
    pub lease: &'static str,
    /// A further condition on the rows, e.g. `status = 'pending'`; empty for none.
    pub only: &'static str,
    /// What is claimed first among the due rows, e.g. `due_priority, due_at`; empty: the
    /// soonest due. The rows are found by the index on `due` (`due <= now`), then sorted.
    pub order: &'static str,
}

#[derive(QueryableByName)]
struct Claimed {
    #[diesel(sql_type = Text)]
    id: String,
}

impl Queue {
    /// The claim statement with the backend's placeholders.
    fn sql(&self, pg: bool) -> String {
        let Queue {
            table,
            id,
            due,
            lease,
            only,
            order,
        } = *self;
        let order = if order.is_empty() { due } else { order };
        let p = |n: u8| if pg { format!("${n}") } else { format!("?{n}") };
        let (until, now, limit) = (p(1), p(2), p(3));
        let only = if only.is_empty() {
            String::new()
        } else {
            format!(" AND {only}")
        };
        let lock = if pg { " FOR UPDATE SKIP LOCKED" } else { "" };
        format!(
            "UPDATE {table} SET {lease} = {until} WHERE {id} IN (\
               SELECT {id} FROM {table} WHERE {due} <= {now}{only} \
                 AND ({lease} IS NULL OR {lease} <= {now}) \
               ORDER BY {order} LIMIT {limit}{lock}) \
             RETURNING {id} AS id"
        )
    }

    /// Claims up to `limit` due rows at `now` until `until`; returns their ids.
    pub fn claim(
        &self,
        conn: &mut DbConnection,
        now: NaiveDateTime,
        until: NaiveDateTime,
        limit: i64,
    ) -> QueryResult<Vec<String>> {
        let rows: Vec<Claimed> = match conn {
            DbConnection::Pg(c) => diesel::sql_query(self.sql(true))
                .bind::<Timestamp, _>(until)
                .bind::<Timestamp, _>(now)
                .bind::<BigInt, _>(limit)
                .load(c)?,
            DbConnection::Sqlite(c) => diesel::sql_query(self.sql(false))
                .bind::<Timestamp, _>(until)
                .bind::<Timestamp, _>(now)
                .bind::<BigInt, _>(limit)
                .load(c)?,
        };
        Ok(rows.into_iter().map(|r| r.id).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statement_per_backend() {
        let q = Queue {
            table: "deliveries",
            id: "id",
            due: "next_attempt_at",
            lease: "lease_until",
            only: "status = 'pending'",
            order: "",
        };
        assert_eq!(
            q.sql(true),
            "UPDATE deliveries SET lease_until = $1 WHERE id IN (\
             SELECT id FROM deliveries WHERE next_attempt_at <= $2 AND status = 'pending' \
             AND (lease_until IS NULL OR lease_until <= $2) \
             ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING id AS id"
        );
        let sqlite = q.sql(false);
        assert!(
            sqlite.contains("<= ?2") && sqlite.contains("LIMIT ?3)"),
            "{sqlite}"
        );
        assert!(!sqlite.contains("SKIP LOCKED"));
    }
}
