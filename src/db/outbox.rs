//! Queries of the outbox: claiming a due job under a lease, settling it with an attempt row,
//! waking jobs early, and the upstream `Retry-After` gate that every replica honours.
//!
//! A claim is one short write transaction. PostgreSQL picks the candidate with
//! `FOR UPDATE SKIP LOCKED`, so concurrent workers on any replica take different rows without
//! waiting on each other; SQLite has one writer at a time (`BEGIN IMMEDIATE`), so the same
//! SELECT without the locking clause is already exclusive. Both then run the same conditional
//! `UPDATE … RETURNING` by id and observed state. The select comes first (rather than a single
//! `UPDATE … WHERE id = (SELECT …)`) because a reclaimed stale lease must leave a trace: the
//! previous holder's attempt is written as `lease_expired`, which needs the row's OLD state.
//!
//! Settling is conditional on the lease token, so a worker that lost its lease (it ran past
//! the lease and another worker reclaimed the job) cannot overwrite the newer outcome.
//!
//! On PostgreSQL every write that makes a job due ([`insert_job`], [`wake_by_order`]) also
//! sends `NOTIFY` on [`WAKE_CHANNEL`] in the caller's transaction. PostgreSQL delivers it at
//! commit and drops it on rollback, so a listening replica never wakes for work it cannot see
//! yet; identical notifications of one transaction reach listeners once.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text};

use crate::db::schema::{leases, outbox_attempts, outbox_jobs, purchases};
use crate::db::{DbBackend, DbConn, DbError, SelectOf};
use crate::domain::job::JobKind;
use crate::domain::purchase::PurchaseId;

/// Job states (the `outbox_jobs.state` CHECK).
pub const QUEUED: &str = "queued";
pub const RUNNING: &str = "running";
pub const DONE: &str = "done";
pub const DEAD: &str = "dead";

/// Name of the row in `leases` that holds the upstream `Retry-After` gate: its
/// `expires_at_ms` is when requests may go upstream again, for every replica.
pub const UPSTREAM_GATE: &str = "upstream.retry_after";

/// Job kinds that never call the Partner API and so ignore its gate.
pub const GATE_EXEMPT_KIND: &str = JobKind::Refund.as_str();

/// The PostgreSQL channel on which committed due work is announced to every replica's
/// listener (`orders::outbox` wakes its workers on it). Channels are per database, so shops
/// sharing a server do not wake each other.
pub const WAKE_CHANNEL: &str = "storefront_outbox";

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = outbox_jobs)]
pub struct Job {
    pub id: i64,
    pub kind: String,
    pub purchase_id: PurchaseId,
    pub state: String,
    pub attempts: i32,
    pub run_at_ms: i64,
    pub lease_owner: Option<String>,
    pub lease_expires_at_ms: Option<i64>,
    pub last_error: Option<String>,
    pub outcome: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = outbox_attempts)]
pub struct Attempt {
    pub id: i64,
    pub job_id: i64,
    pub attempt: i32,
    pub started_at_ms: i64,
    pub finished_at_ms: i64,
    pub outcome: String,
    pub detail: String,
}

/// A job this worker holds: `lease` is the token every later write must present.
#[derive(Debug, Clone, PartialEq)]
pub struct LeasedJob {
    pub job: Job,
    pub lease: String,
}

#[derive(QueryableByName)]
struct Candidate {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    state: String,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Nullable<Text>)]
    lease_owner: Option<String>,
}

/// The claim's search for the oldest due job of one kind (binds: the kind, now). Public for
/// the query-plan test, which explains exactly this text. One entry of the partial index
/// `outbox_jobs_queued_kind` answers it however many jobs of that kind are due.
pub const CLAIM_QUEUED_POSTGRES: &str = "SELECT id, state, attempts, lease_owner FROM outbox_jobs \
     WHERE state = 'queued' AND kind = $1 AND run_at_ms <= $2 \
     ORDER BY run_at_ms, id LIMIT 1 FOR UPDATE SKIP LOCKED";

