//! `POST /v1/accounts`: registration.

use actix_web::{HttpRequest, HttpResponse, http::header, post, web};
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::me::Profile;
use crate::accounts::register::{NewAccount, register as create_account};
use crate::auth::SecretString;
use crate::error::too_many;
use crate::error::{ApiError, Problem};
use crate::routes::caller::client_addr;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;
use crate::validate::Checks;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(register);
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "alice", "email": "alice@example.org", "password": "correct horse battery"}))]
pub struct RegisterRequest {
    /// 3 to 32 characters from `A-Z a-z 0-9 _ -`, starting and ending with a letter or a
    /// digit, no two of `_`/`-` in a row. Unique regardless of case, and no two names may
    /// look alike (`Ivan`/`lvan`, `bob0`/`bobO`, `rn`/`m`, `_`/`-` count as the same).
    #[schema(
        min_length = 3,
        max_length = 32,
        pattern = "^[A-Za-z0-9]+([_-][A-Za-z0-9]+)*$"
    )]
    pub username: String,
    /// `local@domain.tld`, up to 254 characters, without spaces or control characters
    /// (surrounding white space is dropped).
    #[schema(
        min_length = 5,
        max_length = 254,
        pattern = "^\\s*[^@\\s\\x00-\\x1f\\x7f-\\x9f]+@[^@.\\s\\x00-\\x1f\\x7f-\\x9f][^@\\s\\x00-\\x1f\\x7f-\\x9f]*\\.[^@\\s\\x00-\\x1f\\x7f-\\x9f]*[^@.\\s\\x00-\\x1f\\x7f-\\x9f]\\s*$"
    )]
    pub email: String,
    /// 8 to 128 characters after RFC 8265 (OpaqueString) normalisation (NFC); refused when
    /// easy to guess (common passwords, the username, keyboard walks, repeats): a `400`
    /// whose `errors` give the reason and suggestions.
    #[schema(value_type = String, format = Password, min_length = 8, max_length = 128)]
    pub password: SecretString,
    /// The language of the account's pages and mails: `en`, `fr` or `es` (default: the
    /// pages follow the browser's `Accept-Language`, mails are in English). Changed later
    /// with `PATCH /v1/me`.
    #[schema(example = "fr", min_length = 2, max_length = 35)]
    pub language: Option<String>,
}

/// Create an account.
#[utoipa::path(
    tag = "accounts",
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "The account was created", body = Profile,
            headers(("Location" = String, description = "`/v1/me`"))),
        (status = 400, description = "A field is invalid or the body is malformed; a weak \
            password is refused with the reason and suggestions", body = Problem,
            content_type = "application/problem+json"),
        (status = 409, description = "The username, or one that looks like it, is taken",
            body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is too large", body = Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many registrations from this address; `Retry-After` \
            says when to try again", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Too many password hashes at once; `Retry-After` says \
            when to try again", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/accounts")]
pub async fn register(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonBody<RegisterRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let email = body.email.trim().to_string();
    let mut checks = Checks::new();
    checks.username("username", &body.username);
    checks.email_as_sent("email", &body.email);
    let password = checks.new_password("password", &body.password, &body.username, &email);
    let language = body
        .language
        .as_deref()
        .and_then(|l| checks.language("language", l));
    checks.finish()?;
    let password = password.unwrap_or_default();
    // Each registration costs a password hash: limit them per client address.
    state
        .register_ip_limiter
        .acquire(client_addr(&req, &state.config.trusted_proxies))
        .map_err(too_many)?;

    let new = NewAccount {
        username: body.username,
        email,
        password,
        language: language.map(str::to_string),
    };
    let user = create_account(&state.accounts(), new).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, "/v1/me"))
        .json(Profile::from(&user)))
}
