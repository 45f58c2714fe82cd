//! Property test: random expression graphs (dozens of ops mixing views, broadcasts,
//! reductions and random arrays) give bit-identical results fused and evaluated op by op,
//! and again when run a second time on new values (replayed from the trace cache).

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

#[derive(Clone, Debug)]
enum Step {
    Unary(sl_unary_op, usize),
    Binary(sl_binary_op, usize, usize),
    Scalar(sl_binary_op, usize, f64),
    Select(usize, usize, usize),
    Cast(usize, sl_dtype),
    Reduce(sl_reduce_op, usize, i32),
    Scan(usize, i32),
    Transpose(usize),
    Section(usize, Vec<i64>, Vec<i64>, Vec<i64>),
    Shift(usize, i32, i64, sl_boundary),
    Rotate(usize, i32, i64),
    Pad(usize, Vec<i64>, Vec<i64>, sl_boundary),
    Reshape(usize, Vec<i64>),
    Tile(usize, Vec<i64>),
    Concat(usize, usize, i32),
    /// Gather from the first value at indices `floor(|w| * (d + 1))` from the second.
    Gather(usize, usize),
    /// Gather of whole slices from the first value (n0 x ...): `x[:, k, ...]` for each
    /// `k = floor(|w| * (d + 1))` of the first `picked` elements of the second value
    /// (flattened), giving n0 x picked.
    GatherSlices(usize, usize, usize),
    /// The first draw of a generator of this kind and seed: normal or uniform values of
    /// this type and shape (that of an earlier value).
    Random(bool, sl_rng_kind, sl_dtype, Vec<i64>, u64),
}

#[derive(Clone)]
struct Val {
    shape: Vec<usize>,
    dt: sl_dtype,
}

fn broadcasts(a: &[usize], b: &[usize]) -> bool {
    (0..a.len().max(b.len())).all(|d| {
        let (x, y) = (*a.get(d).unwrap_or(&1), *b.get(d).unwrap_or(&1));
        x == y || x == 1 || y == 1
    })
}

/// Picks a random applicable step given the values so far, and the value it makes.
/// A scalar operand for values of a float or an integer type.
fn random_scalar(rng: &mut StdRng, float: bool) -> f64 {
    if float { rng.random_range(-3.0..3.0f64) } else { rng.random_range(-3..3) as f64 }
}