/// [`CLAIM_QUEUED_POSTGRES`] for SQLite (no row locks: the write transaction is the lock).
pub const CLAIM_QUEUED_SQLITE: &str = "SELECT id, state, attempts, lease_owner FROM outbox_jobs \
     WHERE state = 'queued' AND kind = ?1 AND run_at_ms <= ?2 \
     ORDER BY run_at_ms, id LIMIT 1";

/// The claim's search for a running job of one kind whose lease expired (binds: the kind,
/// now): read from the small partial index of running jobs.
pub const CLAIM_EXPIRED_POSTGRES: &str = "SELECT id, state, attempts, lease_owner FROM outbox_jobs \
     WHERE state = 'running' AND lease_expires_at_ms <= $2 AND kind = $1 \
     ORDER BY lease_expires_at_ms, id LIMIT 1 FOR UPDATE SKIP LOCKED";

/// [`CLAIM_EXPIRED_POSTGRES`] for SQLite.
pub const CLAIM_EXPIRED_SQLITE: &str = "SELECT id, state, attempts, lease_owner FROM outbox_jobs \
     WHERE state = 'running' AND lease_expires_at_ms <= ?2 AND kind = ?1 \
     ORDER BY lease_expires_at_ms, id LIMIT 1";

/// Which jobs a worker claims. Placement has workers of its own, so `POST /orders` never
/// waits behind tracking polls and emails while upstream is slow, nor they behind it; the
/// reminders have theirs, so a backlog of them (after the mail server was down, or a copy of
/// a shop) never holds up an order's own work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// `place_order` jobs only.
    Placement,
    /// The rest of an order's work: tracking, installation fetch, refunds, its emails.
    Other,
    /// Reminders: before a trip, of an unfinished checkout.
    Reminders,
    /// Any job, placements first (tests and the CLI's one-off runs).
    Any,
}

impl Lane {
    /// The kinds this lane claims, in the order it looks for due work: what a customer waits
    /// on first.
    pub fn kinds(self) -> &'static [JobKind] {
        const PLACEMENT: &[JobKind] = &[JobKind::PlaceOrder];
        const OTHER: &[JobKind] = &[
            JobKind::FetchInstallation,
            JobKind::Refund,
            JobKind::EmailPaymentReceived,
            JobKind::EmailEsimReady,
            JobKind::EmailRefunded,
            JobKind::TrackOrder,
        ];
        const REMINDERS: &[JobKind] = &[JobKind::EmailTripReminder, JobKind::EmailCheckoutReminder];
        const ANY: &[JobKind] = &[
            JobKind::PlaceOrder,
            JobKind::FetchInstallation,
            JobKind::Refund,
            JobKind::EmailPaymentReceived,
            JobKind::EmailEsimReady,
            JobKind::EmailRefunded,
            JobKind::TrackOrder,
            JobKind::EmailTripReminder,
            JobKind::EmailCheckoutReminder,
        ];
        match self {
            Self::Placement => PLACEMENT,
            Self::Other => OTHER,
            Self::Reminders => REMINDERS,
            Self::Any => ANY,
        }
    }
}

/// Inserts a queued `kind` job for `purchase_id`, due at `run_at_ms`, unless a job of that
/// kind is already open (queued or running) for the purchase; returns whether one was
/// inserted. A new job is announced to other replicas ([`announce`]) when the caller's
/// transaction commits.
pub fn insert_job(
    conn: &mut DbConn,
    kind: &str,
    purchase_id: &PurchaseId,
    run_at_ms: i64,
    now_ms: i64,
) -> Result<bool, DbError> {
    let inserted = crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(outbox_jobs::table)
            .values((
                outbox_jobs::kind.eq(kind),
                outbox_jobs::purchase_id.eq(purchase_id),
                outbox_jobs::state.eq(QUEUED),
                outbox_jobs::run_at_ms.eq(run_at_ms),
                outbox_jobs::created_at_ms.eq(now_ms),
                outbox_jobs::updated_at_ms.eq(now_ms),
            ))
            .on_conflict_do_nothing()
            .execute(c)
    })?;
    if inserted == 1 {
        announce(conn)?;
    }
    Ok(inserted == 1)
}

