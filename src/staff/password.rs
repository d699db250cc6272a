//! Admin passwords: the policy (length, not a well-known password) and argon2id hashing.
//!
//! Hashing and verifying take tens of milliseconds of CPU and 19 MiB of memory by design:
//! callers hand them to one of the hashing threads ([`hash_blocking`], [`verify_blocking`]),
//! never to an async worker, and at most one per core runs at a time. A caller that cannot start within
//! [`WAIT`] gets [`HashError::Busy`] (the web answers 503 "try again"), so a storm of logins
//! costs a bounded amount of memory instead of 19 MiB each.

use std::collections::HashSet;
use std::fmt;
use std::sync::{Mutex, OnceLock, mpsc};

use std::cell::RefCell;

use argon2::password_hash::{self, Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use rand::RngCore;

/// OWASP's argon2id floor: 19 MiB, two passes, one lane.
pub const MEMORY_KIB: u32 = 19_456;
pub const ITERATIONS: u32 = 2;
pub const PARALLELISM: u32 = 1;

pub const MIN_CHARS: usize = 12;
/// Long enough for any passphrase, short enough that hashing cannot be abused.
pub const MAX_CHARS: usize = 256;

/// The 10,000 most used passwords of 12 characters or more (a leaked-password frequency list;
/// the file names its source), lower-cased, one per line, `#` lines being comments. Anything
/// on it is refused whatever its case.
const COMMON_LIST: &str = include_str!("common_passwords.txt");

/// The common list as a set, built on first use.
fn common() -> &'static HashSet<&'static str> {
    static COMMON: OnceLock<HashSet<&'static str>> = OnceLock::new();
    COMMON.get_or_init(|| {
        COMMON_LIST
            .lines()
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .collect()
    })
}

/// Whether `password` is on the common list, ignoring case.
pub fn is_common(password: &str) -> bool {
    common().contains(password.to_lowercase().as_str())
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    #[error("the password must be at least {MIN_CHARS} characters long")]
    TooShort,
    #[error("the password must be at most {MAX_CHARS} characters long")]
    TooLong,
    #[error("this password is on the list of commonly used passwords; choose another")]
    Common,
}

/// A password that meets the policy. `Debug` never shows it.
#[derive(Clone)]
pub struct NewPassword(String);

impl NewPassword {
    pub fn parse(raw: &str) -> Result<Self, PasswordError> {
        let chars = raw.chars().count();
        if chars < MIN_CHARS {
            return Err(PasswordError::TooShort);
        }
        if chars > MAX_CHARS {
            return Err(PasswordError::TooLong);
        }
        if is_common(raw) || is_one_repeated_char(&raw.to_lowercase()) {
            return Err(PasswordError::Common);
        }
        Ok(Self(raw.to_string()))
    }

    /// The new password of a form, typed twice; `Err` says what to fix, in the form's words
    /// (never echoing the password).
    pub fn typed_twice(password: &str, again: &str) -> Result<Self, String> {
        if password != again {
            return Err("The two new passwords differ. Type the same password twice.".into());
        }
        Self::parse(password).map_err(|e| format!("That password cannot be used: {e}."))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

fn is_one_repeated_char(value: &str) -> bool {
    let mut chars = value.chars();
    chars.next().is_some_and(|first| chars.all(|c| c == first))
}

impl fmt::Debug for NewPassword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NewPassword(<redacted>)")
    }
}

/// How long a hash may wait for a free core before the caller is told to try again.
pub const WAIT: std::time::Duration = std::time::Duration::from_secs(1);

#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Every core is hashing already and none came free within [`WAIT`].
    #[error("every password hashing slot is busy")]
    Busy,
    #[error("password hashing failed: {0}")]
    Hash(String),
    #[error("the hashing task did not finish: {0}")]
    Task(String),
}

fn params() -> Params {
    Params::new(MEMORY_KIB, ITERATIONS, PARALLELISM, None)
        .expect("the argon2 parameters are constants within range")
}

