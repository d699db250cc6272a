--
-- PostgreSQL database dump
--

\restrict CmcZVRAakRgBEPZU0QWMS11iLOuWI9oDpUfCxK1pVfb9GuHQmuQUEuFdfBS4kVW

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: __diesel_schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.__diesel_schema_migrations (
    version character varying(50) NOT NULL,
    run_on timestamp without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: admin_audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_audit (
    id bigint NOT NULL,
    at_ms bigint NOT NULL,
    user_id bigint,
    actor text NOT NULL,
    action text NOT NULL,
    target text,
    client_addr text NOT NULL,
    details text NOT NULL,
    client_key text DEFAULT ''::text NOT NULL
);


--
-- Name: admin_audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.admin_audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: admin_audit_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.admin_audit_id_seq OWNED BY public.admin_audit.id;


--
-- Name: admin_login_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_login_attempts (
    id bigint NOT NULL,
    kind text NOT NULL,
    actor text NOT NULL,
    client_key text NOT NULL,
    at_ms bigint NOT NULL,
    state text NOT NULL,
    CONSTRAINT admin_login_attempts_kind_check CHECK ((kind = ANY (ARRAY['password'::text, 'totp'::text]))),
    CONSTRAINT admin_login_attempts_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'failed'::text, 'success'::text])))
);


--
-- Name: admin_login_attempts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.admin_login_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: admin_login_attempts_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.admin_login_attempts_id_seq OWNED BY public.admin_login_attempts.id;


--
-- Name: admin_recovery_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_recovery_codes (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    code_hash text NOT NULL,
    created_at_ms bigint NOT NULL,
    used_at_ms bigint
);


--
-- Name: admin_recovery_codes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.admin_recovery_codes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: admin_recovery_codes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.admin_recovery_codes_id_seq OWNED BY public.admin_recovery_codes.id;


--
-- Name: admin_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_sessions (
    id_hash text NOT NULL,
    user_id bigint NOT NULL,
    created_at_ms bigint NOT NULL,
    last_seen_ms bigint NOT NULL,
    client_addr text NOT NULL,
    stage text DEFAULT 'full'::text NOT NULL,
    CONSTRAINT admin_sessions_stage_check CHECK ((stage = ANY (ARRAY['full'::text, 'totp'::text, 'enrol'::text])))
);


--
-- Name: admin_totp; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_totp (
    user_id bigint NOT NULL,
    key_id text NOT NULL,
    nonce text NOT NULL,
    ciphertext text NOT NULL,
    created_at_ms bigint NOT NULL,
    confirmed_at_ms bigint,
    last_step bigint
);


--
-- Name: admin_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_users (
    id bigint NOT NULL,
    email text NOT NULL,
    role text NOT NULL,
    password_hash text NOT NULL,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    disabled_at_ms bigint,
    last_login_ms bigint,
    CONSTRAINT admin_users_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'support'::text])))
);


--
-- Name: admin_users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.admin_users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: admin_users_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.admin_users_id_seq OWNED BY public.admin_users.id;


--
-- Name: alert_emails; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_emails (
    id bigint NOT NULL,
    alert_id bigint NOT NULL,
    recipient text NOT NULL,
    state text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_ms bigint NOT NULL,
    last_error text,
    sent_at_ms bigint,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    CONSTRAINT alert_emails_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'sent'::text, 'dropped'::text, 'failed'::text])))
);


--
-- Name: alert_emails_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.alert_emails_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: alert_emails_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.alert_emails_id_seq OWNED BY public.alert_emails.id;


--
-- Name: alerts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alerts (
    id bigint NOT NULL,
    kind text NOT NULL,
    purchase_id text,
    message text NOT NULL,
    created_at_ms bigint NOT NULL,
    resolved_at_ms bigint
);


--
-- Name: alerts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.alerts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: alerts_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.alerts_id_seq OWNED BY public.alerts.id;


--
-- Name: catalog_countries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.catalog_countries (
    code text NOT NULL,
    name text NOT NULL,
    available boolean NOT NULL,
    updated_at_ms bigint NOT NULL
);


--
-- Name: catalog_plans; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.catalog_plans (
    id text NOT NULL,
    country_code text NOT NULL,
    country_name text NOT NULL,
    scope text,
    region text,
    coverage text NOT NULL,
    data_mb bigint NOT NULL,
    validity_days bigint NOT NULL,
    cost_cents bigint NOT NULL,
    currency text NOT NULL,
    network_type text,
    networks text,
    activation_type text NOT NULL,
    is_daily boolean NOT NULL,
    fup_policy text NOT NULL,
    period_num bigint,
    available boolean NOT NULL,
    first_seen_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    CONSTRAINT catalog_plans_cost_cents_check CHECK ((cost_cents >= 0))
);


--
-- Name: catalog_regions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.catalog_regions (
    slug text NOT NULL,
    name text NOT NULL,
    coverage text NOT NULL,
    available boolean NOT NULL,
    updated_at_ms bigint NOT NULL
);


--
-- Name: catalog_syncs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.catalog_syncs (
    id bigint NOT NULL,
    started_at_ms bigint NOT NULL,
    finished_at_ms bigint NOT NULL,
    ok boolean NOT NULL,
    plan_count bigint NOT NULL,
    country_count bigint NOT NULL,
    region_count bigint NOT NULL,
    error text
);


--
-- Name: catalog_syncs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.catalog_syncs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: catalog_syncs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.catalog_syncs_id_seq OWNED BY public.catalog_syncs.id;


--
-- Name: checkout_holds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.checkout_holds (
    purchase_id text NOT NULL,
    client_key text NOT NULL,
    email_key text NOT NULL,
    cost_cents bigint NOT NULL,
    created_at_ms bigint NOT NULL,
    expires_at_ms bigint NOT NULL,
    CONSTRAINT checkout_holds_cost_cents_check CHECK ((cost_cents >= 0))
);


--
-- Name: display_rates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.display_rates (
    currency text NOT NULL,
    micros_per_usd bigint NOT NULL,
    rate_date text NOT NULL,
    updated_at_ms bigint NOT NULL,
    CONSTRAINT display_rates_micros_per_usd_check CHECK ((micros_per_usd > 0))
);


--
-- Name: installations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.installations (
    purchase_id text NOT NULL,
    esim_id text NOT NULL,
    key_id text NOT NULL,
    nonce text NOT NULL,
    ciphertext text NOT NULL,
    iccid_last4 text NOT NULL,
    created_at_ms bigint NOT NULL
);


--
-- Name: leases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.leases (
    name text NOT NULL,
    holder text NOT NULL,
    expires_at_ms bigint NOT NULL
);


--
-- Name: lost_link_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lost_link_requests (
    email text NOT NULL,
    requested_at_ms bigint NOT NULL,
    state text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_ms bigint NOT NULL,
    last_error text,
    language text DEFAULT 'en'::text NOT NULL,
    CONSTRAINT lost_link_requests_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'sent'::text, 'no_orders'::text, 'failed'::text])))
);


--
-- Name: markup_rules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.markup_rules (
    id bigint NOT NULL,
    scope_kind text NOT NULL,
    scope_value text NOT NULL,
    markup_bps bigint NOT NULL,
    fixed_cents bigint NOT NULL,
    price_ending bigint,
    min_margin_cents bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    CONSTRAINT markup_rules_fixed_cents_check CHECK ((fixed_cents >= 0)),
    CONSTRAINT markup_rules_markup_bps_check CHECK (((markup_bps >= 0) AND (markup_bps <= 100000))),
    CONSTRAINT markup_rules_min_margin_cents_check CHECK ((min_margin_cents >= 0)),
    CONSTRAINT markup_rules_price_ending_check CHECK (((price_ending >= 0) AND (price_ending <= 99))),
    CONSTRAINT markup_rules_scope_kind_check CHECK ((scope_kind = ANY (ARRAY['default'::text, 'region'::text, 'country'::text, 'plan'::text])))
);


--
-- Name: markup_rules_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.markup_rules_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: markup_rules_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.markup_rules_id_seq OWNED BY public.markup_rules.id;


--
-- Name: order_link_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.order_link_tokens (
    purchase_id text NOT NULL,
    token_hash text NOT NULL,
    created_at_ms bigint NOT NULL,
    revoked_at_ms bigint
);


--
-- Name: outbox_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outbox_attempts (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    attempt integer NOT NULL,
    started_at_ms bigint NOT NULL,
    finished_at_ms bigint NOT NULL,
    outcome text NOT NULL,
    detail text NOT NULL
);


--
-- Name: outbox_attempts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.outbox_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_attempts_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.outbox_attempts_id_seq OWNED BY public.outbox_attempts.id;


--
-- Name: outbox_jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outbox_jobs (
    id bigint NOT NULL,
    kind text NOT NULL,
    purchase_id text NOT NULL,
    state text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    run_at_ms bigint NOT NULL,
    lease_owner text,
    lease_expires_at_ms bigint,
    last_error text,
    outcome text,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    CONSTRAINT outbox_jobs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'done'::text, 'dead'::text])))
);


--
-- Name: outbox_jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.outbox_jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_jobs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.outbox_jobs_id_seq OWNED BY public.outbox_jobs.id;


--
-- Name: payment_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.payment_events (
    id text NOT NULL,
    provider text NOT NULL,
    kind text NOT NULL,
    purchase_id text,
    received_at_ms bigint NOT NULL
);


--
-- Name: promo_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.promo_codes (
    code text NOT NULL,
    kind text NOT NULL,
    value bigint NOT NULL,
    starts_at_ms bigint NOT NULL,
    ends_at_ms bigint,
    max_uses bigint,
    max_uses_per_email bigint,
    scope_kind text NOT NULL,
    scope_value text DEFAULT ''::text NOT NULL,
    used_count bigint DEFAULT 0 NOT NULL,
    disabled_at_ms bigint,
    created_at_ms bigint NOT NULL,
    created_by text NOT NULL,
    CONSTRAINT promo_codes_kind_check CHECK ((kind = ANY (ARRAY['percent'::text, 'amount'::text]))),
    CONSTRAINT promo_codes_max_uses_check CHECK ((max_uses > 0)),
    CONSTRAINT promo_codes_max_uses_per_email_check CHECK ((max_uses_per_email > 0)),
    CONSTRAINT promo_codes_scope_kind_check CHECK ((scope_kind = ANY (ARRAY['all'::text, 'country'::text, 'region'::text, 'plan'::text]))),
    CONSTRAINT promo_codes_value_check CHECK ((value > 0))
);


--
-- Name: promo_redemptions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.promo_redemptions (
    purchase_id text NOT NULL,
    code text NOT NULL,
    email_key text NOT NULL,
    state text NOT NULL,
    reserved_until_ms bigint NOT NULL,
    created_at_ms bigint NOT NULL,
    used_at_ms bigint,
    CONSTRAINT promo_redemptions_state_check CHECK ((state = ANY (ARRAY['reserved'::text, 'used'::text])))
);


--
-- Name: purchase_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.purchase_events (
    id bigint NOT NULL,
    purchase_id text NOT NULL,
    at_ms bigint NOT NULL,
    from_status text,
    to_status text NOT NULL,
    note text NOT NULL
);


--
-- Name: purchase_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.purchase_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: purchase_events_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.purchase_events_id_seq OWNED BY public.purchase_events.id;


--
-- Name: purchases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.purchases (
    id text NOT NULL,
    status text NOT NULL,
    email text NOT NULL,
    plan_id text NOT NULL,
    price_cents bigint NOT NULL,
    cost_cents bigint NOT NULL,
    reference text NOT NULL,
    idempotency_key text NOT NULL,
    key_generation integer DEFAULT 0 NOT NULL,
    upstream_order_id text,
    upstream_status text,
    esim_id text,
    access_token_hash text NOT NULL,
    payment_provider text NOT NULL,
    payment_session_id text,
    payment_reference text,
    expires_at_ms bigint NOT NULL,
    paid_at_ms bigint,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    promo_code text,
    list_price_cents bigint,
    discount_cents bigint,
    language text DEFAULT 'en'::text NOT NULL,
    CONSTRAINT purchases_cost_cents_check CHECK ((cost_cents >= 0)),
    CONSTRAINT purchases_price_cents_check CHECK ((price_cents >= 0)),
    CONSTRAINT purchases_status_check CHECK ((status = ANY (ARRAY['awaiting_payment'::text, 'paid'::text, 'ordered'::text, 'provisioning'::text, 'fulfilled'::text, 'payment_failed'::text, 'needs_attention'::text, 'failed'::text, 'refunded'::text])))
);


--
-- Name: refunds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.refunds (
    id text NOT NULL,
    purchase_id text NOT NULL,
    amount_cents bigint NOT NULL,
    idempotency_key text NOT NULL,
    provider_refund_id text,
    status text NOT NULL,
    reason text NOT NULL,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    cause text DEFAULT 'delivery_failed'::text NOT NULL,
    keeps_cost boolean DEFAULT false NOT NULL,
    CONSTRAINT refunds_amount_cents_check CHECK ((amount_cents >= 0)),
    CONSTRAINT refunds_cause_check CHECK ((cause = ANY (ARRAY['delivery_failed'::text, 'on_request'::text, 'payment_problem'::text]))),
    CONSTRAINT refunds_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text])))
);


--
-- Name: shop_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.shop_settings (
    name text NOT NULL,
    value bigint NOT NULL,
    updated_at_ms bigint NOT NULL
);


--
-- Name: supplier_account; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_account (
    id bigint NOT NULL,
    key_fingerprint text NOT NULL,
    account_id text NOT NULL,
    name text NOT NULL,
    email text NOT NULL,
    environment text NOT NULL,
    scopes text NOT NULL,
    key_expires_at text NOT NULL,
    key_expires_at_ms bigint,
    webhook_enabled boolean NOT NULL,
    checked_at_ms bigint NOT NULL,
    attempted_at_ms bigint NOT NULL,
    last_error text,
    CONSTRAINT supplier_account_id_check CHECK ((id = 1))
);


--
-- Name: topups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.topups (
    id bigint NOT NULL,
    nonce text NOT NULL,
    idempotency_key text NOT NULL,
    amount_cents bigint NOT NULL,
    created_by bigint NOT NULL,
    session_id text,
    checkout_url text,
    last_error text,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    confirmed_at_ms bigint,
    CONSTRAINT topups_amount_cents_check CHECK (((amount_cents >= 1000) AND (amount_cents <= 100000)))
);


--
-- Name: topups_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.topups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: topups_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.topups_id_seq OWNED BY public.topups.id;


--
-- Name: wallet; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.wallet (
    id bigint NOT NULL,
    available_cents bigint NOT NULL,
    reserved_cents bigint NOT NULL,
    low_balance boolean NOT NULL,
    sales_paused boolean NOT NULL,
    refreshed_at_ms bigint NOT NULL,
    pause_reason text,
    CONSTRAINT wallet_id_check CHECK ((id = 1))
);


--
-- Name: admin_audit id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_audit ALTER COLUMN id SET DEFAULT nextval('public.admin_audit_id_seq'::regclass);


--
-- Name: admin_login_attempts id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_login_attempts ALTER COLUMN id SET DEFAULT nextval('public.admin_login_attempts_id_seq'::regclass);


--
-- Name: admin_recovery_codes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_recovery_codes ALTER COLUMN id SET DEFAULT nextval('public.admin_recovery_codes_id_seq'::regclass);


--
-- Name: admin_users id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_users ALTER COLUMN id SET DEFAULT nextval('public.admin_users_id_seq'::regclass);


--
-- Name: alert_emails id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_emails ALTER COLUMN id SET DEFAULT nextval('public.alert_emails_id_seq'::regclass);


--
-- Name: alerts id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alerts ALTER COLUMN id SET DEFAULT nextval('public.alerts_id_seq'::regclass);


--
-- Name: catalog_syncs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.catalog_syncs ALTER COLUMN id SET DEFAULT nextval('public.catalog_syncs_id_seq'::regclass);


--
-- Name: markup_rules id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.markup_rules ALTER COLUMN id SET DEFAULT nextval('public.markup_rules_id_seq'::regclass);


--
-- Name: outbox_attempts id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox_attempts ALTER COLUMN id SET DEFAULT nextval('public.outbox_attempts_id_seq'::regclass);


--
-- Name: outbox_jobs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox_jobs ALTER COLUMN id SET DEFAULT nextval('public.outbox_jobs_id_seq'::regclass);


--
-- Name: purchase_events id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.purchase_events ALTER COLUMN id SET DEFAULT nextval('public.purchase_events_id_seq'::regclass);


--
-- Name: topups id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.topups ALTER COLUMN id SET DEFAULT nextval('public.topups_id_seq'::regclass);


--
-- Data for Name: __diesel_schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.__diesel_schema_migrations (version, run_on) FROM stdin;
20261122000001	2026-11-25 15:49:27.691069
20261122000002	2026-11-25 15:49:28.103533
20261122000003	2026-11-25 15:49:28.271519
20261122000006	2026-11-25 15:49:28.299303
20261122000007	2026-11-25 15:49:28.424039
20261122000008	2026-11-25 15:49:28.504759
20261122000009	2026-11-25 15:49:28.547057
20261123000010	2026-11-25 15:49:28.59663
20261123000011	2026-11-25 15:49:28.629293
20261123000012	2026-11-25 15:49:28.711467
20261123000013	2026-11-25 15:49:28.727834
20261123000014	2026-11-25 15:49:28.731058
20261123000015	2026-11-25 15:49:28.853945
20261123000017	2026-11-25 15:49:28.859218
20261123000019	2026-11-25 15:49:28.875799
20261123000021	2026-11-25 15:49:28.915078
20261123000022	2026-11-25 15:49:29.003408
20261123000023	2026-11-25 15:49:29.011303
20261123000024	2026-11-25 15:49:29.039358
\.


--
-- Data for Name: admin_audit; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_audit (id, at_ms, user_id, actor, action, target, client_addr, details, client_key) FROM stdin;
1	1795621769226	\N	cli	user_created	owner@upgrade.invalid	local	role owner	local
\.


--
-- Data for Name: admin_login_attempts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_login_attempts (id, kind, actor, client_key, at_ms, state) FROM stdin;
\.


--
-- Data for Name: admin_recovery_codes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_recovery_codes (id, user_id, code_hash, created_at_ms, used_at_ms) FROM stdin;
\.


--
-- Data for Name: admin_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_sessions (id_hash, user_id, created_at_ms, last_seen_ms, client_addr, stage) FROM stdin;
\.


--
-- Data for Name: admin_totp; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_totp (user_id, key_id, nonce, ciphertext, created_at_ms, confirmed_at_ms, last_step) FROM stdin;
\.


--
-- Data for Name: admin_users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_users (id, email, role, password_hash, created_at_ms, updated_at_ms, disabled_at_ms, last_login_ms) FROM stdin;
1	owner@upgrade.invalid	owner	$argon2id$v=19$m=19456,t=2,p=1$blqZSa8QVixnmdcY8mZRug$QJQCPi2RaUvZDsOrFxLm+wPv86Ku7Yyv/u2iDy3olp8	1795621769226	1795621769226	\N	\N
\.


--
-- Data for Name: alert_emails; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.alert_emails (id, alert_id, recipient, state, attempts, next_attempt_ms, last_error, sent_at_ms, created_at_ms, updated_at_ms) FROM stdin;
\.


--
-- Data for Name: alerts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.alerts (id, kind, purchase_id, message, created_at_ms, resolved_at_ms) FROM stdin;
\.


--
-- Data for Name: catalog_countries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.catalog_countries (code, name, available, updated_at_ms) FROM stdin;
AE	United Arab Emirates	t	1795621770054
AU	Australia	t	1795621770054
AX	Åland Islands	t	1795621770054
BR	Brazil	t	1795621770054
CA	Canada	t	1795621770054
CI	Côte d'Ivoire	t	1795621770054
CW	Curaçao	t	1795621770054
DE	Germany	t	1795621770054
ES	Spain	t	1795621770054
FR	France	t	1795621770054
GB	United Kingdom	t	1795621770054
IT	Italy	t	1795621770054
JP	Japan	t	1795621770054
MX	Mexico	t	1795621770054
RE	Réunion	t	1795621770054
ST	São Tomé and Príncipe	t	1795621770054
TH	Thailand	t	1795621770054
TR	Türkiye	t	1795621770054
TW	台灣 Taiwan	t	1795621770054
US	United States	t	1795621770054
VN	Viet Nam	t	1795621770054
ZA	South Africa	t	1795621770054
\.


