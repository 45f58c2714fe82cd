//! Shared test support: calling the C API from Rust, and a plain reference
//! implementation of every op (element by element, independent of the library).
#![allow(dead_code)]

pub mod accuracy;
pub mod reference;
pub mod scatter;

#[allow(unused_imports)]
pub use accuracy::{Inexact, max_ulps};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sluice::*;
use std::ffi::CStr;

/// A fresh seed per run (printed so a failure can be replayed with SLUICE_TEST_SEED).
pub fn rng(test: &str) -> StdRng {
    let seed = std::env::var("SLUICE_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    eprintln!("{test}: SLUICE_TEST_SEED={seed}");
    StdRng::seed_from_u64(seed)
}

/// Runs the ignored test `name` of this test binary in a child process with `env` (for
/// settings that are process-wide); returns its stderr.
pub fn child(name: &str, env: &[(&str, &str)]) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--ignored", "--nocapture", "--test-threads=1"])
        .envs(env.iter().copied())
        .output()
        .expect("run the test binary");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success() && stdout.contains("1 passed"), "{name}: {stdout}{stderr}");
    stderr
}

pub fn last_error() -> (sl_status, String) {
    let mut info: sl_error_info = unsafe { std::mem::zeroed() };
    sl_last_error(&mut info);
    let msg = if info.message.is_null() {
        String::new()
    } else {
        unsafe { CStr::from_ptr(info.message) }.to_string_lossy().into_owned()
    };
    (info.status, msg)
}

/// Panics with the runtime's message if `st` is not `SL_OK`.
#[track_caller]
pub fn ok(st: sl_status) {
    if st != SL_OK {
        panic!("call failed with {st}: {}", last_error().1);
    }
}

/// Asserts `st` is `want` and the last error's message mentions `needle`.
#[track_caller]
pub fn fails(st: sl_status, want: sl_status, needle: &str) {
    let (_, msg) = last_error();
    assert_eq!(st, want, "expected status {want}, got {st} ({msg})");
    assert!(msg.to_lowercase().contains(&needle.to_lowercase()), "message {msg:?} does not mention {needle:?}");
}

#[derive(Copy, Clone, Debug)]
pub enum V {
    F32(f32),
    F64(f64),
    I32(i32),
    I64(i64),
    U8(u8),
    B(bool),
}