fn random_step(rng: &mut StdRng, vals: &[Val]) -> Option<(Step, Val)> {
    let i = rng.random_range(0..vals.len());
    let v = &vals[i];
    let float = matches!(v.dt, SL_F32 | SL_F64);
    let rank = v.shape.len();
    let pick_dim = |rng: &mut StdRng| rng.random_range(0..rank.max(1)) as i32;
    Some(match rng.random_range(0..18) {
        0 | 1 => {
            let ops: &[sl_unary_op] = if float {
                &[
                    SL_NEG, SL_ABS, SL_SQRT, SL_EXP, SL_LOG, SL_SIN, SL_COS, SL_TANH, SL_FLOOR, SL_ATAN, SL_ERF,
                    SL_RCP, SL_ERFC,
                ]
            } else {
                &[SL_NEG, SL_ABS, SL_SIGN, SL_NOT]
            };
            (Step::Unary(ops[rng.random_range(0..ops.len())], i), v.clone())
        }
        2..=4 => {
            let partners: Vec<usize> =
                (0..vals.len()).filter(|&j| vals[j].dt == v.dt && broadcasts(&v.shape, &vals[j].shape)).collect();
            let j = partners[rng.random_range(0..partners.len())];
            let ops: &[sl_binary_op] = if float {
                &[SL_ADD, SL_SUB, SL_MUL, SL_DIV, SL_MIN, SL_MAX, SL_POW, SL_HYPOT, SL_COPYSIGN]
            } else {
                &[SL_ADD, SL_SUB, SL_MUL, SL_MAX, SL_XOR, SL_SHR]
            };
            let shape: Vec<usize> = (0..rank.max(vals[j].shape.len()))
                .map(|d| {
                    let (x, y) = (*v.shape.get(d).unwrap_or(&1), *vals[j].shape.get(d).unwrap_or(&1));
                    if x == 1 { y } else { x }
                })
                .collect();
            (Step::Binary(ops[rng.random_range(0..ops.len())], i, j), Val { shape, dt: v.dt })
        }
        5 => {
            let ops = [SL_ADD, SL_MUL, SL_SUB, SL_MAX];
            (Step::Scalar(ops[rng.random_range(0..ops.len())], i, random_scalar(rng, float)), v.clone())
        }
        6 => {
            let partners: Vec<usize> =
                (0..vals.len()).filter(|&j| vals[j].dt == v.dt && vals[j].shape == v.shape).collect();
            let (j, k) = (partners[rng.random_range(0..partners.len())], partners[rng.random_range(0..partners.len())]);
            (Step::Select(i, j, k), v.clone())
        }
        7 if float => {
            let to = if v.dt == SL_F32 { SL_F64 } else { SL_F32 };
            (Step::Cast(i, to), Val { shape: v.shape.clone(), dt: to })
        }
        8 => {
            let ops = [SL_SUM, SL_MAXVAL, SL_MINVAL, SL_MEAN];
            let op = ops[rng.random_range(0..ops.len())];
            if op == SL_MEAN && !float {
                return None;
            }
            let dim = if rank == 0 || rng.random_bool(0.3) { SL_ALL_DIMS } else { pick_dim(rng) };
            let shape = if dim == SL_ALL_DIMS {
                vec![]
            } else {
                v.shape.iter().enumerate().map(|(d, &n)| if d == dim as usize { 1 } else { n }).collect()
            };
            let dt = if op == SL_SUM && !float { SL_I64 } else { v.dt };
            (Step::Reduce(op, i, dim), Val { shape, dt })
        }
        9 if rank > 0 && float => (Step::Scan(i, pick_dim(rng)), v.clone()),
        10 if rank > 0 => {
            let shape = if rank == 1 {
                vec![1, v.shape[0]]
            } else {
                let mut s = v.shape.clone();
                s.swap(0, 1);
                s
            };
            (Step::Transpose(i), Val { shape, dt: v.dt })
        }
        11 if rank > 0 && v.shape.iter().all(|&n| n > 0) => {
            let (mut st, mut ct, mut sd) = (vec![], vec![], vec![]);
            for &n in &v.shape {
                let step = [1i64, 2, -1, -2][rng.random_range(0..4)];
                let count = rng.random_range(0..=((n as i64 - 1) / step.abs() + 1));
                let start = if step > 0 {
                    rng.random_range(0..=(n as i64 - 1 - (count - 1).max(0) * step))
                } else {
                    rng.random_range((count - 1).max(0) * -step..n as i64)
                };
                st.push(start);
                ct.push(count);
                sd.push(step);
            }
            let shape = ct.iter().map(|&c| c as usize).collect();
            (Step::Section(i, st, ct, sd), Val { shape, dt: v.dt })
        }
        12 if rank > 0 && v.shape.iter().all(|&n| n > 0) => {
            let d = pick_dim(rng);
            let n = v.shape[d as usize] as i64;
            let k = rng.random_range(-n..=n);
            if rng.random_bool(0.5) {
                (Step::Rotate(i, d, k), v.clone())
            } else {
                (Step::Shift(i, d, k, [SL_BOUNDARY_FILL, SL_BOUNDARY_CLAMP][rng.random_range(0..2)]), v.clone())
            }
        }
        13 if rank > 0 && v.shape.iter().all(|&n| n > 0) => {
            let lo: Vec<i64> = (0..rank).map(|_| rng.random_range(0..3)).collect();
            let hi: Vec<i64> = (0..rank).map(|_| rng.random_range(0..3)).collect();
            let shape = (0..rank).map(|d| v.shape[d] + (lo[d] + hi[d]) as usize).collect();
            let b = [SL_BOUNDARY_FILL, SL_BOUNDARY_CLAMP, SL_BOUNDARY_WRAP][rng.random_range(0..3)];
            (Step::Pad(i, lo, hi, b), Val { shape, dt: v.dt })
        }
        14 => {
            let n: usize = v.shape.iter().product();
            let divs: Vec<usize> = (1..=n.max(1)).filter(|d| n.is_multiple_of(*d)).collect();
            let a = divs[rng.random_range(0..divs.len())];
            let shape = if n == 0 {
                vec![0, 3]
            } else if rng.random_bool(0.5) {
                vec![a, n / a]
            } else {
                vec![n]
            };
            (Step::Reshape(i, shape.iter().map(|&d| d as i64).collect()), Val { shape, dt: v.dt })
        }
        15 if rank > 0 => {
            if rng.random_bool(0.5) {
                let reps: Vec<i64> = (0..rank).map(|_| rng.random_range(1..3)).collect();
                let shape = (0..rank).map(|d| v.shape[d] * reps[d] as usize).collect();
                (Step::Tile(i, reps), Val { shape, dt: v.dt })
            } else if v.shape.iter().all(|&n| n > 0) {
                let d = pick_dim(rng);
                let mut shape = v.shape.clone();
                shape[d as usize] *= 2;
                (Step::Concat(i, i, d), Val { shape, dt: v.dt })
            } else {
                return None;
            }
        }
        7 => {
            // Gather from `v` at indices computed from another (float) value.
            let srcs: Vec<usize> = (0..vals.len()).filter(|&j| matches!(vals[j].dt, SL_F32 | SL_F64)).collect();
            if rank == 0 || srcs.is_empty() || v.shape.contains(&0) {
                return None;
            }
            let j = srcs[rng.random_range(0..srcs.len())];
            (Step::Gather(i, j), Val { shape: vals[j].shape.clone(), dt: v.dt })
        }
        16 if rank > 0 && !v.shape.contains(&0) => {
            // Gather whole slices of `v` at indices computed from any value.
            let j = rng.random_range(0..vals.len());
            let picked = vals[j].shape.iter().product::<usize>().min(2000 / v.shape[0]);
            if picked == 0 || vals[j].dt == SL_BOOL {
                return None;
            }
            let shape = vec![v.shape[0], if rank == 1 { 1 } else { picked }];
            (Step::GatherSlices(i, j, picked), Val { shape, dt: v.dt })
        }
        17 => {
            let dt = [SL_F32, SL_F64][rng.random_range(0..2)];
            let kind = [SL_RNG_PHILOX, SL_RNG_FAST][rng.random_range(0..2)];
            let dims = v.shape.iter().map(|&d| d as i64).collect();
            (Step::Random(rng.random_bool(0.5), kind, dt, dims, rng.random()), Val { shape: v.shape.clone(), dt })
        }
        _ => return None,
    })
}

