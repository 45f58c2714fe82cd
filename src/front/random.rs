//! Random arrays of every law: the checks of their parameters and the constants each
//! law's kernel takes (computed here, once per array, so every executor gets the same
//! bits; `ir::random::Distribution` says what they are), scales and compositions (beta
//! and chi-square from gamma), and Sobol' points with their direction numbers.

use std::sync::{Arc, OnceLock};

use super::graph::Graph;
use super::rng::Rng;
use crate::ir::random::samplers::{POISSON_INVERSION_BELOW, Ptrs};
use crate::ir::random::sobol::{SOBOL_BITS, SOBOL_MAX_DIMS, Scramble};
use crate::ir::{BinaryOp, DType, Distribution, Node, Op, Result, Scalar, Shape, UnaryOp, bail};

/// The largest Poisson mean for i32 values (values stay far below 2^31) and for i64
/// values (PTRS's floating-point steps in f64 keep whole numbers apart).
pub const POISSON_MAX_MEAN_I32: f64 = (1u64 << 30) as f64;
pub const POISSON_MAX_MEAN_I64: f64 = (1u64 << 50) as f64;

/// A generator and its id, as the calls that draw from it name it.
pub struct Source<'r> {
    pub id: u64,
    pub rng: &'r Rng,
}

/// `x` as a value of float type `t`, refusing values it does not hold as a finite number.
fn finite(what: &str, x: f64, t: DType) -> Result<Scalar> {
    let v = Scalar::F64(x).cast(t);
    if !v.as_f64().is_finite() {
        bail!(InvalidArgument, "{what} must be a finite {t} value, not {x}");
    }
    Ok(v)
}

/// The largest value of float type `t` below `x`.
fn below(x: Scalar) -> Scalar {
    match x {
        Scalar::F32(v) => Scalar::F32(v.next_down()),
        Scalar::F64(v) => Scalar::F64(v.next_down()),
        other => unreachable!("{other:?} is not a float"),
    }
}

fn check_type(law: &str, t: DType, allowed: &[DType]) -> Result<()> {
    if !allowed.contains(&t) {
        let names: Vec<&str> = allowed.iter().map(|t| t.name()).collect();
        bail!(DTypeMismatch, "{law} values are {}, not {t}", names.join(" or "));
    }
    Ok(())
}

const FLOATS: [DType; 2] = [DType::F32, DType::F64];
const POISSON_TYPES: [DType; 2] = [DType::I32, DType::I64];

