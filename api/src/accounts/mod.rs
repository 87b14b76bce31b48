//! The accounts store and the account rules: every query on users, login sessions, refresh
//! tokens and personal access tokens goes through this module, and so do the username and
//! password profiles.
//!
//! The store functions are plain diesel over a `&mut DbConnection`: no actix, no HTTP
//! types. They return diesel's `QueryResult` with an outcome enum where a request can be
//! refused for a reason the caller must tell apart (a name taken, a token cap reached, a
//! refresh token reused); the handlers in `routes/` turn those into problems and call the
//! functions inside `store::run`.
//!
//! - [`users`]: accounts: find, register, change the email or the password;
//! - [`sessions`]: login sessions and their rotating refresh tokens;
//! - [`tokens`]: personal access tokens, with the per-account cap;
//! - [`names`]: the username profile (what may be registered, what a login matches);
//! - [`password_policy`]: password normalisation and strength.

pub mod names;
pub mod password_policy;
pub mod sessions;
pub mod tokens;
pub mod users;

use crate::store::DbConnection;
use diesel::prelude::*;

/// Locks an account's row until the end of the transaction (PostgreSQL: `SELECT ... FOR
/// UPDATE`). On SQLite the write transactions of [`crate::store::transaction`] begin with
/// `BEGIN IMMEDIATE`, which already serialises every writer, so nothing more is needed.
/// Returns whether the account exists.
pub fn lock_user(conn: &mut DbConnection, user_id: &str) -> QueryResult<bool> {
    use crate::store::schema::users;
    match conn {
        DbConnection::Pg(c) => users::table
            .find(user_id)
            .select(users::id)
            .for_update()
            .first::<String>(c)
            .optional()
            .map(|r| r.is_some()),
        DbConnection::Sqlite(c) => users::table
            .find(user_id)
            .select(users::id)
            .first::<String>(c)
            .optional()
            .map(|r| r.is_some()),
    }
}