/// Runs `work` with `blocks` Argon2 blocks of memory: this thread's own buffer, kept for the
/// next hash, so a hashing thread allocates its 19 MiB once rather than on every hash (freed
/// and re-allocated, the allocator kept several such blocks resident). A stored hash asking
/// for more than today's parameters gets a buffer of its own, freed afterwards.
fn with_memory<T>(blocks: usize, work: impl FnOnce(&mut [Block]) -> T) -> T {
    thread_local! {
        static MEMORY: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
    }
    if blocks > params().block_count() {
        return work(&mut vec![Block::default(); blocks]);
    }
    MEMORY.with(|memory| {
        let mut memory = memory.borrow_mut();
        if memory.len() < blocks {
            memory.resize(blocks, Block::default());
        }
        work(&mut memory[..blocks])
    })
}

/// The Argon2 output of `password` and the raw `salt`, `len` bytes long.
fn compute(
    argon: &Argon2<'_>,
    params: &Params,
    password: &[u8],
    salt: &[u8],
    len: usize,
) -> Result<Output, password_hash::Error> {
    with_memory(params.block_count(), |memory| {
        Output::init_with(len, |out| {
            Ok(argon.hash_password_into_with_memory(password, salt, out, &mut *memory)?)
        })
    })
}

/// A PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) with a fresh random salt.
pub fn hash(password: &str) -> Result<String, HashError> {
    let failed = |e: password_hash::Error| HashError::Hash(e.to_string());
    let mut raw_salt = [0u8; 16];
    rand::rng().fill_bytes(&mut raw_salt);
    let salt = SaltString::encode_b64(&raw_salt).map_err(failed)?;
    let params = params();
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let output = compute(
        &argon,
        &params,
        password.as_bytes(),
        &raw_salt,
        Params::DEFAULT_OUTPUT_LEN,
    )
    .map_err(failed)?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(failed)?,
        salt: Some(salt.as_salt()),
        hash: Some(output),
    };
    Ok(phc.to_string())
}

/// Whether `password` gives the output stored in `parsed`, under its algorithm, version,
/// parameters and salt (compared in constant time).
fn matches(password: &str, parsed: &PasswordHash<'_>) -> bool {
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(parsed.algorithm) else {
        return false;
    };
    let Ok(version) = parsed.version.map(Version::try_from).transpose() else {
        return false;
    };
    let Ok(params) = Params::try_from(parsed) else {
        return false;
    };
    let mut salt_buffer = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_buffer) else {
        return false;
    };
    let argon = Argon2::new(algorithm, version.unwrap_or_default(), params.clone());
    compute(&argon, &params, password.as_bytes(), salt, expected.len())
        .is_ok_and(|computed| computed == expected)
}

/// What a login check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verified {
    No,
    Yes,
    /// Correct, and stored with weaker parameters than today's: here is the new hash.
    YesRehashed(String),
}

/// Checks `password` against a stored PHC string. A stored value that does not parse is a
/// failed check (logged), not an error the user could tell apart.
pub fn verify(password: &str, stored: &str) -> Verified {
    let Ok(parsed) = PasswordHash::new(stored) else {
        tracing::error!("an admin password hash does not parse; that account cannot log in");
        return Verified::No;
    };
    if !matches(password, &parsed) {
        return Verified::No;
    }
    if !is_weaker_than_current(&parsed) {
        return Verified::Yes;
    }
    match hash(password) {
        Ok(new) => Verified::YesRehashed(new),
        Err(err) => {
            tracing::warn!(error = %err, "rehashing a password failed; keeping the old hash");
            Verified::Yes
        }
    }
}

fn is_weaker_than_current(parsed: &PasswordHash<'_>) -> bool {
    if parsed.algorithm.as_str() != "argon2id" {
        return true;
    }
    match Params::try_from(parsed) {
        Ok(p) => p.m_cost() < MEMORY_KIB || p.t_cost() < ITERATIONS || p.p_cost() < PARALLELISM,
        Err(_) => true,
    }
}

/// A hash of a random password, verified against when the email is unknown so that a login
/// takes as long for an unknown account as for a wrong password.
pub fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| {
        let mut bytes = [0u8; 24];
        rand::rng().fill_bytes(&mut bytes);
        hash(&hex::encode(bytes)).unwrap_or_default()
    })
}