fn apply(step: &Step, h: &[sl_array]) -> sl_array {
    let mut o = 0;
    ok(match step {
        Step::Unary(op, i) => sl_unary(*op, h[*i], &mut o),
        Step::Binary(op, i, j) => sl_binary(*op, h[*i], h[*j], &mut o),
        Step::Scalar(op, i, s) => same_kind_scalar(*op, h[*i], *s, false, &mut o),
        Step::Select(i, j, k) => {
            let mut c = 0;
            ok(sl_binary(SL_GT, h[*i], h[*j], &mut c));
            let st = sl_select(c, h[*j], h[*k], &mut o);
            release(&[c]);
            st
        }
        Step::Cast(i, t) => sl_cast(h[*i], *t, &mut o),
        Step::Random(normal, kind, dt, dims, seed) => {
            let mut g = 0;
            ok(sl_rng_create(*kind, *seed, &mut g));
            let draw = if *normal { sl_random_normal } else { sl_random_uniform };
            let st = draw(g, *dt, dims.len() as i32, dims.as_ptr(), &mut o);
            ok(sl_rng_destroy(g));
            st
        }
        Step::Reduce(op, i, d) => sl_reduce(*op, h[*i], *d, &mut o),
        Step::Scan(i, d) => sl_cumsum(h[*i], *d, &mut o),
        Step::Transpose(i) => sl_transpose(h[*i], &mut o),
        Step::Section(i, s, c, d) => sl_section(h[*i], s.as_ptr(), c.as_ptr(), d.as_ptr(), &mut o),
        Step::Shift(i, d, k, b) => sl_shift(h[*i], *d, *k, *b, 2.0, &mut o),
        Step::Rotate(i, d, k) => sl_rotate(h[*i], *d, *k, &mut o),
        Step::Pad(i, lo, hi, b) => sl_pad(h[*i], lo.as_ptr(), hi.as_ptr(), *b, -2.0, &mut o),
        Step::Reshape(i, s) => sl_reshape(h[*i], s.len() as i32, s.as_ptr(), &mut o),
        Step::Tile(i, r) => sl_tile(h[*i], r.as_ptr(), r.len() as i32, &mut o),
        Step::Concat(i, j, d) => sl_concat([h[*i], h[*j]].as_ptr(), 2, *d, &mut o),
        Step::Gather(i, j) => {
            let rank = shape_of(h[*i]).len();
            let idx: Vec<sl_array> = (0..rank).map(|d| index_from(h[*j], d)).collect();
            let st = sl_gather(h[*i], idx.as_ptr(), rank as i32, &mut o);
            release(&idx);
            st
        }
        Step::GatherSlices(i, j, picked) => {
            let shape = shape_of(h[*i]);
            let (rows, flat) = ([shape[0] as i64, 1], [1, shape_of(h[*j]).iter().product::<usize>() as i64]);
            let (mut all, mut w) = (0, 0);
            ok(sl_reshape(h[*j], 2, flat.as_ptr(), &mut all));
            let (start, count, stride) = ([0i64, 0], [1, *picked as i64], [1i64, 1]);
            ok(sl_section(all, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut w));
            release(&[all]);
            let mut idx = vec![0];
            ok(sl_iota(SL_I32, 2, rows.as_ptr(), 0, &mut idx[0]));
            idx.extend((1..shape.len()).map(|d| index_from(w, d)));
            let st = sl_gather(h[*i], idx.as_ptr(), idx.len() as i32, &mut o);
            release(&idx);
            release(&[w]);
            st
        }
    });
    o
}