/// Tells the outbox workers of every replica that work became due: on PostgreSQL a
/// `NOTIFY` on [`WAKE_CHANNEL`], delivered when the caller's transaction commits (at once
/// outside one). On SQLite there is one host and nothing to send: the enqueuing process
/// wakes its own workers, and other processes on the file poll.
pub fn announce(conn: &mut DbConn) -> Result<(), DbError> {
    if let DbConn::Postgres(pg) = conn {
        diesel::sql_query("SELECT pg_notify($1, '')")
            .bind::<Text, _>(WAKE_CHANNEL)
            .execute(pg)?;
    }
    Ok(())
}

/// Claims a due job for `worker` until `now_ms + lease_ms`: a running one whose lease expired
/// (its worker crashed or stalled), or a queued job that is due. Kinds are tried in the lane's
/// order ([`Lane::kinds`]: orders to place first, reminders last), and within a kind the most
/// overdue job goes first. While the upstream gate is closed only jobs that do not call
/// upstream are claimed. Every look is one index entry, so a claim costs the same with a
/// million due jobs as with one.
pub fn claim(
    conn: &mut DbConn,
    worker: &str,
    now_ms: i64,
    lease_ms: i64,
    lane: Lane,
) -> Result<Option<LeasedJob>, DbError> {
    conn.write_tx(|conn| claim_in(conn, worker, now_ms, lease_ms, lane))
}

/// [`claim`] in the caller's write transaction: a worker that has just recorded a job claims
/// its next one in the same transaction (one commit per job instead of two).
pub fn claim_in(
    conn: &mut DbConn,
    worker: &str,
    now_ms: i64,
    lease_ms: i64,
    lane: Lane,
) -> Result<Option<LeasedJob>, DbError> {
    {
        let Some(candidate) = candidate(conn, now_ms, lane)? else {
            return Ok(None);
        };
        let attempt = candidate.attempts.saturating_add(1);
        let lease = format!("{worker}/{}/{attempt}", candidate.id);
        let job: Option<Job> = diesel::update(
            outbox_jobs::table
                .filter(outbox_jobs::id.eq(candidate.id))
                .filter(outbox_jobs::state.eq(&candidate.state)),
        )
        .set((
            outbox_jobs::state.eq(RUNNING),
            outbox_jobs::attempts.eq(attempt),
            outbox_jobs::lease_owner.eq(&lease),
            outbox_jobs::lease_expires_at_ms.eq(now_ms.saturating_add(lease_ms)),
            outbox_jobs::updated_at_ms.eq(now_ms),
        ))
        .returning(outbox_jobs::all_columns)
        .get_result(conn)
        .optional()?;
        let Some(job) = job else {
            return Ok(None);
        };
        if candidate.state == RUNNING {
            // The previous holder never recorded an outcome: whatever it sent may or may not
            // have reached upstream, which is exactly an unknown outcome.
            insert_attempt(
                conn,
                job.id,
                candidate.attempts,
                now_ms,
                now_ms,
                "lease_expired",
                &format!(
                    "lease {} expired before an outcome was recorded",
                    candidate.lease_owner.as_deref().unwrap_or("?")
                ),
            )?;
        }
        Ok(Some(LeasedJob { job, lease }))
    }
}

/// The job [`claim_in`] takes, if any is due.
fn candidate(conn: &mut DbConn, now_ms: i64, lane: Lane) -> Result<Option<Candidate>, DbError> {
    let gate_closed = leases::table
        .filter(leases::name.eq(UPSTREAM_GATE))
        .filter(leases::expires_at_ms.gt(now_ms))
        .count()
        .get_result::<i64>(conn)?
        > 0;
    for &kind in lane.kinds() {
        if gate_closed && kind.as_str() != GATE_EXEMPT_KIND {
            continue;
        }
        for (sqlite, postgres) in [
            (CLAIM_EXPIRED_SQLITE, CLAIM_EXPIRED_POSTGRES),
            (CLAIM_QUEUED_SQLITE, CLAIM_QUEUED_POSTGRES),
        ] {
            let found: Option<Candidate> = match conn {
                DbConn::Postgres(pg) => diesel::sql_query(postgres)
                    .bind::<Text, _>(kind.as_str())
                    .bind::<BigInt, _>(now_ms)
                    .get_result(pg)
                    .optional()?,
                DbConn::Sqlite(lite) => diesel::sql_query(sqlite)
                    .bind::<Text, _>(kind.as_str())
                    .bind::<BigInt, _>(now_ms)
                    .get_result(lite)
                    .optional()?,
            };
            if found.is_some() {
                return Ok(found);
            }
        }
    }
    Ok(None)
}