/// The hashing threads: one per core, started on first use, each taking jobs from one queue.
/// Dedicated threads (not the runtime's blocking pool, whose threads come and go) keep the
/// memory Argon2 frees within as many allocator arenas as there are threads, so a storm of
/// logins cannot leave 19 MiB behind in each of many short-lived threads.
struct Hashers {
    slots: tokio::sync::Semaphore,
    jobs: Mutex<mpsc::Sender<Job>>,
}

type Job = Box<dyn FnOnce() + Send>;

fn hashers() -> &'static Hashers {
    static HASHERS: OnceLock<Hashers> = OnceLock::new();
    HASHERS.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = std::sync::Arc::new(Mutex::new(queue));
        let mut started = 0;
        for i in 0..threads {
            let queue = std::sync::Arc::clone(&queue);
            let spawned = std::thread::Builder::new()
                .name(format!("password-hash-{i}"))
                .spawn(move || {
                    loop {
                        let job = match queue.lock() {
                            Ok(queue) => queue.recv(),
                            Err(poisoned) => poisoned.into_inner().recv(),
                        };
                        let Ok(job) = job else { return };
                        // A panicking hash answers its caller with an error, and the thread
                        // stays for the next one.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                });
            match spawned {
                Ok(_) => started += 1,
                Err(err) => tracing::error!(error = %err, "could not start a hashing thread"),
            }
        }
        Hashers {
            // No slot without a thread to run it: with none, every hash is told to retry.
            slots: tokio::sync::Semaphore::new(started),
            jobs: Mutex::new(jobs),
        }
    })
}

/// Runs `work` on a hashing thread once a slot is free (within [`WAIT`]), the slot held until
/// `work` is done, even if the caller stops waiting for it.
async fn in_slot<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, HashError> {
    let hashers = hashers();
    let permit = tokio::time::timeout(WAIT, hashers.slots.acquire())
        .await
        .map_err(|_| HashError::Busy)?
        .map_err(|_| HashError::Busy)?;
    let (done, result) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let out = work();
        drop(permit);
        let _ = done.send(out);
    });
    hashers
        .jobs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(job)
        .map_err(|_| HashError::Task("the hashing threads are gone".into()))?;
    result
        .await
        .map_err(|_| HashError::Task("the hash did not finish".into()))
}

pub async fn hash_blocking(password: NewPassword) -> Result<String, HashError> {
    in_slot(move || hash(password.expose())).await?
}

