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

diesel::table! {
    catalog_countries (code) {
        code -> Text,
        name -> Text,
        available -> Bool,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    catalog_regions (slug) {
        slug -> Text,
        name -> Text,
        coverage -> Text,
        available -> Bool,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    catalog_plans (id) {
        id -> Text,
        country_code -> Text,
        country_name -> Text,
        scope -> Nullable<Text>,
        region -> Nullable<Text>,
        coverage -> Text,
        data_mb -> BigInt,
        validity_days -> BigInt,
        cost_cents -> BigInt,
        currency -> Text,
        network_type -> Nullable<Text>,
        networks -> Nullable<Text>,
        activation_type -> Text,
        is_daily -> Bool,
        fup_policy -> Text,
        period_num -> Nullable<BigInt>,
        available -> Bool,
        first_seen_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    catalog_syncs (id) {
        id -> BigInt,
        started_at_ms -> BigInt,
        finished_at_ms -> BigInt,
        ok -> Bool,
        plan_count -> BigInt,
        country_count -> BigInt,
        region_count -> BigInt,
        error -> Nullable<Text>,
    }
}

diesel::table! {
    markup_rules (id) {
        id -> BigInt,
        scope_kind -> Text,
        scope_value -> Text,
        markup_bps -> BigInt,
        fixed_cents -> BigInt,
        price_ending -> Nullable<BigInt>,
        min_margin_cents -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    purchases,
    purchase_events,
    outbox_jobs,
    catalog_countries,
    catalog_regions,
    catalog_plans,
    catalog_syncs,
    markup_rules,
    leases,
);

diesel::table! {
    leases (name) {
        name -> Text,
        holder -> Text,
        expires_at_ms -> BigInt,
    }
}
