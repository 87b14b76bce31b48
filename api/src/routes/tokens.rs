//! Personal access tokens: `POST /v1/me/tokens` (create; the token is shown once),
//! `GET /v1/me/tokens` (list, without the secret) and `DELETE /v1/me/tokens/{id}` (revoke).
//! Managing tokens needs a login session; a token cannot mint or list tokens.

use actix_web::{HttpResponse, delete, get, http::header, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts::PersonalAccessToken;
use crate::accounts::tokens::{self as token_cases, NewToken};
use crate::auth::{Scope, SecretString};
use crate::error::{ApiError, Problem};
use crate::ids::TokenId;
use crate::pagination::{PageParams, next_link};
use crate::routes::caller::Authenticated;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;
use crate::validate::{Checks, TOKEN_NAME_MAX};

pub use crate::accounts::tokens::{MAX_TOKEN_DAYS, MAX_TOKENS_PER_USER};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create_token)
        .service(list_tokens)
        .service(revoke_token);
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "my bot", "scopes": ["read", "play"], "expires_in_days": 90}))]
pub struct CreateTokenRequest {
    /// A label for the owner, 1 to 64 characters, not only spaces, no control characters.
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub name: String,
    /// What the token may do: one or both of `read`, `play` (repeats count once).
    #[schema(min_items = 1)]
    pub scopes: Vec<Scope>,
    /// Days until the token expires (1 to 3650); absent: it never expires.
    #[schema(minimum = 1, maximum = 3650)]
    pub expires_in_days: Option<u32>,
}

/// A personal access token, without its secret.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d12", "name": "my bot", "scopes": ["read", "play"],
    "token_hint": "djp_Zk3l…", "created_at": "2026-11-30T12:00:00Z",
    "expires_at": "2027-02-28T12:00:00Z", "last_used_at": null, "app": null
}))]
pub struct TokenInfo {
    #[schema(value_type = String)]
    pub id: TokenId,
    pub name: String,
    pub scopes: Vec<Scope>,
    /// The first characters of the token, to recognise it.
    pub token_hint: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// The app the token was issued to through OAuth 2.0 (its `client_id`, also the
    /// token's `name`); `null` for a token made by hand.
    pub app: Option<String>,
}

impl From<&PersonalAccessToken> for TokenInfo {
    fn from(t: &PersonalAccessToken) -> Self {
        TokenInfo {
            id: t.id.clone(),
            name: t.name.clone(),
            scopes: Scope::parse_list(&t.scopes),
            token_hint: t.token_hint.clone(),
            created_at: t.created_at.and_utc(),
            expires_at: t.expires_at.map(|x| x.and_utc()),
            last_used_at: t.last_used_at.map(|x| x.and_utc()),
            app: t.client_id.clone(),
        }
    }
}

/// A newly created token: `token` is shown this once and never again.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d12", "name": "my bot", "scopes": ["read", "play"],
    "token_hint": "djp_Zk3l…", "created_at": "2026-11-30T12:00:00Z",
    "expires_at": null, "last_used_at": null, "app": null,
    "token": "djp_Zk3lq0t1N9QmJb2Hc0R7Yp4sVx8wKe6uAa5LdFgTnMo"
}))]
pub struct CreatedToken {
    #[serde(flatten)]
    pub info: TokenInfo,
    /// Use as `Authorization: Bearer <token>`.
    #[schema(value_type = String)]
    pub token: SecretString,
}

/// A page of tokens, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenList {
    pub items: Vec<TokenInfo>,
    /// Pass as `after` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
    /// The path of the next page; absent on the last page.
    pub next: Option<String>,
}

/// Create a personal access token.
#[utoipa::path(
    tag = "tokens",
    security(("bearer" = ["session"])),
    request_body = CreateTokenRequest,
    responses(
        (status = 201, description = "Created; the token is in the body, shown only this once \
            (`Cache-Control: no-store`)", body = CreatedToken),
        (status = 400, description = "A field is invalid", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json"),
        (status = 409, description = "The account already holds 100 live tokens (the cap \
            holds under concurrent creations)", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[post("/me/tokens")]
pub async fn create_token(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<CreateTokenRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let req = body.into_inner();
    let mut checks = Checks::new();
    checks.name("name", &req.name, TOKEN_NAME_MAX);
    if req.scopes.is_empty() {
        checks.add("scopes", "give at least one of `read`, `play`");
    }
    if let Some(days) = req.expires_in_days {
        if !(1..=MAX_TOKEN_DAYS).contains(&days) {
            checks.add("expires_in_days", format!("must be 1 to {MAX_TOKEN_DAYS}"));
        }
    }
    checks.finish()?;

    let mut scopes = req.scopes;
    scopes.sort();
    scopes.dedup();
    let new = NewToken {
        user_id: auth.user_id.clone(),
        name: req.name,
        scopes: Scope::join(&scopes),
        expires_in_days: req.expires_in_days,
    };
    let created = token_cases::create(&state.accounts(), new).await?;
    Ok(HttpResponse::Created()
        .insert_header((
            header::LOCATION,
            format!("/v1/me/tokens/{}", created.row.id),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(CreatedToken {
            info: TokenInfo::from(&created.row),
            token: created.secret.into(),
        }))
}

/// List one's live (unrevoked) personal access tokens, oldest first, with the tokens apps
/// got through OAuth 2.0 (`app` names the app; revoke them the same way).
#[utoipa::path(
    tag = "tokens",
    security(("bearer" = ["session"])),
    params(PageParams),
    responses(
        (status = 200, description = "A page of tokens", body = TokenList),
        (status = 400, description = "Bad `limit` or `after`", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[get("/me/tokens")]
pub async fn list_tokens(
    state: web::Data<AppState>,
    auth: Authenticated,
    page: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let limit = page.limit()?;
    let after = page.after()?.map(str::to_string);
    let page = token_cases::list(&state.accounts(), auth.user_id.clone(), after, limit).await?;
    let next = page
        .next_cursor
        .as_deref()
        .map(|c| next_link("/v1/me/tokens", c, limit));
    Ok(HttpResponse::Ok().json(TokenList {
        items: page.items.iter().map(TokenInfo::from).collect(),
        next_cursor: page.next_cursor,
        next,
    }))
}

/// Revoke a personal access token. It stops working at once.
#[utoipa::path(
    tag = "tokens",
    security(("bearer" = ["session"])),
    params(("id" = String, Path, format = "uuid", description = "The token's id")),
    responses(
        (status = 204, description = "Revoked (or already revoked)"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json"),
        (status = 404, description = "No such token of yours", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[delete("/me/tokens/{id}")]
pub async fn revoke_token(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let id = TokenId::new(super::uuid_id(path.into_inner(), "token")?);
    token_cases::revoke(&state.accounts(), auth.user_id.clone(), id).await?;
    Ok(HttpResponse::NoContent().finish())
}
