//! `include/sluice_mpi.h` is generated from `mpi/src/api.rs` by cbindgen and committed;
//! this test fails when it is stale. `SLUICE_BLESS=1 cargo test -p sluice_mpi --test
//! header` rewrites it.

use std::path::Path;

#[test]
fn header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    // Only the API file: the rest of the crate (and libsluice's declarations in
    // sluice_sys.rs) is not this header's.
    let bindings = cbindgen::Builder::new()
        .with_src(crate_dir.join("src/api.rs"))
        .with_config(config)
        .generate()
        .expect("generate the header");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let fresh = String::from_utf8(fresh).expect("utf-8");
    let path = crate_dir.join("../include/sluice_mpi.h");
    if std::env::var("SLUICE_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "include/sluice_mpi.h is stale: run `SLUICE_BLESS=1 cargo test -p sluice_mpi --test header` and commit it"
    );
}
