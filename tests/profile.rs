//! Profiling mode as an application uses it: kernel time attributed to the call sites
//! fused into each kernel (explicit sites here; tests/c/profile.c checks debug-information
//! sites), also through trace-cache and macro replays; weights summing to 1; the three
//! files; bad inputs; and a profile started by `SLUICE_PROFILE`, written at exit. One
//! test function for everything in this process (profiling is process-wide), plus child
//! processes for the environment.

mod common;

use std::ffi::CString;
use std::process::Command;

use common::*;
use serde_json::Value;
use sluice::*;

/// Profile output base in a fresh temporary directory.
fn out_base(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("sluice-profile-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("prof").to_str().unwrap().to_string()
}

fn read_json(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"))
}

/// Makes following calls come from `model.rs:line`.
fn at(line: i32) {
    ok(sl_set_call_site(c"model.rs".as_ptr(), line));
}

/// The summary row of `api` at `model.rs:line`.
fn row<'a>(raw: &'a Value, api: &str, line: u64) -> &'a Value {
    raw["summary"]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["api"] == api && r["file"] == "model.rs" && r["line"] == line)
        .unwrap_or_else(|| panic!("no row for {api} at model.rs:{line}"))
}

fn attributed(raw: &Value, api: &str, line: u64) -> f64 {
    row(raw, api, line)["attributed_ns"].as_f64().unwrap()
}

/// sum(exp(x) + x): exp at line `exp_line`, the add at 11, the sum at 12. Checks the result.
fn exp_add_sum(x: sl_array, xs: &[f64], exp_line: i32) {
    let (mut e, mut t, mut s) = (0, 0, 0);
    at(exp_line);
    ok(sl_exp(x, &mut e));
    at(11);
    ok(sl_add(e, x, &mut t));
    at(12);
    ok(sl_sum(t, SL_ALL_DIMS, &mut s));
    ok(sl_set_call_site(std::ptr::null(), 0));
    let mut got = 0f64;
    ok(sl_read(s, SL_COL_MAJOR, (&mut got as *mut f64).cast(), 8));
    let want: f64 = xs.iter().map(|v| v.exp() + v).sum();
    assert!((got - want).abs() <= 1e-12 * xs.len() as f64 * want.abs().max(1.0), "{got} vs {want}");
    release(&[e, t, s]);
}

