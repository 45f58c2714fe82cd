//! The reference: each op written out element by element, straight from its documented
//! meaning, with no code shared with the library.
#![allow(dead_code)]

use super::*;

// glibc's, which are accurate to about an ulp (Rust's own asinh/acosh/atanh are not).
unsafe extern "C" {
    pub safe fn erf(x: f64) -> f64;
    pub safe fn erfc(x: f64) -> f64;
    pub safe fn tgamma(x: f64) -> f64;
    fn lgamma_r(x: f64, sign: *mut i32) -> f64;
    fn asinh(x: f64) -> f64;
    fn acosh(x: f64) -> f64;
    fn atanh(x: f64) -> f64;
}

/// Ops whose results are exact (compared bit for bit); the rest get an ulp bound.
pub fn unary_exact(op: sl_unary_op) -> bool {
    matches!(
        op,
        SL_NEG
            | SL_ABS
            | SL_SIGN
            | SL_SQRT
            | SL_RSQRT
            | SL_RCP
            | SL_FLOOR
            | SL_CEIL
            | SL_ROUND
            | SL_TRUNC
            | SL_ISNAN
            | SL_ISINF
            | SL_NOT
    )
}

/// Which element types a unary op accepts.
pub fn unary_accepts(op: sl_unary_op, dt: sl_dtype) -> bool {
    match op {
        SL_ISNAN | SL_ISINF => true,
        SL_NOT => !matches!(dt, SL_F32 | SL_F64),
        SL_NEG | SL_ABS | SL_SIGN | SL_FLOOR | SL_CEIL | SL_ROUND | SL_TRUNC => dt != SL_BOOL,
        _ => matches!(dt, SL_F32 | SL_F64),
    }
}

/// A representative input range for a unary op.
pub fn unary_domain(op: sl_unary_op) -> (f64, f64) {
    match op {
        SL_ASIN | SL_ACOS | SL_ATANH => (-1.0, 1.0),
        SL_ACOSH => (1.0, 100.0),
        SL_LOG | SL_LOG2 | SL_LOG10 | SL_SQRT | SL_RSQRT => (0.0, 1000.0),
        SL_LOG1P => (-0.99, 100.0),
        SL_EXP | SL_EXP2 | SL_EXPM1 | SL_SINH | SL_COSH => (-60.0, 60.0),
        SL_SIN | SL_COS | SL_TAN => (-100.0, 100.0),
        SL_ERFC => (-5.0, 25.0),
        SL_ERFINV => (-1.0, 1.0),
        // Negative arguments (near lgamma's zeros there its error is absolute): tests/math.rs.
        SL_LGAMMA => (0.0, 60.0),
        SL_TGAMMA => (-20.0, 30.0),
        _ => (-100.0, 100.0),
    }
}

fn float_fn(op: sl_unary_op) -> fn(f64) -> f64 {
    match op {
        SL_CBRT => f64::cbrt,
        SL_EXP => f64::exp,
        SL_EXP2 => f64::exp2,
        SL_EXPM1 => f64::exp_m1,
        SL_LOG => f64::ln,
        SL_LOG2 => f64::log2,
        SL_LOG10 => f64::log10,
        SL_LOG1P => f64::ln_1p,
        SL_SIN => f64::sin,
        SL_COS => f64::cos,
        SL_TAN => f64::tan,
        SL_ASIN => f64::asin,
        SL_ACOS => f64::acos,
        SL_ATAN => f64::atan,
        SL_SINH => f64::sinh,
        SL_COSH => f64::cosh,
        SL_TANH => f64::tanh,
        SL_ASINH => |x| unsafe { asinh(x) },
        SL_ACOSH => |x| unsafe { acosh(x) },
        SL_ATANH => |x| unsafe { atanh(x) },
        SL_ERF => |x| erf(x),
        SL_ERFC => |x| erfc(x),
        SL_ERFINV => erfinv,
        SL_LGAMMA => |x| unsafe { lgamma_r(x, &mut 0) },
        SL_TGAMMA => |x| tgamma(x),
        _ => unreachable!("not a transcendental op"),
    }
}