impl PartialEq for V {
    /// Bitwise for floats except that all NaNs are equal.
    fn eq(&self, o: &V) -> bool {
        match (*self, *o) {
            (V::F32(a), V::F32(b)) => (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits(),
            (V::F64(a), V::F64(b)) => (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits(),
            (V::I32(a), V::I32(b)) => a == b,
            (V::I64(a), V::I64(b)) => a == b,
            (V::U8(a), V::U8(b)) => a == b,
            (V::B(a), V::B(b)) => a == b,
            _ => false,
        }
    }
}

impl V {
    pub fn f(self) -> f64 {
        match self {
            V::F32(x) => x as f64,
            V::F64(x) => x,
            V::I32(x) => x as f64,
            V::I64(x) => x as f64,
            V::U8(x) => x as f64,
            V::B(x) => x as u8 as f64,
        }
    }

    pub fn dtype(self) -> sl_dtype {
        match self {
            V::F32(_) => SL_F32,
            V::F64(_) => SL_F64,
            V::I32(_) => SL_I32,
            V::I64(_) => SL_I64,
            V::U8(_) => SL_U8,
            V::B(_) => SL_BOOL,
        }
    }

    /// The cast op's conversion (Rust `as`).
    pub fn cast(self, to: sl_dtype) -> V {
        let (f, i) = match self {
            V::F32(x) => (x as f64, None),
            V::F64(x) => (x, None),
            V::I32(x) => (x as f64, Some(x as i64)),
            V::I64(x) => (x as f64, Some(x)),
            V::U8(x) => (x as f64, Some(x as i64)),
            V::B(x) => (x as u8 as f64, Some(x as i64)),
        };
        match to {
            SL_F32 => V::F32(match (self, i) {
                (V::F32(x), _) => x,
                (_, Some(i)) => i as f32,
                _ => f as f32,
            }),
            SL_F64 => V::F64(i.map_or(f, |i| i as f64)),
            SL_I32 => V::I32(i.map_or(f as i32, |i| i as i32)),
            SL_I64 => V::I64(i.unwrap_or(f as i64)),
            SL_U8 => V::U8(i.map_or(f as u8, |i| i as u8)),
            _ => V::B(match self {
                V::F32(x) => x != 0.0,
                V::F64(x) => x != 0.0,
                _ => i != Some(0),
            }),
        }
    }
}

pub fn size_of(t: sl_dtype) -> usize {
    match t {
        SL_F32 | SL_I32 => 4,
        SL_F64 | SL_I64 => 8,
        _ => 1,
    }
}

pub const ALL_DTYPES: [sl_dtype; 6] = [SL_F32, SL_F64, SL_I32, SL_I64, SL_U8, SL_BOOL];

/// A reference array: column-major values.
#[derive(Clone, Debug)]
pub struct Arr {
    pub dt: sl_dtype,
    pub shape: Vec<usize>,
    pub v: Vec<V>,
}

pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Column-major multi-index of linear index `i`.
pub fn unravel(shape: &[usize], mut i: usize) -> Vec<usize> {
    shape
        .iter()
        .map(|&n| {
            let c = i % n.max(1);
            i /= n.max(1);
            c
        })
        .collect()
}

pub fn ravel(shape: &[usize], idx: &[usize]) -> usize {
    let mut l = 0;
    let mut m = 1;
    for (d, &n) in shape.iter().enumerate() {
        l += idx[d] * m;
        m *= n;
    }
    l
}

impl Arr {
    pub fn new(dt: sl_dtype, shape: &[usize], v: Vec<V>) -> Arr {
        assert_eq!(v.len(), numel(shape));
        Arr { dt, shape: shape.to_vec(), v }
    }

    pub fn at(&self, idx: &[usize]) -> V {
        self.v[ravel(&self.shape, idx)]
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.v.len() * size_of(self.dt));
        for x in &self.v {
            match *x {
                V::F32(v) => b.extend_from_slice(&v.to_le_bytes()),
                V::F64(v) => b.extend_from_slice(&v.to_le_bytes()),
                V::I32(v) => b.extend_from_slice(&v.to_le_bytes()),
                V::I64(v) => b.extend_from_slice(&v.to_le_bytes()),
                V::U8(v) => b.push(v),
                V::B(v) => b.push(v as u8),
            }
        }
        b
    }

    pub fn upload(&self) -> sl_array {
        let dims: Vec<i64> = self.shape.iter().map(|&d| d as i64).collect();
        let b = self.bytes();
        let mut h = 0;
        ok(sl_create(self.dt, dims.len() as i32, dims.as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len(), &mut h));
        h
    }
}

pub fn from_bytes(dt: sl_dtype, b: &[u8]) -> Vec<V> {
    b.chunks_exact(size_of(dt))
        .map(|c| match dt {
            SL_F32 => V::F32(f32::from_le_bytes(c.try_into().unwrap())),
            SL_F64 => V::F64(f64::from_le_bytes(c.try_into().unwrap())),
            SL_I32 => V::I32(i32::from_le_bytes(c.try_into().unwrap())),
            SL_I64 => V::I64(i64::from_le_bytes(c.try_into().unwrap())),
            SL_U8 => V::U8(c[0]),
            _ => V::B(c[0] != 0),
        })
        .collect()
}

pub fn shape_of(h: sl_array) -> Vec<usize> {
    let mut r = 0;
    ok(sl_rank(h, &mut r));
    let mut dims = vec![0i64; r as usize];
    ok(sl_shape(h, dims.as_mut_ptr(), r));
    dims.iter().map(|&d| d as usize).collect()
}

/// `op` of `a` (`sl_unary`), which must succeed.
#[track_caller]
pub fn unary(op: sl_unary_op, a: sl_array) -> sl_array {
    let mut out = 0;
    ok(sl_unary(op, a, &mut out));
    out
}

/// `op` of `a` and `b` (`sl_binary`), which must succeed.
#[track_caller]
pub fn binary(op: sl_binary_op, a: sl_array, b: sl_array) -> sl_array {
    let mut out = 0;
    ok(sl_binary(op, a, b, &mut out));
    out
}

/// `a` cast to `to` (`sl_cast`), which must succeed.
#[track_caller]
pub fn cast(a: sl_array, to: sl_dtype) -> sl_array {
    let mut out = 0;
    ok(sl_cast(a, to, &mut out));
    out
}

pub fn dtype_of(h: sl_array) -> sl_dtype {
    let mut t = 0;
    ok(sl_get_dtype(h, &mut t));
    t
}

/// Reads an array back (shape and dtype from the runtime).
#[track_caller]
pub fn download(h: sl_array) -> Arr {
    let shape = shape_of(h);
    let dt = dtype_of(h);
    let mut b = vec![0u8; numel(&shape) * size_of(dt)];
    ok(sl_read(h, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len()));
    Arr { dt, shape, v: from_bytes(dt, &b) }
}

/// Reads a complex (c64 or c128) array back as (real, imaginary) pairs in f64.
#[track_caller]
pub fn download_complex(h: sl_array) -> Vec<(f64, f64)> {
    let dt = dtype_of(h);
    assert!(dt == SL_C64 || dt == SL_C128, "expected a complex array, got type {dt}");
    let n = numel(&shape_of(h));
    let part = if dt == SL_C64 { 4 } else { 8 };
    let mut b = vec![0u8; n * 2 * part];
    ok(sl_read(h, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len()));
    let p = |c: &[u8]| {
        if part == 4 {
            f32::from_le_bytes(c.try_into().unwrap()) as f64
        } else {
            f64::from_le_bytes(c.try_into().unwrap())
        }
    };
    b.chunks_exact(2 * part).map(|c| (p(&c[..part]), p(&c[part..]))).collect()
}

/// `a op s` (or `s op a` when `scalar_first`) through the scalar form of `a`'s kind, so
/// the result keeps `a`'s type (README "Type promotion"): the double form for floating-point
/// and complex arrays, the int64_t one for integer arrays, a rank-0 bool array for bool.
pub fn same_kind_scalar(op: sl_binary_op, a: sl_array, s: f64, scalar_first: bool, out: *mut sl_array) -> sl_status {
    match (dtype_of(a), scalar_first) {
        (SL_BOOL, _) => {
            let c = Arr::new(SL_BOOL, &[], vec![V::B(s != 0.0)]).upload();
            let st = if scalar_first { sl_binary(op, c, a, out) } else { sl_binary(op, a, c, out) };
            release(&[c]);
            st
        }
        (SL_I32 | SL_I64 | SL_U8, false) => sl_binary_scalar_i(op, a, s as i64, out),
        (SL_I32 | SL_I64 | SL_U8, true) => sl_scalar_binary_i(op, s as i64, a, out),
        (_, false) => sl_binary_scalar(op, a, s, out),
        (_, true) => sl_scalar_binary(op, s, a, out),
    }
}

pub fn release(hs: &[sl_array]) {
    for &h in hs {
        ok(sl_release(h));
    }
}

/// A random value of type `dt`; floats sometimes take special values when `special`.
pub fn rand_val(rng: &mut StdRng, dt: sl_dtype, lo: f64, hi: f64, special: bool) -> V {
    if special && rng.random_bool(0.05) {
        let s = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.0, -1.0];
        let x = s[rng.random_range(0..s.len())];
        match dt {
            SL_F32 => return V::F32(x as f32),
            SL_F64 => return V::F64(x),
            _ => {}
        }
    }
    match dt {
        SL_F32 => V::F32(rng.random_range(lo..hi) as f32),
        SL_F64 => V::F64(rng.random_range(lo..hi)),
        SL_I32 => V::I32(rng.random_range(lo as i64..=hi as i64) as i32),
        SL_I64 => V::I64(rng.random_range(lo as i64..=hi as i64)),
        SL_U8 => V::U8(rng.random_range(lo.max(0.0) as i64..=hi.min(255.0) as i64) as u8),
        _ => V::B(rng.random_bool(0.5)),
    }
}

