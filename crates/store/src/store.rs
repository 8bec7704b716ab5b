//! The run store: one run's objects on local disk or in object storage, behind one small
//! API over the `object_store` crate.
//!
//! A run is named by a location: a path (`runs/c4`), `file:///abs/path`, `s3://bucket/c4`
//! (AWS and every S3-compatible server), `gs://bucket/c4` or `az://container/c4`, each
//! service configured by its standard environment variables (`AWS_ENDPOINT_URL`,
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ALLOW_HTTP`;
//! `GOOGLE_APPLICATION_CREDENTIALS`; `AZURE_STORAGE_ACCOUNT_NAME`, ...).
//!
//! Object storage has no append and no rename, so a run is written as objects that are
//! put once and never changed ([`RunStore::put_once`]); the only objects ever replaced
//! ([`RunStore::replace`]) are the learner's pointer to its newest checkpoint and the config
//! it resolved. What the objects are called is [`crate::names`]'s business.
//!
//! Transient failures (a server restarting, a dropped connection) are retried with
//! exponential backoff and full jitter for up to [`RunStore::patience`], each retry logged;
//! errors that no retry can mend (a missing bucket, refused credentials) fail at once.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::prefix::PrefixStore;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig};
use rand::Rng;
use tokio::runtime::Runtime;

use crate::error::StoreError;

/// How a [`RunStore::put_once`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Put {
    /// The object was written now.
    Written,
    /// An object of that name was already there (an earlier attempt that did succeed, or
    /// a resumed role repeating its work): nothing was changed.
    AlreadyThere,
}

/// Requests a store has made, by kind (each retry counts): what a role costs in storage
/// requests, which object storage bills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Requests {
    /// Objects read (GET).
    pub get: u64,
    /// Objects written (PUT).
    pub put: u64,
    /// Listings (one per page of up to 1,000 names on S3).
    pub list: u64,
    /// Objects removed.
    pub delete: u64,
}

/// `12 storage requests (4 GET, 8 PUT, 0 LIST)`, deletes counted in the total.
impl std::fmt::Display for Requests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let total = self.get + self.put + self.list + self.delete;
        write!(
            f,
            "{total} storage requests ({} GET, {} PUT, {} LIST)",
            self.get, self.put, self.list
        )
    }
}

impl std::ops::Sub for Requests {
    type Output = Requests;
    fn sub(self, earlier: Requests) -> Requests {
        Requests {
            get: self.get - earlier.get,
            put: self.put - earlier.put,
            list: self.list - earlier.list,
            delete: self.delete - earlier.delete,
        }
    }
}

/// Names in one page of an object store's listing (S3's and Google Cloud's default and
/// most; Azure's is 5,000, so its count is an upper bound).
const LIST_PAGE: usize = 1000;

#[derive(Default)]
struct Counters([std::sync::atomic::AtomicU64; 4]);

/// One run's objects.
#[derive(Clone)]
pub struct RunStore {
    objects: Arc<dyn ObjectStore>,
    location: String,
    patience: Duration,
    counters: Arc<Counters>,
    /// The topmost local folder [`RunStore::create`] made for the run, if it made one.
    created: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for RunStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RunStore({})", self.location)
    }
}

/// The one async runtime that drives the store clients of this process; the roles call
/// the store from plain threads and wait for each request.
fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("zerosum-store")
            .enable_all()
            .build()
            .expect("a one-thread tokio runtime starts")
    })
}

/// True for a location that names object storage rather than a local path.
pub fn is_url(location: &str) -> bool {
    location.contains("://")
}

impl RunStore {
    /// Opens the run at `location`, creating a local directory if needed (a bucket must
    /// exist already), and checks at once that the store answers: a wrong scheme, a
    /// missing bucket, refused credentials or an unreachable endpoint fail here, in one
    /// line naming the location.
    /// [`RunStore::remove_if_unused`] takes away again the folders it made.
    pub fn create(location: &str) -> Result<RunStore, StoreError> {
        let mut created = None;
        if !is_url(location) || location.starts_with("file://") {
            let path = local_path(location);
            if path.exists() && !path.is_dir() {
                return Err(StoreError::Location {
                    location: location.to_string(),
                    reason: "a file, not a folder for a run".into(),
                });
            }
            created = first_missing(&path);
            std::fs::create_dir_all(&path).map_err(|source| StoreError::Io {
                path: path.clone(),
                source,
            })?;
        }
        match Self::open(location) {
            Ok(store) => Ok(RunStore { created, ..store }),
            Err(e) => {
                if let Some(dir) = &created {
                    remove_empty_tree(dir);
                }
                Err(e)
            }
        }
    }

    /// Removes the folders [`RunStore::create`] made for the run while none holds a file:
    /// a run refused before it wrote anything leaves no empty folder behind. A folder that
    /// was there before is never removed, nor one with anything written in it.
    pub fn remove_if_unused(&self) {
        if let Some(dir) = &self.created {
            remove_empty_tree(dir);
        }
    }

    /// Opens the run at `location` as [`RunStore::create`] does, but creates nothing.
    pub fn open(location: &str) -> Result<RunStore, StoreError> {
        let trimmed = location.trim_end_matches('/');
        let failed = |reason: String| StoreError::Location {
            location: location.to_string(),
            reason,
        };
        // "s3://" trimmed would read as a local folder named "s3:".
        if is_url(location) && !is_url(trimmed) {
            return Err(failed("the URL names no bucket or folder".into()));
        }
        let location = trimmed.to_string();
        let objects: Arc<dyn ObjectStore> = if !is_url(&location) || location.starts_with("file://")
        {
            let path = local_path(&location);
            if !path.is_dir() {
                return Err(failed("no such directory".into()));
            }
            // Every write synced, the file and the folders above it, before it is answered:
            // what object storage promises, so that a power loss keeps what was written.
            let objects = LocalFileSystem::new_with_prefix(&path)
                .map_err(|e| failed(one_line(&e)))?
                .with_fsync(true);
            Arc::new(objects)
        } else {
            cloud_store(&location).map_err(failed)?
        };
        let store = RunStore {
            objects,
            location,
            patience: Duration::ZERO,
            counters: Arc::default(),
            created: None,
        };
        // One request now, without retries, so that a bad location fails before any work.
        runtime()
            .block_on(store.objects.list_with_delimiter(None))
            .map_err(|e| failed(one_line(&e)))?;
        Ok(store.with_patience(Duration::from_secs(600)))
    }

    /// How long transient failures are retried before an operation gives up.
    pub fn with_patience(mut self, patience: Duration) -> RunStore {
        self.patience = patience;
        self
    }

    /// The same store, counting its requests apart from the store it was cloned from (an
    /// actor thread's requests are not the learner's).
    pub fn with_own_counters(mut self) -> RunStore {
        self.counters = Arc::default();
        self
    }

    /// See [`RunStore::with_patience`].
    pub fn patience(&self) -> Duration {
        self.patience
    }

    /// The requests made through this store and its clones so far.
    pub fn requests(&self) -> Requests {
        let [get, put, list, delete] = self
            .counters
            .0
            .each_ref()
            .map(|c| c.load(std::sync::atomic::Ordering::Relaxed));
        Requests {
            get,
            put,
            list,
            delete,
        }
    }

    /// The location as the user named it.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// `name` inside the run, for messages: `s3://bucket/c4/games/...`.
    pub fn display(&self, name: &str) -> String {
        format!("{}/{name}", self.location)
    }

    /// The object `name`, or `None` if there is none.
    pub fn get(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = ObjectPath::from(name);
        self.retrying("read", name, || async {
            match self.objects.get(&path).await {
                Ok(result) => Ok(Some(result.bytes().await?.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })
    }

    /// The object `name` as UTF-8 text, or `None` if there is none.
    pub fn get_text(&self, name: &str) -> Result<Option<String>, StoreError> {
        match self.get(name)? {
            None => Ok(None),
            Some(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| StoreError::Location {
                    location: self.display(name),
                    reason: "not UTF-8 text".into(),
                }),
        }
    }

    /// Writes `bytes` as `name` unless an object of that name exists (compared and set by
    /// the store itself: S3's `If-None-Match: *`, an exclusive create on disk). A retried
    /// write whose first attempt had in fact landed thus counts as done, not as a second
    /// copy. On local disk the object is synced, with the directories on its way, before
    /// this returns (as object storage makes a put durable before answering it).
    pub fn put_once(&self, name: &str, bytes: &[u8]) -> Result<Put, StoreError> {
        let path = ObjectPath::from(name);
        let payload = PutPayload::from(bytes.to_vec());
        self.retrying("write", name, || async {
            let options = PutOptions {
                mode: PutMode::Create,
                ..PutOptions::default()
            };
            match self.objects.put_opts(&path, payload.clone(), options).await {
                Ok(_) => Ok(Put::Written),
                Err(
                    object_store::Error::AlreadyExists { .. }
                    | object_store::Error::Precondition { .. },
                ) => Ok(Put::AlreadyThere),
                Err(e) => Err(e),
            }
        })
    }

    /// Writes `bytes` as `name`, replacing what was there (the checkpoint pointer and the
    /// resolved config only). A reader sees the old object or the new one, never a mix.
    pub fn replace(&self, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = ObjectPath::from(name);
        let payload = PutPayload::from(bytes.to_vec());
        self.retrying("write", name, || async {
            self.objects.put(&path, payload.clone()).await.map(|_| ())
        })
    }

    /// The names of the objects under folder `dir` (all depths), relative to it and sorted.
    pub fn list(&self, dir: &str) -> Result<Vec<String>, StoreError> {
        self.listing(dir, None)
    }

    /// The names under folder `dir` that sort after `offset` (a name inside the run, not
    /// relative to `dir`), relative to `dir` and sorted: on S3 the listing starts there
    /// (`start-after`), so it costs requests for those names only.
    pub fn list_after(&self, dir: &str, offset: &str) -> Result<Vec<String>, StoreError> {
        self.listing(dir, Some(offset))
    }

    fn listing(&self, dir: &str, offset: Option<&str>) -> Result<Vec<String>, StoreError> {
        let prefix = (!dir.is_empty()).then(|| ObjectPath::from(dir));
        let offset = offset.map(ObjectPath::from);
        let strip = if dir.is_empty() {
            0
        } else {
            dir.trim_end_matches('/').len() + 1
        };
        let names = self.retrying("list", dir, || async {
            let metas: Vec<_> = match &offset {
                None => self.objects.list(prefix.as_ref()).try_collect().await?,
                Some(offset) => {
                    let listed = self.objects.list_with_offset(prefix.as_ref(), offset);
                    listed.try_collect().await?
                }
            };
            let mut names: Vec<String> = metas
                .into_iter()
                .map(|meta| meta.location.as_ref()[strip..].to_string())
                .collect();
            names.sort();
            Ok(names)
        })?;
        // Object storage answers a listing in pages of up to 1,000 names, each a request
        // billed as one; the first was counted with the attempt.
        if is_url(&self.location) {
            let pages = names.len().div_ceil(LIST_PAGE).max(1) as u64;
            self.counters.0[2].fetch_add(pages - 1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(names)
    }

    /// Removes `name`; removing what is not there is not an error.
    pub fn delete(&self, name: &str) -> Result<(), StoreError> {
        let path = ObjectPath::from(name);
        self.retrying("delete", name, || async {
            match self.objects.delete(&path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(e),
            }
        })
    }

    /// Runs one store request, retrying transient failures with exponential backoff and
    /// full jitter (so that many actors do not come back in step when a server returns)
    /// until [`RunStore::patience`] has passed.
    fn retrying<T, F, Fut>(&self, what: &str, name: &str, mut request: F) -> Result<T, StoreError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = object_store::Result<T>>,
    {
        let start = Instant::now();
        let mut ceiling = Duration::from_millis(500);
        let counter = match what {
            "read" => 0,
            "write" => 1,
            "list" => 2,
            _ => 3,
        };
        loop {
            self.counters.0[counter].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let error = match runtime().block_on(request()) {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            let fail = || StoreError::Location {
                location: self.display(name),
                reason: format!("cannot {what}: {}", one_line(&error)),
            };
            if !is_transient(&error) || start.elapsed() >= self.patience {
                return Err(fail());
            }
            let wait = ceiling.mul_f64(unseeded_fraction());
            tracing::warn!("{}; retrying in {:.1} s", fail(), wait.as_secs_f64());
            std::thread::sleep(wait);
            ceiling = (ceiling * 2).min(Duration::from_secs(30));
        }
    }
}

/// The client of a `s3://`, `gs://` or `az://` location, configured by the service's
/// environment variables and rooted at the location's path; the reason in one line if not.
fn cloud_store(location: &str) -> Result<Arc<dyn ObjectStore>, String> {
    let url = url::Url::parse(location).map_err(|e| e.to_string())?;
    let prefix = ObjectPath::from_url_path(url.path()).map_err(|e| one_line(&e))?;
    // The store's own retries are kept short: ours (RunStore::retrying) log each one.
    let retry = RetryConfig {
        max_retries: 2,
        retry_timeout: Duration::from_secs(20),
        ..RetryConfig::default()
    };
    let inner: Arc<dyn ObjectStore> = match url.scheme() {
        "s3" | "s3a" => Arc::new(
            AmazonS3Builder::from_env()
                .with_url(location)
                .with_retry(retry)
                .build()
                .map_err(|e| one_line(&e))?,
        ),
        "gs" => Arc::new(
            GoogleCloudStorageBuilder::from_env()
                .with_url(location)
                .with_retry(retry)
                .build()
                .map_err(|e| one_line(&e))?,
        ),
        "az" | "abfs" | "abfss" | "azure" => Arc::new(
            MicrosoftAzureBuilder::from_env()
                .with_url(location)
                .with_retry(retry)
                .build()
                .map_err(|e| one_line(&e))?,
        ),
        other => {
            return Err(format!(
                "unknown scheme {other}:// (expected a path, file://, s3://, gs:// or az://)"
            ))
        }
    };
    Ok(if prefix.as_ref().is_empty() {
        inner
    } else {
        Arc::new(PrefixStore::new(inner, prefix))
    })
}

/// A number in [0, 1) that differs between processes and calls: jitter for backoff, where
/// a seeded stream would make every actor wait alike.
pub fn unseeded_fraction() -> f64 {
    use rand::SeedableRng;
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let seed =
        nanos ^ (u64::from(std::process::id()) << 32) ^ CALLS.fetch_add(1, Ordering::Relaxed);
    rand::rngs::SmallRng::seed_from_u64(seed).random()
}

/// A path named either plainly or as `file:///...`.
fn local_path(location: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(location.strip_prefix("file://").unwrap_or(location))
}

/// The topmost folder on the way to `path` (`path` itself or one above it) that does not
/// exist yet, if any: what `create_dir_all(path)` would make first.
fn first_missing(path: &std::path::Path) -> Option<std::path::PathBuf> {
    path.ancestors()
        .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
        .last()
        .map(std::path::Path::to_path_buf)
}

/// Removes `dir` and the folders below it if none of them holds anything but folders
/// (a file or a link keeps it); true when `dir` is gone.
fn remove_empty_tree(dir: &std::path::Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    for entry in entries {
        let Ok(entry) = entry else {
            return false;
        };
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if !is_dir || !remove_empty_tree(&entry.path()) {
            return false;
        }
    }
    std::fs::remove_dir(dir).is_ok()
}

/// Errors worth another try: anything but the answers a retry cannot change, among them a
/// disk's that stay as they are (a file where a folder should be, a full or read-only disk:
/// a shared file system's passing failures are still retried).
fn is_transient(error: &object_store::Error) -> bool {
    use object_store::Error as E;
    use std::io::ErrorKind as K;
    let mut cause = std::error::Error::source(error);
    while let Some(e) = cause {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                K::NotADirectory
                    | K::IsADirectory
                    | K::StorageFull
                    | K::ReadOnlyFilesystem
                    | K::PermissionDenied
            ) {
                return false;
            }
        }
        cause = e.source();
    }
    !matches!(
        error,
        E::NotFound { .. }
            | E::AlreadyExists { .. }
            | E::Precondition { .. }
            | E::InvalidPath { .. }
            | E::NotSupported { .. }
            | E::NotImplemented { .. }
            | E::PermissionDenied { .. }
            | E::Unauthenticated { .. }
            | E::UnknownConfigurationKey { .. }
    )
}

/// An error and its causes on one line, each cause once.
pub(crate) fn one_line(error: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(e) = next {
        let text = e.to_string().replace('\n', " ");
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> (std::path::PathBuf, RunStore) {
        let dir = std::env::temp_dir().join(format!("zerosum-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = RunStore::create(dir.to_str().unwrap()).unwrap();
        (dir, store)
    }

    #[test]
    fn only_the_empty_folders_create_made_are_removed() {
        let (dir, store) = scratch("unused");
        store.remove_if_unused();
        assert!(
            !dir.exists(),
            "the folder create made, still empty, is gone"
        );
        // Folders made below one that exists: only they go.
        std::fs::create_dir_all(&dir).unwrap();
        let deep = dir.join("a/b");
        let store = RunStore::create(deep.to_str().unwrap()).unwrap();
        store.remove_if_unused();
        assert!(dir.is_dir() && !dir.join("a").exists());
        // A folder that existed, or one written in, stays.
        let store = RunStore::create(dir.to_str().unwrap()).unwrap();
        store.remove_if_unused();
        assert!(dir.is_dir());
        let store = RunStore::create(deep.to_str().unwrap()).unwrap();
        store.put_once("x", b"1").unwrap();
        store.remove_if_unused();
        assert!(deep.join("x").is_file());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_object_is_written_once_and_a_second_put_changes_nothing() {
        let (dir, store) = scratch("once");
        assert_eq!(store.get("games/a.jsonl").unwrap(), None);
        assert_eq!(
            store.put_once("games/a.jsonl", b"first").unwrap(),
            Put::Written
        );
        assert_eq!(
            store.put_once("games/a.jsonl", b"second").unwrap(),
            Put::AlreadyThere
        );
        assert_eq!(store.get("games/a.jsonl").unwrap().unwrap(), b"first");
        store.replace("checkpoints/latest", b"gen-0001").unwrap();
        store.replace("checkpoints/latest", b"gen-0002").unwrap();
        assert_eq!(
            store.get_text("checkpoints/latest").unwrap().unwrap(),
            "gen-0002"
        );
        store.put_once("games/b/c.jsonl", b"x").unwrap();
        assert_eq!(store.list("games").unwrap(), vec!["a.jsonl", "b/c.jsonl"]);
        assert_eq!(store.list("nothing").unwrap(), Vec::<String>::new());
        store.delete("games/a.jsonl").unwrap();
        store.delete("games/a.jsonl").unwrap();
        assert_eq!(store.list("games").unwrap(), vec!["b/c.jsonl"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A local run whose folder is damaged fails at once, with the path: a file where a
    /// folder should be does not go away while one waits.
    #[test]
    fn a_local_failure_is_not_retried() {
        let (dir, store) = scratch("local");
        std::fs::write(dir.join("metrics"), "a file where a folder should be").unwrap();
        let start = Instant::now();
        let error = store.put_once("metrics/gen-0001.json", b"{}").unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(5), "{error}");
        assert!(
            error
                .to_string()
                .contains("metrics/gen-0001.json: cannot write"),
            "{error}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn bad_locations_fail_in_one_line_naming_them() {
        for location in ["ftp://host/run", "/nonexistent/zerosum/run"] {
            let error = RunStore::open(location).unwrap_err().to_string();
            assert!(error.contains(location), "{error}");
            assert!(!error.contains('\n'), "{error}");
        }
        let file = std::env::temp_dir().join(format!("zerosum-store-file-{}", std::process::id()));
        std::fs::write(&file, "").unwrap();
        let error = RunStore::create(file.to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            error.ends_with(": a file, not a folder for a run"),
            "{error}"
        );
        std::fs::remove_file(file).unwrap();
        for location in ["s3://", "gs:///", "file://"] {
            let error = RunStore::open(location).unwrap_err().to_string();
            assert_eq!(
                error,
                format!("{location}: the URL names no bucket or folder")
            );
        }
        // Nothing listens on port 9: the endpoint is unreachable, and that is said at once.
        std::env::set_var("AWS_ENDPOINT_URL", "http://127.0.0.1:9");
        std::env::set_var("AWS_ALLOW_HTTP", "true");
        std::env::set_var("AWS_ACCESS_KEY_ID", "x");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "y");
        std::env::set_var("AWS_REGION", "us-east-1");
        let start = Instant::now();
        let error = RunStore::open("s3://bucket/run").unwrap_err().to_string();
        assert!(error.starts_with("s3://bucket/run"), "{error}");
        assert!(!error.contains('\n'), "{error}");
        assert!(start.elapsed() < Duration::from_secs(60));
    }
}
