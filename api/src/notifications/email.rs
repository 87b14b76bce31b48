//! E-mail notifications (not yet: see the README).

use super::NotificationRow;
use super::delivery::Outcome;
use crate::state::AppState;

/// Sends one notification by mail.
pub async fn send_one(_app: &AppState, _to: &str, _note: &NotificationRow) -> Outcome {
    Outcome::Dead("e-mail delivery is not implemented".into())
}

/// Sends the daily digests that are due.
pub async fn digest_tick(_app: &actix_web::web::Data<AppState>) {}
