//! The diesel view of the tables. Both `migrations/sqlite` and `migrations/postgres` produce
//! exactly this shape; `tests/integration/schema.rs` proves it against live databases.

diesel::table! {
    purchases (id) {
        id -> Text,
        status -> Text,
        email -> Text,
        plan_id -> Text,
        price_cents -> BigInt,
        cost_cents -> BigInt,
        reference -> Text,
        idempotency_key -> Text,
        key_generation -> Integer,
        upstream_order_id -> Nullable<Text>,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    purchase_events (id) {
        id -> BigInt,
        purchase_id -> Text,
        at_ms -> BigInt,
        from_status -> Nullable<Text>,
        to_status -> Text,
        note -> Text,
    }
}

diesel::table! {
    outbox_jobs (id) {
        id -> BigInt,
        kind -> Text,
        purchase_id -> Text,
        state -> Text,
        attempts -> Integer,
        run_at_ms -> BigInt,
        lease_owner -> Nullable<Text>,
        lease_expires_at_ms -> Nullable<BigInt>,
        last_error -> Nullable<Text>,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::joinable!(purchase_events -> purchases (purchase_id));
diesel::joinable!(outbox_jobs -> purchases (purchase_id));
diesel::allow_tables_to_appear_in_same_query!(purchases, purchase_events, outbox_jobs);
