//! Vectorised transcendental functions for the CPU executor.
//!
//! One slice function per (function, type): `dst[i] = f(src[i])` for the unary functions
//! `cbrt exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh asinh
//! acosh atanh erf erfc erfinv lgamma tgamma floor ceil round trunc` (e.g. [`sin_f32`],
//! [`sin_f64`]) and
//! `dst[i] = f(a[i], b[i])` for `pow atan2 hypot` (e.g. [`pow_f32`]), plus variants with a
//! broadcast scalar operand ([`pow_f32_vs`]: `b` scalar, [`pow_f32_sv`]: `a` scalar). Callers that
//! choose the function at run time use [`UnaryFn`] / [`BinaryFn`] with [`unary_f32`],
//! [`binary_f64_vs`], etc. `round` rounds half away from zero, like C `round`.
//!
//! # How it is built
//!
//! Every kernel is a branch-free scalar function generic over `f32`/`f64` (`real::Real`) and
//! over the instruction level (`real::Ops`: FMA + SSE4.1 rounding, or plain SSE2), inlined
//! into a slice loop that LLVM vectorises. Each loop is compiled three times with `multiversion`
//! (AVX-512, AVX2+FMA, baseline x86-64) and dispatched at run time; the FMA clones use fused
//! multiply-adds and hardware rounding, the baseline uses `a * b + c`, Dekker products and bit-trick
//! rounding so that no clone ever calls libm per element. The AVX2 and AVX-512 clones compute
//! bit-identical results; the baseline may differ in the last bit (its bounds are tested too).
//! Special values follow C99 Annex F (NaN in, NaN out; signed zeros; overflow to inf and gradual
//! underflow; `pow`/`atan2`/`hypot` special cases of F.10.4.4, F.9.1.4, F.10.4.3).
//!
//! Polynomial coefficients are our own fits, derived with Sollya by `fits.sollya` in this
//! directory (minimax with relative error, or a weighted Remez fit for erf's tail).
//!
//! # Accuracy
//!
//! Measured max error (the largest seen over the development runs, at least 2 runs of 8.0 M
//! random inputs each per (function, type, code path); both code paths are included) — log-uniform over the whole range (random bit patterns, so every
//! exponent including subnormals), plus dense samples near 0, near 1, around multiples of pi/2,
//! near the overflow/underflow thresholds and at the range splits, plus a table of special
//! values — and the bound the tests enforce on every run (with fresh random inputs, 1 M per
//! function by default). f32 errors are against the correctly rounded result (computed from
//! glibc's f64 function); **f64 errors are relative to glibc**, whose own error is up to 1–2 ulp
//! for some functions (spot checks with mpmath: the worst log10 case is 0.50 ulp for us and 1.50
//! for glibc; the worst tan case 1.52 for us). The special functions erfc, erfinv, lgamma and
//! tgamma are compared with MPFR (glibc's own are off by up to 5, 4 and 9 ulps and it has no
//! erfinv) on a quarter of the samples, so their f64 column counts whole ulps of the rounded
//! result; tests/math.rs measures them against the exact value (README, "Math accuracy"). f32 sin/cos/tan were also checked exhaustively,
//! every f32 input on both code paths (the ignored test `exhaustive_trig_f32`); their column
//! gives the exhaustive maximum.
//!
//! | function | vector-path range | f32 max ulp (measured) | f32 bound | f64 max ulp vs glibc (measured) | f64 bound |
//! |---|---|---|---|---|---|
//! | cbrt | all inputs | 0.50 | 1 | 0 (identical) | 1 |
//! | exp | all inputs | 0.76 | 1 | 1 | 1 |
//! | exp2 | all inputs | 0.77 | 1 | 1 | 1 |
//! | expm1 | all inputs | 1.02 | 1.5 | 1 | 1.5 |
//! | log | all inputs | 0.84 | 1 | 1 | 1 |
//! | log2 | all inputs | 0.83 | 1 | 1 | 1 |
//! | log10 | all inputs | 0.74 | 1 | 2 (glibc's own error reaches 1.5) | 2 |
//! | log1p | all inputs | 0.86 | 1 | 1 | 1 |
//! | sin | \|x\| <= 2^17 in f32, then 2^22 with an f64 reduction (f32); 2^20 (f64); larger lanes: scalar pass | 0.89 (exhaustive) | 1 | 1 | 1 |
//! | cos | \|x\| <= 2^17 in f32, then 2^22 with an f64 reduction (f32); 2^20 (f64); larger lanes: scalar pass | 0.88 (exhaustive) | 1 | 1 | 1 |
//! | tan | \|x\| <= 2^17 in f32, then 2^22 with an f64 reduction (f32); 2^20 (f64); larger lanes: scalar pass | 2.45 (exhaustive) | 3 | 2 | 3 |
//! | asin | all inputs | 0.81 | 1 | 1 | 1 |
//! | acos | all inputs | 0.89 | 1 | 1 | 1 |
//! | atan | all inputs | 0.76 | 1 | 1 | 1 |
//! | sinh | all inputs | 1.33 | 2 | 2 | 3 |
//! | cosh | all inputs | 1.11 | 2 | 2 | 3 |
//! | tanh | all inputs | 0.95 | 1.5 | 2 | 3 |
//! | asinh | all inputs | 1.70 | 3 | 1 | 3 |
//! | acosh | all inputs | 2.00 | 3 | 2 | 3 |
//! | atanh | all inputs | 1.73 | 3 | 2 | 3 |
//! | erf | all inputs | 0.50 | 1 | 1 | 2 |
//! | erfc | all inputs | 0.50 | 1 | 1 (vs MPFR) | 1 |
//! | erfinv | all inputs | 0.50 | 1 | 1 (vs MPFR) | 1 |
//! | lgamma | above -0.5 (below: 1 ulp, or 0.49 units of 2^-53 (1 + lgamma(1 - x)) near its zeros, `lgamma_negative`) | 0.50 | 1 | 1 (vs MPFR) | 1.5 |
//! | tgamma | all inputs | 0.50 | 1 | 1 (vs MPFR) | 2 |
//! | floor / ceil / round / trunc | all inputs | 0 (exact) | 0 | 0 (exact) | 0 |
//! | pow | all inputs | 0.50 | 1 | 1 | 2 |
//! | atan2 | all inputs | 1.17 | 2 | 1 | 2 |
//! | hypot | all inputs | 0.50 | 1 | 1 | 1 |
//!
//! # Notes for callers
//!
//! * Slices may have any length (including 0) and any alignment; `src`/`dst` cannot alias
//!   (Rust borrows); lengths must match or the call panics.
//! * The kernels assume the default MXCSR (round-to-nearest, no flush-to-zero /
//!   denormals-are-zero); with FTZ/DAZ set, subnormal inputs and results are not handled as
//!   documented.
//! * sin/cos/tan: the main vector path is Cody–Waite in the slice's own type (f32:
//!   `|x| <= 2^17`, f64: `|x| <= 2^20`). A scan of the input first (two instructions per vector)
//!   finds whether some lane is beyond that; if so, f32 lanes up to 2^22 use the reduction in f64
//!   arithmetic (vectorised, chosen per 256-element block: a block with lanes on both sides of
//!   2^17 runs both paths, about 1.1 ns/element instead of 0.35), and lanes beyond every vector
//!   range are redone one at a time in f64 with an exact Payne–Hanek reduction (f32 rounds
//!   that result). Each result depends on its input alone, not on the
//!   other lanes of the slice.
//! * exp: blocks of 256 elements whose lanes are all within +-87 (f32) or +-708 (f64), where
//!   `2^n` is normal, skip the clamps and scale in one step (the same bits, a third fewer
//!   instructions; the range check is in the same pass); other blocks are redone with the full
//!   kernel.
//! * `multiversion` only picks the AVX-512 clone on CPUs with the Ice-Lake-level AVX-512
//!   extensions (it deliberately avoids Skylake-X's AVX-512); others use the AVX2 clone.