/// What happens to a job after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Finished with this outcome; never runs again.
    Done { outcome: String },
    /// Runs again at `run_at_ms`.
    Retry { run_at_ms: i64, error: String },
    /// Gave up (retries exhausted): kept with its outcome for the admin, never deleted.
    Dead { outcome: String },
}

/// One attempt's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    pub started_at_ms: i64,
    pub outcome: String,
    pub detail: String,
}

/// Settles a leased job and writes its attempt row, in the caller's transaction. Returns
/// `false` (and changes nothing but the attempt row) when the lease was lost; the caller must
/// then roll back or skip its business effects, because another worker owns the job now.
///
/// Call it FIRST in the recording transaction: on PostgreSQL the conditional update locks the
/// job row, so no other worker can reclaim it between this check and the caller's effects.
/// Extends a running job's lease while its worker still holds it; false when the lease was
/// lost (taken over, or the job was settled).
pub fn renew(conn: &mut DbConn, job_id: i64, lease: &str, until_ms: i64) -> Result<bool, DbError> {
    let changed = diesel::update(
        outbox_jobs::table
            .filter(outbox_jobs::id.eq(job_id))
            .filter(outbox_jobs::state.eq(RUNNING))
            .filter(outbox_jobs::lease_owner.eq(lease)),
    )
    .set(outbox_jobs::lease_expires_at_ms.eq(until_ms))
    .execute(conn)?;
    Ok(changed == 1)
}

/// Ends, as of `now_ms`, the leases of the running jobs held by the workers named
/// `{replica}-…` (a replica shutting down whose workers did not finish in time): other
/// replicas claim them at once, recording the attempt as `lease_expired` like any lease that
/// lapsed, instead of waiting out the lease. Tells every replica. Returns how many.
pub fn expire_leases_of(conn: &mut DbConn, replica: &str, now_ms: i64) -> Result<usize, DbError> {
    let expired = diesel::update(
        outbox_jobs::table
            .filter(outbox_jobs::state.eq(RUNNING))
            .filter(outbox_jobs::lease_owner.like(format!("{replica}-%")))
            .filter(outbox_jobs::lease_expires_at_ms.gt(now_ms)),
    )
    .set(outbox_jobs::lease_expires_at_ms.eq(now_ms))
    .execute(conn)?;
    if expired > 0 {
        announce(conn)?;
    }
    Ok(expired)
}

pub fn settle(
    conn: &mut DbConn,
    leased: &LeasedJob,
    next: &Next,
    attempt: &AttemptRecord,
    now_ms: i64,
) -> Result<bool, DbError> {
    let target = outbox_jobs::table
        .filter(outbox_jobs::id.eq(leased.job.id))
        .filter(outbox_jobs::state.eq(RUNNING))
        .filter(outbox_jobs::lease_owner.eq(&leased.lease));
    let no_lease = (
        outbox_jobs::lease_owner.eq(None::<String>),
        outbox_jobs::lease_expires_at_ms.eq(None::<i64>),
        outbox_jobs::updated_at_ms.eq(now_ms),
    );
    let changed = match next {
        Next::Done { outcome } => diesel::update(target)
            .set((
                outbox_jobs::state.eq(DONE),
                outbox_jobs::outcome.eq(outcome),
                no_lease,
            ))
            .execute(conn)?,
        Next::Retry { run_at_ms, error } => diesel::update(target)
            .set((
                outbox_jobs::state.eq(QUEUED),
                outbox_jobs::run_at_ms.eq(*run_at_ms),
                outbox_jobs::last_error.eq(error),
                no_lease,
            ))
            .execute(conn)?,
        Next::Dead { outcome } => diesel::update(target)
            .set((
                outbox_jobs::state.eq(DEAD),
                outbox_jobs::outcome.eq(outcome),
                no_lease,
            ))
            .execute(conn)?,
    };
    let held = changed == 1;
    let outcome = if held {
        attempt.outcome.clone()
    } else {
        format!("lease_lost:{}", attempt.outcome)
    };
    insert_attempt(
        conn,
        leased.job.id,
        leased.job.attempts,
        attempt.started_at_ms,
        now_ms,
        &outcome,
        &attempt.detail,
    )?;
    Ok(held)
}

