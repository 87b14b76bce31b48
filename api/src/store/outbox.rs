//! The outbox: the `notifications` rows a write causes, inserted in the write's own
//! transaction (see `crate::notifications::plan` for what they say).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::notifications;
use super::{DbConnection, StoreError};
use crate::ids::{GameId, UserId};

/// A row of `notifications`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = notifications)]
pub struct NotificationRow {
    pub id: String,
    pub user_id: UserId,
    pub kind: String,
    pub game_id: Option<GameId>,
    pub version: Option<i64>,
    pub payload: String,
    pub created_at: NaiveDateTime,
    pub read_at: Option<NaiveDateTime>,
}

/// Inserts planned rows (inside the caller's transaction).
pub fn enqueue(conn: &mut DbConnection, rows: &[NotificationRow]) -> Result<(), StoreError> {
    // One statement per row: diesel's batch insert does not span both backends.
    for row in rows {
        diesel::insert_into(notifications::table)
            .values(row)
            .execute(conn)?;
        super::live::note(format!("u:{}", row.user_id));
    }
    Ok(())
}

/// Inserts the rows whose id is not stored yet (a notification that may already have
/// been sent at the same version, under the same stable id).
pub fn enqueue_unsent(conn: &mut DbConnection, rows: &[NotificationRow]) -> Result<(), StoreError> {
    for row in rows {
        let stored: i64 = notifications::table
            .find(&row.id)
            .count()
            .get_result(conn)?;
        if stored == 0 {
            enqueue(conn, std::slice::from_ref(row))?;
        }
    }
    Ok(())
}

/// The outbox kinds of account mails: sent to the address in their payload (`to`),
/// whatever the settings and even unverified, never to the feed or to webhooks.
pub mod account_mail {
    /// Every account mail's kind starts so.
    pub const PREFIX: &str = "account.";
    /// A link confirming an address (`{"to", "token_id", "username"}`).
    pub const VERIFY_EMAIL: &str = "account.verify_email";
    /// A password reset link (`{"to", "token_id", "username"}`).
    pub const PASSWORD_RESET: &str = "account.password_reset";
    /// The notice that the password was reset (`{"to", "username"}`).
    pub const PASSWORD_CHANGED: &str = "account.password_changed";

    /// The answer to a move by mail (`{"to", "subject", "body"}`).
    pub const MAIL_MOVE_ANSWER: &str = "account.mail_move_answer";

    pub fn is_account_mail(kind: &str) -> bool {
        kind.starts_with(PREFIX)
    }
}
