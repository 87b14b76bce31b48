//! What notifications read of the accounts: an address to mail, a name to show.

use diesel::prelude::*;

use super::schema::users;
use super::{DbConnection, StoreError};
use crate::ids::UserId;

/// The user's e-mail address if its owner has verified it (empty: none, or not verified:
/// notification mails go to verified addresses only).
pub fn email(conn: &mut DbConnection, user: &UserId) -> Result<String, StoreError> {
    let (email, verified): (String, Option<chrono::NaiveDateTime>) = users::table
        .find(user)
        .select((users::email, users::email_verified_at))
        .first(conn)?;
    Ok(if verified.is_some() {
        email
    } else {
        String::new()
    })
}

/// Of each of `users`: its id, its address if verified (else empty) and its time zone's
/// name, if set.
pub fn addresses_of(
    conn: &mut DbConnection,
    users: &[&UserId],
) -> Result<Vec<(UserId, String, Option<String>)>, StoreError> {
    let rows: Vec<(
        UserId,
        String,
        Option<chrono::NaiveDateTime>,
        Option<String>,
    )> = users::table
        .filter(users::id.eq_any(users))
        .select((
            users::id,
            users::email,
            users::email_verified_at,
            users::time_zone,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(id, email, verified, zone)| {
            (
                id,
                if verified.is_some() {
                    email
                } else {
                    String::new()
                },
                zone,
            )
        })
        .collect())
}

/// Of each of `users`: its id and its language's code, if set.
pub fn languages_of(
    conn: &mut DbConnection,
    users: &[&UserId],
) -> Result<Vec<(UserId, Option<String>)>, StoreError> {
    Ok(users::table
        .filter(users::id.eq_any(users))
        .select((users::id, users::language))
        .load(conn)?)
}

/// The user's name (`?` for an unknown user).
pub fn username(conn: &mut DbConnection, user: &UserId) -> Result<String, StoreError> {
    Ok(users::table
        .find(user)
        .select(users::username)
        .first(conn)
        .optional()?
        .unwrap_or_else(|| "?".into()))
}
