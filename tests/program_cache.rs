//! The on-disk program cache of the Vulkan executor (`SLUICE_CACHE_DIR`): a second run of
//! the same program compiles nothing (no program file is written again), and damaged
//! files are recompiled rather than trusted.

mod common;

use common::reference as r;
use common::*;
use sluice::*;
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Fused element-wise work with a scalar, a reduction and a matmul, checked against the
/// reference.
fn workload(rng: &mut rand::rngs::StdRng) {
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    ok(sl_config_default(&mut cfg));
    cfg.backend = SL_BACKEND_VULKAN;
    ok(sl_init(&cfg));
    let a = rand_arr(rng, SL_F32, &[37, 23], -2.0, 2.0, false);
    let b = rand_arr(rng, SL_F32, &[23, 11], -2.0, 2.0, false);
    let (ha, hb) = (a.upload(), b.upload());
    let s = rand_val(rng, SL_F32, -3.0, 3.0, false);
    let (mut t, mut u, mut tot, mut c) = (0, 0, 0, 0);
    ok(sl_mul_scalar(ha, s.f(), &mut t));
    ok(sl_sin(t, &mut u));
    ok(sl_sum(u, 0, &mut tot));
    ok(sl_matmul(ha, hb, &mut c));
    let want_u = r::map1(&a, |x| r::unary(SL_SIN, r::binary(SL_MUL, x, s)));
    assert_close("sin(a s)", &download(u), &want_u, max_ulps(Inexact::Unary(SL_SIN), SL_F32));
    let got = download(tot);
    for j in 0..23 {
        let want: f64 = (0..37).map(|i| want_u.at(&[i, j]).f()).sum();
        assert!((got.v[j].f() - want).abs() < 1e-5, "column sum {j}");
    }
    assert_near("matmul", &download(c), &r::matmul(&a, &b), 1e-5 * 23.0, 1e-5);
    release(&[ha, hb, t, u, tot, c]);
    ok(sl_shutdown());
}

/// Program files (name -> inode) in the one device directory below `root`.
fn programs(root: &Path) -> BTreeMap<String, u64> {
    let dirs: Vec<PathBuf> = std::fs::read_dir(root).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "one directory per device: {dirs:?}");
    assert!(dirs[0].join("pipelines.bin").exists(), "the driver's pipeline cache is saved");
    std::fs::read_dir(&dirs[0])
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".spv"))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().ino()))
        .collect()
}

#[test]
fn second_run_compiles_nothing() {
    let mut rng = rng("second_run_compiles_nothing");
    let root = std::env::temp_dir().join(format!("sluice-program-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // SAFETY: the only test in this process; set before any runtime starts.
    unsafe { std::env::set_var("SLUICE_CACHE_DIR", &root) };

    workload(&mut rng);
    let first = programs(&root);
    assert!(first.len() >= 3, "element-wise, reduction and matmul programs: {first:?}");

    workload(&mut rng);
    assert_eq!(programs(&root), first, "the second run found every program on disk");

    // Damaged files are not trusted: the programs are compiled and written again.
    let dir = root.join(std::fs::read_dir(&root).unwrap().next().unwrap().unwrap().file_name());
    for name in first.keys() {
        std::fs::write(dir.join(name), b"not SPIR-V at all").unwrap();
    }
    workload(&mut rng);
    let third = programs(&root);
    assert_eq!(third.keys().collect::<Vec<_>>(), first.keys().collect::<Vec<_>>());
    for name in third.keys() {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert_eq!(bytes[..4], 0x0723_0203u32.to_le_bytes(), "{name} holds SPIR-V again");
    }
    std::fs::remove_dir_all(&root).unwrap();
}