mod driver;
mod exp_log;
mod gamma;
mod hyper;
mod inv_trig;
mod power;
mod real;
mod round;
mod special;
mod trig;

/// For callers that fuse a kernel into a loop of their own (Box-Muller in `cpu::random`).
pub(crate) use exp_log::{ExpLogConsts, exp, ln_normal};
/// The special functions' tables, which the Vulkan executor evaluates too.
pub(crate) use gamma::{LGAMMA_B, LGAMMA_SIN, LGAMMA_STIRLING};
pub(crate) use real::{Fma, NoFma, Ops, PolyDd, Real};
pub(crate) use special::{
    C_HI, C_LO, ERF_SMALL, ERFCX_A, ERFCX_B, ERFCX_C, ERFCX_D, ERFINV_A, ERFINV_B, ERFINV_C, ERFINV_D,
};
pub(crate) use trig::{TWO_OVER_PI, cos_sin_turns};

#[cfg(test)]
mod tests;

use driver::{BinaryKernel, UnaryKernel};

/// Kernel marker types, one per function.
mod kernels {
    macro_rules! markers { ($($n:ident)*) => { $( #[derive(Clone, Copy, Debug)] pub struct $n; )* } }
    markers!(Cbrt Exp Exp2 Expm1 Log Log2 Log10 Log1p Sin Cos Tan Asin Acos Atan Sinh Cosh Tanh
        Asinh Acosh Atanh Erf Erfc Erfinv Lgamma Tgamma Floor Ceil Round Trunc Pow Atan2 Hypot);
}

/// The slice loop of a unary function.
#[derive(Clone, Copy)]
enum Run {
    /// `driver::map`.
    Map,
    /// `trig::run`: a code path per block from the range of its inputs.
    Trig(trig::Kind),
    /// `exp_log::run_exp`: a cheaper path for blocks whose results are normal.
    Exp,
    /// `gamma::run`: the reflection only for blocks with negative arguments.
    Gamma(gamma::Kind),
}

macro_rules! unary_fns {
    ($($variant:ident, $name:literal => $m:ident :: $f:ident, $f32:ident, $f64:ident, $run:expr;)*) => {
        /// A unary function, for callers that select the function at run time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum UnaryFn { $($variant,)* }

        impl UnaryFn {
            /// Every variant, in declaration order.
            pub const ALL: &'static [UnaryFn] = &[$(UnaryFn::$variant,)*];

            /// The C name of the function (`"sin"`, `"log1p"`, ...).
            pub fn name(self) -> &'static str {
                match self { $(UnaryFn::$variant => $name,)* }
            }
        }

        $(
            impl UnaryKernel<f32> for kernels::$variant {
                #[inline(always)]
                fn eval<O: Ops>(x: f32) -> f32 { $m::$f::<f32, O>(x) }
                #[inline(always)]
                fn run<O: Ops>(src: &[f32], dst: &mut [f32]) {
                    match $run {
                        Run::Map => driver::map::<f32, Self, O>(src, dst),
                        Run::Trig(k) => trig::run::<f32, O>(k, src, dst),
                        Run::Exp => exp_log::run_exp::<f32, O>(src, dst),
                        Run::Gamma(k) => gamma::run::<f32, O>(k, src, dst),
                    }
                }
            }
            impl UnaryKernel<f64> for kernels::$variant {
                #[inline(always)]
                fn eval<O: Ops>(x: f64) -> f64 { $m::$f::<f64, O>(x) }
                #[inline(always)]
                fn run<O: Ops>(src: &[f64], dst: &mut [f64]) {
                    match $run {
                        Run::Map => driver::map::<f64, Self, O>(src, dst),
                        Run::Trig(k) => trig::run::<f64, O>(k, src, dst),
                        Run::Exp => exp_log::run_exp::<f64, O>(src, dst),
                        Run::Gamma(k) => gamma::run::<f64, O>(k, src, dst),
                    }
                }
            }

            #[doc = concat!("`dst[i] = ", $name, "(src[i])` (f32). Panics if the lengths differ.")]
            pub fn $f32(src: &[f32], dst: &mut [f32]) {
                driver::unary::<f32, kernels::$variant>(src, dst)
            }

            #[doc = concat!("`dst[i] = ", $name, "(src[i])` (f64). Panics if the lengths differ.")]
            pub fn $f64(src: &[f64], dst: &mut [f64]) {
                driver::unary::<f64, kernels::$variant>(src, dst)
            }
        )*

        /// `dst[i] = f(src[i])` (f32).
        pub fn unary_f32(f: UnaryFn, src: &[f32], dst: &mut [f32]) {
            match f { $(UnaryFn::$variant => $f32(src, dst),)* }
        }

        /// `dst[i] = f(src[i])` (f64).
        pub fn unary_f64(f: UnaryFn, src: &[f64], dst: &mut [f64]) {
            match f { $(UnaryFn::$variant => $f64(src, dst),)* }
        }

        /// Test hook: the same loop without FMA/SSE4.1 (the baseline clone's code path).
        #[cfg(test)]
        pub(crate) fn unary_f32_nofma(f: UnaryFn, src: &[f32], dst: &mut [f32]) {
            match f { $(UnaryFn::$variant => driver::unary_core::<f32, kernels::$variant, real::NoFma>(src, dst),)* }
        }

        #[cfg(test)]
        pub(crate) fn unary_f64_nofma(f: UnaryFn, src: &[f64], dst: &mut [f64]) {
            match f { $(UnaryFn::$variant => driver::unary_core::<f64, kernels::$variant, real::NoFma>(src, dst),)* }
        }

        /// Test hook: the AVX2+FMA clone's code, to compare with the dispatched (AVX-512) one.
        #[cfg(test)]
        #[target_feature(enable = "avx2,fma")]
        pub(crate) fn unary_f32_avx2(f: UnaryFn, src: &[f32], dst: &mut [f32]) {
            match f { $(UnaryFn::$variant => driver::unary_core::<f32, kernels::$variant, real::Fma>(src, dst),)* }
        }

        #[cfg(test)]
        #[target_feature(enable = "avx2,fma")]
        pub(crate) fn unary_f64_avx2(f: UnaryFn, src: &[f64], dst: &mut [f64]) {
            match f { $(UnaryFn::$variant => driver::unary_core::<f64, kernels::$variant, real::Fma>(src, dst),)* }
        }
    };
}

unary_fns! {
    Cbrt, "cbrt" => power::cbrt, cbrt_f32, cbrt_f64, Run::Map;
    Exp, "exp" => exp_log::exp, exp_f32, exp_f64, Run::Exp;
    Exp2, "exp2" => exp_log::exp2, exp2_f32, exp2_f64, Run::Map;
    Expm1, "expm1" => exp_log::expm1, expm1_f32, expm1_f64, Run::Map;
    Log, "log" => exp_log::log, log_f32, log_f64, Run::Map;
    Log2, "log2" => exp_log::log2, log2_f32, log2_f64, Run::Map;
    Log10, "log10" => exp_log::log10, log10_f32, log10_f64, Run::Map;
    Log1p, "log1p" => exp_log::log1p, log1p_f32, log1p_f64, Run::Map;
    Sin, "sin" => trig::sin, sin_f32, sin_f64, Run::Trig(trig::Kind::Sin);
    Cos, "cos" => trig::cos, cos_f32, cos_f64, Run::Trig(trig::Kind::Cos);
    Tan, "tan" => trig::tan, tan_f32, tan_f64, Run::Trig(trig::Kind::Tan);
    Asin, "asin" => inv_trig::asin, asin_f32, asin_f64, Run::Map;
    Acos, "acos" => inv_trig::acos, acos_f32, acos_f64, Run::Map;
    Atan, "atan" => inv_trig::atan, atan_f32, atan_f64, Run::Map;
    Sinh, "sinh" => hyper::sinh, sinh_f32, sinh_f64, Run::Map;
    Cosh, "cosh" => hyper::cosh, cosh_f32, cosh_f64, Run::Map;
    Tanh, "tanh" => hyper::tanh, tanh_f32, tanh_f64, Run::Map;
    Asinh, "asinh" => hyper::asinh, asinh_f32, asinh_f64, Run::Map;
    Acosh, "acosh" => hyper::acosh, acosh_f32, acosh_f64, Run::Map;
    Atanh, "atanh" => hyper::atanh, atanh_f32, atanh_f64, Run::Map;
    Erf, "erf" => special::erf, erf_f32, erf_f64, Run::Map;
    Erfc, "erfc" => special::erfc, erfc_f32, erfc_f64, Run::Map;
    Erfinv, "erfinv" => special::erfinv, erfinv_f32, erfinv_f64, Run::Map;
    Lgamma, "lgamma" => gamma::lgamma, lgamma_f32, lgamma_f64, Run::Gamma(gamma::Kind::Lgamma);
    Tgamma, "tgamma" => gamma::tgamma, tgamma_f32, tgamma_f64, Run::Gamma(gamma::Kind::Tgamma);
    Floor, "floor" => round::floor, floor_f32, floor_f64, Run::Map;
    Ceil, "ceil" => round::ceil, ceil_f32, ceil_f64, Run::Map;
    Round, "round" => round::round, round_f32, round_f64, Run::Map;
    Trunc, "trunc" => round::trunc, trunc_f32, trunc_f64, Run::Map;
}

macro_rules! binary_fns {
    ($($variant:ident, $name:literal => $m:ident :: $f:ident,
       [$f32:ident, $f32vs:ident, $f32sv:ident], [$f64:ident, $f64vs:ident, $f64sv:ident];)*) => {
        /// A binary function, for callers that select the function at run time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum BinaryFn { $($variant,)* }

        impl BinaryFn {
            /// Every variant, in declaration order.
            pub const ALL: &'static [BinaryFn] = &[$(BinaryFn::$variant,)*];

            /// The C name of the function (`"pow"`, `"atan2"`, `"hypot"`).
            pub fn name(self) -> &'static str {
                match self { $(BinaryFn::$variant => $name,)* }
            }
        }

        $(
            impl BinaryKernel<f32> for kernels::$variant {
                #[inline(always)]
                fn eval<O: Ops>(a: f32, b: f32) -> f32 { $m::$f::<f32, O>(a, b) }
            }
            impl BinaryKernel<f64> for kernels::$variant {
                #[inline(always)]
                fn eval<O: Ops>(a: f64, b: f64) -> f64 { $m::$f::<f64, O>(a, b) }
            }

            #[doc = concat!("`dst[i] = ", $name, "(a[i], b[i])` (f32). Panics if the lengths differ.")]
            pub fn $f32(a: &[f32], b: &[f32], dst: &mut [f32]) {
                driver::binary::<f32, kernels::$variant, &[f32], &[f32]>(a, b, dst)
            }
            #[doc = concat!("`dst[i] = ", $name, "(a[i], b)` (f32). Panics if the lengths differ.")]
            pub fn $f32vs(a: &[f32], b: f32, dst: &mut [f32]) {
                driver::binary::<f32, kernels::$variant, &[f32], f32>(a, b, dst)
            }
            #[doc = concat!("`dst[i] = ", $name, "(a, b[i])` (f32). Panics if the lengths differ.")]
            pub fn $f32sv(a: f32, b: &[f32], dst: &mut [f32]) {
                driver::binary::<f32, kernels::$variant, f32, &[f32]>(a, b, dst)
            }
            #[doc = concat!("`dst[i] = ", $name, "(a[i], b[i])` (f64). Panics if the lengths differ.")]
            pub fn $f64(a: &[f64], b: &[f64], dst: &mut [f64]) {
                driver::binary::<f64, kernels::$variant, &[f64], &[f64]>(a, b, dst)
            }
            #[doc = concat!("`dst[i] = ", $name, "(a[i], b)` (f64). Panics if the lengths differ.")]
            pub fn $f64vs(a: &[f64], b: f64, dst: &mut [f64]) {
                driver::binary::<f64, kernels::$variant, &[f64], f64>(a, b, dst)
            }
            #[doc = concat!("`dst[i] = ", $name, "(a, b[i])` (f64). Panics if the lengths differ.")]
            pub fn $f64sv(a: f64, b: &[f64], dst: &mut [f64]) {
                driver::binary::<f64, kernels::$variant, f64, &[f64]>(a, b, dst)
            }
        )*

        /// `dst[i] = f(a[i], b[i])` (f32).
        pub fn binary_f32(f: BinaryFn, a: &[f32], b: &[f32], dst: &mut [f32]) {
            match f { $(BinaryFn::$variant => $f32(a, b, dst),)* }
        }
        /// `dst[i] = f(a[i], b)` (f32).
        pub fn binary_f32_vs(f: BinaryFn, a: &[f32], b: f32, dst: &mut [f32]) {
            match f { $(BinaryFn::$variant => $f32vs(a, b, dst),)* }
        }
        /// `dst[i] = f(a, b[i])` (f32).
        pub fn binary_f32_sv(f: BinaryFn, a: f32, b: &[f32], dst: &mut [f32]) {
            match f { $(BinaryFn::$variant => $f32sv(a, b, dst),)* }
        }
        /// `dst[i] = f(a[i], b[i])` (f64).
        pub fn binary_f64(f: BinaryFn, a: &[f64], b: &[f64], dst: &mut [f64]) {
            match f { $(BinaryFn::$variant => $f64(a, b, dst),)* }
        }
        /// `dst[i] = f(a[i], b)` (f64).
        pub fn binary_f64_vs(f: BinaryFn, a: &[f64], b: f64, dst: &mut [f64]) {
            match f { $(BinaryFn::$variant => $f64vs(a, b, dst),)* }
        }
        /// `dst[i] = f(a, b[i])` (f64).
        pub fn binary_f64_sv(f: BinaryFn, a: f64, b: &[f64], dst: &mut [f64]) {
            match f { $(BinaryFn::$variant => $f64sv(a, b, dst),)* }
        }

        /// Test hook: the baseline (no FMA / SSE4.1) code path.
        #[cfg(test)]
        pub(crate) fn binary_f32_nofma(f: BinaryFn, a: &[f32], b: &[f32], dst: &mut [f32]) {
            match f { $(BinaryFn::$variant => driver::binary_core::<f32, kernels::$variant, real::NoFma, &[f32], &[f32]>(a, b, dst),)* }
        }
        #[cfg(test)]
        pub(crate) fn binary_f64_nofma(f: BinaryFn, a: &[f64], b: &[f64], dst: &mut [f64]) {
            match f { $(BinaryFn::$variant => driver::binary_core::<f64, kernels::$variant, real::NoFma, &[f64], &[f64]>(a, b, dst),)* }
        }

        #[cfg(test)]
        #[target_feature(enable = "avx2,fma")]
        pub(crate) fn binary_f32_avx2(f: BinaryFn, a: &[f32], b: &[f32], dst: &mut [f32]) {
            match f { $(BinaryFn::$variant => driver::binary_core::<f32, kernels::$variant, real::Fma, &[f32], &[f32]>(a, b, dst),)* }
        }

        #[cfg(test)]
        #[target_feature(enable = "avx2,fma")]
        pub(crate) fn binary_f64_avx2(f: BinaryFn, a: &[f64], b: &[f64], dst: &mut [f64]) {
            match f { $(BinaryFn::$variant => driver::binary_core::<f64, kernels::$variant, real::Fma, &[f64], &[f64]>(a, b, dst),)* }
        }
    };
}

binary_fns! {
    Pow, "pow" => power::pow, [pow_f32, pow_f32_vs, pow_f32_sv], [pow_f64, pow_f64_vs, pow_f64_sv];
    Atan2, "atan2" => inv_trig::atan2, [atan2_f32, atan2_f32_vs, atan2_f32_sv], [atan2_f64, atan2_f64_vs, atan2_f64_sv];
    Hypot, "hypot" => power::hypot, [hypot_f32, hypot_f32_vs, hypot_f32_sv], [hypot_f64, hypot_f64_vs, hypot_f64_sv];
}