/// The inverse error function (the C library has none): bisection to where erfc (for
/// |x| >= 1/2, whose 1 - |x| is exact) or erf crosses, then a Newton step.
pub fn erfinv(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() || a > 1.0 {
        return f64::NAN;
    }
    if a == 0.0 || a == 1.0 {
        return if a == 0.0 { x } else { f64::INFINITY.copysign(x) };
    }
    let g = |y: f64| if a >= 0.5 { erfc(y) - (1.0 - a) } else { a - erf(y) };
    let (mut lo, mut hi) = (0.0f64, 6.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    let y = 0.5 * (lo + hi);
    (y + g(y) / (2.0 / std::f64::consts::PI.sqrt() * (-y * y).exp())).copysign(x)
}

pub fn unary(op: sl_unary_op, x: V) -> V {
    macro_rules! exact_float {
        ($x:expr, $w:path, $one:expr) => {{
            let x = $x;
            match op {
                SL_NEG => $w(-x),
                SL_ABS => $w(x.abs()),
                SL_SIGN => $w(if x > 0.0 {
                    $one
                } else if x < 0.0 {
                    -$one
                } else {
                    x
                }),
                SL_SQRT => $w(x.sqrt()),
                SL_RSQRT => $w($one / x.sqrt()),
                SL_RCP => $w($one / x),
                SL_FLOOR => $w(x.floor()),
                SL_CEIL => $w(x.ceil()),
                SL_ROUND => $w(x.round()),
                SL_TRUNC => $w(x.trunc()),
                SL_ISNAN => V::B(x.is_nan()),
                SL_ISINF => V::B(x.is_infinite()),
                _ => return None,
            }
        }};
    }
    let exact = (|| {
        Some(match x {
            V::F32(v) => exact_float!(v, V::F32, 1.0f32),
            V::F64(v) => exact_float!(v, V::F64, 1.0f64),
            _ => return None,
        })
    })();
    if let Some(r) = exact {
        return r;
    }
    match x {
        V::F32(v) => V::F32(float_fn(op)(v as f64) as f32),
        V::F64(v) => V::F64(float_fn(op)(v)),
        V::I32(v) => int_unary(op, v as i64, |r| V::I32(r as i32)),
        V::I64(v) => int_unary(op, v, V::I64),
        V::U8(v) => match op {
            SL_SIGN => V::U8((v > 0) as u8),
            SL_NEG => V::U8(v.wrapping_neg()),
            SL_ABS => V::U8(v),
            _ => int_unary(op, v as i64, |r| V::U8(r as u8)),
        },
        V::B(v) => match op {
            SL_NOT => V::B(!v),
            SL_ISNAN | SL_ISINF => V::B(false),
            _ => unreachable!(),
        },
    }
}

fn int_unary(op: sl_unary_op, v: i64, wrap: impl Fn(i64) -> V) -> V {
    match op {
        SL_NEG => wrap(v.wrapping_neg()),
        SL_ABS => wrap(v.wrapping_abs()),
        SL_SIGN => wrap(v.signum()),
        SL_NOT => wrap(!v),
        SL_FLOOR | SL_CEIL | SL_ROUND | SL_TRUNC => wrap(v),
        SL_ISNAN | SL_ISINF => V::B(false),
        _ => unreachable!(),
    }
}

pub fn binary_accepts(op: sl_binary_op, dt: sl_dtype) -> bool {
    match op {
        SL_EQ | SL_NE | SL_LT | SL_LE | SL_GT | SL_GE => true,
        SL_AND | SL_OR | SL_XOR => !matches!(dt, SL_F32 | SL_F64),
        SL_ATAN2 | SL_HYPOT | SL_COPYSIGN | SL_NEXTAFTER => matches!(dt, SL_F32 | SL_F64),
        SL_SHL | SL_SHR => matches!(dt, SL_I32 | SL_I64 | SL_U8),
        _ => dt != SL_BOOL,
    }
}

pub fn binary_exact(op: sl_binary_op) -> bool {
    !matches!(op, SL_POW | SL_ATAN2 | SL_HYPOT)
}

/// `b^e` with wrapping; the tests keep exponents below 200, so the loop is exact.
fn int_pow(b: i64, e: i64) -> i64 {
    if e < 0 {
        return match b {
            1 => 1,
            -1 => {
                if e % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        };
    }
    (0..e).fold(1i64, |r, _| r.wrapping_mul(b))
}

pub fn binary(op: sl_binary_op, a: V, b: V) -> V {
    macro_rules! float {
        ($x:expr, $y:expr, $w:path, $t:ty) => {{
            let (x, y): ($t, $t) = ($x, $y);
            let nan = x.is_nan() || y.is_nan();
            match op {
                SL_ADD => $w(x + y),
                SL_SUB => $w(x - y),
                SL_MUL => $w(x * y),
                SL_DIV => $w(x / y),
                SL_REM => $w(x % y),
                SL_POW => $w((x as f64).powf(y as f64) as $t),
                SL_ATAN2 => $w((x as f64).atan2(y as f64) as $t),
                SL_HYPOT => $w((x as f64).hypot(y as f64) as $t),
                SL_COPYSIGN => $w(if y.is_sign_negative() { -x.abs() } else { x.abs() }),
                SL_NEXTAFTER => $w(if nan {
                    <$t>::NAN
                } else if x == y {
                    y
                } else if x == 0.0 {
                    <$t>::from_bits(1).copysign(y)
                } else if (y > x) == (x > 0.0) {
                    <$t>::from_bits(x.to_bits() + 1)
                } else {
                    <$t>::from_bits(x.to_bits() - 1)
                }),
                SL_MIN => $w(if nan {
                    <$t>::NAN
                } else if x < y {
                    x
                } else {
                    y
                }),
                SL_MAX => $w(if nan {
                    <$t>::NAN
                } else if x > y {
                    x
                } else {
                    y
                }),
                SL_EQ => V::B(x == y),
                SL_NE => V::B(x != y),
                SL_LT => V::B(x < y),
                SL_LE => V::B(x <= y),
                SL_GT => V::B(x > y),
                SL_GE => V::B(x >= y),
                _ => unreachable!(),
            }
        }};
    }
    macro_rules! int {
        ($x:expr, $y:expr, $w:path, $t:ty) => {{
            let (x, y): ($t, $t) = ($x, $y);
            match op {
                SL_ADD => $w(x.wrapping_add(y)),
                SL_SUB => $w(x.wrapping_sub(y)),
                SL_MUL => $w(x.wrapping_mul(y)),
                SL_DIV => $w(if y == 0 { 0 } else { x.wrapping_div(y) }),
                SL_REM => $w(if y == 0 { 0 } else { x.wrapping_rem(y) }),
                SL_POW => $w(int_pow(x as i64, y as i64) as $t),
                SL_MIN => $w(x.min(y)),
                SL_MAX => $w(x.max(y)),
                SL_AND => $w(x & y),
                SL_OR => $w(x | y),
                SL_XOR => $w(x ^ y),
                // Counts outside 0..bits shift every bit out.
                SL_SHL => $w(u32::try_from(y).ok().and_then(|c| x.checked_shl(c)).unwrap_or(0)),
                SL_SHR => $w(u32::try_from(y).ok().and_then(|c| x.checked_shr(c)).unwrap_or(if (x as i64) < 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                })),
                SL_EQ => V::B(x == y),
                SL_NE => V::B(x != y),
                SL_LT => V::B(x < y),
                SL_LE => V::B(x <= y),
                SL_GT => V::B(x > y),
                SL_GE => V::B(x >= y),
                _ => unreachable!(),
            }
        }};
    }
    match (a, b) {
        (V::F32(x), V::F32(y)) => float!(x, y, V::F32, f32),
        (V::F64(x), V::F64(y)) => float!(x, y, V::F64, f64),
        (V::I32(x), V::I32(y)) => int!(x, y, V::I32, i32),
        (V::I64(x), V::I64(y)) => int!(x, y, V::I64, i64),
        (V::U8(x), V::U8(y)) => int!(x, y, V::U8, u8),
        (V::B(x), V::B(y)) => match op {
            SL_AND => V::B(x & y),
            SL_OR => V::B(x | y),
            SL_XOR => V::B(x ^ y),
            SL_EQ => V::B(x == y),
            SL_NE => V::B(x != y),
            SL_LT => V::B(!x & y),
            SL_LE => V::B(x <= y),
            SL_GT => V::B(x & !y),
            SL_GE => V::B(x >= y),
            _ => unreachable!(),
        },
        _ => panic!("mixed operand types"),
    }
}

/// Broadcast shape (ranks aligned at the first dimension).
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let r = a.len().max(b.len());
    (0..r)
        .map(|d| {
            let (x, y) = (*a.get(d).unwrap_or(&1), *b.get(d).unwrap_or(&1));
            if x == 1 { y } else { x }
        })
        .collect()
}