--
-- Data for Name: catalog_plans; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.catalog_plans (id, country_code, country_name, scope, region, coverage, data_mb, validity_days, cost_cents, currency, network_type, networks, activation_type, is_daily, fup_policy, period_num, available, first_seen_ms, updated_at_ms) FROM stdin;
p1-base	US	United States	local	north-america	["US"]	1024	3	3020	USD	5G	["AT&T","T-Mobile"]	first_network	f	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p10-base	GL-29	Global (29 countries)	global	\N	["AD","AE","AU","AX","BQ","BR","CA","CI","CW","DE","ES","FR","GB","ID","IT","JP","KM","LI","MO","MX","RE","ST","TH","TR","TT","TW","US","VN","ZA"]	20480	90	3718	USD	LTE	["T-Mobile"]	first_install	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p11-base	US	United States	local	\N	["US"]	1024	7	4866	USD	LTE	["T-Mobile","Türk Telekom","Vodafone"]	first_network	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p12-base	GL-29	Global (29 countries)	global	\N	["AD","AE","AU","AX","BQ","BR","CA","CI","CW","DE","ES","FR","GB","ID","IT","JP","KM","LI","MO","MX","RE","ST","TH","TR","TT","TW","US","VN","ZA"]	20480	1	1728	USD	4G/5G	["T-Mobile","dtac"]	first_install	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p13-base	US	United States	local	north-america	["US"]	51200	7	4875	USD	4G	["T-Mobile"]	first_install	f	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p14-15	ST	São Tomé and Príncipe	local	africa	["ST"]	3072	15	47560	USD	LTE	["Vodafone","dtac"]	first_network	t	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	15	t	1795621770054	1795621770054
p14-30	ST	São Tomé and Príncipe	local	africa	["ST"]	3072	30	95121	USD	LTE	["Vodafone","dtac"]	first_network	t	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	30	t	1795621770054	1795621770054
p14-7	ST	São Tomé and Príncipe	local	africa	["ST"]	3072	7	22194	USD	LTE	["Vodafone","dtac"]	first_network	t	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	7	t	1795621770054	1795621770054
p14-base	ST	São Tomé and Príncipe	local	africa	["ST"]	3072	1	3523	USD	LTE	["Vodafone","dtac"]	first_network	t	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p15-base	US	United States	local	\N	["US"]	2048	90	335	USD	5G	["AT&T","NTT docomo","T-Mobile"]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p16-base	AX	Åland Islands	local	europe	["AX"]	10240	15	4199	USD	\N	["AT&T","Telefónica","Vodafone"]	first_network	f		\N	t	1795621770054	1795621770054
p17-15	US	United States	local	north-america	["US"]	1024	15	64962	USD	4G	["NTT docomo","Telefónica","Vodafone"]	first_install	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	15	t	1795621770054	1795621770054
p17-30	US	United States	local	north-america	["US"]	1024	30	129924	USD	4G	["NTT docomo","Telefónica","Vodafone"]	first_install	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	30	t	1795621770054	1795621770054
p17-7	US	United States	local	north-america	["US"]	1024	7	30315	USD	4G	["NTT docomo","Telefónica","Vodafone"]	first_install	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	7	t	1795621770054	1795621770054
p17-base	US	United States	local	north-america	["US"]	1024	1	4812	USD	4G	["NTT docomo","Telefónica","Vodafone"]	first_install	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p18-base	FR	France	local	\N	["FR"]	2048	3	3303	USD	5G	["Claro","NTT docomo","Türk Telekom"]	first_network	f		\N	t	1795621770054	1795621770054
p19-base	US	United States	local	north-america	["US"]	5120	180	4735	USD	4G/5G	["T-Mobile","Türk Telekom"]	first_network	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p2-base	CW	Curaçao	local	\N	["CW"]	10240	30	0	USD	4G/5G	["NTT docomo","Orange","Telefónica"]	first_install	f	Fair use: tethering may be restricted by the local network.	\N	t	1795621770054	1795621770054
p20-15	DE	Germany	local	europe	["DE"]	3072	15	43132	USD	4G	["Orange"]	first_install	t	Fair use: tethering may be restricted by the local network.	15	t	1795621770054	1795621770054
p20-30	DE	Germany	local	europe	["DE"]	3072	30	86265	USD	4G	["Orange"]	first_install	t	Fair use: tethering may be restricted by the local network.	30	t	1795621770054	1795621770054
p20-7	DE	Germany	local	europe	["DE"]	3072	7	20128	USD	4G	["Orange"]	first_install	t	Fair use: tethering may be restricted by the local network.	7	t	1795621770054	1795621770054
p20-base	DE	Germany	local	europe	["DE"]	3072	1	3195	USD	4G	["Orange"]	first_install	t	Fair use: tethering may be restricted by the local network.	\N	t	1795621770054	1795621770054
p21-base	US	United States	local	north-america	["US"]	1500	90	2375	USD	5G	["Orange"]	first_install	f		\N	t	1795621770054	1795621770054
p22-base	EU-9	Europe (9 countries)	regional	europe	["AD","AX","DE","ES","FR","GB","IT","LI","TR"]	3072	180	2122	USD	5G	["Claro","NTT docomo","Telefónica"]	first_network	f		\N	t	1795621770054	1795621770054
p23-base	US	United States	local	north-america	["US"]	51200	30	4072	USD	\N	["AT&T"]	first_install	f		\N	t	1795621770054	1795621770054
p24-base	ES	Spain	local	europe	["ES"]	2048	7	3607	USD	4G/5G	[]	first_network	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p25-15	US	United States	\N	north-america	["US"]	2048	15	62869	USD	LTE	[]	first_network	t		15	t	1795621770054	1795621770054
p25-30	US	United States	\N	north-america	["US"]	2048	30	125739	USD	LTE	[]	first_network	t		30	t	1795621770054	1795621770054
p25-7	US	United States	\N	north-america	["US"]	2048	7	29339	USD	LTE	[]	first_network	t		7	t	1795621770054	1795621770054
p25-base	US	United States	\N	north-america	["US"]	2048	1	4657	USD	LTE	[]	first_network	t		\N	t	1795621770054	1795621770054
p26-15	IT	Italy	local	europe	["IT"]	2048	15	7033	USD	5G	[]	first_network	t		15	t	1795621770054	1795621770054
p26-30	IT	Italy	local	europe	["IT"]	2048	30	14067	USD	5G	[]	first_network	t		30	t	1795621770054	1795621770054
p26-7	IT	Italy	local	europe	["IT"]	2048	7	3282	USD	5G	[]	first_network	t		7	t	1795621770054	1795621770054
p26-base	IT	Italy	local	europe	["IT"]	2048	1	521	USD	5G	[]	first_network	t		\N	t	1795621770054	1795621770054
p71-7	US	United States	local	\N	["US"]	500	7	27102	USD	\N	\N	first_install	t		7	t	1795621770054	1795621770054
p27-15	US	United States	local	north-america	["US"]	3072	15	44064	USD	LTE	["NTT docomo","Türk Telekom"]	first_install	t		15	t	1795621770054	1795621770054
p27-30	US	United States	local	north-america	["US"]	3072	30	88128	USD	LTE	["NTT docomo","Türk Telekom"]	first_install	t		30	t	1795621770054	1795621770054
p27-7	US	United States	local	north-america	["US"]	3072	7	20563	USD	LTE	["NTT docomo","Türk Telekom"]	first_install	t		7	t	1795621770054	1795621770054
p27-base	US	United States	local	north-america	["US"]	3072	1	3264	USD	LTE	["NTT docomo","Türk Telekom"]	first_install	t		\N	t	1795621770054	1795621770054
p28-base	JP	Japan	local	\N	["JP"]	5120	90	1755	USD	4G	["dtac"]	first_install	f		\N	t	1795621770054	1795621770054
p29-15	US	United States	local	north-america	["US"]	3072	15	18157	USD	5G	["Türk Telekom"]	first_install	t		15	t	1795621770054	1795621770054
p29-30	US	United States	local	north-america	["US"]	3072	30	36315	USD	5G	["Türk Telekom"]	first_install	t		30	t	1795621770054	1795621770054
p29-7	US	United States	local	north-america	["US"]	3072	7	8473	USD	5G	["Türk Telekom"]	first_install	t		7	t	1795621770054	1795621770054
p29-base	US	United States	local	north-america	["US"]	3072	1	1345	USD	5G	["Türk Telekom"]	first_install	t		\N	t	1795621770054	1795621770054
p3-base	US	United States	local	\N	["US"]	51200	15	9007199254740991	USD	5G	["Telefónica"]	first_network	f		\N	t	1795621770054	1795621770054
p30-base	TH	Thailand	local	\N	["TH"]	20480	1	2345	USD	5G	\N	first_install	f		\N	t	1795621770054	1795621770054
p31-base	US	United States	local	\N	["US"]	3072	15	88	USD	4G/5G	[]	first_network	f		\N	t	1795621770054	1795621770054
p32-base	VN	Viet Nam	local	asia	["VN"]	51200	3	3063	USD	\N	[]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p33-base	US	United States	local	north-america	["US"]	3072	90	2045	USD	LTE	["AT&T","Claro","NTT docomo"]	first_install	f	Fair use: tethering may be restricted by the local network.	\N	t	1795621770054	1795621770054
p34-base	GL-29	Global (29 countries)	global	\N	["AD","AE","AU","AX","BQ","BR","CA","CI","CW","DE","ES","FR","GB","ID","IT","JP","KM","LI","MO","MX","RE","ST","TH","TR","TT","TW","US","VN","ZA"]	1500	90	1781	USD	4G	\N	first_network	f		\N	t	1795621770054	1795621770054
p35-base	US	United States	local	north-america	["US"]	300	90	989	USD	\N	["Claro","NTT docomo"]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p36-15	MI-1	Middle East (1 countries)	regional	middle-east	["AE"]	2048	15	26068	USD	LTE	["NTT docomo","Telefónica"]	first_install	t	Fair use: tethering may be restricted by the local network.	15	t	1795621770054	1795621770054
p36-30	MI-1	Middle East (1 countries)	regional	middle-east	["AE"]	2048	30	52137	USD	LTE	["NTT docomo","Telefónica"]	first_install	t	Fair use: tethering may be restricted by the local network.	30	t	1795621770054	1795621770054
p36-7	MI-1	Middle East (1 countries)	regional	middle-east	["AE"]	2048	7	12165	USD	LTE	["NTT docomo","Telefónica"]	first_install	t	Fair use: tethering may be restricted by the local network.	7	t	1795621770054	1795621770054
p36-base	MI-1	Middle East (1 countries)	regional	middle-east	["AE"]	2048	1	1931	USD	LTE	["NTT docomo","Telefónica"]	first_install	t	Fair use: tethering may be restricted by the local network.	\N	t	1795621770054	1795621770054
p37-base	US	United States	local	\N	["US"]	51200	90	2171	USD	4G/5G	["Vodafone"]	first_network	f		\N	t	1795621770054	1795621770054
p38-base	AE	United Arab Emirates	local	\N	["AE"]	1500	1	655	USD	5G	["AT&T","Türk Telekom"]	first_network	f		\N	t	1795621770054	1795621770054
p39-base	US	United States	local	north-america	["US"]	1024	15	2366	USD	\N	["NTT docomo","T-Mobile"]	first_network	f		\N	t	1795621770054	1795621770054
p4-15	CI	Côte d'Ivoire	local	\N	["CI"]	1024	15	20641	USD	5G	["T-Mobile","dtac"]	first_install	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	15	t	1795621770054	1795621770054
p4-30	CI	Côte d'Ivoire	local	\N	["CI"]	1024	30	41283	USD	5G	["T-Mobile","dtac"]	first_install	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	30	t	1795621770054	1795621770054
p4-7	CI	Côte d'Ivoire	local	\N	["CI"]	1024	7	9632	USD	5G	["T-Mobile","dtac"]	first_install	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	7	t	1795621770054	1795621770054
p4-base	CI	Côte d'Ivoire	local	\N	["CI"]	1024	1	1529	USD	5G	["T-Mobile","dtac"]	first_install	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p40-base	MX	Mexico	local	latin-america	["MX"]	51200	3	422	USD	4G/5G	[]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p41-15	US	United States	local	\N	["US"]	1024	15	48100	USD	4G/5G	["Türk Telekom"]	first_network	t	Speed is reduced to 128 kbps after 90% of the allowance.	15	t	1795621770054	1795621770054
p41-30	US	United States	local	\N	["US"]	1024	30	96201	USD	4G/5G	["Türk Telekom"]	first_network	t	Speed is reduced to 128 kbps after 90% of the allowance.	30	t	1795621770054	1795621770054
p41-7	US	United States	local	\N	["US"]	1024	7	22446	USD	4G/5G	["Türk Telekom"]	first_network	t	Speed is reduced to 128 kbps after 90% of the allowance.	7	t	1795621770054	1795621770054
p41-base	US	United States	local	\N	["US"]	1024	1	3563	USD	4G/5G	["Türk Telekom"]	first_network	t	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p42-base	BR	Brazil	local	latin-america	["BR"]	3072	30	2241	USD	4G/5G	[]	first_install	f	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p43-base	US	United States	local	\N	["US"]	51200	90	1743	USD	4G	["NTT docomo"]	first_network	f		\N	t	1795621770054	1795621770054
p44-15	CA	Canada	local	north-america	["CA"]	2048	15	56727	USD	5G	["Vodafone","dtac"]	first_install	t		15	t	1795621770054	1795621770054
p44-30	CA	Canada	local	north-america	["CA"]	2048	30	113454	USD	5G	["Vodafone","dtac"]	first_install	t		30	t	1795621770054	1795621770054
p44-7	CA	Canada	local	north-america	["CA"]	2048	7	26472	USD	5G	["Vodafone","dtac"]	first_install	t		7	t	1795621770054	1795621770054
p44-base	CA	Canada	local	north-america	["CA"]	2048	1	4202	USD	5G	["Vodafone","dtac"]	first_install	t		\N	t	1795621770054	1795621770054
p45-base	US	United States	local	\N	["US"]	2048	1	3430	USD	4G/5G	["AT&T","Claro","T-Mobile"]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p46-base	AU	Australia	local	oceania	["AU"]	1024	90	2295	USD	\N	[]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p47-base	US	United States	\N	north-america	["US"]	20480	1	2530	USD	LTE	["Claro","T-Mobile","Türk Telekom"]	first_install	f		\N	t	1795621770054	1795621770054
p48-base	ZA	South Africa	local	\N	["ZA"]	1024	30	3496	USD	\N	["Claro","Orange"]	first_network	f		\N	t	1795621770054	1795621770054
p49-15	US	United States	local	north-america	["US"]	500	15	57010	USD	4G/5G	[]	first_install	t		15	t	1795621770054	1795621770054
p49-30	US	United States	local	north-america	["US"]	500	30	114021	USD	4G/5G	[]	first_install	t		30	t	1795621770054	1795621770054
p49-7	US	United States	local	north-america	["US"]	500	7	26604	USD	4G/5G	[]	first_install	t		7	t	1795621770054	1795621770054
p49-base	US	United States	local	north-america	["US"]	500	1	4223	USD	4G/5G	[]	first_install	t		\N	t	1795621770054	1795621770054
p5-base	US	United States	local	\N	["US"]	3072	7	1018	USD	LTE	\N	first_network	f		\N	t	1795621770054	1795621770054
p50-base	CA-3	Caribbean (3 countries)	regional	caribbean	["BQ","CW","TT"]	300	1	4563	USD	LTE	["AT&T","Orange"]	first_network	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p51-base	US	United States	local	\N	["US"]	3072	30	2312	USD	LTE	["Türk Telekom","dtac"]	first_network	f	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p52-base	TW	台灣 Taiwan	local	asia	["TW"]	51200	1	4468	USD	\N	["T-Mobile"]	first_network	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p53-base	US	United States	\N	\N	["US"]	3072	1	768	USD	4G/5G	["Claro","Orange"]	first_install	f	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p54-base	CW	Curaçao	local	caribbean	["CW"]	500	1	261	USD	LTE	["T-Mobile"]	first_install	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p55-base	US	United States	local	north-america	["US"]	5120	1	4305	USD	4G/5G	["Vodafone"]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p56-base	GL-29	Global (29 countries)	global	\N	["AD","AE","AU","AX","BQ","BR","CA","CI","CW","DE","ES","FR","GB","ID","IT","JP","KM","LI","MO","MX","RE","ST","TH","TR","TT","TW","US","VN","ZA"]	300	90	1046	USD	LTE	["Orange","dtac"]	first_network	f		\N	t	1795621770054	1795621770054
p57-base	US	United States	\N	\N	["US"]	500	90	2556	USD	4G/5G	[]	first_install	f	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p58-base	CI	Côte d'Ivoire	local	africa	["CI"]	20480	90	2616	USD	4G/5G	["NTT docomo","Vodafone"]	first_network	f	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p59-base	US	United States	local	north-america	["US"]	1024	30	3821	USD	LTE	\N	first_network	f		\N	t	1795621770054	1795621770054
p6-base	RE	Réunion	local	africa	["RE"]	300	15	1642	USD	4G	[]	first_network	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p60-base	RE	Réunion	local	\N	["RE"]	1500	180	4165	USD	\N	["Türk Telekom"]	first_install	f		\N	t	1795621770054	1795621770054
p61-base	US	United States	\N	\N	["US"]	5120	15	1490	USD	\N	[]	first_network	f	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p62-base	TR	Türkiye	local	europe	["TR"]	51200	7	923	USD	LTE	["Claro"]	first_install	f		\N	t	1795621770054	1795621770054
p63-base	US	United States	local	\N	["US"]	5120	180	1898	USD	5G	["Claro","Orange","dtac"]	first_network	f		\N	t	1795621770054	1795621770054
p64-base	NO-2	North America (2 countries)	regional	north-america	["CA","US"]	5120	90	875	USD	\N	["NTT docomo"]	first_install	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p65-base	US	United States	local	north-america	["US"]	20480	15	909	USD	4G/5G	\N	first_install	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p66-base	AX	Åland Islands	local	\N	["AX"]	300	15	165	USD	LTE	["AT&T","NTT docomo","Türk Telekom"]	first_install	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p67-base	US	United States	local	\N	["US"]	51200	180	3322	USD	5G	[]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p68-base	FR	France	local	\N	["FR"]	1024	180	1017	USD	4G/5G	["T-Mobile"]	first_network	f		\N	t	1795621770054	1795621770054
p69-15	US	United States	local	\N	["US"]	1024	15	6291	USD	4G	["AT&T","T-Mobile","Vodafone"]	first_network	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	15	t	1795621770054	1795621770054
p69-30	US	United States	local	\N	["US"]	1024	30	12582	USD	4G	["AT&T","T-Mobile","Vodafone"]	first_network	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	30	t	1795621770054	1795621770054
p69-7	US	United States	local	\N	["US"]	1024	7	2935	USD	4G	["AT&T","T-Mobile","Vodafone"]	first_network	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	7	t	1795621770054	1795621770054
p69-base	US	United States	local	\N	["US"]	1024	1	466	USD	4G	["AT&T","T-Mobile","Vodafone"]	first_network	t	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p7-base	US	United States	\N	north-america	["US"]	5120	1	2167	USD	4G	["Claro","T-Mobile","dtac"]	first_network	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p70-base	DE	Germany	local	europe	["DE"]	51200	7	4010	USD	4G	["Orange","Vodafone"]	first_network	f	Speed is reduced to 128 kbps after 90% of the allowance.	\N	t	1795621770054	1795621770054
p71-15	US	United States	local	\N	["US"]	500	15	58077	USD	\N	\N	first_install	t		15	t	1795621770054	1795621770054
p71-30	US	United States	local	\N	["US"]	500	30	116154	USD	\N	\N	first_install	t		30	t	1795621770054	1795621770054
p71-base	US	United States	local	\N	["US"]	500	1	4302	USD	\N	\N	first_install	t		\N	t	1795621770054	1795621770054
p72-base	GB	United Kingdom	\N	\N	["GB"]	1024	7	4889	USD	4G	["Telefónica"]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p73-base	US	United States	\N	\N	["US"]	51200	180	2561	USD	LTE	["Claro","Telefónica","Türk Telekom"]	first_network	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p74-base	ES	Spain	local	europe	["ES"]	20480	30	1735	USD	4G/5G	["T-Mobile","Vodafone"]	first_network	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p75-base	US	United States	local	\N	["US"]	20480	3	2722	USD	4G/5G	["Vodafone"]	first_network	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p76-base	IT	Italy	local	europe	["IT"]	300	180	2543	USD	5G	["Claro"]	first_install	f	After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).	\N	t	1795621770054	1795621770054
p77-7	US	United States	local	north-america	["US"]	500	7	23454	USD	LTE	["Orange","dtac"]	first_network	t	Fair use: tethering may be restricted by the local network.	7	t	1795621770054	1795621770054
p77-base	US	United States	local	north-america	["US"]	500	1	3723	USD	LTE	["Orange","dtac"]	first_network	t	Fair use: tethering may be restricted by the local network.	\N	t	1795621770054	1795621770054
p8-base	NO-2	North America (2 countries)	regional	north-america	["CA","US"]	5120	90	3123	USD	\N	["Claro","dtac"]	first_install	f	Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>	\N	t	1795621770054	1795621770054
p9-base	US	United States	local	\N	["US"]	300	180	4653	USD	5G	["T-Mobile"]	first_network	f		\N	t	1795621770054	1795621770054
\.