fn insert_attempt(
    conn: &mut DbConn,
    job_id: i64,
    attempt: i32,
    started_at_ms: i64,
    finished_at_ms: i64,
    outcome: &str,
    detail: &str,
) -> Result<(), DbError> {
    diesel::insert_into(outbox_attempts::table)
        .values((
            outbox_attempts::job_id.eq(job_id),
            outbox_attempts::attempt.eq(attempt),
            outbox_attempts::started_at_ms.eq(started_at_ms),
            outbox_attempts::finished_at_ms.eq(finished_at_ms),
            outbox_attempts::outcome.eq(outcome),
            outbox_attempts::detail.eq(detail),
        ))
        .execute(conn)?;
    Ok(())
}

/// The late work found in one batch of [`drop_late`]: how many queued jobs were due long
/// enough ago, and how many of them ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dropped {
    pub found: usize,
    pub ended: usize,
}

/// Late work that no longer makes sense: ends, as `outcome` with `detail`, up to `limit`
/// queued `kind` jobs that were due before `due_before_ms` (the oldest first), each with an
/// attempt row saying so, in one short write transaction of three statements. Running jobs
/// are left to their workers, and on PostgreSQL so are the queued ones a worker is claiming
/// at that moment (`SKIP LOCKED`): a batch that found `limit` jobs is full even when a
/// worker took some of them.
pub fn drop_late(
    conn: &mut DbConn,
    kind: JobKind,
    due_before_ms: i64,
    limit: i64,
    (outcome, detail): (&str, &str),
    now_ms: i64,
) -> Result<Dropped, DbError> {
    conn.write_tx(|conn| {
        let late: Vec<(i64, i32)> = {
            // The state as a literal, so both planners see the partial index of queued jobs.
            let due = outbox_jobs::table
                .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "state = 'queued'",
                ))
                .filter(outbox_jobs::kind.eq(kind.as_str()))
                .filter(outbox_jobs::run_at_ms.lt(due_before_ms))
                .order((outbox_jobs::run_at_ms, outbox_jobs::id))
                .limit(limit)
                .select((outbox_jobs::id, outbox_jobs::attempts));
            match conn {
                // Rows locked here stay queued until this transaction ends.
                DbConn::Postgres(pg) => due.for_update().skip_locked().load(pg)?,
                // The write transaction is the lock.
                DbConn::Sqlite(lite) => due.load(lite)?,
            }
        };
        let ids: Vec<i64> = late.iter().map(|(id, _)| *id).collect();
        let ended = diesel::update(
            outbox_jobs::table
                .filter(outbox_jobs::id.eq_any(&ids))
                .filter(outbox_jobs::state.eq(QUEUED)),
        )
        .set((
            outbox_jobs::state.eq(DONE),
            outbox_jobs::outcome.eq(outcome),
            outbox_jobs::attempts.eq(outbox_jobs::attempts + 1),
            outbox_jobs::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
        let attempts: Vec<_> = late
            .iter()
            .map(|(id, attempts)| {
                (
                    outbox_attempts::job_id.eq(*id),
                    outbox_attempts::attempt.eq(attempts.saturating_add(1)),
                    outbox_attempts::started_at_ms.eq(now_ms),
                    outbox_attempts::finished_at_ms.eq(now_ms),
                    outbox_attempts::outcome.eq(outcome),
                    outbox_attempts::detail.eq(detail),
                )
            })
            .collect();
        if !attempts.is_empty() {
            crate::with_inner!(&mut *conn, |c| diesel::insert_into(outbox_attempts::table)
                .values(&attempts)
                .execute(c))?;
        }
        Ok(Dropped {
            found: late.len(),
            ended,
        })
    })
}