pub fn rand_arr(rng: &mut StdRng, dt: sl_dtype, shape: &[usize], lo: f64, hi: f64, special: bool) -> Arr {
    let v = (0..numel(shape)).map(|_| rand_val(rng, dt, lo, hi, special)).collect();
    Arr::new(dt, shape, v)
}

/// Distance in units in the last place between two floats of the same type.
pub fn ulps(a: V, b: V) -> f64 {
    fn key32(x: f32) -> i64 {
        let b = x.to_bits() as i32 as i64;
        if b < 0 { i32::MIN as i64 - b } else { b }
    }
    fn key64(x: f64) -> i128 {
        let b = x.to_bits() as i64 as i128;
        if b < 0 { i64::MIN as i128 - b } else { b }
    }
    match (a, b) {
        (V::F32(x), V::F32(y)) => {
            if x.is_nan() && y.is_nan() || x == y {
                0.0
            } else if x.is_nan() || y.is_nan() {
                f64::INFINITY
            } else {
                (key32(x) - key32(y)).abs() as f64
            }
        }
        (V::F64(x), V::F64(y)) => {
            if x.is_nan() && y.is_nan() || x == y {
                0.0
            } else if x.is_nan() || y.is_nan() {
                f64::INFINITY
            } else {
                (key64(x) - key64(y)).abs() as f64
            }
        }
        _ => {
            if a == b {
                0.0
            } else {
                f64::INFINITY
            }
        }
    }
}

