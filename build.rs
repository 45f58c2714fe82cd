//! Build settings that depend on how the crate is compiled.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sluice_frame_pointers)");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    // Call-site capture reads the frame pointer; only trust it when frame pointers are on.
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let on = flags.split('\x1f').any(|f| {
        ["force-frame-pointers=yes", "force-frame-pointers=y", "force-frame-pointers=on", "force-frame-pointers=true"]
            .iter()
            .any(|s| f.ends_with(s))
    });
    if on {
        println!("cargo::rustc-cfg=sluice_frame_pointers");
    }
    // A versioned shared library name, so applications link against the ABI version.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libsluice.so.0");
    }
}
