//! The run directory, behind one small interface so that it may later live elsewhere
//! (object storage) without the loop changing.
//!
//! Layout:
//!
//! ```text
//! config.toml                 the resolved config
//! metrics.jsonl               one JSON line per event
//! games/gen-0001.jsonl        self-play records, one line per finished game
//! checkpoints/latest.*        newest weights (.safetensors) and metadata (.json)
//! checkpoints/gen-0005.*      every k-th generation
//! ```

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::TrainError;

/// Reads and writes the files of one run.
pub trait RunStore {
    /// The whole file, or `None` if it does not exist.
    fn read(&self, name: &str) -> Result<Option<String>, TrainError>;
    /// Replaces a file atomically (write to a temporary name, then rename).
    fn write_atomic(&self, name: &str, contents: &str) -> Result<(), TrainError>;
    /// Appends one line and flushes it, so a finished line survives a crash.
    fn append_line(&self, name: &str, line: &str) -> Result<(), TrainError>;
    /// The complete lines of a JSON Lines file; a torn last line (a crash mid-write) is cut
    /// off the file and not returned.
    fn read_lines(&self, name: &str) -> Result<Vec<String>, TrainError>;
    /// A local path for a file that a library writes by path (checkpoints).
    fn local_path(&self, name: &str) -> PathBuf;
    /// The names of the files in folder `dir` (`checkpoints`), sorted; none if it does
    /// not exist.
    fn list(&self, dir: &str) -> Result<Vec<String>, TrainError>;
    /// Removes a checkpoint's weights and sidecar (`checkpoints/gen-0003`), if present.
    fn remove_checkpoint(&self, base: &str) -> Result<(), TrainError>;
}

/// A run directory on the local disk.
#[derive(Clone, Debug)]
pub struct LocalStore {
    root: PathBuf,
}

impl LocalStore {
    /// Opens (and creates) the run directory `root`.
    pub fn open(root: &Path) -> Result<LocalStore, TrainError> {
        for dir in [
            root.to_path_buf(),
            root.join("games"),
            root.join("checkpoints"),
        ] {
            fs::create_dir_all(&dir).map_err(|source| TrainError::Io {
                path: dir.clone(),
                source,
            })?;
        }
        Ok(LocalStore {
            root: root.to_path_buf(),
        })
    }

    /// Opens the run directory `root` for reading (reports, the ladder): unlike
    /// [`LocalStore::open`] it creates nothing, and fails unless `root` holds a run (a
    /// `config.toml` or a `metrics.jsonl`).
    pub fn open_existing(root: &Path) -> Result<LocalStore, TrainError> {
        if !root.join("config.toml").is_file() && !root.join("metrics.jsonl").is_file() {
            return Err(TrainError::RunDir {
                path: root.to_path_buf(),
                reason: "not a run directory (no config.toml or metrics.jsonl)".to_string(),
            });
        }
        Ok(LocalStore {
            root: root.to_path_buf(),
        })
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |source| TrainError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl RunStore for LocalStore {
    fn read(&self, name: &str) -> Result<Option<String>, TrainError> {
        let path = self.root.join(name);
        match fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error(&path)(e)),
        }
    }

    fn write_atomic(&self, name: &str, contents: &str) -> Result<(), TrainError> {
        let path = self.root.join(name);
        let tmp = self.root.join(format!("{name}.tmp"));
        fs::write(&tmp, contents).map_err(io_error(&tmp))?;
        fs::rename(&tmp, &path).map_err(io_error(&path))
    }

    fn append_line(&self, name: &str, line: &str) -> Result<(), TrainError> {
        let path = self.root.join(name);
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_error(&path))?;
        file.write_all(format!("{line}\n").as_bytes())
            .map_err(io_error(&path))?;
        file.flush().map_err(io_error(&path))
    }

    fn read_lines(&self, name: &str) -> Result<Vec<String>, TrainError> {
        let Some(text) = self.read(name)? else {
            return Ok(Vec::new());
        };
        let complete = match text.rfind('\n') {
            Some(end) => &text[..=end],
            None => "",
        };
        if complete.len() < text.len() {
            let path = self.root.join(name);
            let file = OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(io_error(&path))?;
            file.set_len(complete.len() as u64)
                .map_err(io_error(&path))?;
        }
        Ok(complete
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect())
    }

    fn local_path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn remove_checkpoint(&self, base: &str) -> Result<(), TrainError> {
        // Sidecar first: a weights file without its sidecar is never taken for a checkpoint.
        for ext in ["json", "safetensors"] {
            let path = self.root.join(format!("{base}.{ext}"));
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(&path)(e)),
            }
        }
        Ok(())
    }

    fn list(&self, dir: &str) -> Result<Vec<String>, TrainError> {
        let path = self.root.join(dir);
        let entries = match fs::read_dir(&path) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&path)(e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_error(&path))?;
            if entry.file_type().map_err(io_error(&path))?.is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_cut_off() {
        let dir = std::env::temp_dir().join(format!("zerosum-store-{}", std::process::id()));
        let store = LocalStore::open(&dir).unwrap();
        store.append_line("games/a.jsonl", "{\"x\":1}").unwrap();
        store.append_line("games/a.jsonl", "{\"x\":2}").unwrap();
        let path = store.local_path("games/a.jsonl");
        let mut text = fs::read_to_string(&path).unwrap();
        text.push_str("{\"x\":3,\"tor");
        fs::write(&path, text).unwrap();
        assert_eq!(store.read_lines("games/a.jsonl").unwrap().len(), 2);
        store.append_line("games/a.jsonl", "{\"x\":4}").unwrap();
        assert_eq!(
            store.read_lines("games/a.jsonl").unwrap(),
            vec!["{\"x\":1}", "{\"x\":2}", "{\"x\":4}"]
        );
        fs::remove_dir_all(dir).unwrap();
    }
}