/// What runs kernels (as `sl_get_device_info` reports).
pub fn device() -> sl_device_info {
    let mut info: sl_device_info = unsafe { std::mem::zeroed() };
    ok(sl_get_device_info(&mut info));
    info
}

/// Whether the switch `name` is on in the environment (`on` or `1`).
pub fn switched_on(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| matches!(v.trim(), "on" | "1"))
}

/// `-x` (logical not for bools): a prologue that fuses into the op reading it.
pub fn negate(h: sl_array) -> sl_array {
    let op = if dtype_of(h) == SL_BOOL { SL_NOT } else { SL_NEG };
    let mut out = 0;
    ok(sl_unary(op, h, &mut out));
    out
}

/// What `negate` gives for `a`, from the reference.
pub fn negated(a: &Arr) -> Arr {
    let op = if a.dt == SL_BOOL { SL_NOT } else { SL_NEG };
    reference::map1(a, |v| reference::unary(op, v))
}

/// The array `make` returns, read back (and released), and whether the hand-written
/// `kernel` was dispatched meanwhile. Counters are per process and tests run in parallel,
/// so a dispatch seen may be another test's: only "it ran" is certain when expected.
pub fn read_counting(kernel: sluice::backend::vulkan::Handwritten, make: impl FnOnce() -> sl_array) -> (Arr, bool) {
    let before = kernel.dispatches();
    let h = make();
    let got = download(h);
    release(&[h]);
    (got, kernel.dispatches() > before)
}

/// The runtime's counters (`sl_get_stats`).
pub fn stats() -> sl_stats {
    let mut s: sl_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_stats(&mut s));
    s
}

/// The result comparison's counters (`sl_get_compare_stats`).
pub fn compare_stats() -> sl_compare_stats {
    let mut s = sl_compare_stats { values_checked: 0, mismatches: 0 };
    ok(sl_get_compare_stats(&mut s));
    s
}

/// Under result comparison: at least `at_least` values were compared and none differed
/// from its reference.
pub fn assert_compared_clean(at_least: u64) {
    let s = compare_stats();
    assert!(s.values_checked >= at_least, "only {} values were compared", s.values_checked);
    assert_eq!(s.mismatches, 0, "values differ from their references ({} checked)", s.values_checked);
}

/// Checks which path a read took (see `read_counting`): the hand-written `kernel` where
/// the policy picks it (`picked`) on Vulkan with hand-written kernels on, and none on the
/// CPU or with them switched off. Counters are per process and tests run in parallel, so
/// only that a kernel ran can be seen, not that it did not where it could have.
pub fn assert_handwritten(what: &str, kernel: &str, ran: bool, picked: bool) {
    let available = on_vulkan() && !switched_on("SLUICE_VULKAN_NO_HANDWRITTEN");
    if available && picked {
        assert!(ran, "{what}: the {kernel} did not run");
    }
    if !available {
        assert!(!ran, "{what}: a hand-written kernel ran though switched off");
    }
}

