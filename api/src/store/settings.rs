//! `notification_settings`: one JSON document per user (what it says is
//! `crate::notifications::settings`).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::notification_settings;
use super::{DbConnection, StoreError};
use crate::ids::UserId;

/// A user's saved document, if any.
pub fn load(conn: &mut DbConnection, user: &UserId) -> Result<Option<String>, StoreError> {
    Ok(notification_settings::table
        .find(user)
        .select(notification_settings::settings)
        .first(conn)
        .optional()?)
}

/// The saved documents of `users` (those who saved one), by user.
pub fn load_of(
    conn: &mut DbConnection,
    users: &[&UserId],
) -> Result<Vec<(UserId, String)>, StoreError> {
    Ok(notification_settings::table
        .filter(notification_settings::user_id.eq_any(users))
        .select((
            notification_settings::user_id,
            notification_settings::settings,
        ))
        .load(conn)?)
}

/// Saves a user's document (replacing the previous one).
pub fn save(
    conn: &mut DbConnection,
    user: &UserId,
    text: &str,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    let n = diesel::update(notification_settings::table.find(user))
        .set((
            notification_settings::settings.eq(text),
            notification_settings::updated_at.eq(at),
        ))
        .execute(conn)?;
    if n == 0 {
        diesel::insert_into(notification_settings::table)
            .values((
                notification_settings::user_id.eq(user),
                notification_settings::settings.eq(text),
                notification_settings::updated_at.eq(at),
            ))
            .execute(conn)?;
    }
    Ok(())
}