/// `y * 0.5 + x` as a macro section recorded at lines 30-31.
fn macro_step(y: sl_array, x: sl_array) -> sl_array {
    let inputs = [y, x];
    let mut out = [0];
    let mut mode = 0;
    ok(sl_macro_begin(c"halve".as_ptr(), inputs.as_ptr(), 2, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
    if mode == SL_MACRO_RECORD {
        let mut h = 0;
        at(30);
        ok(sl_mul_scalar(y, 0.5, &mut h));
        at(31);
        ok(sl_add(h, x, &mut out[0]));
        ok(sl_set_call_site(std::ptr::null(), 0));
        ok(sl_macro_end(out.as_ptr(), 1));
    }
    out[0]
}

#[test]
fn profiles_attribute_time_to_call_sites() {
    let mut rng = rng("profile");
    fails(sl_profile_end(), SL_ERR_INVALID_STATE, "profiling is not on");
    fails(sl_profile_begin(std::ptr::null()), SL_ERR_INVALID_ARGUMENT, "path is NULL");
    fails(sl_profile_begin(c"/nonexistent-directory/p".as_ptr()), SL_ERR_INVALID_ARGUMENT, "cannot write");
    fails(sl_set_call_site(c"model.rs".as_ptr(), -3), SL_ERR_INVALID_ARGUMENT, "line must not be negative");
    let base = out_base("api");
    let cbase = CString::new(base.clone()).unwrap();
    ok(sl_profile_begin(cbase.as_ptr()));
    fails(sl_profile_begin(cbase.as_ptr()), SL_ERR_INVALID_STATE, "already on");

    let n = 1 << 18;
    let xa = rand_arr(&mut rng, SL_F64, &[n], -2.0, 2.0, false);
    let xs: Vec<f64> = xa.v.iter().map(|v| v.f()).collect();
    let x = xa.upload();
    // Lines 10 and 20 make the same op: the line-20 flushes replay the line-10 flush's
    // trace-cache entry and must still be attributed to line 20.
    for round in 0..4 {
        exp_add_sum(x, &xs, if round % 2 == 0 { 10 } else { 20 });
    }
    // An intrinsic: all of its time goes to its call.
    let m = rand_arr(&mut rng, SL_F32, &[64, 64], -1.0, 1.0, false).upload();
    let mut p = 0;
    at(40);
    ok(sl_matmul(m, m, &mut p));
    ok(sl_set_call_site(std::ptr::null(), 0));
    let _ = download(p);
    // A macro replayed: its steps are attributed to the recorded calls.
    let small = rand_arr(&mut rng, SL_F64, &[1000], -1.0, 1.0, false).upload();
    let mut y = 0;
    ok(sl_retain(small, &mut y));
    for _ in 0..3 {
        let next = macro_step(y, small);
        release(&[y]);
        y = next;
    }
    let _ = download(y);
    release(&[x, m, p, small, y]);
    ok(sl_profile_end());
    fails(sl_profile_end(), SL_ERR_INVALID_STATE, "profiling is not on");

    let raw = read_json(&format!("{base}.json"));
    // exp costs 20 adds per element (src/gen/cost.rs): over the same runs, its two lines
    // together get far more of the time than the add, whatever each run took.
    let exp = attributed(&raw, "sl_exp", 10) + attributed(&raw, "sl_exp", 20);
    let add = attributed(&raw, "sl_add", 11);
    assert!(exp > 10.0 * add, "exp at lines 10 and 20: {exp} ns, the add: {add} ns");
    for line in [10, 20] {
        assert!(attributed(&raw, "sl_exp", line) > 0.0, "line {line} has no kernel time");
        assert_eq!(row(&raw, "sl_exp", line)["calls"], 2);
    }
    assert!(attributed(&raw, "sl_sum", 12) > 0.0);
    assert_eq!(row(&raw, "sl_add", 11)["calls"], 4);
    assert!(attributed(&raw, "sl_matmul", 40) > 0.0);
    assert!(attributed(&raw, "sl_mul_scalar", 30) > 0.0 && attributed(&raw, "sl_add", 31) > 0.0);

    let sites = raw["sites"].as_array().unwrap();
    let steps = raw["steps"].as_array().unwrap();
    for s in steps {
        let weights: Vec<f64> = s["sites"].as_array().unwrap().iter().map(|w| w["weight"].as_f64().unwrap()).collect();
        assert!((weights.iter().sum::<f64>() - 1.0).abs() < 1e-4, "weights {weights:?}");
        assert!(s["wall_ns"].as_u64().unwrap() > 0 && s["bytes"].as_u64().unwrap() > 0, "{s}");
    }
    let kernels = raw["summary"]["kernels"].as_array().unwrap();
    let matmul: Vec<&Value> =
        steps.iter().filter(|s| kernels[s["kernel"].as_u64().unwrap() as usize]["work"] == "matmul").collect();
    assert_eq!(matmul.len(), 1);
    assert_eq!(matmul[0]["elements"], 64 * 64);
    let only = &matmul[0]["sites"][0];
    assert_eq!(only["weight"], 1.0);
    assert_eq!(sites[only["site"].as_u64().unwrap() as usize]["line"], 40);
    // One kernel per round; two on CPU-type Vulkan devices, where exp is stored before
    // the sum reads it (`Executor::reductions_fuse_costly_math`).
    let per_round = if on_vulkan() && device().device_type == SL_DEVICE_VULKAN_CPU { 2 } else { 1 };
    let big = steps.iter().filter(|s| s["elements"] == n as u64).count();
    assert_eq!(big, 4 * per_round, "kernel runs per round");
    let outcomes: Vec<&str> = raw["flushes"].as_array().unwrap().iter().map(|f| f["trace"].as_str().unwrap()).collect();
    for want in ["hit", "miss", "macro_record", "macro_replay"] {
        assert!(outcomes.contains(&want), "no {want} flush in {outcomes:?}");
    }
    let calls = raw["calls"].as_array().unwrap();
    assert!(calls.iter().all(|c| c["dur_ns"].as_u64().is_some()));
    assert!(!raw["compiles"].as_array().unwrap().is_empty());

    // On Vulkan every kernel here runs on the device, in batches and (the macro replays)
    // alone: each has the device's own time, placed within the profile. The CPU executor
    // has no device time.
    let duration = raw["duration_ns"].as_u64().unwrap();
    let kernel_steps = steps.iter().filter(|s| kernels[s["kernel"].as_u64().unwrap() as usize]["work"] == "kernel");
    for s in kernel_steps {
        if on_vulkan() {
            assert!(s["device_ns"].as_u64().unwrap() > 0, "{s}");
            assert!(s["device_start_ns"].as_u64().unwrap() + s["device_ns"].as_u64().unwrap() <= duration, "{s}");
        } else {
            assert!(s["device_ns"].is_null(), "{s}");
        }
    }

    let trace = read_json(&format!("{base}.trace.json"));
    let events = trace["traceEvents"].as_array().unwrap();
    for cat in ["call", "flush", "compile", "step"] {
        assert!(events.iter().any(|e| e["cat"] == cat && e["ph"] == "X"), "no {cat} event");
    }
    assert_eq!(events.iter().any(|e| e["cat"] == "device"), on_vulkan());
    let text = std::fs::read_to_string(format!("{base}.txt")).unwrap();
    assert!(text.contains("model.rs:10") && text.contains("model.rs:40"), "{text}");
    let _ = std::fs::remove_dir_all(std::path::Path::new(&base).parent().unwrap());
}

/// Run by `environment` in a child process with `SLUICE_PROFILE` set: exits without
/// `sl_shutdown`, so the profile is written at exit.
#[test]
#[ignore = "run by environment in a child process"]
fn environment_child() {
    let mut rng = rng("environment_child");
    let a = rand_arr(&mut rng, SL_F32, &[5000], -1.0, 1.0, false).upload();
    let mut s = 0;
    ok(sl_sin(a, &mut s));
    let got = download(s);
    assert_eq!(got.v.len(), 5000);
    fails(sl_profile_begin(c"elsewhere".as_ptr()), SL_ERR_INVALID_STATE, "already on");
}

fn child(profile: &str) -> std::process::Output {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "environment_child", "--ignored", "--nocapture", "--test-threads=1"])
        .env("SLUICE_PROFILE", profile)
        .output()
        .expect("run the test binary")
}

#[test]
fn environment() {
    let base = out_base("env");
    let out = child(&base);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let raw = read_json(&format!("{base}.json"));
    let steps = raw["steps"].as_array().unwrap();
    assert!(steps.iter().any(|s| s["elements"] == 5000), "{steps:?}");
    assert!(
        raw["sites"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["api"] == "sl_sin" && s["file"].as_str().is_some_and(|f| f.ends_with("tests/profile.rs")))
    );
    read_json(&format!("{base}.trace.json"));
    let _ = std::fs::remove_dir_all(std::path::Path::new(&base).parent().unwrap());

    let out = child("/nonexistent-directory/p");
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("cannot write the profile file /nonexistent-directory/p.txt"), "{text}");
}