/// How many recorded attempts of `job_id` ended in one of `outcomes`.
pub fn count_attempts(conn: &mut DbConn, job_id: i64, outcomes: &[&str]) -> Result<i64, DbError> {
    Ok(outbox_attempts::table
        .filter(outbox_attempts::job_id.eq(job_id))
        .filter(outbox_attempts::outcome.eq_any(outcomes))
        .count()
        .get_result(conn)?)
}

/// How many attempts of `job_id` ended in one of `outcomes` after its latest attempt that
/// ended in one of `since` (all of them when none did): "unknown outcomes since the last
/// reconciliation".
pub fn count_attempts_since(
    conn: &mut DbConn,
    job_id: i64,
    outcomes: &[&str],
    since: &[&str],
) -> Result<i64, DbError> {
    let last_marker: Option<i32> = outbox_attempts::table
        .filter(outbox_attempts::job_id.eq(job_id))
        .filter(outbox_attempts::outcome.eq_any(since))
        .select(diesel::dsl::max(outbox_attempts::attempt))
        .first(conn)?;
    Ok(outbox_attempts::table
        .filter(outbox_attempts::job_id.eq(job_id))
        .filter(outbox_attempts::outcome.eq_any(outcomes))
        .filter(outbox_attempts::attempt.gt(last_marker.unwrap_or(0)))
        .count()
        .get_result(conn)?)
}

/// Holds back every queued job of `kind` until at least `until_ms` (a shop-wide pause, such
/// as an account problem: the other placements would only meet the same refusal). Returns
/// how many moved.
pub fn defer_kind(
    conn: &mut DbConn,
    kind: &str,
    until_ms: i64,
    now_ms: i64,
) -> Result<usize, DbError> {
    Ok(diesel::update(
        outbox_jobs::table
            .filter(outbox_jobs::kind.eq(kind))
            .filter(outbox_jobs::state.eq(QUEUED))
            .filter(outbox_jobs::run_at_ms.lt(until_ms)),
    )
    .set((
        outbox_jobs::run_at_ms.eq(until_ms),
        outbox_jobs::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?)
}

/// Jobs of `kind` that are queued or running, whenever due.
pub fn open_of_kind(conn: &mut DbConn, kind: &str) -> Result<i64, DbError> {
    Ok(open_of_kind_query(kind).get_result(conn)?)
}

/// The condition of the partial index `outbox_jobs_open_kind`, written out as SQL: a planner
/// uses a partial index only when the query states its condition, and a bound parameter
/// states nothing until the query runs.
pub const OPEN_STATES_SQL: &str = "state IN ('queued', 'running')";

/// [`open_of_kind`]'s query (its plan is checked by a test): read by `outbox_jobs_open_kind`,
/// which holds only the open jobs.
pub fn open_of_kind_query(kind: &str) -> outbox_jobs::BoxedQuery<'static, DbBackend, BigInt> {
    outbox_jobs::table
        .filter(outbox_jobs::kind.eq(kind.to_owned()))
        .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(OPEN_STATES_SQL))
        .count()
        .into_boxed()
}