/// Indices `floor(|w| * (d + 1))` (i32) for dimension `d` of a gather.
fn index_from(w: sl_array, d: usize) -> sl_array {
    let (mut a, mut s, mut c) = (0, 0, 0);
    ok(sl_abs(w, &mut a));
    ok(sl_mul_scalar(a, (d + 1) as f64, &mut s));
    let mut f = s;
    if matches!(dtype_of(w), SL_F32 | SL_F64) {
        ok(sl_floor(s, &mut f));
        release(&[s]);
    }
    ok(sl_cast(f, SL_I32, &mut c));
    release(&[a, f]);
    c
}

/// Runs the graph; `eager` reads every value as soon as it exists (op by op), otherwise
/// only the chosen outputs are read at the end (everything fuses).
fn run(sources: &[Arr], steps: &[Step], read: &[usize], eager: bool) -> Vec<Arr> {
    let mut h: Vec<sl_array> = sources.iter().map(|a| a.upload()).collect();
    let mut eager_reads = Vec::new();
    for s in steps {
        let o = apply(s, &h);
        h.push(o);
        if eager {
            eager_reads.push(download(o));
        }
    }
    let out = read
        .iter()
        .map(|&i| if eager && i >= sources.len() { eager_reads[i - sources.len()].clone() } else { download(h[i]) })
        .collect();
    release(&h);
    out
}

#[test]
fn fused_equals_op_by_op() {
    let mut rng = rng("fused_equals_op_by_op");
    let shapes: [&[usize]; 6] = [&[37, 29], &[1500], &[5, 1, 7], &[8, 8], &[], &[3, 0]];
    let mut hits = 0;
    for case in 0..60 {
        let dt = [SL_F32, SL_F64, SL_I32][rng.random_range(0..3)];
        let base: Vec<usize> = shapes[rng.random_range(0..shapes.len())].to_vec();
        let mut sources =
            vec![rand_arr(&mut rng, dt, &base, -4.0, 4.0, false), rand_arr(&mut rng, dt, &base, 0.1, 4.0, false)];
        sources.push(rand_arr(&mut rng, dt, &[], -2.0, 2.0, false));
        let mut vals: Vec<Val> = sources.iter().map(|a| Val { shape: a.shape.clone(), dt }).collect();
        let mut steps = Vec::new();
        let target = rng.random_range(12..48);
        while steps.len() < target {
            if let Some((s, v)) = random_step(&mut rng, &vals)
                && v.shape.iter().product::<usize>() <= 20000
                && v.shape.len() <= 8
            {
                steps.push(s);
                vals.push(v);
            }
        }
        let n = vals.len();
        let mut read: Vec<usize> = (0..4).map(|_| rng.random_range(sources.len()..n)).collect();
        read.push(n - 1);
        read.sort_unstable();
        read.dedup();
        let fused = run(&sources, &steps, &read, false);
        let eager = run(&sources, &steps, &read, true);
        for (k, (f, e)) in fused.iter().zip(&eager).enumerate() {
            assert_close(&format!("case {case}, value {} of {steps:?}", read[k]), f, e, 0.0);
        }
        // The same graph on new arrays replays the trace cache's recipes, with new scalar
        // operands too (unless a new value changes the graph, e.g. by strength reduction).
        let sources: Vec<Arr> = sources.iter().map(|a| rand_arr(&mut rng, dt, &a.shape, -4.0, 4.0, false)).collect();
        let steps: Vec<Step> = steps
            .into_iter()
            .map(|s| match s {
                Step::Scalar(op, a, _) => {
                    Step::Scalar(op, a, random_scalar(&mut rng, matches!(vals[a].dt, SL_F32 | SL_F64)))
                }
                s => s,
            })
            .collect();
        let before = trace_hits();
        let replayed = run(&sources, &steps, &read, false);
        hits += trace_hits() - before;
        let eager = run(&sources, &steps, &read, true);
        for (k, (f, e)) in replayed.iter().zip(&eager).enumerate() {
            assert_close(&format!("case {case} replayed, value {} of {steps:?}", read[k]), f, e, 0.0);
        }
    }
    assert!(hits > 0, "replays of the same graphs hit the trace cache");
}

fn trace_hits() -> u64 {
    let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut s));
    s.hits
}