--
-- Data for Name: catalog_regions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.catalog_regions (slug, name, coverage, available, updated_at_ms) FROM stdin;
africa	Africa	["CI","KM","RE","ST","ZA"]	t	1795621770054
asia	Asia	["ID","JP","MO","TH","TW","VN"]	t	1795621770054
caribbean	Caribbean	["BQ","CW","TT"]	t	1795621770054
europe	Europe	["AD","AX","DE","ES","FR","GB","IT","LI","TR"]	t	1795621770054
latin-america	Latin America	["BR","MX"]	t	1795621770054
middle-east	Middle East	["AE"]	t	1795621770054
north-america	North America	["CA","US"]	t	1795621770054
oceania	Oceania	["AU"]	t	1795621770054
\.


--
-- Data for Name: catalog_syncs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.catalog_syncs (id, started_at_ms, finished_at_ms, ok, plan_count, country_count, region_count, error) FROM stdin;
1	1795621770054	1795621770192	t	120	22	8	\N
\.


--
-- Data for Name: checkout_holds; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.checkout_holds (purchase_id, client_key, email_key, cost_cents, created_at_ms, expires_at_ms) FROM stdin;
5052ca635adb8387e073	127.0.0.1	upgrade-postgres-0@container.invalid	88	1795621771941	1795622371941
9e3ccd8ee02a6d4492fb	127.0.0.1	upgrade-postgres-1@container.invalid	88	1795621772006	1795622372006
5206f3047e2c183719db	127.0.0.1	upgrade-postgres-2@container.invalid	88	1795621772055	1795622372055
8ce08cb6e4c2aa0374db	127.0.0.1	upgrade-pending@container.invalid	88	1795621775734	1795622375734
\.


--
-- Data for Name: display_rates; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.display_rates (currency, micros_per_usd, rate_date, updated_at_ms) FROM stdin;
\.


