//! Random number generators and random arrays.

use std::sync::Arc;

use super::error::boundary;
use super::types::*;
use super::{graph, out_slot, parse_dtype, parse_shape, put, runtime, write_out};
use crate::front::random::Source;
use crate::front::rng::{Rng, RngState};
use crate::front::{Graph, runtime::Runtime};
use crate::ir::random::sobol::Scramble;
use crate::ir::{CallSite, DType, Distribution, Node, Result, RngKind, Shape, bail};

fn kind(k: sl_rng_kind) -> Result<RngKind> {
    Ok(match k {
        SL_RNG_PHILOX => RngKind::Philox,
        SL_RNG_FAST => RngKind::Fast,
        SL_RNG_THREEFRY => RngKind::Threefry,
        _ => bail!(InvalidArgument, "{k} is not an sl_rng_kind"),
    })
}

/// A new generator of `kind` seeded with `seed`, at draw 0.
#[unsafe(no_mangle)]
pub extern "C" fn sl_rng_create(kind_: sl_rng_kind, seed: u64, out: *mut sl_rng) -> sl_status {
    boundary!("sl_rng_create", |_site| {
        let out = out_slot(out)?;
        let k = kind(kind_)?;
        *out = runtime()?.rngs.insert(Rng::new(k, seed));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn sl_rng_destroy(rng: sl_rng) -> sl_status {
    boundary!("sl_rng_destroy", |_site| runtime()?.rngs.remove(rng))
}

/// The generator's seed and next draw (each random array takes one draw). Either
/// pointer may be NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sl_rng_get_state(rng: sl_rng, seed: *mut u64, draw: *mut u64) -> sl_status {
    boundary!("sl_rng_get_state", |_site| {
        let st = runtime()?.rngs.get(rng)?.state();
        if !seed.is_null() {
            write_out(seed, "seed", st.seed)?;
        }
        if !draw.is_null() {
            write_out(draw, "draw", st.draw)?;
        }
        Ok(())
    })
}

/// Sets the seed and next draw: a generator set to a state it had before repeats the
/// numbers it gave from there.
#[unsafe(no_mangle)]
pub extern "C" fn sl_rng_set_state(rng: sl_rng, seed: u64, draw: u64) -> sl_status {
    boundary!("sl_rng_set_state", |_site| {
        runtime()?.rngs.get(rng)?.set_state(RngState { seed, draw });
        Ok(())
    })
}

fn random(
    site: crate::ir::CallSite,
    dist: Distribution,
    rng: sl_rng,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> Result<()> {
    let out = out_slot(out)?;
    let (t, s) = (parse_dtype(dtype)?, parse_shape(rank, dims)?);
    let rt = runtime()?;
    let r = rt.rngs.get(rng)?;
    let n = graph(&rt, site).random(rng, &r, dist, t, s)?;
    put(&rt, out, n)
}

/// An array of `dtype` (SL_F32 or SL_F64) and shape `dims[0..rank]` of independent
/// values uniform on [0, 1), taking the generator's next draw. Fused into its consumers
/// like any other op; the values depend only on the seed, the draw and the element.
/// Element i (column-major) is word i of the draw's stream for f32 (its top 24 bits
/// times 2^-24) and words 2i and 2i+1 for f64 (53 bits), where words 4b..4b+3 are the
/// generator's block b (README, "Random numbers").
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_uniform(
    rng: sl_rng,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_uniform", |site| random(site, Distribution::Uniform, rng, dtype, rank, dims, out))
}

/// Like `sl_random_uniform`, with standard normal values: elements 2j and 2j+1 are the
/// Box-Muller pair sqrt(-2 ln(1-u)) cos(2 pi v), sqrt(-2 ln(1-u)) sin(2 pi v) of the
/// uniform elements u = 2j and v = 2j+1 of the same type. `SL_C64`/`SL_C128` give the
/// standard complex normal: parts independent, each of variance 1/2 (E|z|^2 = 1); element
/// k is (x_2k + i x_2k+1) / sqrt(2) for the f32/f64 normal draw x of 2n values.
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_normal(
    rng: sl_rng,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_normal", |site| random(site, Distribution::Normal, rng, dtype, rank, dims, out))
}

/// Checks the output slot, type and shape of a random array of a law, finds the
/// generator, and puts what `make` builds from them in the slot.
#[allow(clippy::too_many_arguments)]
fn law(
    site: CallSite,
    rng: sl_rng,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
    make: impl FnOnce(&Graph, &Source, DType, Shape) -> Result<Arc<Node>>,
) -> Result<()> {
    let out = out_slot(out)?;
    let (t, s) = (parse_dtype(dtype)?, parse_shape(rank, dims)?);
    let rt: Arc<Runtime> = runtime()?;
    let r = rt.rngs.get(rng)?;
    let n = make(&graph(&rt, site), &Source { id: rng, rng: &r }, t, s)?;
    put(&rt, out, n)
}

/// Values uniform on [lo, hi) of `dtype` (SL_F32 or SL_F64), shape `dims[0..rank]`, taking
/// the generator's next draw: `lo (1 - u) + hi u` of the uniform element u of
/// `sl_random_uniform`, kept at or above lo and below hi (every value is in [lo, hi) as
/// the type holds them). lo and hi must be finite, and hi above lo once both are
/// rounded to `dtype` (else SL_ERR_INVALID_ARGUMENT).
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_uniform_range(
    rng: sl_rng,
    lo: f64,
    hi: f64,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_uniform_range", |site| law(site, rng, dtype, rank, dims, out, |g, r, t, s| {
        g.random_uniform_range(r, lo, hi, t, s)
    }))
}

