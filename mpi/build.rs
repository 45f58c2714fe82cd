//! Builds the MPI shim with the system's MPI compiler wrapper and links libsluice_mpi to
//! MPI and to libsluice.so (dynamically: one Sluice runtime per process, shared with the
//! application, so local parts are ordinary Sluice arrays).
//!
//! - `SLUICE_MPICC`: the MPI C compiler wrapper (default `mpicc`; OpenMPI or MPICH).
//! - `SLUICE_LIB_DIR`: where libsluice.so is (default: the workspace's target directory of
//!   this profile, where `cargo build --lib` at the root puts it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=shim/mpi_shim.c");
    println!("cargo::rerun-if-env-changed=SLUICE_MPICC");
    println!("cargo::rerun-if-env-changed=SLUICE_LIB_DIR");
    let mpicc = std::env::var("SLUICE_MPICC").unwrap_or_else(|_| "mpicc".into());
    cc::Build::new()
        .compiler(&mpicc)
        .file("shim/mpi_shim.c")
        .flag("-std=c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("sluice_mpi_shim");
    for arg in mpi_link_args(&mpicc) {
        if let Some(dir) = arg.strip_prefix("-L") {
            println!("cargo::rustc-link-search=native={dir}");
        } else if let Some(lib) = arg.strip_prefix("-l") {
            println!("cargo::rustc-link-lib=dylib={lib}");
        } else if arg.starts_with("-Wl,") {
            println!("cargo::rustc-cdylib-link-arg={arg}");
        }
    }
    let sluice = sluice_lib_dir();
    if !sluice.join("libsluice.so").exists() {
        panic!(
            "libsluice.so is not in {}: build it first (`cargo build --lib` at the workspace root, with the same profile) or set SLUICE_LIB_DIR",
            sluice.display()
        );
    }
    println!("cargo::rustc-link-search=native={}", sluice.display());
    println!("cargo::rustc-link-lib=dylib=sluice");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libsluice_mpi.so.0");
        // Installed beside libsluice.so.0: found there whoever loads it.
        println!("cargo::rustc-cdylib-link-arg=-Wl,-rpath,$ORIGIN");
    }
}

/// The linker arguments the wrapper adds: OpenMPI's `--showme:link`, else MPICH's
/// `-link_info` (whose first word is the compiler).
fn mpi_link_args(mpicc: &str) -> Vec<String> {
    let run = |flag: &str| {
        Command::new(mpicc)
            .arg(flag)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let text = run("--showme:link").or_else(|| run("-link_info")).unwrap_or_else(|| {
        panic!("{mpicc} gives no link flags (neither --showme:link nor -link_info): is MPI installed?")
    });
    text.split_whitespace().filter(|w| w.starts_with('-')).map(str::to_owned).collect()
}

fn sluice_lib_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("SLUICE_LIB_DIR") {
        return PathBuf::from(dir);
    }
    // OUT_DIR is <target>/<profile>/build/sluice_mpi-<hash>/out.
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    out.ancestors().nth(3).map(Path::to_path_buf).expect("OUT_DIR is inside the target directory")
}
