//! Accounts: lookups, registration, email and password changes.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error};

use crate::store::schema::{personal_access_tokens, sessions, users};
use crate::store::{self, DbConnection, models::User};

pub fn find(conn: &mut DbConnection, id: &str) -> QueryResult<Option<User>> {
    users::table
        .find(id)
        .select(User::as_select())
        .first(conn)
        .optional()
}

/// By the login key of a name (see [`super::names::login_key`]): the name in ASCII lower
/// case.
pub fn find_by_login_key(conn: &mut DbConnection, key: &str) -> QueryResult<Option<User>> {
    users::table
        .filter(users::username_key.eq(key))
        .select(User::as_select())
        .first(conn)
        .optional()
}

/// What a registration came to.
#[derive(Debug)]
pub enum Registered {
    Created(User),
    /// The name, or one that looks like it, is taken.
    Taken,
}

/// Inserts a new account. The unique indexes on the login key and on the look-alike
/// skeleton decide races between two registrations of similar names.
pub fn register(conn: &mut DbConnection, user: User) -> QueryResult<Registered> {
    match diesel::insert_into(users::table)
        .values(&user)
        .execute(conn)
    {
        Ok(_) => Ok(Registered::Created(user)),
        Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => Ok(Registered::Taken),
        Err(e) => Err(e),
    }
}

/// What a password change ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordChanged {
    /// Other login sessions revoked.
    pub sessions_ended: usize,
    /// Personal access tokens revoked.
    pub tokens_revoked: usize,
}

/// Changes the email and/or the password hash in one transaction. A new password ends
/// every login session but `keep_session` and revokes every personal access token; the
/// account's row is locked first, so a token being created at the same moment is either
/// revoked here or created after the change (and then made with the new password's
/// session).
pub fn update(
    conn: &mut DbConnection,
    user_id: &str,
    email: Option<&str>,
    password_hash: Option<&str>,
    keep_session: &str,
) -> QueryResult<Option<(User, Option<PasswordChanged>)>> {
    store::transaction(conn, |conn| {
        if !super::lock_user(conn, user_id)? {
            return Ok(None);
        }
        let now = store::now();
        if let Some(email) = email {
            diesel::update(users::table.find(user_id))
                .set((users::email.eq(email), users::updated_at.eq(now)))
                .execute(conn)?;
        }
        let changed = match password_hash {
            Some(hash) => {
                diesel::update(users::table.find(user_id))
                    .set((users::password_hash.eq(hash), users::updated_at.eq(now)))
                    .execute(conn)?;
                Some(PasswordChanged {
                    sessions_ended: revoke_sessions(
                        conn,
                        user_id,
                        Some(keep_session),
                        "password changed",
                        now,
                    )?,
                    tokens_revoked: revoke_personal_tokens(conn, user_id, now)?,
                })
            }
            None => None,
        };
        Ok(find(conn, user_id)?.map(|u| (u, changed)))
    })
}

/// Revokes every live session of a user except `keep`.
pub fn revoke_sessions(
    conn: &mut DbConnection,
    user_id: &str,
    keep: Option<&str>,
    reason: &str,
    now: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(
        sessions::table
            .filter(sessions::user_id.eq(user_id))
            .filter(sessions::revoked_at.is_null())
            .filter(sessions::id.ne(keep.unwrap_or(""))),
    )
    .set((
        sessions::revoked_at.eq(now),
        sessions::revoked_reason.eq(reason),
    ))
    .execute(conn)
}

/// Revokes every live personal access token of a user.
pub fn revoke_personal_tokens(
    conn: &mut DbConnection,
    user_id: &str,
    now: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(
        personal_access_tokens::table
            .filter(personal_access_tokens::user_id.eq(user_id))
            .filter(personal_access_tokens::revoked_at.is_null()),
    )
    .set(personal_access_tokens::revoked_at.eq(now))
    .execute(conn)
}
