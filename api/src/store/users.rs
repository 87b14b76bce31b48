//! The `users` table: accounts, found by id or by login key, inserted, changed, locked.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error};

use super::schema::users;
use super::{DbConnection, StoreError, models::User};
use crate::ids::UserId;

diesel::define_sql_function! {
    /// SQL `lower` (both backends; ASCII case on SQLite, which is what addresses compare by).
    fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

pub fn find(conn: &mut DbConnection, id: &UserId) -> Result<Option<User>, StoreError> {
    Ok(users::table
        .find(id)
        .select(User::as_select())
        .first(conn)
        .optional()?)
}

/// By the login key of a name (see `validate::names::login_key`): the name in ASCII lower
/// case.
pub fn find_by_login_key(conn: &mut DbConnection, key: &str) -> Result<Option<User>, StoreError> {
    Ok(users::table
        .filter(users::username_key.eq(key))
        .select(User::as_select())
        .first(conn)
        .optional()?)
}

/// Inserts a new account; `false` when the unique index on the login key or on the
/// look-alike skeleton refused it (the name, or one like it, is taken). The indexes decide
/// races between two registrations of similar names.
pub fn insert(conn: &mut DbConnection, user: &User) -> Result<bool, StoreError> {
    match diesel::insert_into(users::table).values(user).execute(conn) {
        Ok(_) => Ok(true),
        Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Locks an account's row until the end of the transaction (PostgreSQL: `SELECT ... FOR
/// UPDATE`). On SQLite the write transactions of [`super::transaction`] begin with
/// `BEGIN IMMEDIATE`, which already serialises every writer, so nothing more is needed.
/// Returns whether the account exists.
pub fn lock(conn: &mut DbConnection, user_id: &UserId) -> Result<bool, StoreError> {
    let found = match conn {
        DbConnection::Pg(c) => users::table
            .find(user_id)
            .select(users::id)
            .for_update()
            .first::<String>(c)
            .optional()?,
        DbConnection::Sqlite(c) => users::table
            .find(user_id)
            .select(users::id)
            .first::<String>(c)
            .optional()?,
    };
    Ok(found.is_some())
}

/// What changes in an account's row; `None` leaves a column as it is.
#[derive(Debug, Clone, Copy)]
pub struct UserChanges<'a> {
    pub email: Option<&'a str>,
    pub password_hash: Option<&'a str>,
    /// `Some(None)` clears the language (back to the request's `Accept-Language`).
    pub language: Option<Option<&'a str>>,
    /// `Some(None)` clears the time zone (back to UTC).
    pub time_zone: Option<Option<&'a str>>,
    pub updated_at: NaiveDateTime,
}

/// Writes `changes` to the account's row (nothing when neither the email nor the hash
/// changes).
pub fn update(
    conn: &mut DbConnection,
    user_id: &UserId,
    changes: UserChanges<'_>,
) -> Result<(), StoreError> {
    if let Some(email) = changes.email {
        diesel::update(users::table.find(user_id))
            .set((
                users::email.eq(email),
                // A new address is not verified until its owner confirms it.
                users::email_verified_at.eq(None::<NaiveDateTime>),
                users::updated_at.eq(changes.updated_at),
            ))
            .execute(conn)?;
    }
    if let Some(hash) = changes.password_hash {
        diesel::update(users::table.find(user_id))
            .set((
                users::password_hash.eq(hash),
                users::updated_at.eq(changes.updated_at),
            ))
            .execute(conn)?;
    }
    if let Some(language) = changes.language {
        diesel::update(users::table.find(user_id))
            .set((
                users::language.eq(language),
                users::updated_at.eq(changes.updated_at),
            ))
            .execute(conn)?;
    }
    if let Some(zone) = changes.time_zone {
        diesel::update(users::table.find(user_id))
            .set((
                users::time_zone.eq(zone),
                users::updated_at.eq(changes.updated_at),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// The account's unsubscribe version (`None`: no such account).
pub fn unsubscribe_version(
    conn: &mut DbConnection,
    id: &UserId,
) -> Result<Option<i64>, StoreError> {
    Ok(users::table
        .find(id)
        .select(users::unsubscribe_version)
        .first(conn)
        .optional()?)
}

/// The account's unsubscribe version and language preference (`None`: no such account).
pub fn unsubscribe_version_and_language(
    conn: &mut DbConnection,
    id: &UserId,
) -> Result<Option<(i64, Option<String>)>, StoreError> {
    Ok(users::table
        .find(id)
        .select((users::unsubscribe_version, users::language))
        .first(conn)
        .optional()?)
}

/// Bumps the account's unsubscribe version: every unsubscribe link mailed so far stops
/// working.
pub fn bump_unsubscribe_version(conn: &mut DbConnection, id: &UserId) -> Result<(), StoreError> {
    diesel::update(users::table.find(id))
        .set(users::unsubscribe_version.eq(users::unsubscribe_version + 1))
        .execute(conn)?;
    Ok(())
}

/// Marks the account's address verified if it still is `email`; whether it did.
pub fn verify_email(
    conn: &mut DbConnection,
    user_id: &UserId,
    email: &str,
    now: NaiveDateTime,
) -> Result<bool, StoreError> {
    let n = diesel::update(
        users::table
            .filter(users::id.eq(user_id))
            .filter(users::email.eq(email)),
    )
    .set(users::email_verified_at.eq(Some(now)))
    .execute(conn)?;
    Ok(n == 1)
}

/// The accounts whose verified address is `email` (compared case-insensitively), at
/// most `limit`.
pub fn find_by_verified_email(
    conn: &mut DbConnection,
    email: &str,
    limit: i64,
) -> Result<Vec<User>, StoreError> {
    Ok(users::table
        .filter(lower(users::email).eq(email.to_lowercase()))
        .filter(users::email_verified_at.is_not_null())
        .order(users::id.asc())
        .limit(limit)
        .select(User::as_select())
        .load(conn)?)
}