/// Element of `a` at out index `idx` under broadcasting.
pub fn bcast_at(a: &Arr, idx: &[usize]) -> V {
    let i: Vec<usize> = (0..a.shape.len()).map(|d| if a.shape[d] == 1 { 0 } else { idx[d] }).collect();
    a.at(&i)
}

pub fn map1(a: &Arr, f: impl Fn(V) -> V) -> Arr {
    let v: Vec<V> = a.v.iter().map(|&x| f(x)).collect();
    let dt = v.first().map_or(a.dt, |x| x.dtype());
    Arr { dt, shape: a.shape.clone(), v }
}

pub fn map2(a: &Arr, b: &Arr, f: impl Fn(V, V) -> V) -> Arr {
    let shape = broadcast_shape(&a.shape, &b.shape);
    let v: Vec<V> = (0..numel(&shape))
        .map(|i| {
            let idx = unravel(&shape, i);
            f(bcast_at(a, &idx), bcast_at(b, &idx))
        })
        .collect();
    let dt = v.first().map_or(a.dt, |x| x.dtype());
    Arr { dt, shape, v }
}

pub fn unary_result_dtype(op: sl_unary_op, dt: sl_dtype) -> sl_dtype {
    if matches!(op, SL_ISNAN | SL_ISINF) { SL_BOOL } else { dt }
}