impl Graph<'_> {
    fn law(&self, g: &Source, dist: Distribution, t: DType, shape: Shape, params: &[Scalar]) -> Result<Arc<Node>> {
        self.random_law(g.id, g.rng, dist, t, shape, params)
    }

    /// `x` times the scale `s` (left alone when it is 1).
    fn times_scale(&self, x: Arc<Node>, s: f64) -> Result<Arc<Node>> {
        if s == 1.0 { Ok(x) } else { self.binary_scalar(BinaryOp::Mul, &x, s, false) }
    }

    /// Uniform on `[lo, hi)`: every value at least `lo` and below `hi` once both are
    /// rounded to `t`, which must keep them apart.
    pub fn random_uniform_range(&self, g: &Source, lo: f64, hi: f64, t: DType, shape: Shape) -> Result<Arc<Node>> {
        check_type("uniform", t, &FLOATS)?;
        let (l, h) = (finite("lo", lo, t)?, finite("hi", hi, t)?);
        if h.as_f64() <= l.as_f64() {
            bail!(InvalidArgument, "hi ({hi}) must be above lo ({lo}) as {t} values");
        }
        self.law(g, Distribution::UniformRange, t, shape, &[l, h, below(h)])
    }

    /// Integers uniform on `[lo, hi)` (`hi` up to 2^31 for i32).
    pub fn random_integers(&self, g: &Source, lo: i64, hi: i64, t: DType, shape: Shape) -> Result<Arc<Node>> {
        let Some((min, max)) = t.integer_range().filter(|_| t.is_integer()) else {
            bail!(DTypeMismatch, "integer values are of an integer type (i8 to u64), not {t}");
        };
        if hi <= lo {
            bail!(InvalidArgument, "hi ({hi}) must be above lo ({lo})");
        }
        if (lo as i128) < min || hi as i128 > max + 1 {
            bail!(InvalidArgument, "[{lo}, {hi}) is not a range of {t} values");
        }
        let span = (hi as i128 - lo as i128) as u64;
        // Types of up to 32 bits take one 32-bit word per element, 64-bit types two.
        let reject = if t.size() <= 4 { (1u64 << 32) % span } else { span.wrapping_neg() % span };
        let params = [Scalar::I64(lo).cast(t), Scalar::I64(span as i64), Scalar::I64(reject as i64)];
        self.law(g, Distribution::Integers, t, shape, &params)
    }

    /// Exponential with mean `scale` (rate 1/scale).
    pub fn random_exponential(&self, g: &Source, scale: f64, t: DType, shape: Shape) -> Result<Arc<Node>> {
        check_type("exponential", t, &FLOATS)?;
        let scale_t = finite("scale", scale, t)?.as_f64();
        if scale_t.is_nan() || scale_t <= 0.0 {
            bail!(InvalidArgument, "scale must be above 0, not {scale}");
        }
        let x = self.law(g, Distribution::Exponential, t, shape, &[])?;
        self.times_scale(x, scale)
    }

    /// Bernoulli: true with probability `p` (to 2^-33: `round(p 2^32) / 2^32`).
    pub fn random_bernoulli(&self, g: &Source, p: f64, shape: Shape) -> Result<Arc<Node>> {
        if !(0.0..=1.0).contains(&p) {
            bail!(InvalidArgument, "p must be in [0, 1], not {p}");
        }
        let threshold = (p * (1u64 << 32) as f64).round() as i64;
        self.law(g, Distribution::Bernoulli, DType::Bool, shape, &[Scalar::I64(threshold)])
    }

    /// Poisson with mean `lambda`.
    pub fn random_poisson(&self, g: &Source, lambda: f64, t: DType, shape: Shape) -> Result<Arc<Node>> {
        check_type("Poisson", t, &POISSON_TYPES)?;
        let max = if t == DType::I32 { POISSON_MAX_MEAN_I32 } else { POISSON_MAX_MEAN_I64 };
        if !(0.0..=max).contains(&lambda) {
            bail!(InvalidArgument, "lambda must be in [0, {max}] for {t} values, not {lambda}");
        }
        let f = Scalar::F64;
        if lambda < POISSON_INVERSION_BELOW {
            return self.law(g, Distribution::Poisson { large: false }, t, shape, &[f(lambda), f((-lambda).exp())]);
        }
        let p = Ptrs::new(lambda);
        let params = [f(p.lambda), f(p.a), f(p.b), f(p.ln_inv_alpha), f(p.vr)];
        self.law(g, Distribution::Poisson { large: true }, t, shape, &params)
    }

    /// Gamma of shape `k` and scale `theta`.
    pub fn random_gamma(&self, g: &Source, k: f64, theta: f64, t: DType, shape: Shape) -> Result<Arc<Node>> {
        check_type("gamma", t, &FLOATS)?;
        let theta_t = finite("theta", theta, t)?.as_f64();
        if theta_t.is_nan() || theta_t <= 0.0 {
            bail!(InvalidArgument, "the scale theta must be above 0, not {theta}");
        }
        let (boost, params) = gamma_constants(k, t)?;
        let x = self.law(g, Distribution::Gamma { boost, log: false }, t, shape, &params)?;
        self.times_scale(x, theta)
    }

    /// Chi-square with `df` degrees of freedom: gamma of shape `df/2`, scale 2.
    pub fn random_chisquare(&self, g: &Source, df: f64, t: DType, shape: Shape) -> Result<Arc<Node>> {
        if df.is_nan() || df <= 0.0 {
            bail!(InvalidArgument, "the degrees of freedom must be above 0, not {df}");
        }
        self.random_gamma(g, df / 2.0, 2.0, t, shape)
    }

    /// Beta(a, b) as `X / (X + Y)` for gamma values `X` of shape `a` and `Y` of shape `b`
    /// (two draws), computed from their logs as `1 / (1 + exp(ln Y - ln X))`, which stays
    /// right for shapes so small that `X` and `Y` underflow.
    pub fn random_beta(&self, g: &Source, a: f64, b: f64, t: DType, shape: Shape) -> Result<Arc<Node>> {
        check_type("beta", t, &FLOATS)?;
        for (name, v) in [("a", a), ("b", b)] {
            if v <= 0.0 || !v.is_finite() {
                bail!(InvalidArgument, "the shape {name} must be a finite value above 0, not {v}");
            }
        }
        // Both shapes are checked before either draw is taken.
        let ((boost_a, pa), (boost_b, pb)) = (gamma_constants(a, t)?, gamma_constants(b, t)?);
        let lx = self.law(g, Distribution::Gamma { boost: boost_a, log: true }, t, shape, &pa)?;
        let ly = self.law(g, Distribution::Gamma { boost: boost_b, log: true }, t, shape, &pb)?;
        let ratio = self.unary(UnaryOp::Exp, &self.binary(BinaryOp::Sub, &ly, &lx)?)?;
        let denominator = self.binary_scalar(BinaryOp::Add, &ratio, 1.0, false)?;
        self.binary_scalar(BinaryOp::Div, &denominator, 1.0, true)
    }

    /// Points `first .. first + count` of the `dims`-dimensional Sobol' sequence, as an
    /// array of shape `[count, dims]`.
    pub fn sobol(
        &self,
        dims: i64,
        first: i64,
        count: i64,
        scramble: Scramble,
        seed: u64,
        t: DType,
    ) -> Result<Arc<Node>> {
        check_type("Sobol'", t, &FLOATS)?;
        if !(1..=SOBOL_MAX_DIMS as i64).contains(&dims) {
            bail!(InvalidArgument, "Sobol' points have 1 to {SOBOL_MAX_DIMS} dimensions, not {dims}");
        }
        let end = first.checked_add(count);
        if first < 0 || count < 0 || end.is_none_or(|e| e > 1i64 << SOBOL_BITS) {
            bail!(
                InvalidArgument,
                "points {first} to {first} + {count} are not in the sequence's range 0 .. 2^{SOBOL_BITS}"
            );
        }
        let shape = Shape::sized("sobol", &[count as u64, dims as u64])?;
        let directions = self.sobol_directions(dims as usize)?;
        let operand = |v: i64| self.operand(DType::I64, Scalar::I64(v));
        let inputs = [directions, operand(first), operand(seed as i64)];
        Ok(self.pending(Op::Sobol { scramble }, t, shape, inputs.to_vec()))
    }

    /// The direction numbers of the first `dims` dimensions as a stored i32 array of shape
    /// [32, dims] (column j: dimension j's, the most significant digit first).
    fn sobol_directions(&self, dims: usize) -> Result<Arc<Node>> {
        let table = directions();
        let bytes: Vec<u8> = table[..dims].iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
        let shape = Shape::new(&[SOBOL_BITS as usize, dims]);
        self.from_host(DType::I32, shape, &bytes, super::HostOrder::ColumnMajor)
    }
}

