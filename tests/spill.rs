//! Device memory running out on the Vulkan executor: with a small device budget
//! (`SLUICE_DEVICE_MEMORY`), arrays that do not fit together are moved to host memory and
//! back as kernels need them, giving the same results; an array that cannot fit even
//! alone poisons only what depends on it, reported at its op's call site.

mod common;

use common::reference as r;
use common::*;
use sluice::*;

#[test]
fn arrays_beyond_the_device_budget() {
    let mut rng = rng("arrays_beyond_the_device_budget");
    // SAFETY: the only test in this process; set before the runtime starts.
    unsafe { std::env::set_var("SLUICE_DEVICE_MEMORY", "3M") };
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    ok(sl_config_default(&mut cfg));
    cfg.backend = SL_BACKEND_VULKAN;
    ok(sl_init(&cfg));

    // Ten 1 MiB results, all kept: at most three fit on the device at once.
    let n = 1 << 18;
    let xs: Vec<Arr> = (0..10).map(|_| rand_arr(&mut rng, SL_F32, &[n], -2.0, 2.0, false)).collect();
    let hx: Vec<sl_array> = xs.iter().map(|x| x.upload()).collect();
    let mut ys = Vec::new();
    for &h in &hx {
        let mut y = 0;
        ok(sl_exp(h, &mut y));
        ok(sl_eval(&y, 1));
        ys.push(y);
    }
    // Pairs of the early (moved out) and late results, computed on the device again.
    let mut zs = Vec::new();
    for i in 0..5 {
        let mut z = 0;
        ok(sl_add(ys[i], ys[9 - i], &mut z));
        zs.push(z);
    }
    let exp = |x: &Arr| r::map1(x, |v| r::unary(SL_EXP, v));
    let tol = max_ulps(Inexact::Unary(SL_EXP), SL_F32);
    for (i, &z) in zs.iter().enumerate() {
        let want = r::map2(&exp(&xs[i]), &exp(&xs[9 - i]), |a, b| r::binary(SL_ADD, a, b));
        assert_close(&format!("pair {i}"), &download(z), &want, tol + 1.0);
    }
    for (i, &y) in ys.iter().enumerate() {
        assert_close(&format!("result {i}"), &download(y), &exp(&xs[i]), tol);
    }

    // 4 MiB cannot fit however much is moved out: that result fails, nothing else does.
    let big = rand_arr(&mut rng, SL_F32, &[1 << 20], -1.0, 1.0, false);
    let hb = big.upload();
    let mut too_big = 0;
    ok(sl_neg(hb, &mut too_big));
    let mut out = vec![0f32; 1 << 20];
    let st = sl_read(too_big, SL_COL_MAJOR, out.as_mut_ptr() as *mut _, out.len() * 4);
    fails(st, SL_ERR_POISONED, "out of memory");
    fails(st, SL_ERR_POISONED, "sl_neg");
    assert_close("result 0 after the failure", &download(ys[0]), &exp(&xs[0]), tol);

    release(&hx);
    release(&ys);
    release(&zs);
    release(&[hb, too_big]);
    ok(sl_shutdown());
}
