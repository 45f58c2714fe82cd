//! Random number generators and random arrays.

use super::error::boundary;
use super::types::*;
use super::{graph, out_slot, parse_dtype, parse_shape, put, runtime, write_out};
use crate::front::rng::{Rng, RngState};
use crate::ir::{Distribution, Result, RngKind, bail};

fn kind(k: sl_rng_kind) -> Result<RngKind> {
    Ok(match k {
        SL_RNG_PHILOX => RngKind::Philox,
        SL_RNG_FAST => RngKind::Fast,
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
