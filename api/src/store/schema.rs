//! The diesel schema, one for both backends.
//!
//! Only SQL types PostgreSQL and SQLite share may appear here (the MultiConnection rule):
//! ids and JSON are `Text`, times are `Timestamp` holding UTC. Keep it in step with both
//! `migrations/postgres` and `migrations/sqlite`; add new tables (games, events) below.

diesel::table! {
    users (id) {
        id -> Text,
        username -> Text,
        username_key -> Text,
        email -> Text,
        password_hash -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        // 2026-11-30-000010_username_skeleton
        username_skeleton -> Text,
        // 2026-12-01-000060_email_verification
        email_verified_at -> Nullable<Timestamp>,
        // 2026-12-01-000062_account_closing
        closed_at -> Nullable<Timestamp>,
        // 2026-12-01-000150_unsubscribe_version
        unsubscribe_version -> BigInt,
        // 2026-12-01-000170_user_language
        language -> Nullable<Text>,
        time_zone -> Nullable<Text>,
    }
}

// 2026-12-01-000062_account_closing
diesel::table! {
    retired_usernames (skeleton_hash) {
        skeleton_hash -> Text,
        held_until -> Timestamp,
    }
}

// 2026-12-01-000060_email_verification
diesel::table! {
    account_tokens (id) {
        id -> Text,
        user_id -> Text,
        purpose -> Text,
        token_hash -> Text,
        email -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    mail_move_tokens (token_hash) {
        token_hash -> Text,
        notification_id -> Text,
        game_id -> Text,
        seat -> Text,
        user_id -> Text,
        version -> BigInt,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
        failures -> Integer,
    }
}

diesel::table! {
    inbound_mails (message_id) {
        message_id -> Text,
        received_at -> Timestamp,
        outcome -> Text,
        token_hash -> Nullable<Text>,
        seat_key -> Nullable<Text>,
        sender -> Nullable<Text>,
    }
}

diesel::table! {
    sessions (id) {
        id -> Text,
        user_id -> Text,
        created_at -> Timestamp,
        last_used_at -> Timestamp,
        revoked_at -> Nullable<Timestamp>,
        revoked_reason -> Nullable<Text>,
        // 2026-12-01-000061_session_client
        client_addr -> Nullable<Text>,
        user_agent -> Nullable<Text>,
    }
}

diesel::table! {
    refresh_tokens (token_hash) {
        token_hash -> Text,
        session_id -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    personal_access_tokens (id) {
        id -> Text,
        user_id -> Text,
        name -> Text,
        scopes -> Text,
        token_hash -> Text,
        token_hint -> Text,
        created_at -> Timestamp,
        expires_at -> Nullable<Timestamp>,
        last_used_at -> Nullable<Timestamp>,
        revoked_at -> Nullable<Timestamp>,
        client_id -> Nullable<Text>,
    }
}

diesel::table! {
    game_events (game_id, seq) {
        game_id -> Text,
        seq -> BigInt,
        kind -> Text,
        payload -> Text,
        actor_id -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    games (id) {
        id -> Text,
        status -> Text,
        visibility -> Text,
        invite_code -> Nullable<Text>,
        ruleset -> Text,
        seats_in_play -> Text,
        hostage_seat -> Nullable<Text>,
        version -> BigInt,
        ply -> Integer,
        to_move_seat -> Nullable<Text>,
        to_move_user_id -> Nullable<Text>,
        ruler_seat -> Nullable<Text>,
        result -> Nullable<Text>,
        created_by -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        kind -> Text,
        time_control -> Nullable<Text>,
        due_at -> Nullable<Timestamp>,
        turn_order_at -> Timestamp,
        turn_started_at -> Nullable<Timestamp>,
        due_lease_until -> Nullable<Timestamp>,
        bots -> Nullable<Text>,
        // 2026-12-01-000101_rated_games
        rated -> Bool,
        rating_range -> Nullable<Text>,
        // 2026-12-01-000161_due_priority
        due_priority -> Integer,
        // 2026-12-02-000250_game_talk_settings
        press -> Text,
        eliminated_may_write -> Bool,
    }
}

diesel::table! {
    game_players (game_id, seat) {
        game_id -> Text,
        seat -> Text,
        user_id -> Text,
        joined_at -> Timestamp,
    }
}

diesel::table! {
    idempotency_keys (user_id, key) {
        user_id -> Text,
        key -> Text,
        request_hash -> Text,
        response_body -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    notifications (id) {
        id -> Text,
        user_id -> Text,
        kind -> Text,
        game_id -> Nullable<Text>,
        version -> Nullable<BigInt>,
        payload -> Text,
        created_at -> Timestamp,
        read_at -> Nullable<Timestamp>,
        fanned_out_at -> Nullable<Timestamp>,
    }
}

// --- notification delivery (issue-notify2) ---
diesel::table! {
    notification_settings (user_id) {
        user_id -> Text,
        settings -> Text,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    webhooks (id) {
        id -> Text,
        user_id -> Text,
        url -> Text,
        secret -> Text,
        previous_secret -> Nullable<Text>,
        previous_until -> Nullable<Timestamp>,
        created_at -> Timestamp,
        disabled_at -> Nullable<Timestamp>,
        disabled_reason -> Nullable<Text>,
        consecutive_failures -> Integer,
    }
}

diesel::table! {
    push_subscriptions (id) {
        id -> Text,
        user_id -> Text,
        endpoint -> Text,
        p256dh -> Text,
        auth -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    deliveries (id) {
        id -> Text,
        notification_id -> Text,
        user_id -> Text,
        channel -> Text,
        endpoint -> Text,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        lease_until -> Nullable<Timestamp>,
        last_error -> Nullable<Text>,
        last_status -> Nullable<Integer>,
        created_at -> Timestamp,
        delivered_at -> Nullable<Timestamp>,
    }
}
diesel::table! {
    vacations (id) {
        id -> Text,
        user_id -> Text,
        starts_at -> Timestamp,
        ends_at -> Timestamp,
        created_at -> Timestamp,
    }
}
diesel::table! {
    reminder_schedule (game_id) {
        game_id -> Text,
        version -> BigInt,
        remind_at -> Nullable<Timestamp>,
        lease_until -> Nullable<Timestamp>,
    }
}
// --- end notification delivery ---

diesel::joinable!(sessions -> users (user_id));
diesel::joinable!(account_tokens -> users (user_id));
diesel::joinable!(refresh_tokens -> sessions (session_id));
diesel::table! {
    login_throttle (key) {
        key -> Text,
        failures -> BigInt,
        last_failure -> Nullable<Timestamp>,
        known -> Text,
    }
}

diesel::joinable!(personal_access_tokens -> users (user_id));
diesel::joinable!(oauth_codes -> users (user_id));
diesel::joinable!(game_players -> games (game_id));
diesel::joinable!(game_players -> users (user_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    account_tokens,
    retired_usernames,
    sessions,
    refresh_tokens,
    personal_access_tokens,
    oauth_codes,
    game_events,
    games,
    game_players,
    idempotency_keys,
    notifications,
    notification_settings,
    webhooks,
    push_subscriptions,
    deliveries,
    vacations,
    reminder_schedule,
    login_throttle,
    mail_move_tokens,
    inbound_mails
);

// --- table talk (issue 21; 2026-12-01-000090_table_talk) ---
diesel::table! {
    messages (id) {
        id -> Text,
        game_id -> Text,
        seq -> BigInt,
        sender_id -> Text,
        sender_seat -> Text,
        recipients -> Text,
        body -> Text,
        game_version -> BigInt,
        created_at -> Timestamp,
        hidden_at -> Nullable<Timestamp>,
        // 2026-12-02-000210_message_recipient_ids
        recipient_ids -> Text,
    }
}
diesel::table! {
    mutes (user_id, muted_id) {
        user_id -> Text,
        muted_id -> Text,
        created_at -> Timestamp,
    }
}
diesel::table! {
    message_reports (id) {
        id -> Text,
        message_id -> Text,
        reporter_id -> Text,
        reason -> Nullable<Text>,
        context -> Text,
        created_at -> Timestamp,
    }
}
diesel::allow_tables_to_appear_in_same_query!(messages, mutes, message_reports, users);
// --- ratings (issue 22) ---
diesel::table! {
    player_ratings (user_id) {
        user_id -> Text,
        mu -> Double,
        sigma -> Double,
        rating -> Double,
        games -> BigInt,
        wins -> BigInt,
        last_game_at -> Timestamp,
    }
}

diesel::table! {
    rating_changes (game_id, user_id) {
        game_id -> Text,
        user_id -> Text,
        applied_seq -> BigInt,
        place -> Integer,
        players -> Integer,
        mu_before -> Double,
        sigma_before -> Double,
        mu_after -> Double,
        sigma_after -> Double,
        ended_at -> Timestamp,
    }
}

// 2026-12-02-000340_tournaments
diesel::table! {
    tournaments (id) {
        id -> Text,
        name -> Text,
        organiser_id -> Text,
        format -> Text,
        status -> Text,
        capacity -> Integer,
        players -> Integer,
        rounds_paired -> Integer,
        starts_at -> Nullable<Timestamp>,
        version -> BigInt,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    tournament_events (tournament_id, seq) {
        tournament_id -> Text,
        seq -> BigInt,
        kind -> Text,
        payload -> Text,
        actor_id -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    tournament_players (tournament_id, user_id) {
        tournament_id -> Text,
        user_id -> Text,
    }
}

diesel::joinable!(tournament_players -> tournaments (tournament_id));
diesel::allow_tables_to_appear_in_same_query!(tournaments, tournament_players);
diesel::allow_tables_to_appear_in_same_query!(tournaments, games);

diesel::joinable!(player_ratings -> users (user_id));
diesel::joinable!(rating_changes -> users (user_id));
diesel::allow_tables_to_appear_in_same_query!(users, player_ratings, rating_changes);
diesel::allow_tables_to_appear_in_same_query!(player_ratings, game_players);

// --- analyses of games (issue 37; 2026-12-02-000310_game_analyses) ---
diesel::table! {
    game_analyses (id) {
        id -> Text,
        game_id -> Text,
        engine_version -> Text,
        status -> Text,
        requested_by -> Nullable<Text>,
        requested_at -> Timestamp,
        game_version -> BigInt,
        plies -> Integer,
        plies_done -> Integer,
        due_at -> Nullable<Timestamp>,
        lease_until -> Nullable<Timestamp>,
        finished_at -> Nullable<Timestamp>,
        last_values -> Nullable<Text>,
        error -> Nullable<Text>,
    }
}

diesel::table! {
    game_analysis_moves (analysis_id, ply) {
        analysis_id -> Text,
        ply -> Integer,
        body -> Text,
    }
}

diesel::joinable!(game_analysis_moves -> game_analyses (analysis_id));
diesel::allow_tables_to_appear_in_same_query!(game_analyses, game_analysis_moves);

// 2026-12-02-000300_conditional_moves
diesel::table! {
    conditional_moves (game_id, seat) {
        game_id -> Text,
        seat -> Text,
        user_id -> Text,
        base_version -> BigInt,
        base_actions -> BigInt,
        checked_version -> BigInt,
        lines -> Text,
        revision -> BigInt,
        updated_at -> Timestamp,
    }
}
diesel::allow_tables_to_appear_in_same_query!(conditional_moves, games);
diesel::table! {
    oauth_codes (code_hash) {
        code_hash -> Text,
        user_id -> Text,
        client_id -> Text,
        redirect_uri -> Text,
        scopes -> Text,
        code_challenge -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
        token_id -> Nullable<Text>,
    }
}
