//! Path parameters shared by the routes, each declared once: its OpenAPI description and
//! bounds (`IntoParams`) and its check (`FromRequest`), so a route names the type in its
//! `params(...)` and takes it as an argument.

use std::future::{Ready, ready};

use actix_web::{FromRequest, HttpRequest, dev::Payload};
use domain::Seat;
use utoipa::IntoParams;

use crate::error::ApiError;
use crate::ids::GameId;

/// `{id}` of `/games/{id}/...`: game ids are UUIDs, so anything else cannot exist and is
/// answered `404` before it reaches the database.
#[derive(Debug, Clone, IntoParams)]
#[into_params(names("id"), parameter_in = Path)]
pub struct GameIdPath(
    /// The game's id
    #[param(value_type = String, max_length = 64, pattern = "^[A-Za-z0-9-]+$")]
    GameId,
);

impl GameIdPath {
    pub fn into_inner(self) -> GameId {
        self.0
    }

    /// Checks a raw id as it came in the path.
    pub fn parse(raw: &str) -> Result<GameIdPath, ApiError> {
        if raw.is_empty()
            || raw.len() > 64
            || !raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            let shown: String = raw.chars().take(64).filter(|c| !c.is_control()).collect();
            return Err(ApiError::NotFound(format!("no game {shown}")));
        }
        Ok(GameIdPath(GameId::new(raw)))
    }
}

impl FromRequest for GameIdPath {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(GameIdPath::parse(
            req.match_info().get("id").unwrap_or_default(),
        ))
    }
}

/// `{seat}` of `/games/{id}/seats/{seat}`: `R`, `B`, `Y` or `G` (either case).
#[derive(Debug, Clone, Copy, IntoParams)]
#[into_params(names("seat"), parameter_in = Path)]
pub struct SeatPath(
    /// R, B, Y or G
    #[param(value_type = String, pattern = "^[RBYGrbyg]$")]
    Seat,
);

impl SeatPath {
    pub fn seat(self) -> Seat {
        self.0
    }
}

impl FromRequest for SeatPath {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let raw = req.match_info().get("seat").unwrap_or_default();
        ready(
            raw.parse()
                .map(SeatPath)
                .map_err(|_| ApiError::field("seat", "must be one of R, B, Y, G")),
        )
    }
}
