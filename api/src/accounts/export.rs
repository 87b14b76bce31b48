//! The account export: everything the service holds about one account, as one JSON
//! document its owner downloads (`GET /v1/me/export`; the format is in the README).
//!
//! Secrets are left out (the password hash, token hashes, webhook signing secrets, a push
//! subscription's `auth`); the games are every game the account holds a seat in, each
//! with its record (the text of `GET /v1/games/{id}/record`), its settings and the
//! account's seats, and the study games it imported; then what the account wrote or set
//! at game tables: its messages (private ones too: their text is the author's; never
//! others' messages to it), its mutes and its reports; its conditional moves, the
//! analyses it asked for, its rating and its tournaments. [`PARTS`] names every part,
//! and a test holds the README's list of them to it.

use serde_json::{Value, json};

use super::{AccountError, Accounts};
use crate::games::Ctx as GameCtx;
use crate::games::record;
use crate::ids::UserId;
use crate::notifications::feed::FeedItem;
use crate::notifications::settings;
use crate::store::{self, StoreError};

/// The version of the document's format.
pub const FORMAT: &str = "djambi-account-export/1";
/// The document's top-level parts, in order.
pub const PARTS: &[&str] = &[
    "format",
    "exported_at",
    "account",
    "notification_settings",
    "sessions",
    "personal_access_tokens",
    "webhooks",
    "vacations",
    "games",
    "study_games",
    "notifications",
    "messages",
    "mutes",
    "message_reports",
    "push_subscriptions",
    "conditional_moves",
    "analyses",
    "rating",
    "tournaments",
];
/// Rows read per query when paging through a long list.
const PAGE: i64 = 500;