/// `stored` is `None` for an unknown account: the decoy is checked and the answer is `No`.
pub async fn verify_blocking(
    password: String,
    stored: Option<String>,
) -> Result<Verified, HashError> {
    in_slot(move || match stored {
        Some(stored) => verify(&password, &stored),
        None => {
            let _ = verify(&password, decoy_hash());
            Verified::No
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use argon2::password_hash::{PasswordHasher, PasswordVerifier};

    use super::*;

    #[test]
    fn policy_is_length_and_the_common_list_only() {
        assert_eq!(
            NewPassword::parse("short pass").unwrap_err(),
            PasswordError::TooShort
        );
        assert_eq!(
            NewPassword::parse("Password1234").unwrap_err(),
            PasswordError::Common
        );
        assert_eq!(
            NewPassword::parse("zzzzzzzzzzzzzz").unwrap_err(),
            PasswordError::Common
        );
        assert!(NewPassword::parse("plain lowercase words").is_ok());
        assert!(NewPassword::parse("ééééééééééé").is_err(), "11 characters");
        assert_eq!(
            format!("{:?}", NewPassword::parse("secret words here").unwrap()),
            "NewPassword(<redacted>)"
        );
    }

    #[test]
    fn the_common_list_holds_ten_thousand_long_leaked_passwords() {
        let entries = common();
        assert_eq!(entries.len(), 10_000);
        assert!(entries.iter().all(|p| p.chars().count() >= MIN_CHARS));
        assert!(
            entries.iter().all(|p| *p == p.to_lowercase()),
            "stored lower-cased, so a lower-cased lookup finds every entry"
        );
        assert!(
            !entries.iter().any(|p| p.starts_with('#')),
            "no comment line"
        );
    }

    #[test]
    fn well_known_long_passwords_are_refused_in_any_case() {
        for known in [
            "123qweasdzxc",
            "1qaz2wsx3edc",
            "QWERTY123456",
            "Password1234",
            "iloveyou1234",
            "123456789012",
        ] {
            let refused = NewPassword::parse(known).unwrap_err();
            assert_eq!(refused, PasswordError::Common, "{known}");
            assert_eq!(
                refused.to_string(),
                "this password is on the list of commonly used passwords; choose another"
            );
        }
        assert!(NewPassword::parse("Umbrella cactus 7 violin").is_ok());
        assert!(NewPassword::parse("tangerine-orbit-quarry-lantern").is_ok());
    }

    #[test]
    fn hashes_are_argon2id_phc_and_verify() {
        let stored = hash("correct horse battery").expect("hash");
        assert!(
            stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{stored}"
        );
        assert_eq!(verify("correct horse battery", &stored), Verified::Yes);
        assert_eq!(verify("wrong horse battery", &stored), Verified::No);
        assert_eq!(verify("anything", "not a hash"), Verified::No);
        // The same PHC string as the crate's own hasher and verifier read and write.
        let parsed = PasswordHash::new(&stored).expect("phc");
        assert!(
            Argon2::default()
                .verify_password(b"correct horse battery", &parsed)
                .is_ok()
        );
        let theirs = Argon2::new(Algorithm::Argon2id, Version::V0x13, params())
            .hash_password(
                b"correct horse battery",
                &SaltString::encode_b64(&[9u8; 16]).expect("salt"),
            )
            .expect("hash")
            .to_string();
        assert_eq!(verify("correct horse battery", &theirs), Verified::Yes);
        assert_eq!(verify("correct horse batterz", &theirs), Verified::No);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hashes_beyond_the_cores_wait_briefly_then_are_told_to_retry() {
        let stored = hash("correct horse battery").expect("hash");
        let cores = hashers().slots.available_permits();
        // Every slot taken (as by `cores` logins hashing right now): the next one waits WAIT,
        // then is told to retry, without queueing behind them.
        let taken = hashers()
            .slots
            .acquire_many(u32::try_from(cores).expect("cores"))
            .await
            .expect("slots");
        let started = std::time::Instant::now();
        let refused =
            verify_blocking("correct horse battery".to_string(), Some(stored.clone())).await;
        assert!(matches!(refused, Err(HashError::Busy)), "{refused:?}");
        assert!(started.elapsed() >= WAIT, "it waited for a slot first");
        drop(taken);
        // Slots free again: the same login goes through, and gives its slot back.
        let verified = verify_blocking("correct horse battery".to_string(), Some(stored)).await;
        assert!(matches!(verified, Ok(Verified::Yes)), "{verified:?}");
        assert_eq!(
            hashers().slots.available_permits(),
            cores,
            "every slot is given back"
        );
    }

    #[test]
    fn weaker_stored_parameters_are_rehashed_on_login() {
        let weak = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(8_192, 1, 1, None).expect("params"),
        );
        let salt = SaltString::encode_b64(&[7u8; 16]).expect("salt");
        let stored = weak
            .hash_password(b"correct horse battery", &salt)
            .expect("hash")
            .to_string();
        match verify("correct horse battery", &stored) {
            Verified::YesRehashed(new) => {
                assert!(new.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
                assert_eq!(verify("correct horse battery", &new), Verified::Yes);
            }
            other => panic!("expected a rehash, got {other:?}"),
        }
    }

    #[test]
    fn new_passwords_are_typed_twice_and_meet_the_policy() {
        assert!(
            NewPassword::typed_twice("a fine long passphrase", "a fine long passphrase").is_ok()
        );
        let differ = NewPassword::typed_twice("a fine long passphrase", "a fine long passphrasf");
        assert!(differ.unwrap_err().contains("differ"));
        let short = NewPassword::typed_twice("short", "short").unwrap_err();
        assert!(short.contains("at least 12 characters"), "{short}");
        assert!(!short.contains("short"), "the password is not echoed");
        let common = NewPassword::typed_twice("password1234", "password1234").unwrap_err();
        assert!(common.contains("commonly used"), "{common}");
    }
}
