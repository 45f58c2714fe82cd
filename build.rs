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
    link_system_glslang();
    // A versioned shared library name, so applications link against the ABI version.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libsluice.so.0");
    }
}

/// Debian's `libshaderc_combined.a` (which the `shaderc` crate links when it finds it) does
/// not contain glslang or SPIRV-Tools; their static libraries from the same directory are
/// linked after it. Where shaderc is built from source instead, they are not present and
/// the combined library is complete. The linker only takes members it still needs, so
/// naming them is harmless when the combined library already has them.
fn link_system_glslang() {
    println!("cargo::rerun-if-env-changed=SHADERC_LIB_DIR");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let dir = std::env::var("SHADERC_LIB_DIR").unwrap_or_else(|_| format!("/usr/lib/{arch}-linux-gnu"));
    let dir = std::path::Path::new(&dir);
    if !dir.join("libshaderc_combined.a").exists() || !dir.join("libglslang.a").exists() {
        return;
    }
    // Dependents before their dependencies.
    const LIBS: [&str; 9] = [
        "glslang",
        "MachineIndependent",
        "GenericCodeGen",
        "OSDependent",
        "OGLCompiler",
        "SPIRV",
        "SPIRV-Tools-opt",
        "SPIRV-Tools",
        "glslang-default-resource-limits",
    ];
    // Link arguments come after the crates' own libraries on the command line, which is
    // where the combined library's undefined symbols can still be resolved.
    println!("cargo::rustc-link-arg=-L{}", dir.display());
    for lib in LIBS.iter().filter(|l| dir.join(format!("lib{l}.a")).exists()) {
        println!("cargo::rustc-link-arg=-l:lib{lib}.a");
    }
    println!("cargo::rustc-link-arg=-lstdc++");
}