/// Marsaglia and Tsang's constants for shape `k` in type `t` (those of `k + 1` with the
/// boost `1/k` below 1), and whether it has the boost; refuses shapes the type cannot take.
fn gamma_constants(k: f64, t: DType) -> Result<(bool, Vec<Scalar>)> {
    check_type("gamma", t, &FLOATS)?;
    let inv_k = 1.0 / k;
    if k.is_nan()
        || k <= 0.0
        || !finite("the shape", k, t)?.as_f64().is_normal()
        || !finite("1/shape", inv_k, t)?.as_f64().is_normal()
    {
        bail!(InvalidArgument, "the shape must be a positive normal {t} value with a finite inverse, not {k}");
    }
    let boost = k < 1.0;
    let d = if boost { k + 1.0 } else { k } - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    if !Scalar::F64(9.0 * d).cast(t).as_f64().is_finite() {
        bail!(InvalidArgument, "the shape {k} is too large for {t} values (9 (k - 1/3) overflows)");
    }
    let mut params = vec![Scalar::F64(d).cast(t), Scalar::F64(c).cast(t)];
    if boost {
        params.push(Scalar::F64(inv_k).cast(t));
    }
    Ok((boost, params))
}

/// Every dimension's direction numbers, from Joe and Kuo's table (`sobol` crate), made
/// once. Dimension 0 is van der Corput's (`v_k = 2^(31-k)`).
fn directions() -> &'static [[u32; SOBOL_BITS as usize]] {
    static TABLE: OnceLock<Vec<[u32; SOBOL_BITS as usize]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let params = sobol::params::JoeKuoD6::extended();
        let dims = SOBOL_MAX_DIMS as usize;
        sobol::Sobol::<u32>::init_direction_vals::<u32>(dims, SOBOL_BITS as usize, &params)
            .into_iter()
            .map(|v| v.try_into().expect("32 direction numbers per dimension"))
            .collect()
    })
}