--
-- Data for Name: installations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.installations (purchase_id, esim_id, key_id, nonce, ciphertext, iccid_last4, created_at_ms) FROM stdin;
9e3ccd8ee02a6d4492fb	esim_f3e7d821181aedae	v1:ca31afdc6ae10945	0d935915e816b4e612230e86	5ea72d44e90d25941170b5a1d98dbf6114fa711a7ca55c3a9e2e841ce056b7d16cbde6f3c9bcb697d82203c230b1f24daab3300c1d7b97d511449e3cd9ca3eae7c35e5dc134ff9e5f4a295c2967fc0d86915d198fe910d086fe92fd9fb2464f246428be16ddb95399772de317392ae9aca8a6c7e7617cd70770081e3700bf0a56079ff16b94db15d973b985f241ca2225da2f101ebb02b03471ab7dd9fad6ebcb0416386f7cef51cf0512f2164795714b7f05d9498ae263fa1106a5679e71aa5527b947e56957ff04ac1c534feb97659f3ecd688092d02cab4c8096fb74a1cf45f5df4cb8a49bfc6814b2ee471522cf152513ce141f4baa0605ec8af0dc998e3b4eb29b1569db91a9727b9376ace3b54910cea6a4bb35916fa0c8376b7f41cc1906590a519325714c6e34417419f7e4f6d3afcca9c84d09305b386c1cab7e1a06cd323e01e2504e131e2711a857abca36e686dcce30827f1af263ee265ae43352a3bfc924942818959c3e331db64f96d6260854e9c84c7e0bb39a17c34ee78f16c62119b9396e1ad943884b3b1f96fb37425c85f1dd5590cc81105e5edc994e9ee6af8c8e4be397edcaa753754954aae272eda0683618b69cc5afc0b5c6cfafb71c64bafaed4fcc0d856481ce2c405a1e18014ea6f2f16f530fc038ba99c1f850e5d8e7b935221a3d659621cbb9e0f0eb2a303ddfda5f38414149a5925fd630a516de27af2477c36f722497a2ef42fdced0b4f252f8cbae05c3c6f1a64cbc3100b03414f4c7e3308724d1bff4c63e528d61e1a027162dd1d40783ddec0df366c5c3bd4be37e718a346e15f4b4f3498afbed02639c38d66a9295490cb852bd478d8a7c6f0593cb00a803385c1884463f3c66104607386060730e664ed3f249588e07ca618812fb20c179a512049f2914a8a3c8b5e2358cc3ffe0ae0c615f76f88296e0b5b43f195f5ec9930fc0d0245bacd4fced6cc83bfc85facb4036e0d3455f2c2848a1c0a44862b808b089ab54153bac23ce97ef5dcc10645c362b77eb9d82ef446620f484d3cd071e12b5e35e22a6e77af8cfb0115bd41450a93e3b06d46e87167b69e01c1521d0c6dc84eae9b521c0465efaca7614ed1e7bb7d427e0915126e377146b4438c749dc0754ce7883622505e331471e11559f617ba039fe3fb4e61bc247652063f01b9c4600fd14b6cb0d9eb5ce3681a39c0142b1fac17b590ee4783c34a1dbac7107b1bac0b047637f6d6e8ada99ccfd343357415451f23046c647459e168f97e86a525ff195c83445794686a609823c205eebaa3c68ee9069397a863e7b90a288132f793bcb48c8c0349dd84bb7ac749bfe53a071040e7ecfcf5e8003cf1e08ea61a7131f9f3320e53386d6e34e9586f84c0baeb0e407336f0398bb0c13d65328190311f36475478a17a05d22117adefd2eb7c46f5ae6ed8505f851641cb6ada21dfc5963d41e1fb1eb1de5726abbd1b820aa4674f39b622572ea91a03703638ec8cbb5188b91c6aac37289c50ee226a7f1f1c981130e311f591357acc8a8bed9c9fdd6bcd73a374b8e14882b71889372ce6bd8f318bcfab0a73beed49da51ac08b80274241fea257f07e7f91405fb44fc98f413bdf4e92b2b88bd17e88afb7c4840f5a26a284c9b8a18518c892670da26638ef71a7c44651ce39a21236c73b7060478359567d5a99dc0a8a409c7c9a0786f0bf88e5bfe38e32a3d336ec3058860d8c2fbbed5ef75968fd28f4e53405804dc6a12e2902fc971fbe9ceafd722105d91cd196d0ad74eee66432b665672699b230dc6f04614b68e19e58c8c87fbd0859e2c5f2052c31c470cd9dfb7190f37bacadb16f5c1de8559b7fe29e7e697947425fc5d520a1bb48b557b93a12e0f0fabcd5c1a3366465bd49cb57981cd8528dc2e9cfc7fe1fe69f219d4b997c702232a9253d1538a9359876a315f37c0299964092114fed7b287110f107409bd1a39dad2d93c8cf45437808392edeae7d9d7e680340cb6d6a05fcb5fee12896fcd288985249b59517458a929d8a94912d38c14e9149b73258abc5db4c2cb08f8e26370223b859670726fa700b4f1582cd53b08dc1e6a39a4760eade40635b121b74aa76352a5b9da9176e4bbfbaf79394795ce7945b4f8e21da897452405e786d8355fe24342ff06f0d65812cd95fba9803606746f974c27fc62c1e0b0b3e6406f33b19c79c74be61ca0658a57e22570c7c9a31c823310b2a5a5bb7140eaa33868234a73a8d6555337bb5bf600d74721b82eb91433db7c5c1e40389d6eb7ac05f49ec384628db9b8e978500b93259dbe32ea4ec40aeef06b1beb9bbe81f8b8788f4669b7fa7d3be133a4dcba50daba3eba54db43bb499daee9efb84741cdc8cdc070661c773ddac9d0e952c16fc515fddc8fdf4ee290301a3a3d953e8a9fa5f197bf8ccefc81a50f22432932723571a9da58b6a4d0e286c4a3bccc9a68c558afe941cc290ba7cd16492139df34ef717b1e7a6baac2ad0169ddb5cda1dd3ea95365e89a8e3fbe9caadf6f324484c417c54e52b74d034042f4446d42aea6f78e2811e04bc6d12f0ebe2fca46cd98c3004825cbacfbb85d61dcd5dec402df475b7ef157ddf50f109bb109277ba74086c06cb64ad8ee434a14cd80127eac82469dc6e497c62dd8481f7689b21b4daa86719877268b960496d6e32234e873081a13f0ecbd5dfa7d8aced0fa0dfff1e1116ef730b7798c7df3c25dbd6252229acd75309686fb79561f5a2e66943db9c2b43141826f80db50fc3e5288fffcf6c7a0b48b98382d8634969c1c7f823b5604772066f5909a888436496cd76d458fcfb79a5c1c441a07af71655fd2e5d83476eb123a31bd5a4920730fa9644b34cbeb37abe81393ea3596a0d6fc52268c9956b1d86da59e97ccfbacfaa759be3408d7a34e44b890a9626ebea0240d645ffb6c10adb2181c6a528ae2d7869dfedeb7dd7c66b7273a3ad24de2e81c561566a97e8bbc0b2a48b174a92096ae8d78cc72a3480d8594fd8883b2e1ef61b5cfd2d4ad3cc84a0743651fe48cb6ad0620f139fe7c5793a489f5edbde087ca613f8982057fa7152752835c401c1b5b1c69cb1442353310fb3ef767d9bce26431b57428a2be8720773aaa8cec36c94c5a9de35227038f8131af02daa8c80bf9324159ff66f6c831812f5f8b5b177123da32e53a27e7d6057f5bfe35df14d71ac50081ce34976907ffb0206f9bc41a07848b5c411f2c87b4e3562cdc49e4814c96fe36efa4b7395db8b25354b95b49d8f1e183b24b3baeec13601da7c8c4f3c78c6a383ad779c8b0408ac1c5b9f601c3475fafe594d4197fdada39f996e90a10398f92f5e84bd7a3a92cd8aaa21fe9f4daf4cfcb699c7f88a8db9b25cd7b901f87a8b5753415b29ea9e07050432940b16041b414660e7bb78dc47846ffdb32089cf1565a65a2fe924881191dd00b41f88ef4bb071957576202e1fbfdde86d744a326bc7787ad87c68cb99ec7adaf07457613839ab85448e0237fdac768fb64c30a19bfd7706a4f812ff17196fdcf51dff55d932409cec80bd17843c7bc0a5890312d5b10914a44441d0e7338dba6cace888436f464537d93a596d516c334a17e4b5cee25c34d15dc3b00948d87470610d4d40aa8aec3bf20174c2b94ca6d47b8b4a63b42417e945694141d99ec833ce6c17f39925125cda54be70c82fdcc96d2367fc6ae5658db4f8245d488fb2574ebcf113e5289785d05321230de7bb5e6a11bbf92306635a4ccc8a69da5a828c7b1646159b9c947a8d6ef1a1a282ab7a91ce1714a6e39106c04e0be302af7d6723f867de5eadd1e7a8164e7368a7c2de9f4dd0f618c7fa0c0a5eeedb9a53a1c4851e6395e0328d50955acda13f71d21def2692529eac66f0c9caaf5976596f122efe9cc173c85d04af9db786a9ce25d254278cd4dcf515cc5ba3c5d915c25d9554346638cdf5ef24ded1a3acfef887389b9272900d92ba07a08aeed4a6c69e49824f9c6d7c7d40c0d010b0c6c8bdbf334f708effb28c163948824d42fba66a8fc9512d24f2d15251dbb089463ed2d610d380c4f83e8fecaf9d4ca220a06e9fb6f888b03136e4ab4b2dbc1750574243e81dc392023e8ca77175a93c09d12eab92c9bac20c912f24ba1719ef8dc0dff4226f1d95f40904e7fa747de31f15a9913ddc65e90e06df40163a3ca6b4fe4e7ccf2124f4d326b78cd6b73c53355a4e30fb66df4f82bee7c79a735655b61eeae064d8bf2d28939f83fbd53179c7af9b251a09a73c45c51ec5abd3759047c4c42e7a49ccff802eff7c4010c240137e831a68f0bceae3eca3e9806a85805e72d8db9b455d1a98f5b5492cd8c858a6819ad4a18584d9de535312318752b2a0d57f56ee57b8fb21ee726b35d91c574f0c21b4c2c6c3f48b74f636abeb0caafd3df99d447fe2a55fc851c8d84930165a0d2779a14765adb91a4b51a0cdfa9aaea4062ab27a065661aaf1810b1b2d0b7577f7ed657d3736f827deb580f6a79d6556d21209c846466408c2aee803fd533151d7b8ebd130c7436e2dcdc4648d15cc3d1b2a9071f8d81658faf13e35af3c98f86cc6cecff95f28c02a4555526d0db834ccad18543066e93dbda84443a5b653176c20a01bd1c937b3bdf024461bb0a6e5c7e27e1f9b62a125c9cdb256ba8c3be5a60123ab5729fcbba43503c8d90080328919ed6dbdf4c118c7a3860e24e68a463cb7f5bf77f0470ecb8bda96df3cfa8cf5b97c1d8f22bb23c0b54aa63658fa7ed81b8162b36f32956e3fe74fc1515f84dd05edb6937710da7e653526307373e4ddf6a18091a1eaf1e03229379bee75a3bd76b4e38c66e1d2aeaf02389cccd50b6d769da062366399c6917b77daab1b6cf301f00409482e511c2449beaf26ca6812bdf638f256cc9dfdf0609f84ccaf128dd3493f3cf69b57bf0a7fcc58707e9a2a214ba6862ac5ab0f41f721d2f534337ea933b7ae6a73b04baf000da6bd42583cfb12fef6a43eea50ff4485ed66544c9073ed2887ffec2fafad2faf21d07572a5b498dd450d15fc3c00b24c3c2ff878fb999b97e99ff22b954da5b46594b7cb082e58acc10264eaaabccf0b5328a3caf333c67ffdb862310eea5be006d2192a385d3108ef6530feb68af1a7fcbdcf7a38e7978ffa4cdc876f65361cd2b711b43e318a1c390423386dfff1ad4bf3edaa8f2f92571e185d4d71d11f8fb9cbcb46f5d50d627bdf0d86d046b683f80eb7bee1d165e31d07da40ed89737817ef7ddfc6df79793783d8746b16dfd64fee8e35fd8e52be403aba2074aa36b0791dcb985b6f26f6fc24629c2309ab34a562a8d4a8dd03931e0a212f7834512b4736c5dd799bc686a31ef8b8eaa5858960f797b5ff85c5fe6a8e39619836784b18bbeb31429f5ce57157159479e134097abb701df82cf2e1419d2f8a64d72d0263b427ec969f00cb40ae5d4fab073b77a20d7fef129875bb44b6c2f6d93e7b1dda798d8136e6ade98636e10fd6b5f13c5bad30a90d9359e45b2ad99fd6f85fcf96c3df7631e32f6a9e441ca2dd31d248eb17b8a89f90e3ec89fa3f9c489fae7602218c6d9c8b9944cdfdec7949b8bbcdb78e349fc49d30531d60b519287affc8f3e25c17b057463547fe10df9340c2f065e457b91bc01c7ac8b128512f9d7df6d1f10cf2e1bc08e180524d7f7660941fcc480cfaa9db5c97604b56402541472d5263de01ab06a14ca8a7db997c19b4b19669c87ff20b52454fcd5455f7d1dfe1d102db86bfd72f8b96a77237732d5bc72ed01bdb18b051939c7c6ae1c4acd44c32a16961c3d35a2760bff86c58dce1934819f3b48d981721c016a0142974a9d99195a6c7c09d3694a6f56876a7c7fcc90e98f5cf0d8418f7cccc3f3c5fe07190138ea94d5c8826b841abd1b8b50865c36a117af671c340d17892cb104aac9d828d0a0343538dcdbbe565182a638dd6b7e00d0b69cec1eedfbf5658e216130370ea2f17ae5c4ae9fc9431cf054c0fc75284f894bd05be49771d92ba87f60683ad95c07171475ddca6bfb57859da87ef2f5b26e8aac8f4f5f7725ed552c4c3d3acb834726386868b5c7b9b4d5fa9205d85828d843a8efcd8703ebb4e8c6cc8b80d422fa93643a58a53208572428f35fb07b3bc3cd4aa4efb348bfe28f5843eb36b45c7331b454be4f9db151be3c868ad354fbc6fb2999cd7046b5528cc02a1ecdd8185402454d12f5ba40ca37e96060f1184629531c677e214afa4c25ebf8db97bbd1cc6fc39780105b0f86d1c20419a3f7b46b183fa52588b9286c2d5c96f02cfb300bd71517ca52388635c133cf1526cf0ec272a64d9e73d17e2a06452768119ea2e46ba5ce134b5268087b4aff499e99545f2b0a143f02f320bd4954d6a2dd3afc9cd42584253d9f8a2de719381d23304f49f2c8cb6af6a64f3f219c84322d2de8451982ec74c1fc853932d5a6a75f89741755e7cffafe359a2462042bb50c2a1d097c78f417176c56df05cd5a96400d5bc3836d952e48f59c6e9c52524f397e6f8416ab4062698f8a7bf1965db0916a3c4ceafd518ec1087a6e9570e6f6f36b2f004dfa971b97d019af628b7a2e02d6519ab075a30b25d56d3bb317026885d4dd352292ff4ecfda1d76d67ff93a58dbadbe2c85f68849a59dee1bf923700d0f51339545a9a639f64cdd3f6bd5e4175182d9b9903e6641d1d5df6b90acb57f6600edde0d825af57ae583036cbee399894413cae14680a8a7e4b942d0cd8d8c0fa90a82708bdc62ab842c35c8d6e1bb1983628da3e581fc9625dc13f70e6956f962ed15a59e18819cd1c55d5c82d18d84a304741bc43e561288f5db7c83e7879efab48f7ab0341671e4d1fd3f0edbbe4c90203ede26a9510dbf89cae2cf0a86c773f6947de8ccbafe5e557a1f9c8f0401b9f3942ece104dade2326ff92708acd39ea07b126938ead5372af18864ad06bf77478c09475bf3242c27eeffb4c0fc7726de546c5d87095c963b9f8a8f3d538646aaf032a9b7765238d07a406acefdcff899a9753fc9c09f19cbde1ea7cd0ee4fb0e3214acc027d64a47ee5202e493ed5d510a9488792e41c1bd4f6a73245195ac1bc37ef1186a6157f454a67148489eda6f00f197618d44744da6bf253882f0726f0227deb3ddf9454a3e132c26f091b99daed03fdff483c60f247a4d1549660f65e290b31e2de638bf0796c6d10b02f0ff4e1183d35fa75e500636ab7339c0a5725df752b03dca2fc7ebe7508b3f0c759a7decd90bb221dc66ad3c7b6c9f837af5147452c2f4f6882579e1cab100243126979d35d4a80dff29a935e0a075aaca663160310ea5c45e5c330a780d9c128aa7ac5d55a77cacb92861a3bf911f31fa3362943bca691e133f6b16672f90299d001e94e0e655f4f4ab9980e4259666580b69a383d706bc30ac2906c3272341eeb92c2edf0544bfbedca5c9e196e0aa27cf2086e34ac257d3c1e7e4ad38d797356904dd614a8333defa8a465624e08ae8ba55ad1e24cd5d06f810bd5a2a764bbbcb3b8be973435dd0ef1ee047eeeae82d76b8bdeffeec3349221c4c127d2dc885a8714c2bfa83ec196ca2f50897c97b1e20b7518c72862bd15913e8cced01cd72a4cd65fd8873bd4f2715a3040383b4abf4ac8bff58daa6c09a37bb84b29258987a97539250714d665fb234f09add286c0bc6e10afe49c3c04ff527a5721e83d1be4c2826a4b7a4eb62d610882bc084a76f7935bcfbea629913da79f4aedf0e40a70721b712b23e8ee90c251d57f5b4baf0079ad4e3b9745dd3bdc26a87beaf17b1c43efdb42d3e317ab26cb891c1100a59fa2c4fcca0f867c7d516c1533ce76ca48e397217e820f546b8580763a06a3f920fde483339e4426d856ec414f36fc586337738c10448e5f4dfcb0f770f8b24aaa585a56526b4ae2121530382c7e0bd6f068dc56b6444d578125cbaa2ed3ac5d147c7192d28e2cb5250939a63071e6f0602c3b40902bd070972d3a9c224ef28cf3e194ee329fbedf6a99b3f3fe5894ca346925ec63690acde1fc2be1cd4d8769471ffe24bbc3a3147ab82dc6d06e49601f9df34c373f1ecb9378760f81d463a9a9169985fbd1d8472ceae48df8baa7bcb86e83e1d2ec8e4b5b2805133173aedd9f650702933539cdc9264f4b0ce473f87574b28bb03946fb88dd7d695f88b11fcbe92afe2692f40cd619949e12f487cd117a3acd9356019a3ca86e13ca40cfaed36bdb3e8be5cad3a95b2444c75c47b98f294fcb1d496163ea9ce80cb48250746679926510203e06399aec6d184fd5685a14af3426be4711024be9d0e54ac8fd644af707766adc717ec431fe7e634dbe87b2b297a9868c3aeec5473703e692907f52bb4dde672a1aa71cdd80cb9fe4d9cb49b683e92afb7898543653445755cfa6a4ec631c498aadfbe10418cd3d38ceecf7bfb87bfeef46639adcde2d04aded4547de0ee3c027f78ecd83830a43d9f41af5de2c6ca880369fceae6b03ad1eed27ee75a56c3148167c6bd65791d2d51fc54050635748ff9c56514188004598976cab994eb9b09e607599cbfba2adfa7b8eea9f740058731a0311b6924a56a9f18b211378ef6b5375589fc3b31824938e45635e74200ee2076556753452d26e4f2e480ba9fedca50c5f2df6f85b0834e7e383859c79d093a8a8e901c845b2bad06b9ffc376c0e692f591c6cc1165bf6dd004d8725b5574f12cf8c59ca67e5efb26b70d13319072feb7dfc7d92dd73b5c1871266e0346b57f5b16c7e29fbd169b9fa492c5d7863f7c29feb3589e89fbdb92fff8644a73abff4f8229e21626e250c1cdde48f58bde968b07759b4c8043d98e65193f3820318391f09817face8f3ec6eb8b7fc44f5de2e788a3447ff481f77396f8ad1302c8b6de775478d670e9b029b5372f3a1ce59c7048eec78de7a02cd4b48e0eacff2aa1e1aa5b7bd969d2a6b7385a40d2f279965375ca1e506c8a52565e35510c96d36c971da8437001de1b1c1e408737271c361ccd701ad921c9dfbd58e4201813dc150e4793a8de1f62e8c27e2331bb0cd08b04aa1d5cd9ebd8a320105e9d16b6462d13bd82de57e0249d9ae489a2a93e9810d78f659c4142c3ad0e467c4c6cfc581acd18b94e6a89b1bd3b236b896722af984f03d1d6b5adcda759ef08356cfcc2c104474c208022f6bf0f418251f5687293d55a8387b01507691d05aec4784950d098669f925fa5f0b22b36b5b5535e9f33bdb9536c3ba1e23e94c76cbb0e46cceae2cf6086c2880456c9a8316224b9bc62088ce53b21672b151146e6a5b65ba83711fc2110f5e8343b06393361193c9db7ed5ea153a4224975be9b498e0972bf062ebe18b09986e1e6949d2b416dff520d85190b51fe7913665f4d090826e7ba02ad6bac7b979f262ee5735fe7bd6a67ae4daad37bd4329a20d526e8a7dd3efd782874c81c4392c81e58e812439bb590862038ce4a4cceb6232e96633c87c39db4aba6eba562809c7a279d4cadd8c0e0a7bc9d07b591db580a76da4770f1bb8e7f9cec6055115dd2c859e3dddb6137a5149f68bac8609439b549e801489d0d2f055eb3a9c0e130e9043eba13440b81cc8c33f94eb24564a5bed3fad6ae0032602a6c82962cdb69c4b8fe0782e54557f7a70e3f340ad5f2c32417439096755ddf5516e9da3678128544582a51e76e1cfebfc4640173f3a12d803cfb299edcb0d73ca40c02643caeab84d98a4685b27959b0fb2327f0c257166938376a9dc47494052580c1a95ecb69320b0fd9003b82ee6e01e8cd0c933cc3b416ab084d6fa01966ad43bbade27f5f13b33e8e827eb368ca9014ce3fe07a13dd480af2ac9e4ffad9bb563a1dfdd851e722a80cf935c2102ac7a3bffc6de7fcbec06ed323f278d5f30c7f56c7c9215ab3298281883da8466fa73f1e2881a293120727aa6286ae2159c557a8e2dbbe8dd4af64cd5b0f9c09653e2c3ba0e27815766221dc73542f1e5f71b3f01a19662bd209e0c9f0d92cdb78877db6200a3a90581e2f377a394732c1a72c2b58166a08d3a08be96a578145aafc1bc6d3c19ed334544d1ba72a76030b067d9080de9476b17467c4f4d62bee2c8148f807da9d91a9e6d02973b36ab8de404a0afc2e70c6edfecf2202c0b5d8dc8755f2896eacab1d57bd43c2fb6ffb8817c4694c944f2ed7245cd06030337dbef2995af8645d391ef2945c26106d31e30a97071f7ed72bfdc1e131302a25bc4da2bbe4970179399ff010a9e2975a31e7881cd9bdab17fa4fecaee80b0ea0848a16eae072ca8fca4d9a893485d8921a6ad559c4921dba4979202b65305fe544b56d2a041a6a3592f83fc44f7204acab08f876fe6c215ac38468dd3a4b86062d0a84603afda02e3142a28f2d5530f12adc786a02e4008480577d30a5d2a14b96da888f8402a6265f72e3e38d545e3dc2f303abdab27588f17168d02f6561386137314bfe4d5e0f14809e1122b428ed96b74379b4409ca637345b0e177fa3b1c6855677cf0b47a993f387bf110e619e22d5fe9107d50f4587c9451cde081614533e8d3243176a1db431d33081ac8d545ab6353337834b1337fef07ca326f7ff6d38adf3814f6d3937543f15c7aad077086c5ca9bd42b4478970db87d639ddb17b2b8505079380f6ed60d96e51394499bdbb0bb4b078d026d7f5ad9159766a759f84a63d04b89ad26620b603d20b009dcc53d87743d5be4e8c5ca185bc7a2019568e6c1f8f34020a718e3fb5017b90d5d3a8c103d938ad8e76e06e36e596c63e6aa36ab9dc907d0af448453c7aa3b83873285d3e9fec300ecaa7d7ce6324e302ebcdff06acb1960cbe4d078a45a449d3948b13dfdb26d2423150ea39eaf1da907c2c41429f2be6eaa7512ce115627b7453a4a2bd599a94c206a33d743027154f53b3e153d344234b1847e83db86f145bfa258028b202b1aff26d61cf6c5bbfa30c6247cd7c4b7f4202e82bac2ccebc38a0cdcbd0dd1187ce22f31bd375e2b402a6e6e34aa0e5fff5a5637dc54416164204b5a18e59c69c1ef2ab727e0615c3f91aa3f9947947f072afa5f5d9df3ba29ea75f677749eb1a3a63d84e5172b8e831d3edd16f2c1b4a3240913f4c443e503c74a5800c78d2d1f3b11561ef3c76cadc796ef96f8149de08f37310cec96717423fde734aecf6bd950189f3af720ee48a1ffa9fa3d789d85a220bfe35e753d98631a3468c9f6b58c6b516b4e2baa812097910c321770337ae0c921d9da87ff4d2d93232b16e6466b109695fdb87dad1ae734f5f27fb059e3fc7a7f5af0be76bef4460e34c81252ee570917b85c299322ad1c5fd48fafe19a295cbedefc7089c1a87102222508044e8af3567e0d9477edceaeda7490b670fccf8486bd7aa4120ef03e925e372fd3a87ba0aadc57dd5700b398b5fea0e190c168e00fdcc07400e1f65590c7f5e0b5a024f0a81cd27c9d9aec6d09dae033092cc43dd3f914a9778b4fd86c783c053363f67ff19aacb3c0d26fd9a0cf606ab57487d5a82e84d91df4cdbcea0f9f7ff52116971eb773cd5d4144ba3a12cbb06a02d7ec827ce15b5829d06111ac32788fe2d8b67e2f4f15f1fd699e296d1a5fc56d4ac50e79b1853f04d4b4058b1c103d1d8c4a76286b2cbdfe5b98f406c0b510e1f702e3c220f94b90ea5911ddbb8b4142e9f4ea27862b2a046be86577c3bf072616b151ed71bc0cd03820bdb434605454d0d74720bbdb12f079da9f6a20f3ed4116712075047f1ef0e98b79098518091e241c2a7cd4cea8ed1ce6115a3ad488426cea75bbb0e2f4824c01cb3ac35ff476d8c54acd9e08d022dd4c5d0026cc128574cd3cad2153229e8fd0e5fcc6f10a242563ee2844efd4ce6243800b68af743cadb6462875e3d9859e43605581102190c22546bd93cc347b7ad979d8a6c4598eab972a35168ea09983f86eee0e58d2d5669867ef948df1cb18e40047f8e5dbd45a874a1eae3a9922a7b0a721d4dfb862b163b055819d72adede0503ad018814725bbf75cac109dd1000176f71337bafeddc61becbf113bb412522763ca81adf84e68f7cbd35521c6161de08c6f2f88e724f052ece067f1f375518ddc20832517726885fcbb4acae84abab32dcd2012386a658ffa741674959bb4aafb35edf29bdea0f9bf858bc51a908aa9e3812d2f439a026b6c5e4ad08a4ed7ea25bbb49a7f19472898e0247670d0d3828216144da524005707f9da958b6741a861cdd113f3c578cead5c97b5be33ec252086c11b51a01ccc59302d177522567210ce01c9388ca30c038466f7c97c8c4ba4c8d009e3d9f378dd25dcddb74fd82a60a6c0ee662fa3840303f185f91177f2b3c7ac47161c69659737dd52a709f4e2fa12e2cc993ea0582124a4cbab87b940b044f038c614db27de60c7217610ca44bb902ce8b596bebb01ab58ef5883d7a74f91050fc25a70794d7afdd276b78a42d95955fcbdc4cf47b77d9db31c44d818652e0686628bf644da5f6cc512134065f41d17a9fcd745b978b1a5def83125bbe0f21f5033b2ca4b866b78ee8e5258b77da6aba985c1d5c882e0d10a6a16896a219b8a392f6faeace8ac0be56b31482a340c911acb4d22a2a2e0877fa5c4de762ce6a6f6619c0bee94432e6bd0a08be00928d96129a79f4fa9cee116d1875cdfbc44b1184d2b88b0e42d2d46a3518816afd110da61e27e2d5a7cb9b78e0025738b05e15c587b6a62b1117499ef523e7d71c787bbb854761394d36a670c0bd750edb25b72b5f99227f9961f91c17d7d2cc8e235232c1c5088873aad7e8d3449deed0d3fa8e5fcfbda6c9ec93f8c1b4f524ce9823acfbe43ab43d66ed03f2b258435dea39e93ca2bbaa20c55898a54c10a918917c3913de6b0c1ee1f5c2cb28d09047346c75d044dee71da267ce414aa23eadebc9de4a2019f9c30d5e9312be1f4f5fd9b5f86092a9d66f5d0cc17db6717259564fcf8b9f1e49229ebf7e87e36f09e58d92a970495c4e245f862e590fdc9c5d129bdbf7c4b7a0a30739ab6adb730f4f6882e0fdc5ea101091df304853a77a12e3e222742d05d77a5c7504cb837ab6b8d97e451da0ac311493ec5705c88230072583f500a4947c57ddf9c1797f3dda831aab76da276107f356e4fb049ce91f30af78079ae5805303d2b77842b398209ff9bf56bc9b79f45aee9b652f22300e75d563289efae4ddc0bc8063aafa2122e6244b8fa886ec81ae2a2a6984909afe10b7ecce3dce859976a1b847e8f77097caa883e68fa568dd20a30705eee9d96f17013b77e5a6ecea05e584d630710dfafbe91c36dbebdc73c22b609ddc37c8483457695cf4086b7f765e8c122371ea3e46b1a067985255c455bff4c7bcb7a663e6cf7fda11485fcdc3cbedc0b81cfc1dcbd57679018206a206929543e509deeeb3ab77f24a8d89cb1c9d1e9e78eb2db2e0c9b1a0440fe2b19b3a2a563213aff2a16149bc4fb4ada2b1f37ac53ac7a762cd2e79ed87eba44af71d32371a6a00ab02e7c04dc62660fb55cf2c129ac604749d269a0eff60670c68007a07f2c7c9d45ba47b34f519bd7d5d96ebeaaa9e185eccb3707f49248ddaed7db522ebf64d39218f7c2d6721f2fdb7d2bac1f14ddc584c8cd813a5f5d3249d2606a8bfc48b660368f0254ae1d51c819da5720cec5deff2421d72b70543d8d9c1618b554cc214c784b35ac7876ce23ac1b2957a7319e99a89106d60a07b8c2b341c6836bb31836d1b2a9d1875b10fc909cd94f776d06ef777b7d5850366b378357ebd98ab31447119e3a32ec9edfe45996b5a65d1dc644373432e2173dc10688d5cfbf73a85bc8af37d700bcd01d9073d79e8431aed0d80e2d491035c1dce7de5c2c02b8e29e3c115786d5d9ce577580b50c68b184acfada2d17e92ced5c29a64c151650b6111c1ef3b1047b24f76fa6dcb0b1ab6129abeb7f099f181f8568df588e4aa77236d3ac5cd068d3c19cbbfe78f1c543ababa33a1a249c0572cede12096d568e2ff2682f936f5e67c4bc4c6505521f8d81a6e5a28f4bab3f1351e46642bd80583b844afd57e0eeae9c291dc76dc0dd0e22a9a9a811928da16194e65f55e6e6d0dbd0213c11169afc60b36f9447665b31c298406dddcc3eb5c254a7e74ea2527d620c4c29fbb060c9e0d5ca2e34b948056a9c95594dc6dcac4380062c7b6b664e2c1b6b5dcd3b76b517d2e3865660bb0e050850e1b7a232404d68c9889fd5d59bac89d175fceb99e16441aea1b4641cd0b14611eefe098	7947	1795621773294
5052ca635adb8387e073	esim_678fd0f2e8440b56	v1:ca31afdc6ae10945	0a35997850b2ab40b1e53107	ccb0b079fcd256c01bbd955b7ed622c6947e9998f00850c3fbc811eb8986ecb90ddafc3d51055015ddea449b1ff54808589f6b396ac98fe7084fb808f9c86408063731f37ae74509579c18374a1d86ad0597192f262f67c68bcabea36da528ff458ddb81cfc08f3aefebd0a94780cf26c7724fea4523676c00eac2d1e2b88a95ae7766698c1364f4438b123e5a053e6250358f84b9677ef0bbc6f4f2a077e77563e93195738e1553def3c279e3a5379ea5a86c44cd366a20850e235ab942ff152d545617bac62a9d3ca6bd350bb0035c82356530bb076a419ba97ce4678ade02af069e2a8127df96b340cd08a887521fd79e53f379db27af0e83a3b825a2fb99a1aa1827b115255623822ff85d37d49bafe549ca8ef04625573e60ae6b51253faae7a6bd4aecfe4bbc0159f2b46006d6343bc35f52472dd767c1148e20cb2368370643ec9fb5033faa38bd1fa92e38e7923155d4c545854f07f1bed53fbc8e55a32f6489605dfa873f65115306102c94f8d38ee0972cb265365f8ab7d468952a764a9f72d582a936afc06bd3733f3231a9911d0ba8b79dfa80da692104b19f9c5b2c71357a86a118231adf20871b69e6d904066b9acf7c88f0baa605e2b382c10afbd59e0704974858158c82c5244815586e79dac001f640f008b715f9af27bef66d90b330acacf8b129fdee19dc2319f43c76359fe1f949a9cabd55423de922df9ae11eb06ec313d515f5c54bf8e4e3287accf5df66746b95c1f86150ff148adac64e1379acadf2a170643ef28f7a19d8322b94b19eb15cb089f83dc9e391bafb1c5a3857c0ec1213fdd075db7c567e51b3c9e7748bc79293091a779ddfce9012650cc6b6dcf9ff1d93b90515af71521e9e4fd1b2b0ec7a0877737faa4d434375bbb29f45b846702d5bd4bf0a232f1d0167fd8f78a989afc9eff40c40c05b32034b58b9ebe06911f49e30fceabe1679dee82b0adb1431de364d1c400d03d16ea9b7d5f130ddb92314dbe8dfdff10e3c84db2081d788b3600be222b7fd6ca0f776506b75b586b7d391e3dfc9a28d87b9f49bb535238369523507500392ed3df6fd96c2a9d66785cfdb95d3b28efa317e44fa6dda7657475c36ab175548bedd786e2e1f4176d7dc6509a788db96026b6852610c3a6b5433f119c7bb0e2e7461154824c4ee2ccceda08f7b9e856927e3ddebe8da55d010b26e552535104d15cd1a522d743da804ac97a14f759cf790e549d5b72f228c56b0fa80451ee73a9e04b8cf9c49ee02b358ff497cdf9cd702901abb88623eb5adf1f5469e48f45d7d189e3153d4f3cdf6573919bc8cf5fdf75ad38e1f1bdc241edff808b0294c8cd6e2988d0b18df085ed138507af4140302a043e6f48beb46f1f28c3998c604aba81b9c6a8c53ecd2971f53c20086393a5130f60cd84f3a4103184804641f2f455888f4225ef5c2c0137838a1970b6735a46f83ef7659dafe1259d393533f0fc06ec617b7cd6cdcbce5335de0b492a22f9ad7f76c3fe5926ae093beedf1d479e5495dd823fe920789663340a87a1852fdc53af90a7f9f80405580a4089644cf2f28613839dcbf6cb6635c3f1b6c0b3571f5fa1d307bf749ad76173ab230c48e7439d8b6270e2ada9d1af31c0f9f8557348ba2f5e3f241364c9a4932cb4acd0a7acd93b5c694573d46296cac102f128aef1af4eb5b9317a50ebba48128aedda32cd372766aee01ddc46b9a3a2feba7eecd367ae36b22aee1822490ad4859a4a16bc6f7e1adaab4f0f439ff3be14e1d60fdbd2c34fcf2757659418704c4fc15f15c3f91b563d2fadc16c5f8266643529cfb4e3eebbaee2ef3353328e107ef8142c1ac880cd62405f29ea03e1f2f26c1756e1ccbd116e04d5b5f308712c6d9ed99f1bed7e7bbd74c8fa2df5f95e506f3bd9f6255952270f4340db72c8ec1404396b3acd7f57863005e381c0ea3a6d4ac4e5753ea032162fee9b3d878fbe67de8b0f54b26955c02b7ee919be2d64765ecfa62cf05086a214c3be9ea750f55f1d65219455f0cd2e29636060eb4d24522465438acd3ce6e676d00628a532fd6565724eb2a770add38db65c43761783ba56e58d7feb9efd0e328051ae2eb16c2995ce8d56a666e441ef3c2edc6d79270060c3b3a878402e4fd4278f1a8e71edd4fb6096c222b2c73a50613ef5651e7afea00e72cc9a913ab8574dd6beddcbd727654514f4d8f2003d763193a74dc0f2d2dce526a27c12b5dbb1db2e150e293bba84b172891d9991a388ea67503bb4b632ddd4b6e1e217be90b4f5750ab8625d4d11b247eb4d5308f28a83513651819cd8cae5b8adf962957c0d1a0f788339d7245d8291b595ec184584b52f8129951c743ab0b483ff57e7270ea437e8774f5316e022e887dc9c5ab8422f20d16d23472bee739b5257ed42820621dd2d38ec0dd304d5a31abe01fbecf20fb9751906373dc583134b5401e7b88aec39b3a7cd3deeeb1ef9424314ca3ae6dac19d3921dd42e9460b7ee7f60e1430758fabb43908babd1bd523d2969fb1ae5db462d40acc59d53a5ec039c52a7ec906732578b25c85b1b006de560b252d75d6f8bbdb4ec0d1668d7c3440c1527bc8433e814415901f61a79fbf247ba15c2887f811bd66c47bea80389a2ae0e17655c3caaee9b2cd5d2c92d6306da8ff225e575c9a09917b952a4fa39cfdbf1bbd2d1db532a8f405cc1cbf561cdd4ae3d195074ffcb6005235e912981c6b1c5ee66728b56a70108444a3a0774bbcc93ae1281cf70acc43c44152dc0e64ceda52a83161b95b90f58bbfca62aa7cb565db88edadeba08d17309856787c8b33fd7ab364d40d6342a5deb0a3d83e2bdc77133f048e5539323c0edd7384555054dc4aecbb75d97596ab1ec1fa3a01f45b6b49f5dc82ef7d9c596c99a5aa86ae537ab9a88677008a9fd67048802b7863ffc6b553aac65475bc838dbfaabd2418bac3fccfdc1529a1fd686b68f70e16b26eb24657f9bc5cd779fcd2f69f4ed54f04b7f9e42a40bbef455af64b3a21ce9d2e6123592533038849f86f2bf2cc30c50312676bbfe09112226643b49c459b13e7e91415d9781d79b455a37a7c890ca952ae120e2d55c87bd0c2b9c0904d180bf4931c70dfb2bc671d337973a72587e9da12a307d1c7c9c7e6c8e7dbe8be22fcc8960c63e670939b58d9ff1c4d4fcedd5a01eac35afc1db88573f3423f33ae672a9e46dbe56fdc4cd35e883afcafcd3fc9e35634b05dd5ae7ada06dd2a74fc7266922e822349de990fe3eacce4e1b28886040f4a893d3ae094047933ebb5038f6c1372f551e7fac8f535ef4c8bd611740b4ab576cba73322901ab002f9965b8eea5e801291c8d4ee836819b61cdbafdb29c423f0bd1b92893cd55aa2cf699d3d8353d367b592baa2d9109015e7cd0f70a284767cde08ccc97a3eef4f83fb118db44d8504bc318274e123f482fc1d13f4883c53484307b1645a661e3c734b986ec09db3e35b0b87214c043cbef84c15224f558b10ef3e6036b4bbe726cc02e4b77fa20a97349f862fb95ab4c129e9036d794234a533720a63e8abbc17415a27f68a000e6d47d7367a305ae546eb7cd4d3ba533edc777a61a00f1b6c1c3e6a9fe921bd6e6f4b3b22f339c715d64f7013bae6cfd00e035a6658dce2a360b69967f8376da4340fe55a6aed26ed080a3a1883232d55612a1b8d1b8cff9f1aca4e7dda9e2d93fe8081ec73708528944b98934bd4c28d3e5644c7f69beac214263656814ca5f5b01b4f862e2eff4a3bf8c6e8214cdcb29c41ee7dc9b2af36e1d3ab7dc10cfbf013c2a3d5b774c21cf856809076923817c8817b59372cf9a2c5837e9ae5b90e187301ee0d136f06a0c140b4748d3f4a6b50bca89b49f23abe63304ed81f60cca041ca992ed2a424d01be86802311f09a40230a5eafbf84c6bddc98ee4e66b2aceb5c687c305bd14197078d156c42ce4b74f44f4b7fa0395a0f93d82c1fb828b57bca676e23ee0a8890b6172469b39d13296976593464af1de40fa6d3773fe745cd73373f7e58e52c89051e4a8dbd14863063ed813379a0a6e6d1e4113ade20b7f90afa0b2a567db0539b2c463bfb0d98e6c1c15b106be80a97027aa597a4c3d77f2f39411d844f6e6266c155e79757b8629678e2986d1231affebdcbb1a7f9c19f729e56b9f4cb28dae25826b16c28e4efef66cb6f560c8f75b95ecf9f6a13c6e6b11a6012514005bfc99792ad5fe14810d7c77871c5880d001f56046bb19c511dffeb37c348c1d03419548553f050c374f1ca6a76f9076a70a0e2a7e413b6f255dfe4f76ba31c767ebcd4721cfdf1c87a194ede1ab0abd25d636d5ee6c0eb01cf0e272a2b7f862c00716d000a693648a5fbf3262edfd3ede756ba793cba3c5b183f8931c3a1ca8c2aed92c4f290799d4ac865448ad436a1200cfebb5944b81d17d1ab29f9ace6f5d355323fb486ceb1edc2cfb8473edc024edf1e20ed3a0d75470fe843b95ac0405e558f8d65f2ebb410dc695e4100698b420b2921cc3f7ff666b754c2200c53e6acaea57a453f9de54807a06c47577609bb9bf9ef0facf840784ab480d5ef3e8d03dda84a848093bf067c7949014ede38f94dd1426835c5ae9fb726ebd8ff89e164ec5c363452756826df80dd9d90a5d45a0c44674dcd2f132aa06d845f124df8bc12e0ad39896f8aee50c6fdd5ec80d3b0d82b3e9977e7f7d41904e3be3e3b52462b18f5806c204e512f0cddc1fc85afefb1bd1374b844545f5bd6dede8ee755adf2db7a756a6484b681a699ebcb6f71257fa7ee7ba28da5484aeced31e77d60efa6257d6ed6dfa95f6a98968b4fe8a00c63bd074d542d9f683943180531349e5c4babf7e2f0d7a04b1124e1f653ebe8060f920af97053af15d47725eec72b44d87662ce67da126ebd258712dc07a168fde4f5886f6bbc6fd6e46034ea7fa167ffd1e33789732c19f6c28c1991de9b9d49f363fbdd85df61c6b9e9581871bf7daac96aa5d798d6530e6d8a0148302be2f9886547fa4a8589a0a23826d40099f3fbd6bdcdc704ece0ddafc06d6b1481f60374ec949dd7fe1d8a2d827050a983cc12d6736692446b38ecc761ff78778c2718c205052448317a87df0c712fad66bce23847271319e3e2834157c33b39f4dfe112bcf2760b641b86548b0d8d20a5889a48e0fb531423c4d23a173d412a475a631fa05faa2e77e5c27aa3bf2b22fa102a30a8e0c1e5e24650a7d1a4829a1f5f366903e732ab0985f0dcf6061c1df300451ed9ff30ed698147dac704beb538497bb47a0718961da25c405c64eb7c9f98c5586c0d9357dae55cf1e421154b632bb425613ad8f780361132743be245f21f1cf0ced9b03d7fe8b2942bc2a1569658b77b0708816188eddb1c7e15fac4911847a5c1b36a016761481773e1181fc623477f6d4dc2474963569a40bf4418ba800246bac9916480d5ec17fc0ad3e5a795af1f1e7ff5633d05e2199f86b731b4a8b0e68dc341812bd0533da6b08307a0934877c954d946fee07774bd682664b6e5d1ee135875f5f9a59691456d1ab4b3d705dd6e0a64a37fd620789d1b627e05e35717750fc5f480f5f239826a4bad45cc9afeec03f9b8b13719704038ba1a836f9b0b284f119ef6b856311d4cf59f19ec1a7a0e0fb8df0decc5e9dc05e222045b88d52069ad8090b74fdb242afe7b06a7c7e824aa6c9d5f518e4484d743d1d581ca5d913667941461b715239f6feebadc5bfc78f7c117a21d62949d7b5cdb6304fd5b6da52ff85eed1a7966ff26f88685347ec0089b7c7895e3830b1b14419fc9e85ad9bd7c47aff3cb9ec4727064f4922a09b1aa21312c1cd32989292b4a6a5896290e0fb0f7d6f49d1b8b0b419638405878cbadf65425ef114e615c1190514d487efe224a40917ed0ad0a19ec3bad8409519fa41cad72400e879e6e1ab1f838b89948a26e883c5851c245c34eb799e24c862ffb6b678cc3315735b1a67ab87f31c4c195279c964b91b657776e96abee0f98a146ab39e1ae65877e3e9acbfce4582bec4fd5ef46bf52a104290977a728449bed805a740ec97e502fb8dd4544aec6030739001300f386ff2e8f67bf663a3dafb82a3b55b593dcabafb28264f7537f2421d97db433bd65a1e6ef68d7718800335e91bdb1543fe42a436a7750c050903dbcd1ad47f022ad9623decee5b839442d6fcdc6afeabba53b7b8d83ae6236b573acbd2d55c68aab594cb77171727c3efb34ca21773134f34a93b928fffa61024d368cc7e8143a3c4acfec79cedfbb6087424498a1e3f0514acd8be8a1e6bf8c724952d3b74fee7dd91b8e25e00b0d23acb86b507faf1a2933aac59e89ff51197f1bfeda17ca5e89099670b262313769ad2d13887f192a4324fa4e699d5e61feafdebf2ec9655191f3f31d012028272859300b801c1feb9e5783adc624eecfe94f1423e99c5812d00535263c193e8332763ee180513b09ba7ac423d9f508135f84435e13dbbe116117f1752dd5c1986d9c95f889a0dfc3838dc3327d8a3cdb0f82e1c22f0a51be0721ef6dc0f8d25eabae906030a0f2c833f9ed0d42c0f4c3d67f6dbae98d25fdb10b032cd2fcac2c9b4e88c6a44eafe018d7e9a11760b22a9eed3e69c9c8d4478f0bb79d8e6de8eb03691d97c99473323e0ff90263ce97aae718358fc2e6f479aedd35664aa01678f151ecd98183cfce665d64f04cfce2240343382c303756badb6864cc18e0288dd4cd65090e26ffb8eb2b06753c854a854800afac0d6c5d7672e5dae9aaeb1c12f6380dce05e8c6866f0a18c76bc550fa1cc98824c472b005906b470d5222527932624cde353f76e9dc78707f5578c687366af0d7a3b0486d025e1203ca62045aa078eefc11dabdcc0eb1df1e2a25855ed58745c204343f14342d12e0b874b190827822a69c1a14376f511e8a9e04d8f269d6b4e328f7eab8b8e3a4b6ab6aa7d8898361cdf7585142c0fec44ba50201b0ebf835fcc335a704a4fed82a69776a51e349358079da547aba449ae71e67051ffe8e2bef000f30dcfb51af93fefa5b3b9d644329eee564956d26268fa8f881d0ffc5f88f67a5058174e9e0fec4a30956ccd8d6fd6b382293ff40aa5fdd73edef349a9473b8fd4fdf795374bdbe34e66a348656a9158810570ab0602a0e66350af05c5a7d2cf6cbc3e49f81692d83fa69f1d2cdbfc2a9681a926c058f82c668ef3f597b2a00735d2f11aa46cffc2882f66ef43b217b1c74d7e42e2de2c69209fa48d92d802e6e96727edb8bdd5ba3b54891e26bda4e40108be67307fcb6d5f9563fb4640177729ac68bd8a64abd4ff95c94ba30d0020d35a70a23c96fb96c41bbd7c41adc75b92a4f8a366f4c7f6c9bbd04c0832877da8cf99713f90d056f8d448fe1291a3249936b53a0776e60cbf652b4f4aa924c5280bab8c22a9f219abf2e4a30af935a7b0db1e6743002a47ad1337f1c43f6695489f619528a6e99ac7c802ce7cf24dcc36f633b6267e6abf69d5fec6d9fc7ad64e16aaafde5a8a2a990ff1c16f892beaa1403dde3554b8fd7dae809e1fba4f291f22aceda0a439b165fb913fe18bcb0cc7fce484b086df2640cae575cbd7e25523d6c737ad16f485141325a7d5276fd308ad38590b55ac12d1a904d746d33500eeb6742f2774d4417fbcb9d85f36128782d32a615993f6b929e2264a3d3557681dddc19a6f4fc707aeb4cc10681d3198913a01a05098e7bae54105e9922c933324a5da4c5a5cba067db6c79502e8981bc63ed0ee59af1c44a37ff953d6cd0dfc6e5e4e960e6c175a21b6e46b647a7c223e347ad6472902b815d7cf4891c0bf46fdae4d4869fe9fc82120924a2cb9f09592010236d6a87412a2f48d68b6ee8b97db8b42a9f10d4e353ab89db13dd6850feb8c5d96f7c18798276dbcfa605429dd2677f9649691ba6de203bef0e702acc1d208d714371dcfc33a3244beb1b82bb90beaa978d895ff038924900b85a590eef7bd65cd4a561743876e21f56056f28dfe82a3cf2db083d395691a2267e153123ad96ff1e9baef6999e09cd3c485d5af9d75d84397002d8631991669b19d927d93f504fb0bd09c843dedfa872cf2fe2b1dbd94d7fc4c169bf7bfdb23f7b4f92f93cdf66807a3e3d12931df4935784e4f7a57c834cd7e186067466d5d505c98db678357fb84b119b197330dc64b6ca30e699fb69491d03b822aebcb45d9c2440cf6a0e1e95ecb046a0dddcbeb37d843dfa6e71ce79a621fece6b34f590c1eb87faf7f84656926b6f3595347062247c7413a31f0384fef0e2280202d00ab50a290ef61ff21a8db8b70fd835732bcd6c54f3f0fbde51283490a5260fcd0e4791e65fb2fee5f8829c6421b5cc3a7dc7d0be46e38621ac0509bdaa2f13a455f58fe1d492c1b91d86bc6a910add521940d21942e81ead3e7255d733a4dea01c6d368db4a2c6f8715a4bb97a103b54a03333cbdd1be3aaab55287cb7cce5563836dcf14a6cb1529fa6b6f7c78364b130d9d7411b10a2f281a88920fc4529010d84beb61d386e5634d1c904e22a8696aea70ba536a02593b0fabf885119200e49ba3d0f0929f38d8311121ce8e8c00dc53200b88e2951b112602a8b643c9e5f5e1d7d4b264e6f15097cf00973b7b1b9e7e47743806db36ddf42bbfaa844ce930c2a74f8fbe74b9f4c612926050ca680b27554f3dcc46cc8a8edc53cce342752b32486deeaca492c7d52be1370b455152fd40f1b4665273ba86351a73be087800f67eb6e12350dd1a3e6a3a402ed0b3b13cefedfeb82f9c123a427beac965600d39d86eeb1804ffd4972a6dffe2d490a184975bc68a875f3382e7c430ce81ca7cb2b597a841271f6b3b0938683efbaf8f48a091d167695d2f064f222094dd3d8ea238cc2486cb1ae898ac88883217b00c95fa9a0cb7ee57936425491d66ed5ec098d3dbe0e5584411b057c955308e12ba4cf39d26cb7f906114dd49f26037ecad51112b65fcf0089e4afc064572cbf61a0084bd3152bbc2e4be97916289736d3fc1800a1322eea2a634b2bb5751242f0f684e5432a4cc82dc55c78e5c2660ddcdfb351630cb80752bcc009e918422f012f9093c0ab64a452a6d49371798cb79c667ad5e44a51e5b51b94bee8e868caf2fc2424d53829cc61e7b4a0c9b4fddf7306d965613753962bd62bb7574e7bf09e9b4dbda1b0bcc7d4c34ae91fdf0332f9f69e78c81a3cedbf865ee53ce93960d729183f594cc3de39ef52c022a3d4e2aaf3e3a83cfa67f632d2aecb65a839574617c24c581e0b25519bad2c39ed98c898a97ea94b9b7e9d7ec165d7ff9a7cffb4597d1584eb72186476f91fadb8682c1be0b1b379dd5589dd8745850caf3aee687690ad2600229799f9a6d188a78221d8c04e86fa648c203abe94184af84ea4a77baf36938783c2b33909a5543d205a3f9afbcb78963a8417d77262ea688581b513ffe8543f7729f8b7eb42993c258f14d3fc4a8598ebbbd627e97a2c7eb81875c258ccc225fa69431c4e396f84c5caa244eed9cecf0602a1f41f60791fc776c40a6021965b3752dfc37a6296942dc2e37e6dd4742725cf022957c7cf36dc8cb7ac0607cf659faf6f185c7e0e79d0458777a97da68945926082532d87b577bf85f5453dd07fed0bc00ea0b2be02677d610bc49dd7c0849c29dfdbbea61413a51c8c0d23a421a08dc7b21b8bd3304c3ca608c051452c8a46bc9aa9a3e9c2b81ae3c9937d8751fd351352cdd14310b60e64e800ee4f0a075b72cb305c6476126b12ca6309a3af5df4f04b5ab789f9825dd0f402e54335110ca751b615eaae6ca47064fe61daae3daadd94fa501e4b2635d9f2465dbe87610f1ceaeb6fcff0272c0ccbb60780937763c767ec36043f21a8a476aa19cd4841d6521524104be5490e59bc669617a7cd0e346b44b97f9347a1c3f25874ec0d3e7afbccb324df8f56860fc7dafca0a7653f925a05480a569f392d30fbedcf430a2cd093040b22c539f2c17d9bc77a01493184a828458f41db611b4ea632e2ccdfe769fad793dcf2bc8144cef95caa54fa1a9539710aa3f51a2ecac0c89af797c8af49913122c025490d251bcb75c49f5979cf9959f3b2a240e8ce9c9d3cedfe81a73f5b96e9a7a4b5b799416f3430a1ec8537f8d3700ae9f830fe7c522919e321a166a98c799382f676acb7ae1615776d4829e215624e75d88913a7c2dcbd2bc9f32162d0fdbbc3f5ca46d1161b51661b8ebe940ec2cb6ce9da23651414420c7ac5490f2ebb218956d4f1e3d434128aec1eb47fde58e44b2f3f7cd8a2da3bb73e807d63a775d0fdbf361426c732ebd10ece0a7ec1e732b2643d3769a1bbd5f1d57dafcc2dd5db38a7c41f3245b2f53642aab56d5a99a1ec198a0fa3cd1f3c19fefcf6508797356f92e94ad65fc955d496fe098763c97207ef7b29b7d32d0600a15a10038f9d05ccbea0b8c1f08744941cfa37f77a1b9fe9138ce42a9ed02d26ac4b0fa9c60c1b923dacdfce599bb4b552c675c965588f8f593e4e6491498054c5281fc84e3e6dbf1c6255480eaf1cb98dae7fe4aa9c2a71b16ddf534de3c93c8da15aecca03b87620c6ac3a23db06e1ef4a49b72d8f568f8ef6a2db4307f8fc2ec3a685f49f00952dc1e59f6dc21e998b1ffa0aeed0bfc60ded9540e7ed5a3db13fa2eb84ef35e51f58e8912bf37d4b0961492d7c3961ae6b25a27fcb75cdaca07230127cb98e0eb695c2c405278cdbf81bbeaab3377d507f2b6328a0a04c72c38863c2bf80dbf9f060408bfa9373c2d46a7124de7fd541bf580608a3e7762192e4aa10d10c7649a27e8c18983183159004155330836ee9599203424b6f0995963b07021357fcf7b2b0f54917b6fdc9fbea0a478d959f688ba13bad977001e297f5ee9e58ec109519070fd400afc57b7bc6cad19f4d008262a89699e599c3d764bb337016028879a527ecd13d79e15f9eff7cbbec7c6a16a189935a82b63ba898f0fc8bb4f9f84abc777a3a5cd18cbf9ce56724177ada40a991ce9bdaf53c9c68e7e566ac89c70c0cb994ac6590a6a6142395e54920f0bb63aa38c11831606f8ec0c90b20e45b35d5ff63598e3803af82ead50f710cb1b3ecd86e9af9b0205d16bdf0f3abce167b48b50c2dee773f47ccbfba0d1ca013d0135918e63f3c8ef885ffca8d3346eb9d07b75476f6b3ab1860c5d788951850f491feca0841822e3bce84bd59745b42cbb0bdff675ccc65315f32106813ef071efb15bff5cee387f5393b23d98e84bddf797dc642655818e4dd50da1e3f4c640243d63ed283c25ddb3b51b981b8c0736281fcadd3234ad2e1a01d0699ab07364b46a75138831e8a8a5aee51ce9b24e8ee670614f22085ec3d5534a653a0f7cda8e722a1409b81671e3f96c7e304f1b452d647daef0f0648813fd0824c6bd7333a842d0ad760f06033987877f3275de4eaf74560dfdf73c396758291f14bbdecfab257c51075c0dcb4203db121f2a56f29ba9c153e6d6c5a9c921910c195fe7f4d6939888399a5ba7f637039d76423690d3722a028e330612b5b429eae6ffab39fc6b8e9ce1aa0a9cd7dca46f2236095a80e83965ba59e5e56e144c4c337bfa367d190191d04572e99519866c4b2e39e66e0ae54f1b6dfcbabac251a161d9b723f2277c91d25b173974953d589aebaf01a1178f92d26b80f40d04bc013f7af5edff9d28866a29a5987fa0fd710825589480745c41370de8c81d6ca4a3538a73cf6e17938b21fca43b2548c4bb5c0c1ffc4c4ce5f45115a6f8b709c9e1a0935bc02ed31cad9cc0cac2f384b8b77347ab7cf1cf6fad7c596bbb1250951e76ba7e3a6bef6493955f636f5774bc4e9ef88f92dfff03216fe4967344153aab5888d4fd56b6da952461213c3c80b1de4534de0e0cdc9340f27dffa030d563d881f769baebc6d7cd081447042fd3db1a216986ec3d529232b8d8bd3c4fe1748da607d4910df88f0b5612a8ec703ab	8548	1795621773716
5206f3047e2c183719db	esim_b4ab8ee3ed8fb318	v1:ca31afdc6ae10945	b5dee3d28e179a97e1a55421	df59db9646a881df5b74f3691053e0619fb9a8d357ef587344210db4ea665a42defb5b4dba8abab905a01bc62b43e8663694b1ce6008ee4039ca119f57d918957c6ffcc8c0d1ad592fef3c2c755c18a1b63d965cdde329b29ba3a6ee29aa3589c551d0b87e4fc504bcdb28a57e398337c8d0c530a3f2be889da7c51616292ca7672a1a90108074345d2e821c4175aeff48ce22d264b5d321da67522762dd7fdcf99a979bcdf35f2048720518a50a0913c928d58740b8f35c2823080f2f030685ef4bab4f91762e92273654eb684fde7b6e2b6562e7970452ec62c42b4cc13c99233ab3e40c1fcab47c51f6d4fbad26e801ad80461ff7eacd9acc78afbe6fd2dbd06181f3958219603c3bd0077e014741c9c7573aeacc4d36858073087e65ee359551b9b89329ce54a163c18aa3ee6015989c8fcdf8f7959bd2285cecdaa7db8d42d2f766bcd29803eeebdcb254ab8658c4d1a0833a83e6b2f9a331a8a147634d1d3994ee308cbc7dcf5d4ad8e0ce3e331b893d80f867133d1aff5a7ec90512d640c44e68d6e94c1ac75ea1b54b913b9920b93cfb8942af98805558037bf2165c78c0e853273f1048cf65e1cf2027ac27df1126b0241a2cce33b8db57a8cacdc1ed41a0755798b92ca92c065a38ee7921a714dac7d4316a91a46f0d51b7c47c8984eac5dab69f0b0aebdf8a524c0108f2f32866c10596c0dd0292794420170bdaca0de25bc1c7b07dd124fea7bd1ecdb31ad073ae99f40e03802d286a18000ff4cf971cff31d21f9a45c9f24d59c5cec8909328935217a97459bc1d58680a9941bd560733d67334305ec29368dec0effe23d8b326380ec275e01468d65756642f8cfeb3b91833c18bd7e8be3ef66f8c12d6e5efaa2afaa05517083a17c8d677a068533b50914488f157e29ee055a29c8d43d068b450f1661cab06f711ae7408f7d59fdf4997b00c2bbc7173154b2bebfe0f0a1bc65a4d13aac62445e74b03807db083429fe063b9bf03a8fe110da4d372581739688a1ce40bd5cfa1c4e9409cc2c8591c5185359233f57cea9a8d967e1226fc285e1fec8ca00628d546401f7fa3d78995d505e658b5b154ddbae67a70b6bd766efc64d5e14e4264e2e98c337dbee83682465dfe8828c092f4a1c784970a32b3a483964b515c0f273937de46415514dc174c012b828974098cc74b140d1ff842a5fa537c762d5488a0e23427df15b77201f0a344b05bed3e5d93d9e94de3e6629e0a4c134e4f506c517eeb00f773a073a9d5fc6398ac5e2683a96aabb6131090fafca65659f7e1339083bac7007a9288a29788c8668924e91cc9bb987c9b74e9d8e6dd1d67dd54a9d5bf9f21f57d64941340f53a6c4c6dc8adc3cbae9179e631cc17aa26cc96148c5ae471bd3830039c1cb015a3f284d7d705e46795d0720d9dad2295c0b57367f921ee91189ed14301cc60b1b242a4e9a36ec24744500bdd241cbc2c6deb227fe8b6f3e57563777cba88840c0779e124ecf3482acd53beddfc2361ac148900aebcf95a826587e636e889ca12cb0c306982aead1cbda534b621ea2a0123e7d1232e8a476feb70743388314411d81195518fd4032bc1f4f7dbd1241ea63f59eef78024b711ce25dd92c7a807ea7825cac4407ce207070e410dc072374b98e9761e2e6dcf7e5aedfcbb4020cfcad8113f9bd5c26773139d97ee765c86234317d95cb81f03adca5323e0cde8b87bd8bf5484d3b605e1d2741b04984ff37f2c3819923ac0e7b9ebd0ab99a050b602a3e651ca5c7b58475aa85d5f3ca50c50d81c476191cf5d2cbcd45125cf77e35f52e9ef3352e98d44ef7e120d9b10c0f8f1ee55f95b753d9c615d158097d44395bfb0a3d953351c42acccb4e2cad0f39334d042779aec4344d300b71b4cde23ebbc684233489b3c046c5ab54147cb0b9d256f35f4ee762a0b384f40651b76017bb0f609193e0039bdc32a6be0adb902834b6acd6bb72cb4423d9142bf40716f407345ce53da38f595a6fa86561f3710ddf37a2c9dd75dafedf496d4035f3df5edc03aa9b7f49cb72d27db73c0158e59d9132ac59879c8d198a276dc42daae14a2246e71c4aaf2d30deb9d28b1797588e920c33cceafce769ddf0c0bf3feb64e3e1a588c5c39ce19db6b57621fd74f0aa690202de02b80b80925f609d2c4ed76d6cd6f2232b9a42ddbd4942d2ede28f62451d0ab1eddb0f3220d1d7053b1cfe064b609e93465618c4ec9b60de881c093d5118e9950167347c461baa9d9906258171bbf6580a57f0559187ad804a93c40e3cbc4abff470bdff9f76ed48f815d4ee0178c29fb7ce4afebbb9271a4745231fd4bd3376fd3a2762870185d88ed7dc6c663bf7eddddf084d20473655085566dc661f9356a03ce756d66300f828869e7e29e0aef0ac96adbc35796efb29ccbe485bfb9be7f51fd895c056d3c47ab98b4dc61f31aaa05aef6338be7f76c7a17f75757ab101396d66ab5801d2b7cec6273c86875d41c66b3d3d8ee6d215f0b4a02fd7377860cf6c742e5b5a6d7c3a49449fbc4227f1ddf23fba49327b787b5d0a5af292c6fb38436c304ce1698dfdf328b4c8b73f8365612757aade85090943ac11cae77a1f2d235b8626c164b2fef5f6183e0bc86b98795c9bc2ea8122f1b08d4fdda2bf320f707dbfdf3db982d05affce5b6834b64393e9e6942ec4ca8800fe69118465e690ba0931af2c8635e4e093e494f8c25eacf83953af5301c88710075fdaa53f6ef6f1ef99f7ee915363550997d76fa47d29bbd9f9514ecb2005f1f48d93c90be41809502621df64c80251b0f7befdc196f33fb6d3e2567ba2664b57d43a15dea0fc0d25e5c170ba2a9deb71f0662d7214b29b3da69acef0ef3ad554f8584196eba615868d63e1f08315cf5c04fffc481d3d1810a96f696494d60dc09387c57e38a765381bd849954978d564de2f169dd77ec2afeb60e5bed3616aa315313d728d18364b867f7277c40199bc3c163182e0afa9a25773ba328a51fda9ce78f45712bb2c4ccd38d46d989ac6a18dc83827f63fc76532adcc5072d22a7ce9df0c20742f77983ed86b26690ee00f7939cf43cdf26f30fddd4f0a467a99bfbb5bd335dc10b5d7e9f9a6e7d18480303c58804877150e3f066c3fd2cabce8fabfc55b1ba68db0b9e85498aad123f25616b2a492cdeae194072f541329964dfbc936bae5cc65d91de1ae64dc772cacb5f1f6d0ff527480499d82bd0ee0a5b339d07f6dbba8258d2ab8a587dbaa677ec2d92575ea0ba19186c7b52ae4dd1c1df3ce3ec6deb2cb3c05259e47e2fec0c5794675713352828949dd797bb55b9632e1e7495ddca322be00f2cc4624bbfae45582072c5ad0a21fc9dd40b0b5dc1d69cf93fa136a8386f9edd4d8c3ce29f5907981c73f2ad52b0b20f99693ee3596f37cba1865994e9941850dc4fdc9d1164f0215f964a43c5d6125d2bcdaa6e47c4f236b6e48b6e041e75f9ac7449918e2001c062dbefebcff63e5a9c33b84ad6fadecd4766ea1e20024605f7bc612d06632f62396253ae081f23cbb022d1c2cbfec852c45ca58e03cf07111d5d86d79a70eaf8b955dca62baa889fd1104d53dc76d78e68f86b137ca80bf88090af994e406274d8ddb561c9b0d857bc4d0f2a10ee52313983cc82e41a180c591124601cf494143dcb0469b0f1a3a3c96814ac66271caee510700019d3f2d2708b6f1c41f3d3b8b3b2e84cee54d62af87651e4edb11ba3dece5c87fe5d26c5d51e212a5b0ce660a7d378617bf7f90d9f956ace74b6b3b53079f203f263b04e082e06dbb1927dd78326f4d0ca198f5d4c93cfcf37581f8b73feb39e3851d94aca17ea371e7dcf9954e13b14dcc333b827d39b503dea7a4875b70b8c73600de26f0bc0e43d084810f5b09052a0611e928976730cdc0a30191eef5eb552c9f950d82b236c0b830045417565b83835cd874cec28ce87fd5fd08801b63f5b54c41cebea876aa3fcd6a7a36f564e23ade58ac8f5b1282c478167eefbdeaffc6bff3a854890f3629bf8ea5f099f76a0c1ac35dcdc50b03fde517b71665db8b0d36c9b652956665e73da4b874ffc675c2901d2fbadcdad3b6faa59b7a829126283091d56573786ee9b1d35486dbb95ed24b1c3cbcf16f49778f8aea01b1cb752e341debc6b1650e2e3b2531a25bc94ef362b7a6f0b1b348f5954941b608d08dbaa5091b52cbd48ec03f012fd43f09bae0383fd2ac091cadea446c8312f69cb60a7862ccda65163c563f4c0f85333881394f16eb6112d4aa5d47431ac35bd02f9973962c15ad8bc85a8f673b576541bea8ce18df2b7874d1d7101befb01c64a4fc91d2dffead592d174749e4cf273cb57e7db1ed7b4cd2f324568a0c8fd4ede16ec25fbae4aedb610d67d0f819fd642daeb73f135375fb588980cae915aab3f5fd8816e51931a9417193fb475712e49704d272b55c8189198c1a67f1a5ed9f64600cad7b7f5f9064c8199f1eedf7515894965d94bea58bbcccb0f90ca458032f526970bd606e1f4f8469d84bab05f5887728ea715c1d0a27804fb69f39034ef185c8df80f1d2cc91f6e948b3ad3a20d9281131e6f284e2d36a4c6bf654d4c9f660c4579bc57b6b0147cbf55e3b71c121c975d49bd18981bb6e93e02349feb3c731d434b71dd72e0e42b654443d38cb970fa8e700629f91c9f5316fcc9f1c2cc996d29488396f9fb00de41fac0019bf876012fe72b845cde48b98fceabb6ce164e34124ba7c15b872f3b139b6c484e54a8719a1db806821f737b640e4779de86de24929a4576c0e44497d0715e28f22e7ee9a38dde75514fcd5a8bfe4bfe48704a75bf6dc20636f1bac210444b1d01f30aad35c84ab9cb007ad3c70e4eec439ef0a0062070216dcf695a3c214574cf2ac396f241873bf8af2dd40b93bd5a6fa066a704b376d8de56374957ae9a5a2e9ddde4d5fb0f522ee84ec8f9a968dad880a64a309f098007a861369f9ae2ec1808aa3360c5a06bc830929d9425ca650a6e6bdf9432aa79607df149f30fc8839ff925eb61f8f71e0f8e9e19e08e2478f7f42975edb01bb6aa1837fdc7d67420085a499d9f971049ab02727472fbc7c44fb58dd815bb3bbdf882e6e0bab5be384fa69abb14c07df30d476797f10f89e3cf100afd2c6e49806beb0d44cdfc44d7662a2dbd46241a1d5182ec238760e0b0d804eb61c564a1331044c6a35deb3ad7a951d33595917a8a3d769f3fff1c426e5f22bc41a691f7f1afa64d2ef6b899b35b712b820a8c8f9df9ea996b25dce79badbdd99d14b98d7978e11917c9791f4bfca2a942e44b757558ad79cde23cb16089ff6ad431a5d5d49f2b392f79b0a169c50f42ef85f67a97b6ff37609edd5a287bc9b36d5fadcee4c0e5095cccc627d9b143974be4036e8a184bfbc936df427adf65a2064df90f689825d7214c5ec14da53e22d86a0d6eb23d87b6faf3b99e58b6eb73adb46858c56f4725719d71fdc1329dd71702862012fd4cadf2778e0ac8977e00358266031141d6bf532108af30bc25ef707e32b3ff6d883df7f109a08a0f79b0cb3f803fed772b07bc0f73789889c05982147d08d4f28c33a1cf18e116382aacd12f9be2498920152cf601fb5fe6ee7b0d1bc415becdc32d8fd37936ea303343fe0768e9b54dc5923c59f532c54307a1c19cd7606ecd8a44e623989afa9ad37cba8eed9089324ed963161fcf1a96cd6e1762c51bd6d0e42ea027451327be425f442a4811f213e2f10522d4d800e542ef51214ea842292494f92fa67117c650cb9b964e35676bcbc1b1e3a1b5ec5320a28aebb9966b5dfcbc31f95d1fe0cd1bef394538b4099ee3e2f7d26129bb6080d643ba709b9015bf0195934b32fe6e58cd9d052d91be3c10a4c81b97f8549767a72cfd8b5c8310a51839424740b010a04a6ad1bc3ecd88f6eb123f728bb1332f0728520e698f53301b58a2bd404e28b0684aa4737c60f1126ec3c1e81a34acfd43e2c6d9422a744f8821b279c0159b10c90e241e57330147fa5e75d51c3482203e47c996fd69d0014a6e5cccef47a750c3d78b6c16b9fc39c18f3530099e6086a1b59946b13b51a4d65de92f7d076c60040d6d913c46a264735716855f956a81925aef4f98cb8aacbe2dfcda5df85e1e437549b88f2ded59711a28b9b167910d28ded4d61b5b8508c657c1ce3727abacd11732dd8ccc2f4946249f2974c05bb475c21107a7e48b48b656c5191ce610cd74e4d2da8913b33e5ade71c580a8b302d7ec9f172b6de2a321db6332d9e2ba03e3bf08eec3741229ed4739b27b26f0ba934db80e46e12a368975fded9fb36594d84c441735d92bbea615ee2761e914d29f6a983d312bb07f7b366a558ccc9b1cb6c2ff734cf7bbea760aa6f49b795afe55bcbf5214cd6c6bc119f3d473f6aca14f4afa09fcd1a0cd1d5496dc250a261a2a60e72dea0c403e0bb911c61d7e6f095669d7a8786cf74ca4f2704a7a24a8102788dbc76e5b0312a619420338ad8be83bd17f35419d48da463084b9a7a2eb468ff71d834761b43cedb40b1f3fbb231ab62c62efa4831a22a2b4b6fc8db25e910dc237aa230f95d92c41a4da39e54febc965576a04b8b36ab5bcab99580fba6b0b535c967197ca137d781e3c412813c10e53265d0f8dfcbdf995b594c144af2b896bf98d37199fe60d6d8baf6ad93e8c9bd11314003616603ae248b855beccf93549f506c2829a59d4276a913a3fe8bebc9383563179cc1a29a85c52a9279cc251df2a90a4e12fad50883eefb38f1c09a4b6c1dd0d8ee53a80797012d4e5ae008fc79e2bac4da73eef28fad1e01ca1089ec7bb45aff4c9249bd5324eebe24de400f110e4eeaef7b4fa098d29ac71d997659063fac7ec26d77101950e09675a47404ff3dbd87d4b2f3ded3bfac0267a7fa76f3a537de38c91be38e8020b2b087f35471a80c06843daad783ba6fcdb6df22e5170bd330b4ed5134c0e87a1ca42896aeadcad4a91f1e55a29322308d25df2deeabf9c90a0ee8b375975e2db8c2a55fac24d36e30f553a644237ecd6ea73d01aae7cce342c886e17579d7f4db035a287605ec2cbdc4c721a262961386b0bbb0eda247559e8226a857a66fda5f44a035447ced3c94501e87616627cf32447c62d1a14078a07bd91b82933595d7064fed1312aadfa542a249aac19de8110db7d69cb487e20f450cde95b05ddbc90dd13198fd40b585153ddc5c2400a9b71497776c65dabd14c084ff4d20d78fb9ae37343cae68fd87e8fa755baa961f1cd46f52f66bc3c36180c83dc51904b327002e188cfada32e77611788fb6c44e33147b9b7982ae8c0603879039b3df13c42a7b8ec858dcd6ed0fe874e79f1402d5e0b156dc59fffa1c0c61c8ca706ca870eef21378d1c2a11215d2abafd2452444736123c853d9e840adaad4bbb3848afc9c3ad42b03ebcabdbdec818665708c7b5258e199cfe575ba29b49e0ac4bb95298413ec258b46121dad80ef3ced83d3c7b0453f4663cb097a92292d0d5fa9413b51cc359811cc5cf1cfc4d5d24f7e87314c8c68c3620e5c2c49be3b557c447656896275340b34a9d5a6c268c6c6914102e9ee3db2bdaab60759bdbff1a070d0fe8824bb3f20040974b0d5709765fd342bd5ec00e3c41cf3e11d7b269991583876a8cc8ed6a88879435bfe847d278bb8a91ec5d289fe4cafd3875789f8736e988c63358cfb82629084c0fa71c925e616ccff0e4abe8b170e3d40b0c0e2c43889e51e7433c0d24c99bf8a71bcbf80da95236014abe619948598af884c97e9ba4fa248fbd4ad3b3ab8b4449747148adcfd837d0923157882af3f37ee6d468153dd5c8fc10ef2ca85ed3c9affafeb42746e5f30e5bb7accc1b372add8324247c72a63c2c9504a81df829951b74f6ff1376d9fa34b3dd3a20d778e6057b32d139b3206cf6e3b76ca16298be587369c22d4367f0649a22d47c1b70e3c4004c42ce703823173a3874c84341ea2236cdb21106168fe7d06ac00038edd5999c6f38fc4ab3edf7712ace1259a7a54d5811bb374bf1fcbd25c1b617227d8b92d6de0d034685372843a98e060be4a1c6230879e684cd216982b5f5b5814f136e9f7e522b0d10a381536dc4c09f14e535ffbaaf0181b206630638f82ca9734cdd6989bff487210f8ea8955e7377b0f4d28818474317a5eae7ce90bdbdfa78657ed505bba0a8487d2f507ec5a98cdb026672e2948d14917653ab4b2d99222eb00b0b391a8fa6a3edf46ab3b4b978e9fbe82765d3b3693c2b6e62ea8cf37b95f0bb9da9d03c965414d0959e91afdedfe45b2c2cd2602e26f6e327ae2cf5e4a45cc59fe7cac20147b8d1a6f8d2b8a771e98a3c83d220e0f038d0d2178929f1cfec7e36d49a303c42e18d57893b3ef1a84c409b50620c06a03d58f3dae275bb8442bacfe776c1e1374f4c21756aa58f49d5027e3d3b845f58697c829be1723f83469ee19fcfee757873e24bd149b59ff02a8be736915084bff9a99461f55861f778f7af84e0996d5304120cbb83993b8b25f2fef7c7b3feb98d775016f2aa1fa2a2155f13a230492ae3dac88e96f8871e567f980c511014fc7ef1c16cf7236e70c47563af264828ad0584f2097153c0957aa9841fd609fa9ec693708d0a0161b114eec13417fb7d017f9ebe09881bb095968f1efe6b882ac8a3e2ac8c8266581d930e1948bbe71806fbd8682d29ae2cfca3e31c348ef205395af794d35a6c4757427f440e929d0fc893eb7e19782416c8d4b2b4aece4ed62b30c14f137205b8eec160ae6457924d7c962374f35e477c1bbec5928371b494caf6da699b90f208da1f83f090d538e6346185e5755932bbc25ef128f049217b11285ae0f6e48ec86280cc2fd07c73d17a68a2d9ef90e795c23dd838e74aa24e5cd958e75a3f5b5c9f8a137f04cb44b76ba43be16448075bd8cc5c9cfd1d2a45fcf3f2753f525aaa56abf227070a9a5f675162b51a9f5037d5325f0758cde13c5fb8877a051f28e59fd264d2b45eb92c052f6de0fd2d1102d5f8efb0c8f99721461493a0de5a357a0cc0ccdfef2b92a9eaf01e5f52d2081df85e2093c7e59dbc3fda53f36a0fe99deff69818996a6f4a720f620fa64f34dbc209c99d730c798bfda3f14db5ca5d65229d840e00570111995177a4158b42265e8f5a4996cf7bff0e8c84d65ca6bad6b39d9981f485f7ba8c2c02f050b59012ef7ef712e1a4506ce477bb6686f28c30471057bb66efb27b8dfab15ec6574e671f81f19edf299dbdf2645df89d10e12d61b6545d03d711b2f888c7de39c3cd627afaf0d9bed683448072c64eae53f373c64cc89b5ef4cfface8fb124d2e6e0be876b903032a94020bd5f441c0a4e16f0cf0412573c874d0cc7ec31a61d0005d26e406a004f0d11ee8716684e867d48cf928b82e46374297e40053072d52fc975d1cd8ad18cd0aacd5de681099f16bc112f168b79b39f375b25604f1ea41a8e618d7f60ef9e0e711fe04283790078fc2d72ac017a0d9c9d899714f323fc72cc758dc40f007cc763d6d4e7aed1c0ee0de0856c29704b1b59a2ab939fda384b5f581eeab5427712c0ab10d05be870b62b05c3e2ada087e606b372f0b89f735f5aebeb4e0f248dcc564ff6a4ff4c24c54cd04e4cef0b7514989721035e902b8c83406380bbe13638372655754201bbb0386615d429ece715f6b5c506222713930fb075ac6ee534691ba5f5eacce6d03489ba2ad9c39a6a3540a71b1892337a87587c6bcf78cf39bd37cdf92de73eb9afaf3660cef38996073790d50d4582ccbe149f5ce21815d4d85e5e46e679c5ea75c013999d300b27d777008857c1e96af4b37a41ea0e203c60fb47fbb2666b992d3c865b16a62905a5c8a620eeb5e4b14d6309bd4e8b6e69b163e63e0aa58ad9a029b1f57fafa558e05abb3f54b26471af6ead6067278dc2256352ee2f1d22a6aa189b79d816e49c16c8046afd2077128b4195280d6d6026f15d27d3176bc5f624d8f87527b00b4fa7f76be1722a57bf293ff9401911e984d42057356835fbf9709545f685158206a2b620f5fb360a05ee402aeacf4c24f1ad2003317ae693f8143b0c8a42c189a1008266c11aa5eb4ac0ee759ce595ded3c2938de614d1e6bd15ce3ce47856e377f2ad378aaf5fe700935b61da809b51a38d91aae25472d111ba71936c40b06532d85532f22156f84083047111049278cf459422892cb9de0560358b0be1a7ef0c693bfc9a16a23824c5c3447a5e60fb062748a55ed244853887ee0714e2821e573fc6c7ed50f20c290a37df62bdb66adf43f27b201628f6673659ada3eff59defed6c948ea6da0b51c1c6e86ea5ff4b297ef7b0482362a7e66fd8194e75de1fac1417efa904ca68d5634215e12da3b13cb3e58db6f849d89521db13481dee7aeebfce58d1abae87cb2a8019625ab2b2d88e78e40015fda50970eb85c0711bebcbad77528499ba1517c4365e3797bb34585d0dce6894478ec2f7029a8a39a5c27fc85c315143b3ef186d5305376685b3b3554f0f26abe4beeb4afb0f0863ff1e348a9117aed7998f0e55cbfe94b28482c3ef73c30eb719c48eed715cc8e92c4df35cebdc2c8e0db311a21cf6458912a2463ad83b10973d3959ea790dd8467cc6064b98fcb77a5591daa2e06327760b811b7a900104dcf95eeb4ffa1c0496e4d0f97e0590c13d85c56f7e3a483229e16f39a724355394521c77ecf471dfa1bec61e6f2098a9a023f68522a4625ed45d435bae074c4e9e5392f3ad5266863644432289caa8bd34e6c8f435614f0f37b262e896ef76c80fd5168a5e352162857cc3581223ff618efbbaae100b35af57b31a6bd13bb2664add6cbe8a07d3592350e211a3d299d652cde7742735fbe708519de908f57d5294fb8a592fd05cdd11c60c6449df9af7d8875c8bfc675676698ead14b14669e42f39e766de0be706f6b1c4c5da75713f8e820d211288dcc343b697bfc43f0cd9cdb036122f6dc4f334e4375dd7863ef049ba69b71dadb258a7bef894c2d83a4356a2dab00edb675a1499a0e188e682c47729e3c855dc5aded885cf631a6064654e1f83861e3d6cc944f2c082e0eaab47d5f1a9a7e50befc6966bdc466e6f82aa20ad1c9d86f80479da5a3ab395ec895fa8ecd180e31115d8bddd2fd430b5a3111816754fd4eafb62e62c2b7e754d5bce5f82481b207549abe575e638ab0bde8e3f96ac7b0d91513b631c9e49e8fd4af7a223ea9a3870d180cdf21e17d23dbf8d41a2f2efab5e3ccbed296213ca6b86d4649aa928853d4c5e9ecf88b0aba9a76a506b1e1021020e1cbaa553f98bde4841518021f5eee32cff4a9403fc5d7df29b5cac4df8f34e00495f5df7dbb400c4caa256dc834748e37263500b584f25842d3c7a3091eb2cbe98c116811220ae8b7415b13823778b3927db6073696cbe56891f79dd82adbfffddf0d92433d5645db1ca22365ace4d28dc77df54c5e5bacdeb5b4f868f40e965c475b265dc83c1937bbb3cc99197e441604b8fe8c7b2cd45e6f1d43d70b48cd6443877f932a345dfc2b542af9ffed2d42bf5f5ce6652966ff231f28dfd4515e5ad54280fe8858f00741e1e297bcda7172b196b1f2aa1b8a4eafcf2cf487e77ecff6687a5017202fee0292a19b09944a95b42044270e46328389e149bd6ac665d3cf1cf46ac8c7946a4d5455a96b4a0ae14ff0114d3f02f52c55d608cb694e4563ec185c8eaad7d6f4b1ddca6381cd3f2aee949ba811f3ab747339d030d9052853657ceb40d482745d66687e3079664f487cc35631f9844426ec3071965c1bd5b63204074475193c3401a90f6a96d59ecfc4c43efb8fdee08857d108e924167d8404a7f869ebe8f90ab77e2e000046d402f60306bd59ce91e4f813cc1f311ff91ad922922e711785a6cfb268bb469722ffc81cc59b627c463c60400731f39ed175103d2161ff05586e05cfd8ea3a699f63a28835a23822a8429606ad12fcbf1b0e4c83d00dd15ae16edd70293097cdd7aa6717d82541c94c25780039719e7ef0c57ab30663ad4dc5d04be8392b9057f4cd8fe7d3eac350d7b100ca135d5a003a00010bda6882eeced624362bdf11aaffa711785ced28b87daee7f9a8aee0cd59248c1b51811e3b4367663b0125afdf96cdca577833ee25f42d428927cc0d445d1570458f691facf201f8264c95ca23e187ed0818c2002d236a2bddc388cf95d0ff2680d303594601d49697a1a589be1f747e75de1f3e22143ae02011674a67870bba358a52fac47f8033f7b6a28714e90480b770baa5b628e93b480d51a339d1bff56d62fc9831510d2caeafec699bbb2b2de682755871239d6a08cef137f64c855b6b282b3aa6ba23d27f4f91fafdfde044575703dabcc3c259e5930fe1dccae19beb85513d1901b11938563609ae03a96a439d771dab07c8363dbe6910820387999e9be37d155072ec7e6cbd50ff8881139092a7ae3178c1b606ea48a2e976f70b43efe17d99ad8bd159816862c3961279a6b1278ba56dcf4ed7ccee05cbaa7d7bf0cee2da92c0f9e75812ffedc7bfbc12578eca85e900c0bec270745245c4f63d93b9b82cdfcc0b91602a8b47c27bf549ffd8c17ce120a02b7dfe3562b83dbdcf49b11476aad187da6aa3deaa53f6f794ff160a6909be5825e25f9d8f4194fd6fdd4361bdeed98c087e242d81d5f12c8825af9edabb49f0e183a57c2acdc23822beeea5d34e6c04b1854e72cdd8a6df25329b720543d1da1a9694b424cc008c658da22f163aeb33069ed3661c1ed22303ae979ec0be5b093d8dbf284407b84fc105fa0ff81d68ebff3e321ecb8458af69400b111415ab059af5f031ffe180f91fdf1d7fa0ff21473b6221a2e7836126bd4197d20775c180ec8ef1e6e56d40f180188b60df2ba52b9acb72c9ce79b0ce0a268ba1eaaf1ea393a901f525be402b47c8c3d4fe5c33a96c4a4b4a63146d8d16c2207b7871ab3e913ef75b25a84f5c087346cf8c31ed14d4a305e9949ca3e5acfa51dc0e91615c3754fbb05fc0f41719a47f3c2c23c913692ec7aab270cf635d23b4de6ee92784c8cf3e4b8c7e6d865daf172f770913f7d2d1cabd8c88d24ba925b6bd6b3db5b3135ca6b50c732eac804f38fd0de7a65f3b59f193225c30a4e0d11ded801b1a61917e1780cbac3747bd41c3ccfaf064b28c6f6a53ba2bcb470c1c0adeb0697cd61e4fbc405dd4d086be0e10eb52b562c0cab95b9e17b6b4b8e99650b04e78ec0f8499052ce21f0f44fdd4e2a026bb4b91261228a1cfea1a496f3dc6a6037155364d64d6abab8f9341ecb8cbedc80c1e3baa3748b8fbd345383943a24b4de53aff52251c2334e244c3cee60495c2c1d7dbab9b3056babec74fccf353486f2d7d274f333b96930a1a6344a6fce9b5d110a9a97ea5521d350dbd680a121c43684e702ed6afca240aa24a9a31d583486127be41ba721f877c0174775f26669e0b08e653ae1a6a0fe8a3ef09e1d34b730ad5c57ad8fc8118caf463684fd824c4bf1a59a45c3a28a596bcc173c2b3dc8a2b0490c4d4cc2e30b84efa5c5d37155c9c0f65059bf543e0702f3b649097c9a64b7029e1870ac14ac607b32261d20cfd763c3eab568186f7c5dc2663928eb76a1a2ea4ca55f4f940cef33007df3c4d38b6c3257fc74d7f49a3fbc474df908e884d071fb3e5705e52226179b446dc2e3b24aa92a4d5cec5c657d635916487b02ad054bb8ede02991d38443b7b07dd8738567f4763bd174662749ed8bf5ec90ba16cb33a963ef555cab3026aa441a506e6e336467f2b3956db2993ade08791575020c47afdbbc2b95f7fe0df53d75ad770e3b8402f7115be18bc64bf21ad62953527b20de87102bc585fe64a137938c4c3eb51b675345e590e5de32b9838b0bc8a37b97a756ecc4fab4bb00715497307da153102bf10a8833198f9605f61d3064761ffa07fb47ff7460ba71cfe1195e6eb592db58290476894f10fe595575900324d884b8da08929ad72efa44c0ac8a2ae24d30e63e141393a98f00931f3e692419db5c6ef2deb97ec76c62aa7bf8a981a158bd45ec4fd3db6df83de8605d1bfb4fc007131ab5151a14fd95d5913b160273a1365aefd0b48d00665ad4d2c3fdbf3d4844cf929ab88033c2e6c14c776b42cc	7017	1795621773971
\.