/// A flush storing more values than a device kernel can bind outputs (`SLUICE_VULKAN_MAX_BINDINGS=8`
/// in scripts/test.sh) is split into several kernels before compiling, all run on the
/// device: none goes to the CPU, and the results are exact.
#[test]
fn kernels_storing_many_values() {
    let mut rng = rng("kernels_storing_many_values");
    let n = 1000;
    let (xa, ya) =
        (rand_arr(&mut rng, SL_F64, &[n], -4.0, 4.0, false), rand_arr(&mut rng, SL_F64, &[n], -4.0, 4.0, false));
    let (x, y) = (xa.upload(), ya.upload());
    let before = stats();
    let shifts: Vec<f64> = (0..12).map(|_| rng.random_range(-3.0..3.0)).collect();
    let outs: Vec<sl_array> = shifts
        .iter()
        .map(|&c| {
            let (mut t, mut out) = (0, 0);
            ok(sl_add_scalar(x, c, &mut t));
            ok(sl_mul(t, y, &mut out));
            release(&[t]);
            out
        })
        .collect();
    ok(sl_eval(outs.as_ptr(), outs.len() as i32));
    for (&c, &h) in shifts.iter().zip(&outs) {
        let got = download(h);
        for i in 0..n {
            assert_eq!(got.v[i].f(), (xa.v[i].f() + c) * ya.v[i].f(), "element {i} of (x + {c}) * y");
        }
    }
    assert_eq!(stats().host_steps, before.host_steps, "a kernel ran on the CPU");
    release(&outs);
    release(&[x, y]);
}

/// One fused expression over more arrays than a GPU shader may bind (32 storage buffers
/// on lavapipe; the Vulkan executor copies such inputs into one buffer per element type)
/// gives the same result as one within the limit: the additions happen in the same order
/// either way.
#[test]
fn kernels_reading_many_arrays() {
    let mut rng = rng("kernels_reading_many_arrays");
    for count in [20, 40] {
        let xs: Vec<Arr> = (0..count).map(|_| rand_arr(&mut rng, SL_F64, &[300, 7], -4.0, 4.0, false)).collect();
        let hs: Vec<sl_array> = xs.iter().map(|x| x.upload()).collect();
        let mut acc = hs[0];
        let mut made = Vec::new();
        for &h in &hs[1..] {
            let mut next = 0;
            ok(sl_add(acc, h, &mut next));
            made.push(next);
            acc = next;
        }
        let mut total = 0;
        ok(sl_sum(acc, 0, &mut total));
        let want = xs[1..]
            .iter()
            .fold(xs[0].clone(), |a, x| common::reference::map2(&a, x, |p, q| common::reference::binary(SL_ADD, p, q)));
        assert_close(&format!("sum of {count} arrays"), &download(acc), &want, 0.0);
        let got = download(total);
        for j in 0..7 {
            let w: f64 = (0..300).map(|i| want.at(&[i, j]).f()).sum();
            assert!((got.v[j].f() - w).abs() <= 1e-12 * count as f64 * 300.0, "column {j} of {count}");
        }
        release(&hs);
        release(&made);
        release(&[total]);
    }
}

/// A random integer of type `dt` (i32, i64 or u8) with a random count of significant bits
/// and a random sign, so that casts to floats meet values they must round.
fn wide_int(rng: &mut StdRng, dt: sl_dtype) -> V {
    let bits = match dt {
        SL_I32 => 31,
        SL_I64 => 63,
        _ => 8,
    };
    let magnitude = rng.random::<u64>() >> (64 - rng.random_range(1..=bits));
    let negative = dt != SL_U8 && rng.random_bool(0.5);
    let v = if negative { (magnitude as i64).wrapping_neg() } else { magnitude as i64 };
    V::I64(v).cast(dt)
}

/// `iota(dt) + offset` of `n` elements, fused into whatever reads it, and its values.
fn shifted_iota(dt: sl_dtype, n: usize, offset: f64) -> (sl_array, Arr) {
    let (mut i, mut h) = (0, 0);
    ok(sl_iota(dt, 1, &(n as i64), 0, &mut i));
    ok(same_kind_scalar(SL_ADD, i, offset, false, &mut h));
    ok(sl_release(i));
    let want = (0..n).map(|k| common::reference::binary(SL_ADD, V::F64(k as f64).cast(dt), V::F64(offset).cast(dt)));
    (h, Arr::new(dt, &[n], want.collect()))
}

/// `f` applied to `h` and read back, against `f` applied to each element of `src`: each
/// read flushes the whole expression into one kernel.
#[track_caller]
fn check_fused(what: &str, h: sl_array, src: &Arr, make: impl Fn(sl_array) -> sl_array, want: impl Fn(V) -> V) {
    let out = make(h);
    let expected = common::reference::map1(src, want);
    assert_close(what, &download(out), &expected, 0.0);
    release(&[out]);
}

