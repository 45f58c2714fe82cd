//! f16 and bf16, storage types, against a plain reference: the `half` crate's conversions
//! (round to nearest even) and, for ops, the operands as f32, the op computed in f32 (f64
//! for the math functions) and the result rounded once to the type. Inputs are fresh
//! random bit patterns (every finite value, subnormals, ±0, ±inf, NaN), odd lengths and
//! views. On Vulkan the work on these types runs on the CPU.

mod common;

use common::*;
use half::{bf16, f16};
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

const HALVES: [sl_dtype; 2] = [SL_F16, SL_BF16];
const LENGTHS: [usize; 3] = [1, 1000, 65539];

/// A value of `t` from its bits, as f32 (which holds every value).
fn value(t: sl_dtype, bits: u16) -> f32 {
    if t == SL_F16 { f16::from_bits(bits).to_f32() } else { bf16::from_bits(bits).to_f32() }
}

/// `x` rounded to `t` (nearest even), as its bits.
fn round32(t: sl_dtype, x: f32) -> u16 {
    if t == SL_F16 { f16::from_f32(x).to_bits() } else { bf16::from_f32(x).to_bits() }
}

/// `x` rounded to `t` (nearest even), as its bits: of the two values of `t` around `x`
/// the nearer, the one with an even last bit on a tie (`half`'s own conversion from f64
/// rounds twice on some targets, through f32).
fn round64(t: sl_dtype, x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let max_bits: u16 = if t == SL_F16 { 0x7bff } else { 0x7f7f };
    let (max, below_max) = (value(t, max_bits) as f64, value(t, max_bits - 1) as f64);
    if x.is_nan() || x.abs() >= max + (max - below_max) / 2.0 {
        return round32(t, x as f32) | sign;
    }
    // The magnitudes below and above |x|: bits of positive values count up with them.
    let (mut below, mut hi) = (0, max_bits);
    while below < hi {
        let mid = below + (hi - below).div_ceil(2);
        if value(t, mid) as f64 <= x.abs() { below = mid } else { hi = mid - 1 }
    }
    let above = below + (value(t, below) as f64 != x.abs()) as u16;
    let (d_below, d_above) = (x.abs() - value(t, below) as f64, value(t, above) as f64 - x.abs());
    let pick = if d_below < d_above || d_below == d_above && below % 2 == 0 { below } else { above };
    pick | sign
}

fn is_nan(t: sl_dtype, bits: u16) -> bool {
    value(t, bits).is_nan()
}

fn upload(t: sl_dtype, shape: &[usize], bits: &[u16]) -> sl_array {
    let b: Vec<u8> = bits.iter().flat_map(|x| x.to_le_bytes()).collect();
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let mut h = 0;
    ok(sl_create(t, dims.len() as i32, dims.as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len(), &mut h));
    h
}

fn read_bytes(h: sl_array, size: usize) -> Vec<u8> {
    let mut b = vec![0u8; numel(&shape_of(h)) * size];
    ok(sl_read(h, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len()));
    b
}

#[track_caller]
fn read_bits(h: sl_array) -> Vec<u16> {
    assert!(HALVES.contains(&dtype_of(h)));
    read_bytes(h, 2).chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
}

/// Random bits of `t`: specials a fifth of the time, else any pattern (NaNs included).
fn draw(rng: &mut StdRng, t: sl_dtype) -> u16 {
    if rng.random_bool(0.2) {
        let specials = [0.0f32, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 65504.0, 6e-8, -3e38];
        return round32(t, specials[rng.random_range(0..specials.len())]);
    }
    rng.random()
}

fn random(rng: &mut StdRng, t: sl_dtype, n: usize) -> Vec<u16> {
    (0..n).map(|_| draw(rng, t)).collect()
}

/// Got and wanted bits agree: equal, or both NaN, or (`ulps` > 0) within that many
/// representable values of each other.
#[track_caller]
fn expect(what: &str, t: sl_dtype, got: &[u16], want: &[u16], ulps: u32) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    // Ordered so neighbouring values differ by 1.
    let ordered = |b: u16| if b & 0x8000 != 0 { -((b & 0x7fff) as i32) } else { b as i32 };
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let same = g == w || is_nan(t, g) && is_nan(t, w) || ordered(g).abs_diff(ordered(w)) <= ulps;
        assert!(same, "{what}: element {i} is {} ({g:#06x}), want {} ({w:#06x})", value(t, g), value(t, w));
    }
}