/// Makes every queued job of `kind` due now (the owner fixed what they waited for), and tells
/// every replica. Returns how many.
pub fn make_kind_due_now(conn: &mut DbConn, kind: &str, now_ms: i64) -> Result<usize, DbError> {
    let due = diesel::update(
        outbox_jobs::table
            .filter(outbox_jobs::kind.eq(kind))
            .filter(outbox_jobs::state.eq(QUEUED))
            .filter(outbox_jobs::run_at_ms.gt(now_ms)),
    )
    .set((
        outbox_jobs::run_at_ms.eq(now_ms),
        outbox_jobs::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    if due > 0 {
        announce(conn)?;
    }
    Ok(due)
}

/// Ends an open (queued) job without running it: `outcome` says why. A job a worker holds
/// right now is left alone; returns whether one was ended.
pub fn cancel_queued(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    kind: &str,
    outcome: &str,
    now_ms: i64,
) -> Result<bool, DbError> {
    let ended = diesel::update(
        outbox_jobs::table
            .filter(outbox_jobs::purchase_id.eq(purchase_id))
            .filter(outbox_jobs::kind.eq(kind))
            .filter(outbox_jobs::state.eq(QUEUED)),
    )
    .set((
        outbox_jobs::state.eq(DONE),
        outbox_jobs::outcome.eq(outcome),
        outbox_jobs::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    Ok(ended > 0)
}

/// Moves the queued `kind` job of `purchase_id` to run at `run_at_ms` (a changed due time),
/// and tells every replica; returns whether one moved. A job a worker holds is left alone.
pub fn retime_queued(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    kind: &str,
    run_at_ms: i64,
    now_ms: i64,
) -> Result<bool, DbError> {
    let moved = diesel::update(
        outbox_jobs::table
            .filter(outbox_jobs::purchase_id.eq(purchase_id))
            .filter(outbox_jobs::kind.eq(kind))
            .filter(outbox_jobs::state.eq(QUEUED)),
    )
    .set((
        outbox_jobs::run_at_ms.eq(run_at_ms),
        outbox_jobs::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    if moved > 0 {
        announce(conn)?;
    }
    Ok(moved > 0)
}

/// Every attempt of a job, oldest first.
pub fn attempts(conn: &mut DbConn, job_id: i64) -> Result<Vec<Attempt>, DbError> {
    Ok(attempts_query(job_id).load(conn)?)
}

/// [`attempts`]'s query (its plan is checked by a test).
pub fn attempts_query(
    job_id: i64,
) -> outbox_attempts::BoxedQuery<'static, DbBackend, SelectOf<Attempt>> {
    outbox_attempts::table
        .filter(outbox_attempts::job_id.eq(job_id))
        .order(outbox_attempts::id)
        .select(Attempt::as_select())
        .into_boxed()
}

/// Every job of a purchase, oldest first (the admin's order page).
pub fn jobs_for_purchase(conn: &mut DbConn, purchase_id: &PurchaseId) -> Result<Vec<Job>, DbError> {
    Ok(jobs_for_purchase_query(purchase_id).load(conn)?)
}

/// [`jobs_for_purchase`]'s query (its plan is checked by a test).
pub fn jobs_for_purchase_query(
    purchase_id: &PurchaseId,
) -> outbox_jobs::BoxedQuery<'static, DbBackend, SelectOf<Job>> {
    outbox_jobs::table
        .filter(outbox_jobs::purchase_id.eq(purchase_id.clone()))
        .order(outbox_jobs::id)
        .select(Job::as_select())
        .into_boxed()
}

/// Jobs that gave up, newest first: the admin's "needs a human" list.
pub fn dead_jobs(conn: &mut DbConn, limit: i64) -> Result<Vec<Job>, DbError> {
    Ok(outbox_jobs::table
        .filter(outbox_jobs::state.eq(DEAD))
        .order(outbox_jobs::updated_at_ms.desc())
        .limit(limit)
        .select(Job::as_select())
        .load(conn)?)
}

/// The earliest time any job may become claimable: a queued job's `run_at_ms` or a running
/// job's lease expiry. Idle workers sleep until then (bounded by their poll interval).
pub fn next_due_at(conn: &mut DbConn) -> Result<Option<i64>, DbError> {
    let queued: Option<i64> = outbox_jobs::table
        .filter(outbox_jobs::state.eq(QUEUED))
        .select(diesel::dsl::min(outbox_jobs::run_at_ms))
        .first(conn)?;
    let leased: Option<i64> = outbox_jobs::table
        .filter(outbox_jobs::state.eq(RUNNING))
        .select(diesel::dsl::min(outbox_jobs::lease_expires_at_ms))
        .first(conn)?;
    Ok(match (queued, leased) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    })
}

/// Brings the queued `kind` job of the purchase holding `upstream_order_id` earlier: due at
/// `now_ms`, or, once it has run, `spacing_ms` after it last changed (its last run, or the
/// last wake) when that is later. Only ever earlier: a job already due sooner is left alone, so any number of
/// wakes between two runs are one run, and runs a stream of wakes causes are `spacing_ms`
/// apart at least. Returns how many jobs were brought earlier.
pub fn wake_by_order(
    conn: &mut DbConn,
    upstream_order_id: &str,
    kind: &str,
    now_ms: i64,
    spacing_ms: i64,
) -> Result<usize, DbError> {
    let purchase_ids = || {
        purchases::table
            .filter(purchases::upstream_order_id.eq(upstream_order_id))
            .select(purchases::id)
    };
    let jobs = || {
        outbox_jobs::table
            .filter(outbox_jobs::kind.eq(kind))
            .filter(outbox_jobs::state.eq(QUEUED))
            .filter(outbox_jobs::purchase_id.eq_any(purchase_ids()))
    };
    let spaced = outbox_jobs::updated_at_ms + spacing_ms;
    let now = diesel::update(
        jobs()
            .filter(outbox_jobs::run_at_ms.gt(now_ms))
            .filter(outbox_jobs::attempts.eq(0).or(spaced.le(now_ms))),
    )
    .set((
        outbox_jobs::run_at_ms.eq(now_ms),
        outbox_jobs::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    let soon = diesel::update(
        jobs()
            .filter(outbox_jobs::attempts.gt(0))
            .filter(outbox_jobs::run_at_ms.gt(spaced))
            .filter(spaced.gt(now_ms)),
    )
    .set((
        outbox_jobs::run_at_ms.eq(spaced),
        outbox_jobs::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    let woken = now + soon;
    if woken > 0 {
        announce(conn)?;
    }
    Ok(woken)
}

/// Closes the upstream gate until `until_ms` for every replica; never shortens it (two 429s
/// recorded out of order must not reopen it early).
pub fn close_upstream_gate(conn: &mut DbConn, until_ms: i64, holder: &str) -> Result<(), DbError> {
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(leases::table)
            .values((
                leases::name.eq(UPSTREAM_GATE),
                leases::holder.eq(""),
                leases::expires_at_ms.eq(0_i64),
            ))
            .on_conflict(leases::name)
            .do_nothing()
            .execute(c)
    })?;
    diesel::update(
        leases::table
            .filter(leases::name.eq(UPSTREAM_GATE))
            .filter(leases::expires_at_ms.lt(until_ms)),
    )
    .set((
        leases::holder.eq(holder),
        leases::expires_at_ms.eq(until_ms),
    ))
    .execute(conn)?;
    Ok(())
}

/// When the persisted upstream gate opens, if it is closed at `now_ms`.
pub fn upstream_gate_opens_at(conn: &mut DbConn, now_ms: i64) -> Result<Option<i64>, DbError> {
    Ok(leases::table
        .filter(leases::name.eq(UPSTREAM_GATE))
        .filter(leases::expires_at_ms.gt(now_ms))
        .select(leases::expires_at_ms)
        .first(conn)
        .optional()?)
}

/// Makes the purchase's queued jobs due now; returns how many.
pub fn make_due_now(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    now_ms: i64,
) -> Result<usize, DbError> {
    let due = diesel::update(
        outbox_jobs::table
            .filter(outbox_jobs::purchase_id.eq(purchase_id))
            .filter(outbox_jobs::state.eq(QUEUED)),
    )
    .set((
        outbox_jobs::run_at_ms.eq(now_ms),
        outbox_jobs::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    if due > 0 {
        // Every replica's workers, not only this one's (delivered at commit).
        crate::db::outbox::announce(conn)?;
    }
    Ok(due)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_open_states_written_out_are_the_open_states() {
        assert_eq!(
            OPEN_STATES_SQL,
            format!("state IN ('{QUEUED}', '{RUNNING}')")
        );
    }
}
