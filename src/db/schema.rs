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
        upstream_status -> Nullable<Text>,
        esim_id -> Nullable<Text>,
        access_token_hash -> Text,
        payment_provider -> Text,
        payment_session_id -> Nullable<Text>,
        payment_reference -> Nullable<Text>,
        expires_at_ms -> BigInt,
        paid_at_ms -> Nullable<BigInt>,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
        promo_code -> Nullable<Text>,
        list_price_cents -> Nullable<BigInt>,
        discount_cents -> Nullable<BigInt>,
        language -> Text,
        email_lower -> Text,
        email_domain -> Text,
        order_key -> Text,
        terms_version -> Nullable<BigInt>,
        terms_accepted_at_ms -> Nullable<BigInt>,
        checkout_id -> Text,
        unit_index -> Integer,
    }
}

diesel::table! {
    unit_taxes (purchase_id) {
        purchase_id -> Text,
        tax_cents -> BigInt,
        tax_added_cents -> BigInt,
    }
}

diesel::table! {
    travellers (purchase_id) {
        purchase_id -> Text,
        name -> Nullable<Text>,
        email -> Nullable<Text>,
    }
}

diesel::table! {
    checkouts (id) {
        id -> Text,
        access_token_hash -> Text,
        unit_count -> Integer,
        created_at_ms -> BigInt,
        trip_date -> Nullable<Text>,
        trip_reminded_for -> Nullable<Text>,
        remind_unfinished -> Bool,
        tax_mode -> Nullable<Text>,
        client_country -> Nullable<Text>,
    }
}

