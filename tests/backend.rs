//! Choosing the executor: `SLUICE_BACKEND` and `sl_config.backend`, what `sl_get_device_info`
//! reports, the CPU fallback when Vulkan is absent, and f64 routed to the CPU on devices
//! without 64-bit floats. One test, because each step restarts the process-wide runtime
//! with different settings.

mod common;

use common::reference as r;
use common::*;
use sluice::*;
use std::ffi::CStr;

fn info() -> (sl_device_info, String, String) {
    let mut d: sl_device_info = unsafe { std::mem::zeroed() };
    ok(sl_get_device_info(&mut d));
    let name = unsafe { CStr::from_ptr(d.name.as_ptr()) }.to_string_lossy().into_owned();
    let reason = unsafe { CStr::from_ptr(d.reason.as_ptr()) }.to_string_lossy().into_owned();
    (d, name, reason)
}

fn init(backend: sl_backend) -> sl_status {
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    ok(sl_config_default(&mut cfg));
    cfg.backend = backend;
    sl_init(&cfg)
}

fn set(var: &str, value: Option<&str>) {
    // SAFETY: this test is the only one in its process and sets variables between runtimes.
    unsafe {
        match value {
            Some(v) => std::env::set_var(var, v),
            None => std::env::remove_var(var),
        }
    }
}

/// A fused f32 and f64 computation on fresh random data, checked against the reference.
fn computes(rng: &mut rand::rngs::StdRng, what: &str) {
    for dt in [SL_F32, SL_F64] {
        let a = rand_arr(rng, dt, &[3000], -3.0, 3.0, false);
        let h = a.upload();
        let (mut e, mut s, mut t) = (0, 0, 0);
        ok(sl_exp(h, &mut e));
        ok(sl_mul(e, h, &mut s));
        ok(sl_sum(s, SL_ALL_DIMS, &mut t));
        let want_s = r::map2(&r::map1(&a, |x| r::unary(SL_EXP, x)), &a, |x, y| r::binary(SL_MUL, x, y));
        // The product adds half an ulp to exp's error.
        let tol = max_ulps(Inexact::Unary(SL_EXP), dt) + 1.0;
        assert_close(&format!("{what}: exp(x) * x, {dt}"), &download(s), &want_s, tol);
        let want_t: f64 = want_s.v.iter().map(|v| v.f()).sum();
        let abs_sum: f64 = want_s.v.iter().map(|v| v.f().abs()).sum();
        let got = download(t).v[0].f();
        assert!((got - want_t).abs() <= 1e-5 * abs_sum, "{what}: sum {got} vs {want_t}");
        release(&[h, e, s, t]);
    }
}

#[test]
fn backend_choice_and_fallback() {
    let mut rng = rng("backend_choice_and_fallback");
    set("SLUICE_BACKEND", None);

    // Settings that do not parse are refused, naming the culprit.
    set("SLUICE_BACKEND", Some("gpu"));
    fails(init(SL_BACKEND_DEFAULT), SL_ERR_INVALID_ARGUMENT, "SLUICE_BACKEND=gpu");
    set("SLUICE_BACKEND", None);
    fails(init(7), SL_ERR_INVALID_ARGUMENT, "SL_BACKEND_");

    // The CPU executor on request.
    ok(init(SL_BACKEND_CPU));
    let (d, name, reason) = info();
    assert_eq!((d.backend, d.device_type, d.float64), (SL_BACKEND_CPU, SL_DEVICE_HOST, 1));
    assert!(name.contains("CPU") && reason.contains("requested"), "{name}: {reason}");
    computes(&mut rng, "cpu");
    ok(sl_shutdown());

    // Vulkan on whatever device there is (lavapipe on machines without a GPU).
    ok(init(SL_BACKEND_VULKAN));
    let (d, name, reason) = info();
    assert_eq!(d.backend, SL_BACKEND_VULKAN, "{reason}");
    assert!(!name.is_empty() && reason.contains(&name), "{name}: {reason}");
    computes(&mut rng, "vulkan");
    assert_eq!(stats().host_steps, 0, "everything ran on the device");
    ok(sl_shutdown());

    // auto takes a GPU, never a CPU-type Vulkan device over the CPU executor.
    ok(init(SL_BACKEND_AUTO));
    let (d, _, reason) = info();
    match d.backend {
        SL_BACKEND_VULKAN => assert!(matches!(d.device_type, SL_DEVICE_DISCRETE_GPU | SL_DEVICE_INTEGRATED_GPU)),
        _ => assert!(reason.starts_with("auto: no Vulkan GPU"), "{reason}"),
    }
    computes(&mut rng, "auto");
    ok(sl_shutdown());

    // f64 work goes to the CPU when the device (says it) has no 64-bit floats.
    set("SLUICE_VULKAN_NO_F64", Some("on"));
    ok(init(SL_BACKEND_VULKAN));
    let (d, _, reason) = info();
    assert_eq!((d.backend, d.float64), (SL_BACKEND_VULKAN, 0));
    assert!(reason.contains("f64 work runs on the CPU"), "{reason}");
    computes(&mut rng, "vulkan without f64");
    // The f64 kernels (elementwise and the sum; f32 ones stay on the device).
    assert_eq!(stats().host_steps, 2);
    ok(sl_shutdown());
    set("SLUICE_VULKAN_NO_F64", None);

    // Without a loader, or without any device: auto and cpu run, vulkan says why not.
    for (var, value, why) in [
        ("SLUICE_VULKAN_LOADER", "/nonexistent/libvulkan.so.1", "could not be loaded"),
        ("VK_ICD_FILENAMES", "/nonexistent.json", "found no driver"),
    ] {
        set(var, Some(value));
        let st = init(SL_BACKEND_VULKAN);
        fails(st, SL_ERR_NOT_SUPPORTED, "the Vulkan backend was requested but cannot run");
        fails(st, SL_ERR_NOT_SUPPORTED, why);
        ok(init(SL_BACKEND_AUTO));
        let (d, _, reason) = info();
        assert_eq!(d.backend, SL_BACKEND_CPU);
        assert!(reason.contains(why), "{reason}");
        computes(&mut rng, value);
        ok(sl_shutdown());
        ok(init(SL_BACKEND_CPU));
        computes(&mut rng, value);
        ok(sl_shutdown());
        set(var, None);
    }
}
