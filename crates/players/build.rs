//! Adds an absolute rpath to libtorch for this crate's test and doc-test executables, which
//! rustdoc links in a temporary directory out of reach of the relative rpath in
//! .cargo/config.toml.
fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    if let Ok(libtorch) = std::env::var("LIBTORCH") {
        let lib = std::path::Path::new(&libtorch).join("lib");
        if let Ok(lib) = lib.canonicalize() {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
        }
    }
}
