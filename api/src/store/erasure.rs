//! Closing an account in the store: what ends at once (sessions, tokens, webhooks, the
//! mail queue), the seats still held, and the erasure of the personal data, table by
//! table. The account's row stays (the games' seats and logs refer to its id) with
//! nothing personal left in it.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use sha2::{Digest, Sha256};

use super::schema::{
    account_tokens, deliveries, game_players, games, idempotency_keys, mail_move_tokens,
    notification_settings, notifications, oauth_codes, personal_access_tokens, push_subscriptions,
    retired_usernames, sessions, users, vacations, webhooks,
};
use super::{DbConnection, StoreError};
use crate::ids::{GameId, UserId};

/// What a closed account's seats and name show.
pub const DELETED_NAME: &str = "[deleted]";

/// The stored form of a held name: SHA-256 (hex) of its skeleton.
pub fn skeleton_hash(skeleton: &str) -> String {
    hex::encode(Sha256::digest(skeleton.as_bytes()))
}

/// Whether a name with this skeleton hash is held at `now`.
pub fn name_is_held(
    conn: &mut DbConnection,
    hash: &str,
    now: NaiveDateTime,
) -> Result<bool, StoreError> {
    let n: i64 = retired_usernames::table
        .filter(retired_usernames::skeleton_hash.eq(hash))
        .filter(retired_usernames::held_until.gt(now))
        .count()
        .get_result(conn)?;
    Ok(n > 0)
}

/// Holds a name until `until` (a later hold of the same name wins).
pub fn hold_name(
    conn: &mut DbConnection,
    hash: &str,
    until: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::delete(retired_usernames::table.find(hash)).execute(conn)?;
    diesel::insert_into(retired_usernames::table)
        .values((
            retired_usernames::skeleton_hash.eq(hash),
            retired_usernames::held_until.eq(until),
        ))
        .execute(conn)?;
    Ok(())
}

/// Forgets the holds that ended before `now`; returns how many.
pub fn purge_held_names(conn: &mut DbConnection, now: NaiveDateTime) -> Result<usize, StoreError> {
    Ok(
        diesel::delete(retired_usernames::table.filter(retired_usernames::held_until.le(now)))
            .execute(conn)?,
    )
}

/// Ends at once what lets the account act or be reached: its sessions (with their refresh
/// tokens), personal access tokens, mailed tokens, the reply addresses of its turn mails, webhooks, the browsers' Web Push
/// subscriptions, notification settings and vacations, and the delivery queue and feed of
/// its notifications.
pub fn end_everything(conn: &mut DbConnection, user_id: &UserId) -> Result<(), StoreError> {
    // First lock the account's notifications (PostgreSQL): the delivery worker's fan-out
    // skips locked rows, and one that holds some already finishes first, so no delivery
    // is inserted for a notification between the two deletes below.
    if let DbConnection::Pg(c) = conn {
        notifications::table
            .filter(notifications::user_id.eq(user_id))
            .select(notifications::id)
            .for_update()
            .load::<String>(c)?;
    }
    // The refresh tokens go with their sessions (ON DELETE CASCADE).
    diesel::delete(sessions::table.filter(sessions::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(
        personal_access_tokens::table.filter(personal_access_tokens::user_id.eq(user_id)),
    )
    .execute(conn)?;
    diesel::delete(oauth_codes::table.filter(oauth_codes::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(account_tokens::table.filter(account_tokens::user_id.eq(user_id)))
        .execute(conn)?;
    // The reply addresses of its turn mails: no move by mail after this.
    diesel::delete(mail_move_tokens::table.filter(mail_move_tokens::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(deliveries::table.filter(deliveries::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(notifications::table.filter(notifications::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(webhooks::table.filter(webhooks::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(push_subscriptions::table.filter(push_subscriptions::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(notification_settings::table.filter(notification_settings::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(vacations::table.filter(vacations::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(idempotency_keys::table.filter(idempotency_keys::user_id.eq(user_id)))
        .execute(conn)?;
    // Its conditional moves: nothing is played for a closed account.
    super::conditional_moves::delete_of_user(conn, user_id)?;
    Ok(())
}

/// The seats the account holds in games not over: (game id, seat, game status).
pub fn seats_in_play(
    conn: &mut DbConnection,
    user_id: &UserId,
) -> Result<Vec<(GameId, String, String)>, StoreError> {
    Ok(game_players::table
        .inner_join(games::table)
        .filter(game_players::user_id.eq(user_id))
        .filter(games::status.ne("finished"))
        .order((game_players::game_id.asc(), game_players::seat.asc()))
        .select((game_players::game_id, game_players::seat, games::status))
        .load(conn)?)
}

/// Erases the personal data of the account's row: the name becomes [`DELETED_NAME`], the
/// address, the password hash and the keys of the name go, and the row is marked closed.
/// Stored answers of other players' requests that name the account show the deleted name
/// too.
pub fn erase_user(
    conn: &mut DbConnection,
    user_id: &UserId,
    username: &str,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let gone = format!("closed:{user_id}");
    diesel::update(users::table.find(user_id))
        .set((
            users::username.eq(DELETED_NAME),
            users::username_key.eq(&gone),
            users::username_skeleton.eq(&gone),
            users::email.eq(""),
            users::email_verified_at.eq(None::<NaiveDateTime>),
            users::password_hash.eq("!"),
            users::language.eq(None::<String>),
            users::time_zone.eq(None::<String>),
            users::updated_at.eq(now),
            users::closed_at.eq(Some(now)),
        ))
        .execute(conn)?;
    // Names are `A-Z a-z 0-9 _ -`: nothing to escape in JSON or in LIKE but `_`.
    let named = format!("\"username\":\"{username}\"");
    let deleted = format!("\"username\":\"{DELETED_NAME}\"");
    let pattern = format!("%{}%", named.replace('_', "\\_"));
    diesel::update(
        idempotency_keys::table.filter(idempotency_keys::response_body.like(pattern).escape('\\')),
    )
    .set(idempotency_keys::response_body.eq(replace(
        idempotency_keys::response_body,
        named,
        deleted,
    )))
    .execute(conn)?;
    Ok(())
}

diesel::define_sql_function! {
    /// SQL `replace(text, from, to)` (both backends).
    fn replace(
        x: diesel::sql_types::Text,
        from: diesel::sql_types::Text,
        to: diesel::sql_types::Text,
    ) -> diesel::sql_types::Text;
}
