//! Loading libtorch's CUDA half before a device is chosen.
//!
//! A PyTorch wheel splits libtorch in two: `libtorch_cpu.so` and `libtorch_cuda.so`. Nothing
//! here calls into the second by name, so the linker's `--as-needed` drops it from every
//! binary, and libtorch then reports no GPU on a machine that has one (tch asks each program
//! to link with `--no-as-needed -ltorch` instead). Loading it here, the first time a device is
//! resolved, gives CUDA to every binary of the workspace and leaves a run on the CPU
//! (`device = "cpu"`) and the commands that need no network without its half-second start
//! and its few hundred megabytes of mapped libraries.

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
    // SAFETY: dlerror returns null or a NUL-terminated message owned by the loader, read
    // at once on this thread.
    let reason = unsafe {
        let message = libc::dlerror();
        if message.is_null() {
            "unknown error".to_string()
        } else {
            std::ffi::CStr::from_ptr(message)
                .to_string_lossy()
                .into_owned()
        }
    };
    Some(format!("{} did not load: {reason}", path.display()))
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
pub(crate) fn loaded_library(file: &str) -> Option<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .map(PathBuf::from)
        .find(|path| path.file_name().is_some_and(|name| name == file))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_cuda_half_is_loaded_where_libtorch_has_one() {
        let dir = libtorch_dir().expect("libtorch_cpu.so is mapped in a test that links tch");
        let has_cuda = dir.join("libtorch_cuda.so").exists();
        assert_eq!(
            load_backend(),
            None,
            "a libtorch_cuda.so beside libtorch_cpu.so loads"
        );
        assert_eq!(
            loaded_library("libtorch_cuda.so").is_some(),
            has_cuda,
            "libtorch_cuda.so is mapped exactly when {} has it",
            dir.display()
        );
        // Resolving a device afterwards answers from the loaded backend, GPU or none.
        assert!(crate::parse_device("auto").is_ok());
    }
}