#[test]
fn every_bit_pattern_round_trips() {
    for t in HALVES {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let h = upload(t, &[all.len()], &all);
        assert_eq!(dtype_of(h), t);
        // Stored and read back as they are, NaN payloads too.
        assert_eq!(read_bits(h), all, "{t} round trip");
        // Widened exactly; back from f32 unchanged (NaNs stay NaNs).
        let wide = cast(h, SL_F32);
        let b = read_bytes(wide, 4);
        for (i, c) in b.chunks_exact(4).enumerate() {
            let got = f32::from_le_bytes(c.try_into().unwrap());
            let want = value(t, i as u16);
            assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "{t} {i:#06x} to f32: {got}");
        }
        let back = cast(wide, t);
        expect(&format!("{t} to f32 and back"), t, &read_bits(back), &all, 0);
        release(&[h, wide, back]);
    }
}

#[test]
fn casts_round_to_nearest_even() {
    let mut rng = rng("casts_round_to_nearest_even");
    let n = 4099;
    // Just above a tie of either type, where rounding through f32 first would land on it.
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        65504.0,
        65520.0,
        65519.99,
        1e-8,
        3e-8,
        -1e300,
        1.0 + 2f64.powi(-11) + 2f64.powi(-40),
        -1.0 - 2f64.powi(-8) - 2f64.powi(-40),
    ];
    let xs: Vec<f64> = (0..n)
        .map(|i| match i % 3 {
            0 => specials[rng.random_range(0..specials.len())],
            // Every magnitude, from subnormals of both types to overflow.
            1 => rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(-140..130)),
            _ => rng.random_range(-70000.0..70000.0),
        })
        .collect();
    let b: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut h64 = 0;
    ok(sl_create(SL_F64, 1, [n as i64].as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len(), &mut h64));
    let h32 = cast(h64, SL_F32);
    let ints: Vec<i64> = (0..n).map(|_| rng.random_range(-1i64 << 40..1 << 40) >> rng.random_range(0..40)).collect();
    let bi: Vec<u8> = ints.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut hi = 0;
    ok(sl_create(SL_I64, 1, [n as i64].as_ptr(), SL_COL_MAJOR, bi.as_ptr() as *const _, bi.len(), &mut hi));
    for t in HALVES {
        let want: Vec<u16> = xs.iter().map(|&x| round64(t, x)).collect();
        let from64 = cast(h64, t);
        expect(&format!("f64 to {t}"), t, &read_bits(from64), &want, 0);
        let want: Vec<u16> = xs.iter().map(|&x| round32(t, x as f32)).collect();
        let from32 = cast(h32, t);
        expect(&format!("f32 to {t}"), t, &read_bits(from32), &want, 0);
        let want: Vec<u16> = ints.iter().map(|&x| round64(t, x as f64)).collect();
        let from_int = cast(hi, t);
        expect(&format!("i64 to {t}"), t, &read_bits(from_int), &want, 0);
        // To integers as from f32: truncated and saturated, NaN to 0.
        let back = cast(from64, SL_I32);
        let got: Vec<i32> =
            read_bytes(back, 4).chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
        for (i, (&g, &x)) in got.iter().zip(&xs).enumerate() {
            assert_eq!(g, value(t, round64(t, x)) as i32, "{t} element {i} to i32");
        }
        // Between the two half types: through f32, rounded once.
        let other = if t == SL_F16 { SL_BF16 } else { SL_F16 };
        let across = cast(from64, other);
        let want: Vec<u16> = xs.iter().map(|&x| round32(other, value(t, round64(t, x)))).collect();
        expect(&format!("{t} to {other}"), other, &read_bits(across), &want, 0);
        release(&[from64, from32, from_int, back, across]);
    }
    release(&[h64, h32, hi]);
}

#[test]
fn element_wise_ops_compute_in_f32_and_round_once() {
    let mut rng = rng("element_wise_ops_compute_in_f32_and_round_once");
    for t in HALVES {
        for n in LENGTHS {
            let [a, b, c] = [(); 3].map(|_| random(&mut rng, t, n));
            let [ha, hb, hc] = [&a, &b, &c].map(|x| upload(t, &[n], x));
            // a * b + c: each op rounded to the type (a product of two halves is exact in f32).
            let ab = binary(SL_MUL, ha, hb);
            let r = binary(SL_ADD, ab, hc);
            assert_eq!(dtype_of(r), t);
            let want: Vec<u16> = (0..n)
                .map(|i| {
                    let p = value(t, round32(t, value(t, a[i]) * value(t, b[i])));
                    round32(t, p + value(t, c[i]))
                })
                .collect();
            expect(&format!("{t}[{n}] a * b + c"), t, &read_bits(r), &want, 0);
            // Math functions: correctly rounded in f64 and rounded to the type, give or take
            // one unit where f32's own rounding is near a tie.
            for (op, name, f) in [(SL_SIN, "sin", f64::sin as fn(f64) -> f64), (SL_EXP, "exp", f64::exp)] {
                let r = unary(op, ha);
                let want: Vec<u16> = a.iter().map(|&x| round64(t, f(value(t, x) as f64))).collect();
                expect(&format!("{t}[{n}] {name}"), t, &read_bits(r), &want, 1);
                release(&[r]);
            }
            // Comparisons give bools; select picks either operand's bits.
            let lt = binary(SL_LT, ha, hb);
            assert_eq!(dtype_of(lt), SL_BOOL);
            let less: Vec<bool> = read_bytes(lt, 1).iter().map(|&x| x != 0).collect();
            for i in 0..n {
                assert_eq!(less[i], value(t, a[i]) < value(t, b[i]), "{t} {} < {}", value(t, a[i]), value(t, b[i]));
            }
            let mut s = 0;
            ok(sl_select(lt, ha, hc, &mut s));
            let want: Vec<u16> = (0..n).map(|i| if less[i] { a[i] } else { c[i] }).collect();
            expect(&format!("{t}[{n}] select"), t, &read_bits(s), &want, 0);
            // A weak scalar keeps the type.
            let mut half = 0;
            ok(sl_binary_scalar(SL_MUL, ha, 0.5, &mut half));
            let want: Vec<u16> = a.iter().map(|&x| round32(t, value(t, x) * 0.5)).collect();
            expect(&format!("{t}[{n}] * 0.5"), t, &read_bits(half), &want, 0);
            release(&[ha, hb, hc, ab, r, lt, s, half]);
        }
    }
}

