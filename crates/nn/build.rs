//! Builds the autocast shim (cpp/autocast.cpp) against the headers of the libtorch that tch
//! links, and adds an absolute rpath to libtorch for this crate's test and doc-test
//! executables, which rustdoc links in a temporary directory out of reach of the relative
//! rpath in .cargo/config.toml.
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=cpp/autocast.cpp");
    for name in ["LIBTORCH", "LIBTORCH_INCLUDE", "LIBTORCH_CXX11_ABI"] {
        println!("cargo:rerun-if-env-changed={name}");
    }
    build_autocast_shim();
    if let Ok(libtorch) = std::env::var("LIBTORCH") {
        let lib = PathBuf::from(libtorch).join("lib");
        if let Ok(lib) = lib.canonicalize() {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
        }
    }
}

/// The shim, or where this libtorch lacks per-device autocast (before PyTorch 2.4) or its
/// headers cannot be found, the same functions refusing mixed precision.
fn build_autocast_shim() {
    let abi = std::env::var("LIBTORCH_CXX11_ABI").unwrap_or_else(|_| "1".to_string());
    let build = |include: Option<&PathBuf>| {
        let mut build = cc::Build::new();
        build
            .cpp(true)
            .pic(true)
            .warnings(false)
            .flag("-std=c++17")
            .flag(format!("-D_GLIBCXX_USE_CXX11_ABI={abi}"))
            .flag("-DGLOG_USE_GLOG_EXPORT")
            .file("cpp/autocast.cpp");
        match include {
            Some(include) => build.include(include),
            None => build.define("ZEROSUM_WITHOUT_AUTOCAST", None),
        };
        build
    };
    let why = match torch_include() {
        Some(include) => match build(Some(&include)).try_compile("zerosum_autocast") {
            Ok(()) => return,
            Err(error) => format!(
                "the shim did not compile against {}: {error}",
                include.display()
            ),
        },
        None => "torch-sys named no libtorch folder".to_string(),
    };
    println!("cargo:warning=training in mixed precision is unavailable ({why}); learner.precision auto stays fp32");
    build(None).compile("zerosum_autocast");
}

/// The include folder of the libtorch torch-sys found: `LIBTORCH_INCLUDE`'s where it is set
/// (as torch-sys reads it), else beside the libraries torch-sys names (`links = "tch"`).
fn torch_include() -> Option<PathBuf> {
    if let Ok(root) = std::env::var("LIBTORCH_INCLUDE") {
        return Some(PathBuf::from(root).join("include"));
    }
    let lib = std::env::var("DEP_TCH_LIBTORCH_LIB").ok()?;
    Some(PathBuf::from(lib).join("../include"))
}