/// Whether kernels run on the Vulkan executor.
pub fn on_vulkan() -> bool {
    device().backend == SL_BACKEND_VULKAN
}

/// Asserts same shape and type, and every element within `max_ulps` (0: exact).
#[track_caller]
pub fn assert_close(what: &str, got: &Arr, want: &Arr, max_ulps: f64) {
    assert_eq!(got.shape, want.shape, "{what}: shape");
    assert_eq!(got.dt, want.dt, "{what}: dtype");
    for i in 0..got.v.len() {
        let e = ulps(got.v[i], want.v[i]);
        assert!(
            e <= max_ulps,
            "{what}: element {i} {:?}: got {:?}, want {:?} ({e} ulps)",
            unravel(&got.shape, i),
            got.v[i],
            want.v[i]
        );
    }
}

/// The sum of the magnitudes of `a`, as the scale of a sum's rounding error.
pub fn magnitude(a: &Arr) -> f64 {
    a.v.iter().map(|v| v.f().abs()).sum::<f64>().max(1e-300)
}

/// Asserts floats agree within `abs + rel * |want|` (other types exactly).
#[track_caller]
pub fn assert_near(what: &str, got: &Arr, want: &Arr, abs: f64, rel: f64) {
    assert_eq!(got.shape, want.shape, "{what}: shape");
    assert_eq!(got.dt, want.dt, "{what}: dtype");
    for i in 0..got.v.len() {
        let (g, w) = (got.v[i], want.v[i]);
        let okv = match (g, w) {
            (V::F32(_), V::F32(_)) | (V::F64(_), V::F64(_)) => {
                let (g, w) = (g.f(), w.f());
                (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= abs + rel * w.abs()
            }
            _ => g == w,
        };
        assert!(okv, "{what}: element {i} {:?}: got {g:?}, want {w:?}", unravel(&got.shape, i));
    }
}

/// An array of type `dt` (complex, or real taking the real parts) holding the
/// (real, imaginary) pairs `v`, column-major.
pub fn upload_parts(dt: sl_dtype, shape: &[usize], v: &[(f64, f64)]) -> sl_array {
    let complex = dt == SL_C64 || dt == SL_C128;
    let mut b = Vec::new();
    for &(re, im) in v {
        let parts: &[f64] = if complex { &[re, im] } else { &[re] };
        for &p in parts {
            if dt == SL_C64 || dt == SL_F32 {
                b.extend((p as f32).to_le_bytes());
            } else {
                b.extend(p.to_le_bytes());
            }
        }
    }
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let mut h = 0;
    ok(sl_create(dt, dims.len() as i32, dims.as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len(), &mut h));
    h
}

/// The values of a complex or real array as (real, imaginary) pairs (real ones with zero
/// imaginary parts).
#[track_caller]
pub fn read_parts(h: sl_array) -> Vec<(f64, f64)> {
    let dt = dtype_of(h);
    if dt == SL_C64 || dt == SL_C128 {
        download_complex(h)
    } else {
        download(h).v.into_iter().map(|x| x.f()).map(|x| (x, 0.0)).collect()
    }
}

/// Runs `round` three times. Under `SLUICE_COMPARE` every value must have been checked
/// against the reference run without a mismatch; otherwise the second and third rounds
/// must each replay at least `hits_per_round` flushes from the trace cache.
pub fn rounds_compared_or_replayed(hits_per_round: u64, mut round: impl FnMut(usize)) {
    let trace_hits = || {
        let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
        ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut s));
        s.hits
    };
    round(0);
    let hits_after_first = trace_hits();
    round(1);
    round(2);
    if std::env::var("SLUICE_COMPARE").is_ok() {
        let mut s = sl_compare_stats { values_checked: 0, mismatches: 0 };
        ok(sl_get_compare_stats(&mut s));
        assert!(s.values_checked > 0 && s.mismatches == 0, "{s:?}");
    } else {
        let hits = trace_hits() - hits_after_first;
        assert!(hits >= 2 * hits_per_round, "{hits} trace cache hits in the repeated rounds");
    }
}
