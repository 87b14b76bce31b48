//! Personal access tokens: created under a per-account cap, listed, revoked, and checked
//! when presented.

use chrono::{NaiveDateTime, TimeDelta};
use diesel::prelude::*;

use crate::store::schema::personal_access_tokens as pat;
use crate::store::{self, DbConnection, models::PersonalAccessToken};

/// What creating a token came to.
#[derive(Debug)]
pub enum Created {
    Created(PersonalAccessToken),
    /// The account already holds `max` live tokens.
    CapReached,
    /// The account does not exist (any more).
    NoAccount,
}

/// Inserts `row` unless its owner already holds `max` live tokens. The owner's row is
/// locked first ([`super::lock_user`]), so parallel creations are counted one after the
/// other and the cap holds on both backends.
pub fn create(conn: &mut DbConnection, row: PersonalAccessToken, max: i64) -> QueryResult<Created> {
    store::transaction(conn, |conn| {
        if !super::lock_user(conn, &row.user_id)? {
            return Ok(Created::NoAccount);
        }
        if count_live(conn, &row.user_id)? >= max {
            return Ok(Created::CapReached);
        }
        diesel::insert_into(pat::table).values(&row).execute(conn)?;
        Ok(Created::Created(row))
    })
}

/// Live (unrevoked) tokens of a user; expired ones count until they are revoked.
pub fn count_live(conn: &mut DbConnection, user_id: &str) -> QueryResult<i64> {
    pat::table
        .filter(pat::user_id.eq(user_id))
        .filter(pat::revoked_at.is_null())
        .count()
        .get_result(conn)
}

/// A page of a user's live tokens, oldest first: at most `limit` rows after the id
/// `after`.
pub fn list(
    conn: &mut DbConnection,
    user_id: &str,
    after: Option<&str>,
    limit: i64,
) -> QueryResult<Vec<PersonalAccessToken>> {
    let mut q = pat::table
        .filter(pat::user_id.eq(user_id))
        .filter(pat::revoked_at.is_null())
        .order(pat::id.asc())
        .limit(limit)
        .select(PersonalAccessToken::as_select())
        .into_boxed();
    if let Some(after) = after {
        q = q.filter(pat::id.gt(after.to_string()));
    }
    q.load(conn)
}

/// Revokes a user's token. `false` if the user has no token with that id; revoking a
/// revoked token again is fine.
pub fn revoke(conn: &mut DbConnection, user_id: &str, id: &str) -> QueryResult<bool> {
    let found: i64 = pat::table
        .filter(pat::id.eq(id))
        .filter(pat::user_id.eq(user_id))
        .count()
        .get_result(conn)?;
    if found == 0 {
        return Ok(false);
    }
    diesel::update(
        pat::table
            .filter(pat::id.eq(id))
            .filter(pat::revoked_at.is_null()),
    )
    .set(pat::revoked_at.eq(store::now()))
    .execute(conn)?;
    Ok(true)
}

/// What a presented token is worth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenCheck {
    Valid {
        id: String,
        user_id: String,
        scopes: String,
    },
    Unknown,
    Revoked,
    Expired,
}

/// How often a token's `last_used_at` is refreshed, at most.
const LAST_USED_GRANULARITY: TimeDelta = TimeDelta::seconds(60);

/// Checks a presented token by its hash at `now`, and records its use (at most once a
/// minute).
pub fn check(
    conn: &mut DbConnection,
    token_hash: &str,
    now: NaiveDateTime,
) -> QueryResult<TokenCheck> {
    let Some(t) = pat::table
        .filter(pat::token_hash.eq(token_hash))
        .select(PersonalAccessToken::as_select())
        .first(conn)
        .optional()?
    else {
        return Ok(TokenCheck::Unknown);
    };
    if t.revoked_at.is_some() {
        return Ok(TokenCheck::Revoked);
    }
    if t.expires_at.is_some_and(|e| e <= now) {
        return Ok(TokenCheck::Expired);
    }
    if t.last_used_at
        .is_none_or(|u| now.signed_duration_since(u) > LAST_USED_GRANULARITY)
    {
        diesel::update(pat::table.find(&t.id))
            .set(pat::last_used_at.eq(now))
            .execute(conn)?;
    }
    Ok(TokenCheck::Valid {
        id: t.id,
        user_id: t.user_id,
        scopes: t.scopes,
    })
}