diesel::table! {
    reminder_addresses (email_key) {
        email_key -> Text,
        last_reminded_at_ms -> Nullable<BigInt>,
        last_checkout_id -> Nullable<Text>,
        unsubscribed_at_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    unsubscribe_tokens (token_hash) {
        token_hash -> Text,
        email_key -> Text,
        created_at_ms -> BigInt,
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
    payment_events (id) {
        id -> Text,
        provider -> Text,
        kind -> Text,
        purchase_id -> Nullable<Text>,
        received_at_ms -> BigInt,
    }
}

diesel::table! {
    refunds (id) {
        id -> Text,
        purchase_id -> Text,
        amount_cents -> BigInt,
        idempotency_key -> Text,
        provider_refund_id -> Nullable<Text>,
        status -> Text,
        reason -> Text,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
        cause -> Text,
        keeps_cost -> Bool,
    }
}

diesel::table! {
    installations (purchase_id) {
        purchase_id -> Text,
        esim_id -> Text,
        key_id -> Text,
        nonce -> Text,
        ciphertext -> Text,
        iccid_last4 -> Text,
        created_at_ms -> BigInt,
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
        outcome -> Nullable<Text>,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    outbox_attempts (id) {
        id -> BigInt,
        job_id -> BigInt,
        attempt -> Integer,
        started_at_ms -> BigInt,
        finished_at_ms -> BigInt,
        outcome -> Text,
        detail -> Text,
    }
}

diesel::table! {
    wallet (id) {
        id -> BigInt,
        available_cents -> BigInt,
        reserved_cents -> BigInt,
        low_balance -> Bool,
        sales_paused -> Bool,
        refreshed_at_ms -> BigInt,
        pause_reason -> Nullable<Text>,
    }
}

diesel::table! {
    alerts (id) {
        id -> BigInt,
        kind -> Text,
        purchase_id -> Nullable<Text>,
        message -> Text,
        created_at_ms -> BigInt,
        resolved_at_ms -> Nullable<BigInt>,
    }
}

diesel::joinable!(purchase_events -> purchases (purchase_id));
diesel::joinable!(outbox_jobs -> purchases (purchase_id));
diesel::joinable!(payment_events -> purchases (purchase_id));
diesel::joinable!(refunds -> purchases (purchase_id));
diesel::joinable!(unit_taxes -> purchases (purchase_id));
diesel::joinable!(installations -> purchases (purchase_id));
diesel::joinable!(outbox_attempts -> outbox_jobs (job_id));
diesel::joinable!(alerts -> purchases (purchase_id));

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

diesel::table! {
    order_link_tokens (purchase_id, token_hash) {
        purchase_id -> Text,
        token_hash -> Text,
        created_at_ms -> BigInt,
        revoked_at_ms -> Nullable<BigInt>,
        opens_checkout -> Bool,
    }
}

diesel::joinable!(order_link_tokens -> purchases (purchase_id));

diesel::allow_tables_to_appear_in_same_query!(
    purchases,
    unit_taxes,
    checkouts,
    reminder_addresses,
    unsubscribe_tokens,
    travellers,
    order_link_tokens,
    purchase_events,
    payment_events,
    refunds,
    installations,
    outbox_jobs,
    outbox_attempts,
    wallet,
    alerts,
    catalog_countries,
    catalog_regions,
    catalog_plans,
    catalog_syncs,
    markup_rules,
    leases,
    admin_users,
    admin_sessions,
    admin_audit,
    admin_totp,
    admin_recovery_codes,
    admin_login_attempts,
    topups,
    shop_settings,
    alert_emails,
    promo_codes,
    promo_redemptions,
    display_rates,
    region_names,
);

diesel::table! {
    metric_tallies (kind, label) {
        kind -> Text,
        label -> Text,
        n -> BigInt,
        as_of_ms -> BigInt,
    }
}

diesel::table! {
    leases (name) {
        name -> Text,
        holder -> Text,
        expires_at_ms -> BigInt,
    }
}

diesel::table! {
    admin_users (id) {
        id -> BigInt,
        email -> Text,
        role -> Text,
        password_hash -> Text,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
        disabled_at_ms -> Nullable<BigInt>,
        last_login_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    admin_sessions (id_hash) {
        id_hash -> Text,
        user_id -> BigInt,
        created_at_ms -> BigInt,
        last_seen_ms -> BigInt,
        client_addr -> Text,
        stage -> Text,
    }
}

diesel::table! {
    admin_totp (user_id) {
        user_id -> BigInt,
        key_id -> Text,
        nonce -> Text,
        ciphertext -> Text,
        created_at_ms -> BigInt,
        confirmed_at_ms -> Nullable<BigInt>,
        last_step -> Nullable<BigInt>,
    }
}

diesel::table! {
    admin_recovery_codes (id) {
        id -> BigInt,
        user_id -> BigInt,
        code_hash -> Text,
        created_at_ms -> BigInt,
        used_at_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    admin_login_attempts (id) {
        id -> BigInt,
        kind -> Text,
        actor -> Text,
        client_key -> Text,
        at_ms -> BigInt,
        state -> Text,
    }
}

diesel::joinable!(admin_totp -> admin_users (user_id));
diesel::joinable!(admin_recovery_codes -> admin_users (user_id));

diesel::table! {
    admin_audit (id) {
        id -> BigInt,
        at_ms -> BigInt,
        user_id -> Nullable<BigInt>,
        actor -> Text,
        action -> Text,
        target -> Nullable<Text>,
        client_addr -> Text,
        details -> Text,
        client_key -> Text,
        repeats -> BigInt,
    }
}

diesel::joinable!(admin_sessions -> admin_users (user_id));

diesel::table! {
    topups (id) {
        id -> BigInt,
        nonce -> Text,
        idempotency_key -> Text,
        amount_cents -> BigInt,
        created_by -> BigInt,
        session_id -> Nullable<Text>,
        checkout_url -> Nullable<Text>,
        last_error -> Nullable<Text>,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
        confirmed_at_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    shop_settings (name) {
        name -> Text,
        value -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::joinable!(topups -> admin_users (created_by));

diesel::table! {
    alert_emails (id) {
        id -> BigInt,
        alert_id -> BigInt,
        recipient -> Text,
        state -> Text,
        attempts -> Integer,
        next_attempt_ms -> BigInt,
        last_error -> Nullable<Text>,
        sent_at_ms -> Nullable<BigInt>,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::joinable!(alert_emails -> alerts (alert_id));

diesel::table! {
    supplier_account (id) {
        id -> BigInt,
        key_fingerprint -> Text,
        account_id -> Text,
        name -> Text,
        email -> Text,
        environment -> Text,
        scopes -> Text,
        key_expires_at -> Text,
        key_expires_at_ms -> Nullable<BigInt>,
        webhook_enabled -> Bool,
        checked_at_ms -> BigInt,
        attempted_at_ms -> BigInt,
        last_error -> Nullable<Text>,
    }
}

diesel::table! {
    checkout_holds (purchase_id) {
        purchase_id -> Text,
        client_key -> Text,
        email_key -> Text,
        cost_cents -> BigInt,
        created_at_ms -> BigInt,
        expires_at_ms -> BigInt,
    }
}

diesel::joinable!(checkout_holds -> purchases (purchase_id));

diesel::table! {
    lost_link_requests (email) {
        email -> Text,
        requested_at_ms -> BigInt,
        state -> Text,
        attempts -> Integer,
        next_attempt_ms -> BigInt,
        last_error -> Nullable<Text>,
        language -> Text,
    }
}

diesel::table! {
    promo_codes (code) {
        code -> Text,
        kind -> Text,
        value -> BigInt,
        starts_at_ms -> BigInt,
        ends_at_ms -> Nullable<BigInt>,
        max_uses -> Nullable<BigInt>,
        max_uses_per_email -> Nullable<BigInt>,
        scope_kind -> Text,
        scope_value -> Text,
        used_count -> BigInt,
        disabled_at_ms -> Nullable<BigInt>,
        created_at_ms -> BigInt,
        created_by -> Text,
    }
}

diesel::table! {
    promo_redemptions (purchase_id) {
        purchase_id -> Text,
        code -> Text,
        email_key -> Text,
        state -> Text,
        reserved_until_ms -> BigInt,
        created_at_ms -> BigInt,
        used_at_ms -> Nullable<BigInt>,
    }
}

diesel::joinable!(promo_redemptions -> purchases (purchase_id));
diesel::joinable!(promo_redemptions -> promo_codes (code));

diesel::table! {
    region_names (slug, lang) {
        slug -> Text,
        lang -> Text,
        name -> Text,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    display_rates (currency) {
        currency -> Text,
        micros_per_usd -> BigInt,
        rate_date -> Text,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    shop_identity (id) {
        id -> BigInt,
        name -> Text,
        accent -> Text,
        support_email -> Text,
        support_phone -> Text,
        legal_name -> Text,
        address -> Text,
        registration -> Text,
        logo_kind -> Nullable<Text>,
        logo -> Nullable<Binary>,
        version -> BigInt,
        updated_at_ms -> BigInt,
        time_zone -> Text,
    }
}

diesel::table! {
    book_days (day_ms) {
        day_ms -> BigInt,
        version -> BigInt,
        computed_version -> Nullable<BigInt>,
        summary -> Nullable<Text>,
        newest -> Nullable<Text>,
    }
}

diesel::table! {
    daily_sales (day_ms) {
        day_ms -> BigInt,
        orders -> BigInt,
        paid_cents -> BigInt,
        refunded_cents -> BigInt,
        supplier_cost_cents -> BigInt,
        tax_cents -> BigInt,
    }
}

diesel::table! {
    legal_documents (document, language) {
        document -> Text,
        language -> Text,
        body -> Text,
        reviewed -> Bool,
        version -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    book_explanations (line_key) {
        line_key -> Text,
        note -> Text,
        explained_by -> Text,
        explained_at_ms -> BigInt,
    }
}

diesel::table! {
    supplier_orders (id) {
        id -> Text,
        reference -> Text,
        status -> Text,
        price_cents -> BigInt,
        currency -> Text,
        created_at -> Text,
        created_at_ms -> Nullable<BigInt>,
        esim_id -> Nullable<Text>,
    }
}

diesel::table! {
    supplier_transactions (id) {
        id -> BigInt,
        kind -> Text,
        available_delta_cents -> BigInt,
        reserved_delta_cents -> BigInt,
        reference -> Text,
        created_at -> Text,
        created_at_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    supplier_history_sync (list) {
        list -> Text,
        refreshed_at_ms -> BigInt,
        full_pass_at_ms -> BigInt,
    }
}

diesel::table! {
    customer_sign_in_tokens (token_hash) {
        token_hash -> Text,
        email_lower -> Text,
        created_at_ms -> BigInt,
        expires_at_ms -> BigInt,
        used_at_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    customer_sessions (id_hash) {
        id_hash -> Text,
        email_lower -> Text,
        created_at_ms -> BigInt,
        last_seen_ms -> BigInt,
    }
}

diesel::table! {
    document_counters (series) {
        series -> Text,
        last_number -> BigInt,
    }
}

diesel::table! {
    receipts (id) {
        id -> Text,
        number -> BigInt,
        issued_at_ms -> BigInt,
        seller_name -> Text,
        seller_legal_name -> Text,
        seller_address -> Text,
        seller_registration -> Text,
        seller_contact -> Text,
        customer_email -> Text,
        billing_name -> Nullable<Text>,
        billing_country -> Nullable<Text>,
        currency -> Text,
        total_cents -> BigInt,
        payment_method -> Text,
        language -> Text,
    }
}

diesel::table! {
    receipt_lines (receipt_id, line_no) {
        receipt_id -> Text,
        line_no -> Integer,
        kind -> Text,
        description -> Text,
        quantity -> Integer,
        unit_price_cents -> BigInt,
        discount_cents -> BigInt,
        amount_cents -> BigInt,
        tax_rate_bps -> Nullable<Integer>,
        tax_jurisdiction -> Nullable<Text>,
    }
}

diesel::table! {
    credit_notes (id) {
        id -> Text,
        number -> BigInt,
        receipt_id -> Text,
        issued_at_ms -> BigInt,
        amount_cents -> BigInt,
        currency -> Text,
        description -> Text,
    }
}

diesel::table! {
    tax_rates (country) {
        country -> Text,
        rate_bps -> Integer,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    sale_taxes (checkout_id) {
        checkout_id -> Text,
        country -> Nullable<Text>,
        billing_country -> Nullable<Text>,
        client_country -> Nullable<Text>,
        mode -> Text,
        source -> Text,
        net_cents -> BigInt,
        tax_cents -> BigInt,
        gross_cents -> BigInt,
        paid_at_ms -> BigInt,
    }
}

diesel::table! {
    sale_tax_lines (checkout_id, line_no) {
        checkout_id -> Text,
        line_no -> Integer,
        jurisdiction -> Nullable<Text>,
        rate_bps -> Nullable<Integer>,
        taxable_cents -> BigInt,
        tax_cents -> BigInt,
    }
}

diesel::table! {
    credit_note_tax_lines (credit_note_id, line_no) {
        credit_note_id -> Text,
        line_no -> Integer,
        country -> Nullable<Text>,
        jurisdiction -> Nullable<Text>,
        rate_bps -> Nullable<Integer>,
        taxable_cents -> BigInt,
        tax_cents -> BigInt,
        issued_at_ms -> BigInt,
    }
}