/// Sign and absolute value of an integer cast to another integer type in the same kernel,
/// from loaded arrays and from shifted iotas (lavapipe, Mesa 22.3.6, returned the input and
/// 1 for those of an i64 cast from i32 when computed plainly: `sign(i64(iota i32))` gave all
/// ones; codegen.rs computes them in a form it gets right).
#[test]
fn sign_and_abs_of_integers_cast_in_the_kernel() {
    let mut rng = rng("sign_and_abs_of_integers_cast_in_the_kernel");
    let n = rng.random_range(300..1200);
    for from in [SL_I32, SL_I64, SL_U8] {
        let loaded = Arr::new(from, &[n], (0..n).map(|_| wide_int(&mut rng, from)).collect());
        let mut sources = vec![("loaded", loaded.upload(), loaded)];
        if from != SL_U8 {
            let (h, a) = shifted_iota(from, n, -(rng.random_range(0..n) as f64));
            sources.push(("shifted iota", h, a));
        }
        for (kind, h, src) in &sources {
            for to in [SL_I32, SL_I64] {
                for op in [SL_SIGN, SL_ABS] {
                    let what = format!("unary {op} of {to}({kind} {from})");
                    check_fused(
                        &what,
                        *h,
                        src,
                        |x| unary(op, cast(x, to)),
                        |v| common::reference::unary(op, v.cast(to)),
                    );
                }
            }
            release(&[*h]);
        }
    }
}

/// Integers cast to a float type and straight back round to the float's precision (lavapipe,
/// Mesa 22.3.6, dropped the rounding: `i64(f32(16777217))` gave 16777217), for each integer
/// and float type: random values of every magnitude and the extremes, iotas crossing the
/// float's last odd integer, and a constant.
#[test]
fn integers_cast_to_floats_and_back_round() {
    let mut rng = rng("integers_cast_to_floats_and_back_round");
    let n = rng.random_range(300..1200);
    for int in [SL_I32, SL_I64, SL_U8] {
        let mut values: Vec<V> = (0..n).map(|_| wide_int(&mut rng, int)).collect();
        let extremes =
            [16777217.0, -16777217.0, 2f64.powi(53) + 2.0, 2f64.powi(31) - 1.0, -2f64.powi(31), 2f64.powi(63)];
        for (slot, x) in values.iter_mut().zip(extremes) {
            *slot = V::F64(x).cast(int);
        }
        let loaded = Arr::new(int, &[n], values);
        let mut sources = vec![("loaded".to_string(), loaded.upload(), loaded)];
        if int != SL_U8 {
            // Both floats' last runs of exact integers end inside these (the f64 one only for i64).
            let starts = if int == SL_I64 { [2f64.powi(24), 2f64.powi(53)] } else { [2f64.powi(24), 2f64.powi(30)] };
            for start in starts {
                let offset = start - rng.random_range(0..n) as f64;
                let (h, a) = shifted_iota(int, n, offset);
                sources.push((format!("iota + {offset}"), h, a));
            }
            let mut c = 0;
            ok(sl_constant(int, 1, &(n as i64), 16777217.0, &mut c));
            sources.push(("constant 16777217".into(), c, Arr::new(int, &[n], vec![V::F64(16777217.0).cast(int); n])));
        }
        for (kind, h, src) in &sources {
            for float in [SL_F32, SL_F64] {
                let what = format!("{int}({float}({kind} {int}))");
                check_fused(&what, *h, src, |x| cast(cast(x, float), int), |v| v.cast(float).cast(int));
            }
            release(&[*h]);
        }
    }
}

/// Sign of an iota (0 at its first element), and of an iota shifted below zero, for every
/// signed type (lavapipe, Mesa 22.3.6, gave 1 at the zero element for f32, f64 and i64).
#[test]
fn sign_of_iotas() {
    let mut rng = rng("sign_of_iotas");
    let n = rng.random_range(300..1200);
    for dt in [SL_F32, SL_F64, SL_I32, SL_I64] {
        for offset in [0.0, -(rng.random_range(1..n) as f64)] {
            let (h, src) = shifted_iota(dt, n, offset);
            let what = format!("sign of iota {dt} + {offset}");
            check_fused(&what, h, &src, |x| unary(SL_SIGN, x), |v| common::reference::unary(SL_SIGN, v));
            release(&[h]);
        }
    }
}

/// A reduction reshaped to rank 0 and combined with an array in the kernel that reads it
/// (the CPU executor once read the one-element result at the domain's linear index:
/// `y + reshape(sum(x, 0), [])` gave `[13, 10]` for `[13, 13]`), on both sides of each op.
#[test]
fn reductions_reshaped_to_rank0_broadcast_in_the_kernel() {
    let mut rng = rng("reductions_reshaped_to_rank0_broadcast_in_the_kernel");
    let cases =
        [(SL_F64, SL_SUM, [SL_ADD, SL_SUB]), (SL_BOOL, SL_ALL, [SL_AND, SL_XOR]), (SL_I64, SL_MAX, [SL_MUL, SL_MIN])];
    for (dt, reduce, ops) in cases {
        for op in ops {
            let (n, rows, cols) = (rng.random_range(1..40), rng.random_range(2..40), rng.random_range(1..5));
            let x = rand_arr(&mut rng, dt, &[n, 1], -9.0, 9.0, false);
            let y = rand_arr(&mut rng, dt, &[rows, cols], -9.0, 9.0, false);
            let (hx, hy) = (x.upload(), y.upload());
            let (mut s, mut z, mut left, mut right) = (0, 0, 0, 0);
            ok(sl_reduce(reduce, hx, 0, &mut s));
            ok(sl_reshape(s, 0, std::ptr::null(), &mut z));
            ok(sl_binary(op, z, hy, &mut left));
            ok(sl_binary(op, hy, z, &mut right));
            let (got_left, got_right) = (download(left), download(right));
            let zv = download(z).v[0];
            let what = format!("{op} of {reduce}({dt}) reshaped to rank 0");
            assert_close(&what, &got_left, &common::reference::map1(&y, |v| common::reference::binary(op, zv, v)), 0.0);
            assert_close(
                &what,
                &got_right,
                &common::reference::map1(&y, |v| common::reference::binary(op, v, zv)),
                0.0,
            );
            release(&[hx, hy, s, z, left, right]);
        }
    }
}