/// Integers uniform on [lo, hi) of `dtype` (any integer type, SL_I8 to SL_U64; [lo, hi)
/// must hold values of the type only, and hi may be one past its largest value, e.g. 2^31
/// for SL_I32 so that the range reaches INT32_MAX; u64 ranges end below 2^63, as hi is
/// an int64_t), taking the generator's next draw. Unbiased: Lemire's multiply-shift on
/// word i (types of up to 32 bits) or words 2i, 2i+1 (64-bit types) of the draw, rejecting the few
/// products that would favour some values and taking replacements from counters that
/// belong to element i alone (README, "Random numbers"). hi <= lo is
/// SL_ERR_INVALID_ARGUMENT.
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_integers(
    rng: sl_rng,
    lo: i64,
    hi: i64,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_integers", |site| law(site, rng, dtype, rank, dims, out, |g, r, t, s| {
        g.random_integers(r, lo, hi, t, s)
    }))
}

/// Exponential values of mean `scale` (rate 1/scale; SL_F32 or SL_F64): -ln(1 - u) scale
/// for the uniform element u of `sl_random_uniform`, so f32 values stay below 16.7 scale
/// and f64 below 36.8 scale. `scale` must be finite and above 0.
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_exponential(
    rng: sl_rng,
    scale: f64,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_exponential", |site| law(site, rng, dtype, rank, dims, out, |g, r, t, s| {
        g.random_exponential(r, scale, t, s)
    }))
}

/// A bool array, each element true with probability p (in [0, 1]): word i of the draw
/// below round(p 2^32), so the probability is p to within 2^-33 (exact for 0 and 1).
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_bernoulli(
    rng: sl_rng,
    p: f64,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_bernoulli", |site| law(site, rng, SL_BOOL, rank, dims, out, |g, r, _, s| {
        g.random_bernoulli(r, p, s)
    }))
}

/// Poisson values of mean `lambda` (SL_I32 with lambda up to 2^30, SL_I64 up to 2^50),
/// computed in f64: inversion below 10, Hormann's transformed rejection (PTRS) from 10 on,
/// each element's attempts taking counters of its own. On Vulkan devices without 64-bit
/// floats they run on the CPU executor.
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_poisson(
    rng: sl_rng,
    lambda: f64,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_poisson", |site| law(site, rng, dtype, rank, dims, out, |g, r, t, s| {
        g.random_poisson(r, lambda, t, s)
    }))
}

/// Gamma values of shape k and scale theta (SL_F32 or SL_F64): Marsaglia and Tsang's
/// method, for k below 1 that of k + 1 times u^(1/k); each element's attempts take
/// counters of its own. k must be a positive normal number of `dtype` with a finite
/// inverse, theta finite and above 0.
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_gamma(
    rng: sl_rng,
    k: f64,
    theta: f64,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_gamma", |site| law(site, rng, dtype, rank, dims, out, |g, r, t, s| {
        g.random_gamma(r, k, theta, t, s)
    }))
}

/// Beta(a, b) values (SL_F32 or SL_F64): X / (X + Y) for gamma values X of shape a and
/// Y of shape b, taking two draws, computed from ln X and ln Y so tiny shapes do not
/// give 0/0. a and b must be finite and above 0.
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_beta(
    rng: sl_rng,
    a: f64,
    b: f64,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_beta", |site| law(site, rng, dtype, rank, dims, out, |g, r, t, s| {
        g.random_beta(r, a, b, t, s)
    }))
}

/// Chi-square values with `df` degrees of freedom (above 0): gamma of shape df/2 and
/// scale 2.
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_chisquare(
    rng: sl_rng,
    df: f64,
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_chisquare", |site| law(site, rng, dtype, rank, dims, out, |g, r, t, s| {
        g.random_chisquare(r, df, t, s)
    }))
}

/// Points first .. first+count-1 of the `dims`-dimensional Sobol' sequence (quasi-Monte
/// Carlo) as an array of shape [count, dims] of `dtype` (SL_F32: the top 24 of each
/// coordinate's 32 binary digits; SL_F64: all 32): element (i, j) is coordinate j of
/// point first + i, a pure function of the two, in Gray-code order (Joe and Kuo's and
/// SciPy's), with Joe and Kuo's direction numbers. 1 <= dims <= SL_SOBOL_MAX_DIMS,
/// first >= 0, count >= 0, first + count <= 2^32. `scramble` (an sl_sobol_scramble)
/// randomises the points with `seed` (ignored for SL_SOBOL_PLAIN) and keeps their
/// equidistribution: the first 2^m points have one point in each of 2^m equal intervals
/// of every coordinate.
#[unsafe(no_mangle)]
pub extern "C" fn sl_random_sobol(
    dims: i64,
    first: i64,
    count: i64,
    scramble: sl_sobol_scramble,
    seed: u64,
    dtype: sl_dtype,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_random_sobol", |site| {
        let out = out_slot(out)?;
        let how = match scramble {
            SL_SOBOL_PLAIN => Scramble::None,
            SL_SOBOL_SHIFT => Scramble::Shift,
            SL_SOBOL_OWEN => Scramble::Owen,
            _ => bail!(InvalidArgument, "{scramble} is not an sl_sobol_scramble"),
        };
        let t = parse_dtype(dtype)?;
        let rt = runtime()?;
        let n = graph(&rt, site).sobol(dims, first, count, how, seed, t)?;
        put(&rt, out, n)
    })
}
