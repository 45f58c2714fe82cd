//! The shared library exports exactly the C API: every function the header declares, and
//! nothing else.

use std::collections::BTreeSet;
use std::process::Command;

fn header_functions() -> BTreeSet<String> {
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/sluice.h")).unwrap();
    header
        .lines()
        .filter_map(|l| l.strip_prefix("sl_status "))
        .filter_map(|l| l.split('(').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn exports_only_the_c_api() {
    // The test binary sits in target/<profile>/deps; the library one level up.
    let exe = std::env::current_exe().unwrap();
    let lib = exe.parent().unwrap().parent().unwrap().join("libsluice.so");
    assert!(lib.exists(), "{} not built", lib.display());
    let out = Command::new("nm").args(["-D", "--defined-only", "--format=posix"]).arg(&lib).output().expect("run nm (binutils)");
    assert!(out.status.success(), "nm failed: {}", String::from_utf8_lossy(&out.stderr));
    let exported: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(|s| s.split('@').next().unwrap().to_string())
        .collect();
    let foreign: Vec<&String> = exported.iter().filter(|s| !s.starts_with("sl_")).collect();
    assert!(foreign.is_empty(), "symbols outside the C API are exported: {foreign:?}");
    let declared = header_functions();
    assert!(declared.len() > 100, "parsed {} functions from the header", declared.len());
    let missing: Vec<&String> = declared.difference(&exported).collect();
    let undeclared: Vec<&String> = exported.difference(&declared).collect();
    assert!(missing.is_empty(), "declared but not exported: {missing:?}");
    assert!(undeclared.is_empty(), "exported but not in the header: {undeclared:?}");
}
