//! Loading libtorch's CUDA half before libtorch is first asked about CUDA.
//!
//! A PyTorch wheel splits libtorch in two: `libtorch_cpu.so` and `libtorch_cuda.so`. Nothing
//! here calls into the second by name, so the linker's `--as-needed` drops it from every
//! binary, and libtorch then reports no GPU on a machine that has one (tch asks each program
//! to link with `--no-as-needed -ltorch` instead). libtorch also settles whether it has CUDA
//! once, the first time anything asks (seeding its generators does), and never looks again:
//! so [`crate::init_torch`] and [`crate::parse_device`], the first calls of every command
//! that uses a network, load it here first. Commands that need no network never pay its
//! half-second start and few hundred megabytes of mapped libraries.

#[cfg(target_os = "linux")]
use std::path::PathBuf;
use std::sync::OnceLock;

/// Why libtorch's CUDA half did not load, where this libtorch has one; `None` when it
/// loaded or there is none to load (a CPU-only libtorch, or another system than Linux).
pub(crate) fn load_backend() -> Option<&'static str> {
    static OUTCOME: OnceLock<Option<String>> = OnceLock::new();
    OUTCOME.get_or_init(load).as_deref()
}

#[cfg(target_os = "linux")]
fn load() -> Option<String> {
    let path = libtorch_dir()?.join("libtorch_cuda.so");
    if !path.exists() {
        return None;
    }
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return Some(format!("{} has a NUL in its path", path.display()));
    };
    // SAFETY: `name` is a NUL-terminated path; loading a library runs its initialisers,
    // which for libtorch_cuda register the CUDA backend with the libtorch already loaded.
    // The handle is kept for the life of the process (never closed).
    let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if !handle.is_null() {
        return None;
    }
    Some(format!("{} did not load: {}", path.display(), dl_error()))
}

/// Why the last `dlopen` on this thread failed, as the loader says it.
pub(crate) fn dl_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated message owned by the loader, read
    // at once on this thread.
    unsafe {
        let message = libc::dlerror();
        if message.is_null() {
            "unknown error".to_string()
        } else {
            std::ffi::CStr::from_ptr(message)
                .to_string_lossy()
                .into_owned()
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn load() -> Option<String> {
    None
}

/// The folder of the `libtorch_cpu.so` this process runs on, read off its memory map: the
/// CUDA half must come from the same build, wherever the rpath or LD_LIBRARY_PATH found it.
#[cfg(target_os = "linux")]
fn libtorch_dir() -> Option<PathBuf> {
    loaded_library("libtorch_cpu.so")?
        .parent()
        .map(PathBuf::from)
}

/// The path of the loaded library whose file is named `file`, if any.
#[cfg(target_os = "linux")]
fn loaded_library(file: &str) -> Option<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(mapped_path)
        .find(|path| path.file_name().is_some_and(|name| name == file))
}

/// The file of one line of /proc/self/maps: everything after its five fixed fields (a path
/// may hold spaces), less the " (deleted)" of a file replaced since it was mapped.
#[cfg(target_os = "linux")]
fn mapped_path(line: &str) -> Option<PathBuf> {
    let mut rest = line;
    for _ in 0..5 {
        rest = rest.trim_start().split_once(char::is_whitespace)?.1;
    }
    let path = rest.trim();
    let path = path.strip_suffix(" (deleted)").unwrap_or(path);
    path.starts_with('/').then(|| PathBuf::from(path))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_cuda_half_is_loaded_from_libtorch_s_own_folder_before_libtorch_is_seeded() {
        let dir = libtorch_dir().expect("libtorch_cpu.so is mapped in a test that links tch");
        let cuda = dir.join("libtorch_cuda.so");
        // Seeding is the first thing every command asks of libtorch, and it settles for good
        // whether libtorch has CUDA: the half must be there by then.
        crate::init_torch(1, 0);
        assert_eq!(
            loaded_library("libtorch_cuda.so"),
            cuda.exists().then(|| cuda.clone()),
            "init_torch mapped libtorch_cuda.so, from {}, exactly when that folder has it",
            dir.display()
        );
        assert_eq!(load_backend(), None, "{} loaded", cuda.display());
    }

    #[test]
    fn mapped_paths_keep_their_spaces_and_lose_deleted() {
        let line = "7f00-7f10 r-xp 00000000 fd:01 123   /opt/my torch/lib/libtorch_cpu.so";
        assert_eq!(
            mapped_path(line),
            Some(PathBuf::from("/opt/my torch/lib/libtorch_cpu.so"))
        );
        let gone = "7f00-7f10 r--p 00000000 fd:01 9 /tmp/libx.so (deleted)";
        assert_eq!(mapped_path(gone), Some(PathBuf::from("/tmp/libx.so")));
        assert_eq!(mapped_path("7f00-7f10 rw-p 00000000 00:00 0 "), None);
        assert_eq!(mapped_path("7f00-7f10 rw-p 00000000 00:00 0 [heap]"), None);
    }
}