/// Arrays shifted under each boundary rule and combined in one kernel, the shift stored
/// or not, the sum stored and reduced along every dimension: every element matches a plain
/// reference. Shapes with dimensions of size 1 (row vectors, a column of row vectors: the
/// CPU executor runs such domains without their unit dimensions, so a row vector is not
/// one row per element), and arrays of many chunks shifted along the first or the last
/// dimension (chunks wholly inside a fill boundary, or wholly outside it, read the
/// chosen values in place).
#[test]
fn shifts_by_shape_and_boundary() {
    let mut rng = rng("shifts_by_shape_and_boundary");
    let shapes =
        [vec![1usize, 300], vec![1, 300, 1], vec![3, 1, 100], vec![1, 1, 257], vec![5, 1], vec![20000], vec![3000, 4]];
    for shape in shapes {
        let xa = rand_arr(&mut rng, SL_F64, &shape, -4.0, 4.0, false);
        let x = xa.upload();
        let longest = (0..shape.len()).max_by_key(|&d| shape[d]).unwrap();
        for (boundary, long) in [SL_BOUNDARY_FILL, SL_BOUNDARY_CLAMP, SL_BOUNDARY_WRAP]
            .into_iter()
            .flat_map(|b| [(b, longest), (b, shape.len() - 1)])
        {
            let k = rng.random_range(-5..=5i64);
            let (mut s, mut t, mut y) = (0, 0, 0);
            ok(sl_shift(x, long as i32, k, boundary, 2.0, &mut s));
            ok(sl_mul_scalar(x, 3.0, &mut t));
            ok(sl_add(s, t, &mut y));
            let n = shape[long] as i64;
            let want: Vec<f64> = (0..xa.v.len())
                .map(|i| {
                    let mut at = unravel(&shape, i);
                    let from = at[long] as i64 - k;
                    let shifted = match boundary {
                        SL_BOUNDARY_FILL if !(0..n).contains(&from) => 2.0,
                        SL_BOUNDARY_FILL | SL_BOUNDARY_CLAMP => {
                            at[long] = from.clamp(0, n - 1) as usize;
                            xa.at(&at).f()
                        }
                        _ => {
                            at[long] = from.rem_euclid(n) as usize;
                            xa.at(&at).f()
                        }
                    };
                    shifted + 3.0 * xa.v[i].f()
                })
                .collect();
            let mut outs = vec![y];
            for d in 0..shape.len() {
                let mut r = 0;
                ok(sl_reduce(SL_SUM, y, d as i32, &mut r));
                outs.push(r);
            }
            // Stored or not: a select that writes its output directly never reads in place.
            let stored = rng.random_bool(0.5);
            if stored {
                outs.push(s);
            }
            ok(sl_eval(outs.as_ptr(), outs.len() as i32));
            let (got, shifted) = (download(y), download(s));
            for (i, w) in want.iter().enumerate() {
                let err = (got.v[i].f() - w).abs();
                let what = format!("element {i} of shape {shape:?}, shift {k} along {long}, boundary {boundary}");
                assert!(err <= 1e-15 * (1.0 + w.abs()), "{what}");
                let err = (shifted.v[i].f() + 3.0 * xa.v[i].f() - w).abs();
                assert!(err <= 1e-14 * (1.0 + w.abs()), "shift alone, {what}");
            }
            for d in 0..shape.len() {
                let sums = download(outs[d + 1]);
                for (j, g) in sums.v.iter().enumerate() {
                    let mut at = unravel(&sums.shape, j);
                    let want_sum: f64 = (0..shape[d])
                        .map(|e| {
                            at[d] = e;
                            want[ravel(&shape, &at)]
                        })
                        .sum();
                    let err = (g.f() - want_sum).abs();
                    assert!(
                        err <= 1e-12 * (1.0 + want_sum.abs()),
                        "sum along {d} of shape {shape:?}: {} vs {want_sum}",
                        g.f()
                    );
                }
            }
            release(&outs);
            release(&[t]);
        }
        release(&[x]);
    }
}

