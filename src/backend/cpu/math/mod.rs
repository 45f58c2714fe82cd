//! PLACEHOLDER until the vectorised math library lands: same API, std per element.

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum UnaryFn {
    Cbrt, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh,
    Tanh, Asinh, Acosh, Atanh, Erf, Floor, Ceil, Round, Trunc,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum BinaryFn {
    Pow,
    Atan2,
    Hypot,
}

macro_rules! unary_impl {
    ($name:ident, $t:ty) => {
        pub fn $name(f: UnaryFn, src: &[$t], dst: &mut [$t]) {
            use UnaryFn::*;
            let g: fn($t) -> $t = match f {
                Cbrt => <$t>::cbrt, Exp => <$t>::exp, Exp2 => <$t>::exp2, Expm1 => <$t>::exp_m1,
                Log => <$t>::ln, Log2 => <$t>::log2, Log10 => <$t>::log10, Log1p => <$t>::ln_1p,
                Sin => <$t>::sin, Cos => <$t>::cos, Tan => <$t>::tan, Asin => <$t>::asin,
                Acos => <$t>::acos, Atan => <$t>::atan, Sinh => <$t>::sinh, Cosh => <$t>::cosh,
                Tanh => <$t>::tanh, Asinh => <$t>::asinh, Acosh => <$t>::acosh, Atanh => <$t>::atanh,
                Erf => |x| libm_erf(x as f64) as $t, Floor => <$t>::floor, Ceil => <$t>::ceil,
                Round => <$t>::round, Trunc => <$t>::trunc,
            };
            for (d, s) in dst.iter_mut().zip(src) {
                *d = g(*s);
            }
        }
    };
}
unary_impl!(unary_f32, f32);
unary_impl!(unary_f64, f64);

fn libm_erf(x: f64) -> f64 {
    unsafe extern "C" {
        fn erf(x: f64) -> f64;
    }
    unsafe { erf(x) }
}

macro_rules! binary_impl {
    ($vv:ident, $vs:ident, $sv:ident, $t:ty) => {
        fn pick(f: BinaryFn) -> fn($t, $t) -> $t {
            match f {
                BinaryFn::Pow => <$t>::powf,
                BinaryFn::Atan2 => <$t>::atan2,
                BinaryFn::Hypot => <$t>::hypot,
            }
        }
        pub fn $vv(f: BinaryFn, a: &[$t], b: &[$t], dst: &mut [$t]) {
            let g = pick(f);
            for i in 0..dst.len() {
                dst[i] = g(a[i], b[i]);
            }
        }
        pub fn $vs(f: BinaryFn, a: &[$t], b: $t, dst: &mut [$t]) {
            let g = pick(f);
            for i in 0..dst.len() {
                dst[i] = g(a[i], b);
            }
        }
        pub fn $sv(f: BinaryFn, a: $t, b: &[$t], dst: &mut [$t]) {
            let g = pick(f);
            for i in 0..dst.len() {
                dst[i] = g(a, b[i]);
            }
        }
    };
}
mod f32_impl {
    use super::BinaryFn;
    binary_impl!(binary_f32, binary_f32_vs, binary_f32_sv, f32);
}
mod f64_impl {
    use super::BinaryFn;
    binary_impl!(binary_f64, binary_f64_vs, binary_f64_sv, f64);
}
pub use f32_impl::*;
pub use f64_impl::*;