--
-- Data for Name: leases; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.leases (name, holder, expires_at_ms) FROM stdin;
catalog_sync	vm:34769:28528	0
\.


--
-- Data for Name: lost_link_requests; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.lost_link_requests (email, requested_at_ms, state, attempts, next_attempt_ms, last_error, language) FROM stdin;
\.


--
-- Data for Name: markup_rules; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.markup_rules (id, scope_kind, scope_value, markup_bps, fixed_cents, price_ending, min_margin_cents, updated_at_ms) FROM stdin;
\.


--
-- Data for Name: order_link_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.order_link_tokens (purchase_id, token_hash, created_at_ms, revoked_at_ms) FROM stdin;
5052ca635adb8387e073	c5cef967497b0186ead7564b254dd2cc18e44c1853a8f82ff70679c14c23f6fd	1795621771940	\N
9e3ccd8ee02a6d4492fb	4e986876a26780b6224393053b9b57ee70151137720982896129182c5c5ede5d	1795621772005	\N
5052ca635adb8387e073	7ef28079aee359d2ca8aef31d2d6f539603af6adeb35c250528aad05b4698490	1795621772040	\N
5206f3047e2c183719db	2a0e4851fa7dcbd3da10da3d430a1972fce0fe2c121ea99f03c1deb6a60a8183	1795621772051	\N
9e3ccd8ee02a6d4492fb	1184a60a2fae06f617ba93dfb0842fed8e4f7f8f257e4a3288e21bc105cbc7e6	1795621772094	\N
5206f3047e2c183719db	f519e0ae512f3d396ded9dc50492fbb0d2614927da5b7f63a94f5fee73821f79	1795621772199	\N
9e3ccd8ee02a6d4492fb	ede53a1b1017f8ab5f53124e85b069d83772e45ce85b3731b0e39372c96eefa3	1795621773375	\N
5052ca635adb8387e073	238cf496ac8cf1b71e7d5d0a76a247de8c6b89b9993253cd0b75413925d5dd8a	1795621773759	\N
5206f3047e2c183719db	b3f6534e5e88841b45fcc4acd3224fce476589e773e89dff8a7779f1c3fdd6db	1795621774030	\N
8ce08cb6e4c2aa0374db	987c5693a6b845a8de3d82c87b13d9266e158f5b1da6e15cd110c01a5cd5f058	1795621775733	\N
8ce08cb6e4c2aa0374db	0269476f8cafec49fca6b16531b708a022ea01010c9019fb2e9d4467493e1a55	1795621777063	\N
\.