pub fn binary_result_dtype(op: sl_binary_op, dt: sl_dtype) -> sl_dtype {
    if matches!(op, SL_EQ | SL_NE | SL_LT | SL_LE | SL_GT | SL_GE) { SL_BOOL } else { dt }
}

/// Reduction along `axis` (kept, size 1) or over everything (rank 0). Float sums,
/// products and means accumulate in f64.
pub fn reduce(op: sl_reduce_op, a: &Arr, axis: Option<usize>) -> Arr {
    let out_dt = match op {
        SL_SUM | SL_PROD => {
            if matches!(a.dt, SL_F32 | SL_F64) {
                a.dt
            } else {
                SL_I64
            }
        }
        SL_MINVAL | SL_MAXVAL => a.dt,
        SL_MEAN => {
            if a.dt == SL_F32 {
                SL_F32
            } else {
                SL_F64
            }
        }
        SL_ANY | SL_ALL => SL_BOOL,
        _ => SL_I64,
    };
    let out_shape: Vec<usize> = match axis {
        None => vec![],
        Some(k) => a.shape.iter().enumerate().map(|(d, &n)| if d == k { 1 } else { n }).collect(),
    };
    let groups: Vec<Vec<(usize, V)>> = (0..numel(&out_shape))
        .map(|o| {
            let oidx = unravel(&out_shape, o);
            match axis {
                None => a.v.iter().copied().enumerate().collect(),
                Some(k) => (0..a.shape[k])
                    .map(|j| {
                        let mut idx = oidx.clone();
                        idx[k] = j;
                        (j, a.at(&idx))
                    })
                    .collect(),
            }
        })
        .collect();
    let v = groups.iter().map(|g| fold(op, a.dt, out_dt, g)).collect();
    Arr { dt: out_dt, shape: out_shape, v }
}

