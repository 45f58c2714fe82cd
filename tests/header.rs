//! `include/sluice.h` is generated from `src/api/` by cbindgen and committed; this test
//! fails when it is stale. `SLUICE_BLESS=1 cargo test --test header` rewrites it.

use std::path::Path;

#[test]
fn header_is_current() {
    let root = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(Path::new(root).join("cbindgen.toml")).expect("cbindgen.toml");
    // Only the API module (and the modules it declares): public items elsewhere (kernel
    // constants, ...) are not the C API.
    let bindings = cbindgen::Builder::new()
        .with_src(Path::new(root).join("src/api/mod.rs"))
        .with_config(config)
        .generate()
        .expect("generate the header");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let fresh = String::from_utf8(fresh).expect("utf-8");
    let path = Path::new(root).join("include/sluice.h");
    if std::env::var("SLUICE_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "include/sluice.h is stale: run `SLUICE_BLESS=1 cargo test --test header` and commit it"
    );
}