/// Finite values of moderate size, so sums stay finite.
fn moderate(rng: &mut StdRng, t: sl_dtype, n: usize) -> Vec<u16> {
    (0..n).map(|_| round32(t, rng.random_range(-100.0..100.0))).collect()
}

#[test]
fn reductions_accumulate_in_f32() {
    let mut rng = rng("reductions_accumulate_in_f32");
    for t in HALVES {
        for n in LENGTHS {
            let a = moderate(&mut rng, t, n);
            let h = upload(t, &[n], &a);
            let reduce = |op: sl_reduce_op| {
                let mut out = 0;
                ok(sl_reduce(op, h, -1, &mut out));
                assert_eq!(dtype_of(out), t, "reduction of {t}");
                let v = value(t, read_bits(out)[0]);
                release(&[out]);
                v
            };
            let vals: Vec<f64> = a.iter().map(|&x| value(t, x) as f64).collect();
            let exact: f64 = vals.iter().sum();
            let magnitude: f64 = vals.iter().map(|x| x.abs()).sum();
            // f32 partial sums, then one rounding to the type.
            let eps = if t == SL_F16 { 2f64.powi(-11) } else { 2f64.powi(-8) };
            let sum = reduce(SL_SUM) as f64;
            assert!((sum - exact).abs() <= eps * exact.abs() + 1e-6 * magnitude, "{t}[{n}] sum {sum}, want {exact}");
            let max = vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let min = vals.iter().cloned().fold(f64::INFINITY, f64::min);
            assert_eq!(reduce(SL_MAXVAL) as f64, max, "{t}[{n}] max");
            assert_eq!(reduce(SL_MINVAL) as f64, min, "{t}[{n}] min");
            // A running sum of ones, exact while the type holds the counts.
            let ones = vec![round32(t, 1.0); n.min(256)];
            let ho = upload(t, &[ones.len()], &ones);
            let mut sc = 0;
            ok(sl_scan(SL_SCAN_SUM, ho, 0, 0, &mut sc));
            let want: Vec<u16> = (1..=ones.len()).map(|k| round32(t, k as f32)).collect();
            expect(&format!("{t} cumulative sum"), t, &read_bits(sc), &want, 0);
            release(&[h, ho, sc]);
        }
    }
}

#[test]
fn sort_puts_nans_last() {
    let mut rng = rng("sort_puts_nans_last");
    for t in HALVES {
        for n in LENGTHS {
            let a = random(&mut rng, t, n);
            let h = upload(t, &[n], &a);
            let mut s = 0;
            ok(sl_sort(h, 0, SL_ASCENDING, &mut s));
            let mut want = a.clone();
            // Stable, by value (-0 and +0 equal), NaNs last.
            want.sort_by(|&x, &y| {
                let (x, y) = (value(t, x), value(t, y));
                x.is_nan().cmp(&y.is_nan()).then(x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal))
            });
            expect(&format!("{t}[{n}] sort"), t, &read_bits(s), &want, 0);
            release(&[h, s]);
        }
    }
}