fn fold(op: sl_reduce_op, dt: sl_dtype, out_dt: sl_dtype, g: &[(usize, V)]) -> V {
    let float = matches!(dt, SL_F32 | SL_F64);
    let as_out = |x: f64| if out_dt == SL_F32 { V::F32(x as f32) } else { V::F64(x) };
    let ival = |v: V| match v {
        V::I32(x) => x as i64,
        V::I64(x) => x,
        V::U8(x) => x as i64,
        V::B(x) => x as i64,
        _ => unreachable!(),
    };
    let nonzero = |v: V| v.f() != 0.0 || v.f().is_nan();
    match op {
        SL_SUM if float => as_out(g.iter().map(|(_, v)| v.f()).sum()),
        SL_SUM => V::I64(g.iter().fold(0i64, |a, (_, v)| a.wrapping_add(ival(*v)))),
        SL_PROD if float => as_out(g.iter().map(|(_, v)| v.f()).product()),
        SL_PROD => V::I64(g.iter().fold(1i64, |a, (_, v)| a.wrapping_mul(ival(*v)))),
        SL_MEAN => {
            let s: f64 = g.iter().map(|(_, v)| v.f()).sum();
            as_out(s / g.len() as f64)
        }
        SL_ANY => V::B(g.iter().any(|(_, v)| nonzero(*v))),
        SL_ALL => V::B(g.iter().all(|(_, v)| nonzero(*v))),
        SL_COUNT => V::I64(g.iter().filter(|(_, v)| nonzero(*v)).count() as i64),
        SL_MINVAL | SL_MAXVAL => {
            if let Some((_, n)) = g.iter().find(|(_, v)| v.f().is_nan()) {
                return *n;
            }
            let pick = |a: V, b: V| {
                let better = if op == SL_MINVAL { b.f() < a.f() } else { b.f() > a.f() };
                // compare integers exactly (i64 beyond 2^53 would lose precision as f64)
                let better = match (a, b) {
                    (V::I64(x), V::I64(y)) => {
                        if op == SL_MINVAL {
                            y < x
                        } else {
                            y > x
                        }
                    }
                    _ => better,
                };
                if better { b } else { a }
            };
            let ident = match (dt, op) {
                (SL_F32, SL_MINVAL) => V::F32(f32::INFINITY),
                (SL_F32, _) => V::F32(f32::NEG_INFINITY),
                (SL_F64, SL_MINVAL) => V::F64(f64::INFINITY),
                (SL_F64, _) => V::F64(f64::NEG_INFINITY),
                (SL_I32, SL_MINVAL) => V::I32(i32::MAX),
                (SL_I32, _) => V::I32(i32::MIN),
                (SL_I64, SL_MINVAL) => V::I64(i64::MAX),
                (SL_I64, _) => V::I64(i64::MIN),
                (SL_U8, SL_MINVAL) => V::U8(u8::MAX),
                (SL_U8, _) => V::U8(0),
                (_, SL_MINVAL) => V::B(true),
                _ => V::B(false),
            };
            g.iter().fold(ident, |a, (_, v)| pick(a, *v))
        }
        SL_ARGMIN | SL_ARGMAX => {
            let mut best: Option<(usize, V)> = None;
            for &(i, v) in g {
                if v.f().is_nan() {
                    return V::I64(i as i64);
                }
                let take = match best {
                    None => true,
                    Some((_, b)) => match (b, v) {
                        (V::I64(x), V::I64(y)) => {
                            if op == SL_ARGMIN {
                                y < x
                            } else {
                                y > x
                            }
                        }
                        _ => {
                            if op == SL_ARGMIN {
                                v.f() < b.f()
                            } else {
                                v.f() > b.f()
                            }
                        }
                    },
                };
                if take {
                    best = Some((i, v));
                }
            }
            V::I64(best.map_or(-1, |(i, _)| i as i64))
        }
        _ => unreachable!(),
    }
}

/// Inclusive scan along `axis`; floats carry in f64, integers in i64.
pub fn scan(prod: bool, a: &Arr, axis: usize) -> Arr {
    let float = matches!(a.dt, SL_F32 | SL_F64);
    let out_dt = if float { a.dt } else { SL_I64 };
    let mut out = vec![V::I64(0); a.v.len()];
    let n = a.shape[axis];
    for o in 0..a.v.len() {
        let idx = unravel(&a.shape, o);
        if idx[axis] != 0 {
            continue;
        }
        let (mut cf, mut ci) = (if prod { 1.0 } else { 0.0 }, if prod { 1i64 } else { 0 });
        for j in 0..n {
            let mut k = idx.clone();
            k[axis] = j;
            let l = ravel(&a.shape, &k);
            let x = a.v[l];
            out[l] = if float {
                cf = if prod { cf * x.f() } else { cf + x.f() };
                if a.dt == SL_F32 { V::F32(cf as f32) } else { V::F64(cf) }
            } else {
                let xi = x.cast(SL_I64);
                let V::I64(xi) = xi else { unreachable!() };
                ci = if prod { ci.wrapping_mul(xi) } else { ci.wrapping_add(xi) };
                V::I64(ci)
            };
        }
    }
    Arr { dt: out_dt, shape: a.shape.clone(), v: out }
}

/// A view defined by a function from out index to source index (None: fill).
pub fn remap(a: &Arr, out_shape: &[usize], f: impl Fn(&[usize]) -> Option<Vec<usize>>, fill: V) -> Arr {
    let v = (0..numel(out_shape))
        .map(|i| match f(&unravel(out_shape, i)) {
            Some(src) => a.at(&src),
            None => fill,
        })
        .collect();
    Arr { dt: a.dt, shape: out_shape.to_vec(), v }
}

pub fn matmul(a: &Arr, b: &Arr) -> Arr {
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    let mut v = Vec::with_capacity(m * n);
    for j in 0..n {
        for i in 0..m {
            let s: f64 = (0..k).map(|p| a.at(&[i, p]).f() * b.at(&[p, j]).f()).sum();
            v.push(if a.dt == SL_F32 { V::F32(s as f32) } else { V::F64(s) });
        }
    }
    Arr { dt: a.dt, shape: vec![m, n], v }
}