--
-- Data for Name: outbox_attempts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.outbox_attempts (id, job_id, attempt, started_at_ms, finished_at_ms, outcome, detail) FROM stdin;
1	1	1	1795621772019	1795621772030	accepted	order ord_7c117fe1018b9805
2	2	1	1795621772029	1795621772067	sent	email_payment_received sent
3	3	1	1795621772088	1795621772107	accepted	order ord_669065d76e09a1a0
4	4	1	1795621772087	1795621772148	sent	email_payment_received sent
5	6	1	1795621772157	1795621772211	accepted	order ord_d998f5f959e6fc9a
6	7	1	1795621772155	1795621772248	sent	email_payment_received sent
7	8	1	1795621773245	1795621773255	fulfilled	esim esim_f3e7d821181aedae
8	10	1	1795621773273	1795621773328	stored	installation of eSIM esim_f3e7d821181aedae stored
9	11	1	1795621773361	1795621773398	sent	email_esim_ready sent
10	5	1	1795621773674	1795621773679	fulfilled	esim esim_678fd0f2e8440b56
11	12	1	1795621773687	1795621773744	stored	installation of eSIM esim_678fd0f2e8440b56 stored
12	13	1	1795621773755	1795621773767	sent	email_esim_ready sent
13	9	1	1795621773924	1795621773934	fulfilled	esim esim_b4ab8ee3ed8fb318
14	14	1	1795621773941	1795621773999	stored	installation of eSIM esim_b4ab8ee3ed8fb318 stored
15	15	1	1795621774019	1795621774045	sent	email_esim_ready sent
16	17	1	1795621777059	1795621777073	sent	email_payment_received sent
17	16	1	1795621777063	1795621777087	unknown	upstream Connect (Unknown): error sending request: client error (Connect): tcp connect error: Connection refused (os error 111)
18	16	2	1795621778682	1795621778688	unknown	upstream Connect (Unknown): error sending request: client error (Connect): tcp connect error: Connection refused (os error 111)
\.


