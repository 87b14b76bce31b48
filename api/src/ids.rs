//! The typed ids: one newtype over `String` each, from the route boundary down to the
//! store, so a function that takes a [`GameId`] cannot be handed a [`UserId`].
//!
//! Each id is declared by [`typed_id!`] with everything it needs in one place: serde
//! (transparent, so the JSON is the bare string), diesel (`Text`, generic over the backend
//! so the `MultiConnection`'s works as well as PostgreSQL's and SQLite's) and utoipa (a
//! plain string schema, inlined, so the OpenAPI document reads as it did with `String`).
//! There are deliberately no conversions from one id to another: going through the string
//! (`as_str`, `into_string`) is visible at the call site. A user id is not a game id:
//!
//! ```compile_fail
//! use djambi_api::ids::{GameId, UserId};
//! fn open(_: &GameId) {}
//! open(&UserId::new("0193a0c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d"));
//! ```

use std::fmt;

use diesel::backend::Backend;
use diesel::deserialize::{self, FromSql};
use diesel::serialize::{self, Output, ToSql};
use diesel::sql_types::Text;

macro_rules! typed_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(
            Debug,
            Clone,
            PartialEq,
            Eq,
            Hash,
            PartialOrd,
            Ord,
            serde::Serialize,
            serde::Deserialize,
            diesel::AsExpression,
            diesel::FromSqlRow,
        )]
        #[serde(transparent)]
        #[diesel(sql_type = Text)]
        pub struct $name(String);

        impl $name {
            /// Wraps an id as it is stored (no check: ids come from the store, from a
            /// generator or from a parameter checked at the route).
            pub fn new(id: impl Into<String>) -> $name {
                $name(id.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> $name {
                $name(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> $name {
                $name(id.to_string())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<&$name> for $name {
            fn eq(&self, other: &&$name) -> bool {
                self == *other
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl<DB: Backend> ToSql<Text, DB> for $name
        where
            str: ToSql<Text, DB>,
        {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, DB>) -> serialize::Result {
                self.0.as_str().to_sql(out)
            }
        }

        impl<DB: Backend> FromSql<Text, DB> for $name
        where
            String: FromSql<Text, DB>,
        {
            fn from_sql(bytes: DB::RawValue<'_>) -> deserialize::Result<Self> {
                String::from_sql(bytes).map($name)
            }
        }

        // A string, inlined where it is used: the schema of the field it replaces.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
                <String as utoipa::PartialSchema>::schema()
            }
        }
    };
}

typed_id! {
    /// A game's id (a UUID).
    GameId
}

typed_id! {
    /// An account's id (a UUID v7).
    UserId
}

typed_id! {
    /// A login session's id (a UUID v7): the family of its refresh tokens, the `sid` of
    /// its access tokens.
    SessionId
}

typed_id! {
    /// A personal access token's id (a UUID v7), also an OAuth app's token's.
    TokenId
}

typed_id! {
    /// A webhook endpoint's id (a UUID v7).
    WebhookId
}

typed_id! {
    /// A Web Push subscription's id (a UUID v7).
    PushSubscriptionId
}

typed_id! {
    /// A table-talk message's id (a UUID v7).
    MessageId
}

typed_id! {
    /// A tournament's id (a UUID).
    TournamentId
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_its_bare_string_in_json() {
        let id = GameId::new("0193a0c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d");
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"0193a0c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d\"");
        let back: GameId = serde_json::from_str(&json).unwrap();
        assert_eq!(back, id);
        assert_eq!(id.to_string(), id.as_str());
    }

    #[test]
    fn an_id_round_trips_through_the_database() {
        use diesel::prelude::*;
        use diesel::sql_types::Nullable;

        // Through the `MultiConnection`, whose backend is the one the store uses.
        let mut conn = crate::store::DbConnection::Sqlite(
            diesel::SqliteConnection::establish(":memory:").unwrap(),
        );
        let user = UserId::new("u-1");
        let back: UserId = diesel::select(user.clone().into_sql::<Text>())
            .get_result(&mut conn)
            .unwrap();
        assert_eq!(back, user);
        let game = Some(GameId::new("g-1"));
        let back: Option<GameId> = diesel::select(game.clone().into_sql::<Nullable<Text>>())
            .get_result(&mut conn)
            .unwrap();
        assert_eq!(back, game);
    }
}
