//! Logging out: the session ends, and with it its refresh and access tokens.

use super::{AccountError, Accounts};
use crate::ids::SessionId;
use crate::store;

/// Ends the login session `session_id` (the API's logout and the web pages'); ending an
/// ended session again is fine.
pub async fn logout(ctx: &Accounts<'_>, session_id: SessionId) -> Result<(), AccountError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        store::sessions::revoke(conn, &session_id, "logged out", now)?;
        Ok::<_, AccountError>(())
    })
    .await
}
