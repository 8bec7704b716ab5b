//! The extension module finds libtorch where pip puts it: `site-packages/torch/lib`, beside
//! `site-packages/zerosum/`. (`import zerosum` imports torch first, which loads the same
//! libraries; the rpath is for a process that loads the module without it.)
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,$ORIGIN/../torch/lib");
    // The release profile's line tables make the module 130 MB; a Python traceback names
    // what failed without them. (With maturin's own `strip` instead, the command line's next
    // build recompiled the workspace's crates.)
    println!("cargo:rustc-cdylib-link-arg=-Wl,--strip-debug");
}