--
-- Data for Name: outbox_jobs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.outbox_jobs (id, kind, purchase_id, state, attempts, run_at_ms, lease_owner, lease_expires_at_ms, last_error, outcome, created_at_ms, updated_at_ms) FROM stdin;
1	place_order	5052ca635adb8387e073	done	1	1795621771972	\N	\N	\N	accepted	1795621771972	1795621772030
2	email_payment_received	5052ca635adb8387e073	done	1	1795621771972	\N	\N	\N	sent	1795621771972	1795621772067
3	place_order	9e3ccd8ee02a6d4492fb	done	1	1795621772037	\N	\N	\N	accepted	1795621772037	1795621772107
4	email_payment_received	9e3ccd8ee02a6d4492fb	done	1	1795621772037	\N	\N	\N	sent	1795621772037	1795621772148
6	place_order	5206f3047e2c183719db	done	1	1795621772089	\N	\N	\N	accepted	1795621772089	1795621772211
7	email_payment_received	5206f3047e2c183719db	done	1	1795621772089	\N	\N	\N	sent	1795621772089	1795621772248
8	track_order	9e3ccd8ee02a6d4492fb	done	1	1795621773240	\N	\N	\N	fulfilled	1795621772107	1795621773255
10	fetch_installation	9e3ccd8ee02a6d4492fb	done	1	1795621773255	\N	\N	\N	stored	1795621773255	1795621773328
11	email_esim_ready	9e3ccd8ee02a6d4492fb	done	1	1795621773328	\N	\N	\N	sent	1795621773328	1795621773398
5	track_order	5052ca635adb8387e073	done	1	1795621773659	\N	\N	\N	fulfilled	1795621772030	1795621773679
12	fetch_installation	5052ca635adb8387e073	done	1	1795621773679	\N	\N	\N	stored	1795621773679	1795621773744
13	email_esim_ready	5052ca635adb8387e073	done	1	1795621773744	\N	\N	\N	sent	1795621773744	1795621773767
9	track_order	5206f3047e2c183719db	done	1	1795621773917	\N	\N	\N	fulfilled	1795621772211	1795621773934
14	fetch_installation	5206f3047e2c183719db	done	1	1795621773934	\N	\N	\N	stored	1795621773934	1795621773999
15	email_esim_ready	5206f3047e2c183719db	done	1	1795621773999	\N	\N	\N	sent	1795621773999	1795621774045
17	email_payment_received	8ce08cb6e4c2aa0374db	done	1	1795621777027	\N	\N	\N	sent	1795621777027	1795621777073
16	place_order	8ce08cb6e4c2aa0374db	queued	2	1795621782468	\N	\N	unknown: upstream Connect (Unknown): error sending request: client error (Connect): tcp connect error: Connection refused (os error 111)	\N	1795621777027	1795621778688
\.


--
-- Data for Name: payment_events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.payment_events (id, provider, kind, purchase_id, received_at_ms) FROM stdin;
demo:evt_demo_84c8f7cce8bca72f799079e90ef3811e	demo	paid	5052ca635adb8387e073	1795621771972
demo:evt_demo_ce5739a839d4a31107b4a93f15ae5272	demo	paid	9e3ccd8ee02a6d4492fb	1795621772037
demo:evt_demo_12b0fdb1fe284845355953021b28e008	demo	paid	5206f3047e2c183719db	1795621772089
demo:evt_demo_d204927eab2900cbd4abea9ab44fc9c7	demo	paid	8ce08cb6e4c2aa0374db	1795621777027
\.


