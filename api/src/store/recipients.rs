//! What notifications read of the accounts: an address to mail, a name to show.

use diesel::prelude::*;

use super::schema::users;
use super::{DbConnection, StoreError};

/// The user's e-mail address (empty: none).
pub fn email(conn: &mut DbConnection, user: &str) -> Result<String, StoreError> {
    Ok(users::table.find(user).select(users::email).first(conn)?)
}

/// The user's name (`?` for an unknown user).
pub fn username(conn: &mut DbConnection, user: &str) -> Result<String, StoreError> {
    Ok(users::table
        .find(user)
        .select(users::username)
        .first(conn)
        .optional()?
        .unwrap_or_else(|| "?".into()))
}