/// Concatenations of arrays of many chunks, along the first and the last dimension, fused
/// with arithmetic on their parts: chunks that lie wholly in one part read it in place.
#[test]
fn concat_of_many_chunks() {
    let mut rng = rng("concat_of_many_chunks");
    for (a_shape, b_shape, dim) in [([5000usize, 3], [7000usize, 3], 0usize), ([6000, 2], [6000, 3], 1)] {
        let (aa, ba) = (
            rand_arr(&mut rng, SL_F64, &a_shape, -4.0, 4.0, false),
            rand_arr(&mut rng, SL_F64, &b_shape, -4.0, 4.0, false),
        );
        let (a, b) = (aa.upload(), ba.upload());
        let (mut twice, mut c, mut y) = (0, 0, 0);
        ok(sl_mul_scalar(a, 2.0, &mut twice));
        ok(sl_concat([twice, b].as_ptr(), 2, dim as i32, &mut c));
        ok(sl_add_scalar(c, 1.0, &mut y));
        let got = download(y);
        let shape = shape_of(y);
        for (i, g) in got.v.iter().enumerate() {
            let mut at = unravel(&shape, i);
            let want = if at[dim] < a_shape[dim] {
                2.0 * aa.at(&at).f()
            } else {
                at[dim] -= a_shape[dim];
                ba.at(&at).f()
            } + 1.0;
            assert_eq!(g.f(), want, "element {i} of the concatenation along {dim}");
        }
        release(&[a, b, twice, c, y]);
    }
}

/// Sums of many terms (arrays, shifted arrays and scalars) fused into one kernel, each
/// lane added in the order written: bit for bit the additions done one by one in the
/// element type, at lengths that end inside a tile of lanes, with a partial sum also
/// stored (which the chain must keep).
#[test]
fn long_sums_add_in_order() {
    let mut rng = rng("long_sums_add_in_order");
    for (dt, n) in [(SL_F32, 1000usize), (SL_F64, 70001), (SL_F32, 64 * 1024 + 3)] {
        let xs: Vec<Arr> = (0..3).map(|_| rand_arr(&mut rng, dt, &[n], -1e3, 1e3, false)).collect();
        let hs: Vec<sl_array> = xs.iter().map(Arr::upload).collect();
        // Terms: (source, shift) or a scalar; shifts fill with 0.5.
        let terms: Vec<(Option<(usize, i64)>, f64)> = (0..20)
            .map(|i| {
                if i > 0 && rng.random_bool(0.2) {
                    (None, rng.random_range(-10.0..10.0))
                } else {
                    (Some((rng.random_range(0..3), rng.random_range(-4..=4))), 0.0)
                }
            })
            .collect();
        let keep = rng.random_range(1..terms.len());
        let term_handle = |t: &(Option<(usize, i64)>, f64), made: &mut Vec<sl_array>| match t.0 {
            Some((src, k)) => {
                let mut s = 0;
                ok(sl_shift(hs[src], 0, k, SL_BOUNDARY_FILL, 0.5, &mut s));
                made.push(s);
                Some(s)
            }
            None => None,
        };
        let mut made = Vec::new();
        let mut sum = term_handle(&terms[0], &mut made).expect("the first term is an array");
        let mut partial = sum;
        for (i, t) in terms.iter().enumerate().skip(1) {
            let mut next = 0;
            match term_handle(t, &mut made) {
                Some(h) => ok(sl_add(sum, h, &mut next)),
                None => ok(sl_add_scalar(sum, t.1, &mut next)),
            }
            made.push(next);
            sum = next;
            if i == keep {
                partial = sum;
            }
        }
        ok(sl_eval([sum, partial].as_ptr(), 2));
        let (got, got_partial) = (download(sum), download(partial));
        let value = |t: &(Option<(usize, i64)>, f64), i: usize| match t.0 {
            Some((src, k)) => {
                let from = i as i64 - k;
                if (0..n as i64).contains(&from) { xs[src].v[from as usize].f() } else { 0.5 }
            }
            None => t.1,
        };
        for i in 0..n {
            // The reference adds in the element type, one addition at a time.
            let (mut r32, mut r64) = (value(&terms[0], i) as f32, value(&terms[0], i));
            for (j, t) in terms.iter().enumerate().skip(1) {
                r32 += value(t, i) as f32;
                r64 += value(t, i);
                if j == keep {
                    let want = if dt == SL_F32 { r32 as f64 } else { r64 };
                    assert_eq!(got_partial.v[i].f(), want, "partial sum, lane {i} of {n}");
                }
            }
            let want = if dt == SL_F32 { r32 as f64 } else { r64 };
            assert_eq!(got.v[i].f(), want, "lane {i} of {n}, type {dt}");
        }
        release(&made);
        release(&hs);
    }
}
