//! Files that survive a power loss, not only a killed process: an actor's outbox, the
//! positions `accuracy --save` writes.
//!
//! A file's bytes reach the disk when the file is synced, and its name when the folder
//! holding it is synced; a file renamed into place is not there after a power loss until
//! its folder has been synced too. (The run store's own writes are synced by object_store's
//! local backend, `with_fsync`.)

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` so that a reader (or a power loss) sees either the old file or
/// the whole new one: a temporary file beside it, synced, renamed over it, and the
/// folder synced.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a path with no file name"))?;
    let mut tmp_name = file_name.to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut file = File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    File::open(folder)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_is_whole_and_replaces_the_old_one() {
        let dir = std::env::temp_dir().join(format!("zerosum-durable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("batch.jsonl");
        write_file(&path, b"old").unwrap();
        write_file(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(!dir.join("batch.jsonl.tmp").exists());
        assert!(write_file(&dir.join("missing/x"), b"x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