/// The export of `user_id`'s account; `site` goes into the records' `Site` header.
pub async fn export(
    ctx: &Accounts<'_>,
    games: GameCtx<'_>,
    user_id: UserId,
    site: String,
) -> Result<Value, AccountError> {
    let now = ctx.clock.now();
    let cache = games.cache.clone();
    store::run(ctx.pool, move |conn| {
        let Some(user) = store::users::find(conn, &user_id)? else {
            return Err(AccountError::AccountGone);
        };
        let time = |t: chrono::NaiveDateTime| t.and_utc();
        let account = json!({
            "id": user.id,
            "username": user.username,
            "email": user.email,
            "email_verified": user.email_verified_at.is_some(),
            "email_verified_at": user.email_verified_at.map(time),
            "created_at": time(user.created_at),
            "updated_at": time(user.updated_at),
            "language": user.language,
            "time_zone": user.time_zone,
        });
        let notification_settings = serde_json::to_value(settings::load(conn, &user.id)?)
            .map_err(|e| StoreError::Corrupt(format!("notification settings: {e}")))?;
        let sessions: Vec<Value> = store::sessions::list_live(
            conn,
            &user.id,
            chrono::DateTime::UNIX_EPOCH.naive_utc(),
            i64::MAX,
        )?
        .into_iter()
        .map(|s| {
            json!({"id": s.id, "created_at": time(s.created_at), "last_used_at": time(s.last_used_at),
                   "client_addr": s.client_addr, "user_agent": s.user_agent})
        })
        .collect();
        let tokens: Vec<Value> = store::tokens::list_live(conn, &user.id, None, i64::MAX)?
            .into_iter()
            .map(|t| {
                // `client_id`: the app an OAuth sign-in issued the token to.
                json!({"id": t.id, "name": t.name, "scopes": t.scopes, "hint": t.token_hint,
                       "client_id": t.client_id,
                       "created_at": time(t.created_at), "expires_at": t.expires_at.map(time),
                       "last_used_at": t.last_used_at.map(time)})
            })
            .collect();
        let webhooks: Vec<Value> = store::webhooks::list(conn, &user.id)?
            .into_iter()
            .map(|w| {
                json!({"id": w.id, "url": w.url, "created_at": time(w.created_at),
                       "disabled_at": w.disabled_at.map(time), "disabled_reason": w.disabled_reason})
            })
            .collect();
        let vacations: Vec<Value> = store::vacations::all_of(conn, &user.id)?
            .into_iter()
            .map(|v| {
                json!({"id": v.id, "starts_at": time(v.starts_at), "ends_at": time(v.ends_at),
                       "created_at": time(v.created_at)})
            })
            .collect();

        let mut game_list = Vec::new();
        let mut after = None;
        loop {
            let (rows, _) = store::game_lists::games_of(conn, &user.id, None, after.clone(), PAGE)?;
            let more = rows.len() as i64 > PAGE;
            for row in rows.iter().take(PAGE as usize) {
                let state = store::games::current_state(conn, &cache, &row.id)?;
                let players = store::games::players_of(conn, std::slice::from_ref(&row.id))?;
                let players = record::players_for_record(conn, &state, players)?;
                let text = record::text(&state, &players, &site)
                    .map_err(|e| StoreError::Corrupt(format!("record of {}: {e}", row.id)))?;
                let seats: Vec<&str> = players
                    .iter()
                    .filter(|p| p.user_id == user.id)
                    .map(|p| p.seat.as_str())
                    .collect();
                let names: Vec<Value> = players
                    .iter()
                    .map(|p| json!({"seat": p.seat, "username": p.username}))
                    .collect();
                game_list.push(json!({
                    "id": row.id, "kind": row.kind, "status": row.status, "ruleset": row.ruleset,
                    "visibility": row.visibility, "created_at": time(row.created_at),
                    "updated_at": time(row.updated_at), "version": row.version,
                    "result": row.result.as_deref().map(|r| {
                        serde_json::from_str::<Value>(r).unwrap_or_else(|_| Value::String(r.into()))
                    }),
                    "my_seats": seats, "players": names, "record": text,
                }));
            }
            if !more {
                break;
            }
            after = rows
                .get(PAGE as usize - 1)
                .map(|r| (r.created_at, r.id.clone()));
        }

        let mut study_games = Vec::new();
        for row in store::game_lists::studies_of(conn, &user.id)? {
            let state = store::games::current_state(conn, &cache, &row.id)?;
            let text = record::text(&state, &[], &site)
                .map_err(|e| StoreError::Corrupt(format!("record of {}: {e}", row.id)))?;
            study_games.push(json!({
                "id": row.id, "visibility": row.visibility, "created_at": time(row.created_at),
                "version": row.version, "record": text,
            }));
        }

        // A `message` notification carries another player's text: it is theirs, so the
        // export keeps which message it was (`message_id`, `seq`, seat, game) but not it.
        let notifications: Vec<FeedItem> =
            store::feed::oldest_since(conn, &user.id, None, i64::MAX)?
                .iter()
                .map(FeedItem::of)
                .map(|mut item| {
                    if item.kind == "message" {
                        if let Some(payload) = item.payload.as_object_mut() {
                            payload.remove("text");
                        }
                    }
                    item
                })
                .collect();
        // What the account wrote at game tables, private messages included (their text
        // is the author's own); never what others wrote to it.
        let messages: Vec<Value> = store::messages::written_by(conn, &user.id)?
            .into_iter()
            .map(|m| {
                let to: Option<Vec<String>> = (!m.recipients.is_empty())
                    .then(|| m.recipients.chars().map(String::from).collect());
                json!({"id": m.id, "game_id": m.game_id, "seq": m.seq, "seat": m.sender_seat,
                       "to": to, "text": m.body, "game_version": m.game_version,
                       "created_at": time(m.created_at), "hidden": m.hidden_at.is_some()})
            })
            .collect();
        let mutes: Vec<Value> = store::messages::mutes_of(conn, &user.id)?
            .into_iter()
            .map(|(username, since)| json!({"username": username, "created_at": time(since)}))
            .collect();
        let reports: Vec<Value> = store::messages::reports_by(conn, &user.id)?
            .into_iter()
            .map(|r| {
                json!({"id": r.id, "message_id": r.message_id, "reason": r.reason,
                       "created_at": time(r.created_at)})
            })
            .collect();
        // The browser's push keys: the endpoint and its public key; `auth` is a secret
        // shared with the push service, left out like the other secrets.
        let push_subscriptions: Vec<Value> = store::push_subscriptions::list(conn, &user.id)?
            .into_iter()
            .map(|p| {
                json!({"id": p.id, "endpoint": p.endpoint, "p256dh": p.p256dh,
                       "created_at": time(p.created_at)})
            })
            .collect();
        // The trees of conditional moves, each line as text, as `GET …/conditional-moves`
        // gives them (stored one line of text per line).
        let conditional_moves: Vec<Value> = store::conditional_moves::of_user(conn, &user.id)?
            .into_iter()
            .map(|t| {
                let lines: Vec<&str> = t.lines.lines().filter(|l| !l.trim().is_empty()).collect();
                json!({"game_id": t.game_id, "seat": t.seat, "lines": lines,
                       "revision": t.revision, "base_version": t.base_version,
                       "updated_at": time(t.updated_at)})
            })
            .collect();
        let analyses: Vec<Value> = store::analyses::requested_by(conn, &user.id)?
            .into_iter()
            .map(|a| {
                json!({"id": a.id, "game_id": a.game_id, "engine_version": a.engine_version,
                       "status": a.status, "game_version": a.game_version,
                       "requested_at": time(a.requested_at),
                       "finished_at": a.finished_at.map(time)})
            })
            .collect();
        let changes: Vec<Value> = store::ratings::changes_of(conn, &user.id, i64::MAX)?
            .into_iter()
            .rev()
            .map(|c| {
                json!({"game_id": c.game_id, "place": c.place, "players": c.players,
                       "mu_before": c.mu_before, "sigma_before": c.sigma_before,
                       "mu_after": c.mu_after, "sigma_after": c.sigma_after,
                       "ended_at": time(c.ended_at)})
            })
            .collect();
        let rating = store::ratings::get(conn, &user.id)?.map(|r| {
            json!({"mu": r.mu, "sigma": r.sigma, "rating": r.rating, "games": r.games,
                   "wins": r.wins, "last_game_at": time(r.last_game_at), "changes": changes})
        });
        let tournaments: Vec<Value> = store::tournaments::of_user(conn, &user.id)?
            .into_iter()
            .map(|(t, entered)| {
                json!({"id": t.id, "name": t.name, "format": t.format, "status": t.status,
                       "organiser": t.organiser_id == user.id.as_str(), "entered": entered,
                       "created_at": time(t.created_at), "starts_at": t.starts_at.map(time)})
            })
            .collect();
        Ok(json!({
            "format": FORMAT,
            "exported_at": time(now),
            "account": account,
            "notification_settings": notification_settings,
            "sessions": sessions,
            "personal_access_tokens": tokens,
            "webhooks": webhooks,
            "vacations": vacations,
            "games": game_list,
            "study_games": study_games,
            "notifications": notifications,
            "messages": messages,
            "mutes": mutes,
            "message_reports": reports,
            "push_subscriptions": push_subscriptions,
            "conditional_moves": conditional_moves,
            "analyses": analyses,
            "rating": rating,
            "tournaments": tournaments,
        }))
    })
    .await
}