#[test]
fn views_gathers_and_scatters() {
    let mut rng = rng("views_gathers_and_scatters");
    for t in HALVES {
        let (m, n) = (37, 29);
        let a = random(&mut rng, t, m * n);
        let h = upload(t, &[m, n], &a);
        // A transpose, and a strided section of it, as operands of an op.
        let mut tr = 0;
        ok(sl_transpose(h, &mut tr));
        let (start, count, stride) = ([1i64, 2], [9i64, 12], [3i64, 2]);
        let mut sec = 0;
        ok(sl_section(tr, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut sec));
        let neg = negate(sec);
        let want: Vec<u16> = (0..9 * 12)
            .map(|k| {
                let (i, j) = (1 + 3 * (k % 9), 2 + 2 * (k / 9));
                // tr[i, j] = a[j, i]
                round32(t, -value(t, a[j + m * i]))
            })
            .collect();
        expect(&format!("{t} -section(transpose)"), t, &read_bits(neg), &want, 0);
        // Gather and scatter (replace: bits kept; add: in f32, rounded once per element).
        let idx: Vec<i64> = (0..500).map(|_| rng.random_range(0..(m * n) as i64)).collect();
        let bi: Vec<u8> = idx.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut hi = 0;
        ok(sl_create(SL_I64, 1, [500].as_ptr(), SL_COL_MAJOR, bi.as_ptr() as *const _, bi.len(), &mut hi));
        let flat = {
            let mut f = 0;
            ok(sl_reshape(h, 1, [(m * n) as i64].as_ptr(), &mut f));
            f
        };
        let mut g = 0;
        ok(sl_gather(flat, &hi, 1, &mut g));
        let want: Vec<u16> = idx.iter().map(|&i| a[i as usize]).collect();
        expect(&format!("{t} gather"), t, &read_bits(g), &want, 0);
        let vals = random(&mut rng, t, 500);
        let hv = upload(t, &[500], &vals);
        let mut sc = 0;
        ok(sl_scatter(flat, &hi, 1, hv, SL_SCATTER_ADD, &mut sc));
        let mut acc: Vec<f32> = a.iter().map(|&x| value(t, x)).collect();
        for (&i, &v) in idx.iter().zip(&vals) {
            acc[i as usize] += value(t, v);
        }
        let want: Vec<u16> = acc.iter().map(|&x| round32(t, x)).collect();
        // Additions into one element may be made in another order.
        expect(&format!("{t} scatter add"), t, &read_bits(sc), &want, 4);
        release(&[h, tr, sec, neg, hi, flat, g, hv, sc]);
    }
}

/// Made values: random draws are f32 draws rounded, linspace is computed in f32; means and
/// arg-reductions of them as of the f32 values.
#[test]
fn generated_values_means_and_positions() {
    let mut rng = rng("generated_values_means_and_positions");
    for t in HALVES {
        let n = 1001usize;
        let mut g = 0;
        ok(sl_rng_create(SL_RNG_PHILOX, rng.random(), &mut g));
        let mut u = 0;
        ok(sl_random_uniform(g, t, 1, [n as i64].as_ptr(), &mut u));
        assert_eq!(dtype_of(u), t);
        let bits = read_bits(u);
        assert!(bits.iter().all(|&b| (0.0..=1.0).contains(&value(t, b))), "{t} uniform draws in [0, 1]");
        let mut l = 0;
        ok(sl_linspace(t, -3.0, 5.0, n as i64, 1, &mut l));
        // start + i * step of the type's i, step and start, each op rounded; stop last.
        let r = |x: f32| value(t, round32(t, x));
        let mut want: Vec<u16> = (0..n).map(|i| round32(t, r(r(i as f32) * r(0.008)) + -3.0)).collect();
        want[n - 1] = round32(t, 5.0);
        expect(&format!("{t} linspace"), t, &read_bits(l), &want, 0);
        let mut mean = 0;
        ok(sl_mean(u, -1, &mut mean));
        assert_eq!(dtype_of(mean), t);
        let exact = bits.iter().map(|&b| value(t, b) as f64).sum::<f64>() / n as f64;
        let got = value(t, read_bits(mean)[0]) as f64;
        assert!((got - exact).abs() <= 1e-2 * exact.abs(), "{t} mean {got}, want {exact}");
        let mut at = 0;
        ok(sl_argmax(u, -1, &mut at));
        let mut i = 0i64;
        ok(sl_read(at, SL_COL_MAJOR, &mut i as *mut i64 as *mut _, 8));
        let top = bits.iter().map(|&b| value(t, b)).fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(value(t, bits[i as usize]), top, "{t} argmax");
        release(&[u, l, mean, at]);
        ok(sl_rng_destroy(g));
    }
}

#[test]
fn products_factorizations_and_transforms_refuse_halves() {
    for t in HALVES {
        let h = upload(t, &[4, 4], &[round32(t, 1.0); 16]);
        let mut out = 0;
        fails(sl_matmul(h, h, &mut out), SL_ERR_DTYPE_MISMATCH, &format!("got {} and {}", name(t), name(t)));
        release(&[h]);
    }
}

fn name(t: sl_dtype) -> &'static str {
    if t == SL_F16 { "f16" } else { "bf16" }
}