--
-- Data for Name: promo_codes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.promo_codes (code, kind, value, starts_at_ms, ends_at_ms, max_uses, max_uses_per_email, scope_kind, scope_value, used_count, disabled_at_ms, created_at_ms, created_by) FROM stdin;
\.


--
-- Data for Name: promo_redemptions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.promo_redemptions (purchase_id, code, email_key, state, reserved_until_ms, created_at_ms, used_at_ms) FROM stdin;
\.


--
-- Data for Name: purchase_events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.purchase_events (id, purchase_id, at_ms, from_status, to_status, note) FROM stdin;
1	5052ca635adb8387e073	1795621771940	\N	awaiting_payment	checkout started
2	5052ca635adb8387e073	1795621771972	awaiting_payment	paid	payment confirmed by the provider
3	9e3ccd8ee02a6d4492fb	1795621772005	\N	awaiting_payment	checkout started
4	9e3ccd8ee02a6d4492fb	1795621772037	awaiting_payment	paid	payment confirmed by the provider
5	5206f3047e2c183719db	1795621772051	\N	awaiting_payment	checkout started
6	5052ca635adb8387e073	1795621772030	paid	ordered	upstream accepted order ord_7c117fe1018b9805 (reference sf-5052ca635adb8387e073, key generation 0)
7	5206f3047e2c183719db	1795621772089	awaiting_payment	paid	payment confirmed by the provider
8	9e3ccd8ee02a6d4492fb	1795621772107	paid	ordered	upstream accepted order ord_669065d76e09a1a0 (reference sf-9e3ccd8ee02a6d4492fb, key generation 0)
9	5206f3047e2c183719db	1795621772211	paid	ordered	upstream accepted order ord_d998f5f959e6fc9a (reference sf-5206f3047e2c183719db, key generation 0)
10	9e3ccd8ee02a6d4492fb	1795621773328	ordered	fulfilled	installation details stored; ready to install
11	5052ca635adb8387e073	1795621773744	ordered	fulfilled	installation details stored; ready to install
12	5206f3047e2c183719db	1795621773999	ordered	fulfilled	installation details stored; ready to install
13	8ce08cb6e4c2aa0374db	1795621775733	\N	awaiting_payment	checkout started
14	8ce08cb6e4c2aa0374db	1795621777027	awaiting_payment	paid	payment confirmed by the provider
\.


--
-- Data for Name: purchases; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.purchases (id, status, email, plan_id, price_cents, cost_cents, reference, idempotency_key, key_generation, upstream_order_id, upstream_status, esim_id, access_token_hash, payment_provider, payment_session_id, payment_reference, expires_at_ms, paid_at_ms, created_at_ms, updated_at_ms, promo_code, list_price_cents, discount_cents, language) FROM stdin;
9e3ccd8ee02a6d4492fb	fulfilled	upgrade-postgres-1@container.invalid	p31-base	110	88	sf-9e3ccd8ee02a6d4492fb	sf-5DVmfqHfC33NkqN7Dr5nKdJ1EgltxjE8	0	ord_669065d76e09a1a0	fulfilled	esim_f3e7d821181aedae	4e986876a26780b6224393053b9b57ee70151137720982896129182c5c5ede5d	demo	demo_cs_caa04ac00ab14b4be1d523315660568f	demo_pay_demo_cs_caa04ac00ab14b4be1d523315660568f	1795623572005	1795621772037	1795621772005	1795621773328	\N	\N	\N	en
5052ca635adb8387e073	fulfilled	upgrade-postgres-0@container.invalid	p31-base	110	88	sf-5052ca635adb8387e073	sf-S4VlGSVsfyRbgVSOdx3ccncI0LWV6r1X	0	ord_7c117fe1018b9805	fulfilled	esim_678fd0f2e8440b56	c5cef967497b0186ead7564b254dd2cc18e44c1853a8f82ff70679c14c23f6fd	demo	demo_cs_0721c4ab001f687a2dfd7d33564457a0	demo_pay_demo_cs_0721c4ab001f687a2dfd7d33564457a0	1795623571940	1795621771972	1795621771940	1795621773744	\N	\N	\N	en
5206f3047e2c183719db	fulfilled	upgrade-postgres-2@container.invalid	p31-base	110	88	sf-5206f3047e2c183719db	sf-8ahhOYIkbWoScUUa16RicVi6O6QFwO3N	0	ord_d998f5f959e6fc9a	fulfilled	esim_b4ab8ee3ed8fb318	2a0e4851fa7dcbd3da10da3d430a1972fce0fe2c121ea99f03c1deb6a60a8183	demo	demo_cs_f8cdfc7299da47c06ce6d4205e261bc9	demo_pay_demo_cs_f8cdfc7299da47c06ce6d4205e261bc9	1795623572051	1795621772089	1795621772051	1795621773999	\N	\N	\N	en
8ce08cb6e4c2aa0374db	paid	upgrade-pending@container.invalid	p31-base	110	88	sf-8ce08cb6e4c2aa0374db	sf-vFtTf1vHUYROgpBZy0Z0vnpiERkJ955T	0	\N	\N	\N	987c5693a6b845a8de3d82c87b13d9266e158f5b1da6e15cd110c01a5cd5f058	demo	demo_cs_6354dd7e52534556d9e83f796cbd8739	demo_pay_demo_cs_6354dd7e52534556d9e83f796cbd8739	1795623575733	1795621777027	1795621775733	1795621777027	\N	\N	\N	en
\.


--
-- Data for Name: refunds; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.refunds (id, purchase_id, amount_cents, idempotency_key, provider_refund_id, status, reason, created_at_ms, updated_at_ms, cause, keeps_cost) FROM stdin;
\.


--
-- Data for Name: shop_settings; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.shop_settings (name, value, updated_at_ms) FROM stdin;
\.


--
-- Data for Name: supplier_account; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.supplier_account (id, key_fingerprint, account_id, name, email, environment, scopes, key_expires_at, key_expires_at_ms, webhook_enabled, checked_at_ms, attempted_at_ms, last_error) FROM stdin;
1	6cf0f818b0efbbf7d6b17f79f52e468d	acct_sandbox	Sandbox Partner	partner@sandbox.invalid	sandbox	catalog:read balance:read balance:write orders:read orders:write esims:install checkout:write	2027-11-25T15:49:27Z	1827157767000	f	1795621769903	1795621769903	\N
\.


--
-- Data for Name: topups; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.topups (id, nonce, idempotency_key, amount_cents, created_by, session_id, checkout_url, last_error, created_at_ms, updated_at_ms, confirmed_at_ms) FROM stdin;
\.


--
-- Data for Name: wallet; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.wallet (id, available_cents, reserved_cents, low_balance, sales_paused, refreshed_at_ms, pause_reason) FROM stdin;
1	49736	264	f	f	1795621772301	\N
\.


--
-- Name: admin_audit_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.admin_audit_id_seq', 1, true);


--
-- Name: admin_login_attempts_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.admin_login_attempts_id_seq', 1, false);


--
-- Name: admin_recovery_codes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.admin_recovery_codes_id_seq', 1, false);


--
-- Name: admin_users_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.admin_users_id_seq', 1, true);


--
-- Name: alert_emails_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.alert_emails_id_seq', 1, false);


--
-- Name: alerts_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.alerts_id_seq', 1, false);


--
-- Name: catalog_syncs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.catalog_syncs_id_seq', 1, true);


--
-- Name: markup_rules_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.markup_rules_id_seq', 1, false);


--
-- Name: outbox_attempts_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_attempts_id_seq', 18, true);


--
-- Name: outbox_jobs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_jobs_id_seq', 17, true);


--
-- Name: purchase_events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.purchase_events_id_seq', 14, true);


--
-- Name: topups_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.topups_id_seq', 1, false);


--
-- Name: __diesel_schema_migrations __diesel_schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.__diesel_schema_migrations
    ADD CONSTRAINT __diesel_schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: admin_audit admin_audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_audit
    ADD CONSTRAINT admin_audit_pkey PRIMARY KEY (id);


--
-- Name: admin_login_attempts admin_login_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_login_attempts
    ADD CONSTRAINT admin_login_attempts_pkey PRIMARY KEY (id);


--
-- Name: admin_recovery_codes admin_recovery_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_recovery_codes
    ADD CONSTRAINT admin_recovery_codes_pkey PRIMARY KEY (id);


--
-- Name: admin_sessions admin_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_sessions
    ADD CONSTRAINT admin_sessions_pkey PRIMARY KEY (id_hash);


--
-- Name: admin_totp admin_totp_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_totp
    ADD CONSTRAINT admin_totp_pkey PRIMARY KEY (user_id);


--
-- Name: admin_users admin_users_email_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_users
    ADD CONSTRAINT admin_users_email_key UNIQUE (email);


--
-- Name: admin_users admin_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_users
    ADD CONSTRAINT admin_users_pkey PRIMARY KEY (id);


--
-- Name: alert_emails alert_emails_alert_id_recipient_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_emails
    ADD CONSTRAINT alert_emails_alert_id_recipient_key UNIQUE (alert_id, recipient);


--
-- Name: alert_emails alert_emails_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_emails
    ADD CONSTRAINT alert_emails_pkey PRIMARY KEY (id);


--
-- Name: alerts alerts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alerts
    ADD CONSTRAINT alerts_pkey PRIMARY KEY (id);


--
-- Name: catalog_countries catalog_countries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.catalog_countries
    ADD CONSTRAINT catalog_countries_pkey PRIMARY KEY (code);


--
-- Name: catalog_plans catalog_plans_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.catalog_plans
    ADD CONSTRAINT catalog_plans_pkey PRIMARY KEY (id);


--
-- Name: catalog_regions catalog_regions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.catalog_regions
    ADD CONSTRAINT catalog_regions_pkey PRIMARY KEY (slug);


--
-- Name: catalog_syncs catalog_syncs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.catalog_syncs
    ADD CONSTRAINT catalog_syncs_pkey PRIMARY KEY (id);


--
-- Name: checkout_holds checkout_holds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.checkout_holds
    ADD CONSTRAINT checkout_holds_pkey PRIMARY KEY (purchase_id);


--
-- Name: display_rates display_rates_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.display_rates
    ADD CONSTRAINT display_rates_pkey PRIMARY KEY (currency);


--
-- Name: installations installations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.installations
    ADD CONSTRAINT installations_pkey PRIMARY KEY (purchase_id);


--
-- Name: leases leases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leases
    ADD CONSTRAINT leases_pkey PRIMARY KEY (name);


--
-- Name: lost_link_requests lost_link_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lost_link_requests
    ADD CONSTRAINT lost_link_requests_pkey PRIMARY KEY (email);


--
-- Name: markup_rules markup_rules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.markup_rules
    ADD CONSTRAINT markup_rules_pkey PRIMARY KEY (id);


--
-- Name: markup_rules markup_rules_scope_kind_scope_value_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.markup_rules
    ADD CONSTRAINT markup_rules_scope_kind_scope_value_key UNIQUE (scope_kind, scope_value);


--
-- Name: order_link_tokens order_link_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.order_link_tokens
    ADD CONSTRAINT order_link_tokens_pkey PRIMARY KEY (purchase_id, token_hash);


--
-- Name: outbox_attempts outbox_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox_attempts
    ADD CONSTRAINT outbox_attempts_pkey PRIMARY KEY (id);


--
-- Name: outbox_jobs outbox_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox_jobs
    ADD CONSTRAINT outbox_jobs_pkey PRIMARY KEY (id);


--
-- Name: payment_events payment_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payment_events
    ADD CONSTRAINT payment_events_pkey PRIMARY KEY (id);


--
-- Name: promo_codes promo_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.promo_codes
    ADD CONSTRAINT promo_codes_pkey PRIMARY KEY (code);


--
-- Name: promo_redemptions promo_redemptions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.promo_redemptions
    ADD CONSTRAINT promo_redemptions_pkey PRIMARY KEY (purchase_id);


--
-- Name: purchase_events purchase_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.purchase_events
    ADD CONSTRAINT purchase_events_pkey PRIMARY KEY (id);


--
-- Name: purchases purchases_access_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.purchases
    ADD CONSTRAINT purchases_access_token_hash_key UNIQUE (access_token_hash);


--
-- Name: purchases purchases_idempotency_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.purchases
    ADD CONSTRAINT purchases_idempotency_key_key UNIQUE (idempotency_key);


--
-- Name: purchases purchases_payment_session_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.purchases
    ADD CONSTRAINT purchases_payment_session_id_key UNIQUE (payment_session_id);


--
-- Name: purchases purchases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.purchases
    ADD CONSTRAINT purchases_pkey PRIMARY KEY (id);


--
-- Name: purchases purchases_reference_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.purchases
    ADD CONSTRAINT purchases_reference_key UNIQUE (reference);


--
-- Name: purchases purchases_upstream_order_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.purchases
    ADD CONSTRAINT purchases_upstream_order_id_key UNIQUE (upstream_order_id);


--
-- Name: refunds refunds_idempotency_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refunds
    ADD CONSTRAINT refunds_idempotency_key_key UNIQUE (idempotency_key);


--
-- Name: refunds refunds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refunds
    ADD CONSTRAINT refunds_pkey PRIMARY KEY (id);


--
-- Name: refunds refunds_purchase_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refunds
    ADD CONSTRAINT refunds_purchase_id_key UNIQUE (purchase_id);


--
-- Name: shop_settings shop_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.shop_settings
    ADD CONSTRAINT shop_settings_pkey PRIMARY KEY (name);


--
-- Name: supplier_account supplier_account_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_account
    ADD CONSTRAINT supplier_account_pkey PRIMARY KEY (id);


--
-- Name: topups topups_idempotency_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.topups
    ADD CONSTRAINT topups_idempotency_key_key UNIQUE (idempotency_key);


--
-- Name: topups topups_nonce_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.topups
    ADD CONSTRAINT topups_nonce_key UNIQUE (nonce);


--
-- Name: topups topups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.topups
    ADD CONSTRAINT topups_pkey PRIMARY KEY (id);


--
-- Name: wallet wallet_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.wallet
    ADD CONSTRAINT wallet_pkey PRIMARY KEY (id);


--
-- Name: admin_audit_actor; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX admin_audit_actor ON public.admin_audit USING btree (action, actor, at_ms);


--
-- Name: admin_audit_client_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX admin_audit_client_key ON public.admin_audit USING btree (action, client_key, at_ms);


--
-- Name: admin_login_attempts_actor; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX admin_login_attempts_actor ON public.admin_login_attempts USING btree (kind, actor, at_ms);


--
-- Name: admin_login_attempts_client; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX admin_login_attempts_client ON public.admin_login_attempts USING btree (kind, client_key, at_ms);


--
-- Name: admin_recovery_codes_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX admin_recovery_codes_user ON public.admin_recovery_codes USING btree (user_id, code_hash);


--
-- Name: admin_sessions_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX admin_sessions_user ON public.admin_sessions USING btree (user_id);


--
-- Name: alert_emails_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alert_emails_due ON public.alert_emails USING btree (state, next_attempt_ms);


--
-- Name: alerts_open; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alerts_open ON public.alerts USING btree (resolved_at_ms, id);


--
-- Name: catalog_plans_country; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX catalog_plans_country ON public.catalog_plans USING btree (country_code);


--
-- Name: checkout_holds_client; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX checkout_holds_client ON public.checkout_holds USING btree (client_key, expires_at_ms);


--
-- Name: checkout_holds_email; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX checkout_holds_email ON public.checkout_holds USING btree (email_key, expires_at_ms);


--
-- Name: checkout_holds_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX checkout_holds_expiry ON public.checkout_holds USING btree (expires_at_ms);


--
-- Name: installations_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX installations_key ON public.installations USING btree (key_id, purchase_id);


--
-- Name: lost_link_requests_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lost_link_requests_due ON public.lost_link_requests USING btree (state, next_attempt_ms);


--
-- Name: outbox_attempts_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_attempts_job ON public.outbox_attempts USING btree (job_id, id);


--
-- Name: outbox_jobs_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_jobs_due ON public.outbox_jobs USING btree (state, run_at_ms);


--
-- Name: outbox_jobs_one_open; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX outbox_jobs_one_open ON public.outbox_jobs USING btree (purchase_id, kind) WHERE (state = ANY (ARRAY['queued'::text, 'running'::text]));


--
-- Name: promo_redemptions_code; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX promo_redemptions_code ON public.promo_redemptions USING btree (code, state, reserved_until_ms);


--
-- Name: promo_redemptions_email; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX promo_redemptions_email ON public.promo_redemptions USING btree (code, email_key);


--
-- Name: purchase_events_purchase; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX purchase_events_purchase ON public.purchase_events USING btree (purchase_id, id);


--
-- Name: purchases_email; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX purchases_email ON public.purchases USING btree (email);


--
-- Name: purchases_email_lower; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX purchases_email_lower ON public.purchases USING btree (lower(email));


--
-- Name: purchases_status_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX purchases_status_expires ON public.purchases USING btree (status, expires_at_ms);


--
-- Name: purchases_status_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX purchases_status_updated ON public.purchases USING btree (status, updated_at_ms);


--
-- Name: admin_audit admin_audit_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_audit
    ADD CONSTRAINT admin_audit_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.admin_users(id);


--
-- Name: admin_recovery_codes admin_recovery_codes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_recovery_codes
    ADD CONSTRAINT admin_recovery_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.admin_users(id);


--
-- Name: admin_sessions admin_sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_sessions
    ADD CONSTRAINT admin_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.admin_users(id);


--
-- Name: admin_totp admin_totp_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_totp
    ADD CONSTRAINT admin_totp_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.admin_users(id);


--
-- Name: alert_emails alert_emails_alert_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_emails
    ADD CONSTRAINT alert_emails_alert_id_fkey FOREIGN KEY (alert_id) REFERENCES public.alerts(id);


--
-- Name: alerts alerts_purchase_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alerts
    ADD CONSTRAINT alerts_purchase_id_fkey FOREIGN KEY (purchase_id) REFERENCES public.purchases(id);


--
-- Name: checkout_holds checkout_holds_purchase_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.checkout_holds
    ADD CONSTRAINT checkout_holds_purchase_id_fkey FOREIGN KEY (purchase_id) REFERENCES public.purchases(id);


--
-- Name: installations installations_purchase_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.installations
    ADD CONSTRAINT installations_purchase_id_fkey FOREIGN KEY (purchase_id) REFERENCES public.purchases(id);


--
-- Name: order_link_tokens order_link_tokens_purchase_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.order_link_tokens
    ADD CONSTRAINT order_link_tokens_purchase_id_fkey FOREIGN KEY (purchase_id) REFERENCES public.purchases(id);


--
-- Name: outbox_attempts outbox_attempts_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox_attempts
    ADD CONSTRAINT outbox_attempts_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.outbox_jobs(id);


--
-- Name: outbox_jobs outbox_jobs_purchase_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox_jobs
    ADD CONSTRAINT outbox_jobs_purchase_id_fkey FOREIGN KEY (purchase_id) REFERENCES public.purchases(id);


--
-- Name: payment_events payment_events_purchase_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payment_events
    ADD CONSTRAINT payment_events_purchase_id_fkey FOREIGN KEY (purchase_id) REFERENCES public.purchases(id);


--
-- Name: promo_redemptions promo_redemptions_code_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.promo_redemptions
    ADD CONSTRAINT promo_redemptions_code_fkey FOREIGN KEY (code) REFERENCES public.promo_codes(code);


--
-- Name: promo_redemptions promo_redemptions_purchase_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.promo_redemptions
    ADD CONSTRAINT promo_redemptions_purchase_id_fkey FOREIGN KEY (purchase_id) REFERENCES public.purchases(id);


--
-- Name: purchase_events purchase_events_purchase_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.purchase_events
    ADD CONSTRAINT purchase_events_purchase_id_fkey FOREIGN KEY (purchase_id) REFERENCES public.purchases(id);


--
-- Name: refunds refunds_purchase_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refunds
    ADD CONSTRAINT refunds_purchase_id_fkey FOREIGN KEY (purchase_id) REFERENCES public.purchases(id);


--
-- Name: topups topups_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.topups
    ADD CONSTRAINT topups_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.admin_users(id);


--
-- PostgreSQL database dump complete
--

\unrestrict CmcZVRAakRgBEPZU0QWMS11iLOuWI9oDpUfCxK1pVfb9GuHQmuQUEuFdfBS4kVW

