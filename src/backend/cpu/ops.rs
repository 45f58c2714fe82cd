//! Element-wise operations over chunks: the inner loops of the CPU executor. Every entry
//! point is compiled for several instruction sets and picked at run time.

use std::slice;

use multiversion::multiversion;

use super::complex;
use super::elem::{CastTo, Elem, with_elem};
use super::math::{self, BinaryFn, UnaryFn};
use crate::ir::{BinaryOp, DType, UnaryOp};

/// An operand of a chunk operation: `n` elements in memory, or one value for all lanes.
#[derive(Copy, Clone)]
pub enum Opnd {
    Vec(*const u8),
    Scalar(u64),
}

enum Src<'a, T> {
    V(&'a [T]),
    S(T),
}

impl<T: Elem> Src<'_, T> {
    #[inline(always)]
    unsafe fn new(o: Opnd, n: usize) -> Self {
        match o {
            Opnd::Vec(p) => Src::V(unsafe { slice::from_raw_parts(p as *const T, n) }),
            Opnd::Scalar(bits) => Src::S(T::from_u64(bits)),
        }
    }
}

#[inline(always)]
unsafe fn out<'a, R>(dst: *mut u8, n: usize) -> &'a mut [R] {
    unsafe { slice::from_raw_parts_mut(dst as *mut R, n) }
}

#[inline(always)]
unsafe fn map1<T: Elem, R: Elem>(src: *const u8, dst: *mut u8, n: usize, f: impl Fn(T) -> R) {
    let s = unsafe { slice::from_raw_parts(src as *const T, n) };
    let d = unsafe { out::<R>(dst, n) };
    for (o, &x) in d.iter_mut().zip(s) {
        *o = f(x);
    }
}

/// The three operand shapes are separate loops so each vectorises without lane checks.
#[inline(always)]
unsafe fn map2<T: Elem, R: Elem>(a: Opnd, b: Opnd, dst: *mut u8, n: usize, f: impl Fn(T, T) -> R) {
    let d = unsafe { out::<R>(dst, n) };
    match unsafe { (Src::<T>::new(a, n), Src::<T>::new(b, n)) } {
        (Src::V(a), Src::V(b)) => {
            for ((o, &x), &y) in d.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (Src::V(a), Src::S(y)) => {
            for (o, &x) in d.iter_mut().zip(a) {
                *o = f(x, y);
            }
        }
        (Src::S(x), Src::V(b)) => {
            for (o, &y) in d.iter_mut().zip(b) {
                *o = f(x, y);
            }
        }
        (Src::S(x), Src::S(y)) => d.fill(f(x, y)),
    }
}

/// Float behaviour shared by f32 and f64.
pub(super) trait Float:
    Elem
    + std::ops::Neg<Output = Self>
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Rem<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn copysign(self, sign: Self) -> Self;
    /// C `nextafter`: the next value after `self` toward `to`.
    fn next_after(self, to: Self) -> Self;
    fn math_unary(f: UnaryFn, src: &[Self], dst: &mut [Self]);
    fn math_binary(f: BinaryFn, a: Opnd, b: Opnd, dst: &mut [Self]);
}

macro_rules! float_impl {
    ($t:ty, $unary:path, $vv:path, $vs:path, $sv:path) => {
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn copysign(self, sign: Self) -> Self {
                <$t>::copysign(self, sign)
            }
            #[inline(always)]
            fn next_after(self, to: Self) -> Self {
                if self.is_nan() || to.is_nan() {
                    self + to
                } else if self == to {
                    to
                } else if to > self {
                    self.next_up()
                } else {
                    self.next_down()
                }
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            fn math_unary(f: UnaryFn, src: &[Self], dst: &mut [Self]) {
                $unary(f, src, dst)
            }
            fn math_binary(f: BinaryFn, a: Opnd, b: Opnd, dst: &mut [Self]) {
                let n = dst.len();
                // SAFETY: operands hold `n` elements (caller contract of `binary`).
                match unsafe { (Src::<$t>::new(a, n), Src::<$t>::new(b, n)) } {
                    (Src::V(a), Src::V(b)) => $vv(f, a, b, dst),
                    (Src::V(a), Src::S(b)) => $vs(f, a, b, dst),
                    (Src::S(a), Src::V(b)) => $sv(f, a, b, dst),
                    (Src::S(a), Src::S(b)) => {
                        let mut one = [0.0 as $t];
                        $vv(f, &[a], &[b], &mut one);
                        dst.fill(one[0]);
                    }
                }
            }
        }
    };
}
float_impl!(f32, math::unary_f32, math::binary_f32, math::binary_f32_vs, math::binary_f32_sv);
float_impl!(f64, math::unary_f64, math::binary_f64, math::binary_f64_vs, math::binary_f64_sv);

/// Integer behaviour shared by the integer types (wrapping arithmetic; x / 0 = x % 0 = 0).
pub(super) trait Int:
    Elem
    + Ord
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
    + std::ops::Not<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn wadd(self, o: Self) -> Self;
    fn wsub(self, o: Self) -> Self;
    fn wmul(self, o: Self) -> Self;
    fn wdiv(self, o: Self) -> Self;
    fn wrem(self, o: Self) -> Self;
    fn wneg(self) -> Self;
    fn wabs(self) -> Self;
    fn sign(self) -> Self;
    fn is_negative(self) -> bool;
    fn minus_one_or_zero() -> Self;
    /// `self << c`; a count outside `0..bits` shifts every bit out.
    fn shl(self, c: Self) -> Self;
    /// `self >> c`, arithmetic for signed types; a count outside `0..bits` shifts every bit
    /// out (leaving the sign's copies for signed types).
    fn shr(self, c: Self) -> Self;
}

macro_rules! int_impl {
    ($t:ty, $signed:expr) => {
        impl Int for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn wadd(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn wsub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            #[inline(always)]
            fn wmul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            #[inline(always)]
            fn wdiv(self, o: Self) -> Self {
                if o == 0 { 0 } else { self.wrapping_div(o) }
            }
            #[inline(always)]
            fn wrem(self, o: Self) -> Self {
                if o == 0 { 0 } else { self.wrapping_rem(o) }
            }
            #[inline(always)]
            fn wneg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn wabs(self) -> Self {
                if self < 0 { self.wrapping_neg() } else { self }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn sign(self) -> Self {
                if self > 0 {
                    1
                } else if self < 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn is_negative(self) -> bool {
                self < 0
            }
            #[inline(always)]
            fn minus_one_or_zero() -> Self {
                if $signed { (0 as $t).wrapping_sub(1) } else { 0 }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shl(self, c: Self) -> Self {
                if c >= 0 && (c as u64) < <$t>::BITS as u64 { self << c } else { 0 }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shr(self, c: Self) -> Self {
                if c >= 0 && (c as u64) < <$t>::BITS as u64 {
                    self >> c
                } else if self < 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
        }
    };
}
int_impl!(i32, true);
int_impl!(i64, true);
int_impl!(u8, false);
int_impl!(i8, true);
int_impl!(i16, true);
int_impl!(u16, false);
int_impl!(u32, false);
int_impl!(u64, false);

/// Integer power by squaring, wrapping; a negative exponent gives 0 except for bases 1 and -1.
#[inline(always)]
fn int_pow<T: Int>(base: T, exp: T) -> T {
    if exp.is_negative() {
        return if base == T::ONE {
            T::ONE
        } else if base == T::minus_one_or_zero() && T::minus_one_or_zero() != T::ZERO {
            // (-1)^e: odd exponents keep the sign.
            if exp & T::ONE == T::ONE { base } else { T::ONE }
        } else {
            T::ZERO
        };
    }
    let mut result = T::ONE;
    let mut b = base;
    let mut e = exp.to_u64();
    while e != 0 {
        if e & 1 == 1 {
            result = result.wmul(b);
        }
        b = b.wmul(b);
        e >>= 1;
    }
    result
}

fn math_fn(op: UnaryOp) -> Option<UnaryFn> {
    use UnaryOp as U;
    Some(match op {
        U::Cbrt => UnaryFn::Cbrt,
        U::Exp => UnaryFn::Exp,
        U::Exp2 => UnaryFn::Exp2,
        U::Expm1 => UnaryFn::Expm1,
        U::Log => UnaryFn::Log,
        U::Log2 => UnaryFn::Log2,
        U::Log10 => UnaryFn::Log10,
        U::Log1p => UnaryFn::Log1p,
        U::Sin => UnaryFn::Sin,
        U::Cos => UnaryFn::Cos,
        U::Tan => UnaryFn::Tan,
        U::Asin => UnaryFn::Asin,
        U::Acos => UnaryFn::Acos,
        U::Atan => UnaryFn::Atan,
        U::Sinh => UnaryFn::Sinh,
        U::Cosh => UnaryFn::Cosh,
        U::Tanh => UnaryFn::Tanh,
        U::Asinh => UnaryFn::Asinh,
        U::Acosh => UnaryFn::Acosh,
        U::Atanh => UnaryFn::Atanh,
        U::Erf => UnaryFn::Erf,
        U::Erfc => UnaryFn::Erfc,
        U::Erfinv => UnaryFn::Erfinv,
        U::Lgamma => UnaryFn::Lgamma,
        U::Tgamma => UnaryFn::Tgamma,
        U::Floor => UnaryFn::Floor,
        U::Ceil => UnaryFn::Ceil,
        U::Round => UnaryFn::Round,
        U::Trunc => UnaryFn::Trunc,
        _ => return None,
    })
}

#[inline(always)]
unsafe fn unary_float<T: Float>(op: UnaryOp, src: *const u8, dst: *mut u8, n: usize) {
    use UnaryOp as U;
    unsafe {
        match op {
            U::Neg => map1(src, dst, n, |x: T| -x),
            U::Abs => map1(src, dst, n, |x: T| x.abs()),
            U::Sign => map1(src, dst, n, |x: T| {
                if x > T::ZERO {
                    T::ONE
                } else if x < T::ZERO {
                    -T::ONE
                } else {
                    x
                }
            }),
            U::Sqrt => map1(src, dst, n, |x: T| x.sqrt()),
            U::Rsqrt => map1(src, dst, n, |x: T| T::ONE / x.sqrt()),
            U::Rcp => map1(src, dst, n, |x: T| T::ONE / x),
            U::IsNan => map1(src, dst, n, |x: T| x.is_nan() as u8),
            U::IsInf => map1(src, dst, n, |x: T| x.is_infinite() as u8),
            U::Not => unreachable!("not on a float"),
            _ => {
                let f = math_fn(op).expect("math function");
                T::math_unary(f, slice::from_raw_parts(src as *const T, n), out(dst, n))
            }
        }
    }
}

#[inline(always)]
unsafe fn unary_int<T: Int>(op: UnaryOp, src: *const u8, dst: *mut u8, n: usize) {
    use UnaryOp as U;
    unsafe {
        match op {
            U::Neg => map1(src, dst, n, |x: T| x.wneg()),
            U::Abs => map1(src, dst, n, |x: T| x.wabs()),
            U::Sign => map1(src, dst, n, |x: T| x.sign()),
            U::Not => map1(src, dst, n, |x: T| !x),
            U::Floor | U::Ceil | U::Round | U::Trunc => map1(src, dst, n, |x: T| x),
            U::IsNan | U::IsInf => map1(src, dst, n, |_: T| 0u8),
            _ => unreachable!("{} on an integer", op.name()),
        }
    }
}

/// `dst[i] = op(src[i])` for `n` elements of type `dtype` (the input type).
///
/// # Safety
/// `src` and `dst` hold `n` elements of their types and do not overlap.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
pub unsafe fn unary(op: UnaryOp, dtype: DType, src: *const u8, dst: *mut u8, n: usize) {
    unsafe {
        match dtype {
            DType::F32 => unary_float::<f32>(op, src, dst, n),
            DType::F64 => unary_float::<f64>(op, src, dst, n),
            DType::I32 => unary_int::<i32>(op, src, dst, n),
            DType::I64 => unary_int::<i64>(op, src, dst, n),
            DType::U8 => unary_int::<u8>(op, src, dst, n),
            DType::I8 => unary_int::<i8>(op, src, dst, n),
            DType::I16 => unary_int::<i16>(op, src, dst, n),
            DType::U16 => unary_int::<u16>(op, src, dst, n),
            DType::U32 => unary_int::<u32>(op, src, dst, n),
            DType::U64 => unary_int::<u64>(op, src, dst, n),
            DType::Bool => match op {
                UnaryOp::Not => map1(src, dst, n, |x: u8| x ^ 1),
                UnaryOp::IsNan | UnaryOp::IsInf => map1(src, dst, n, |_: u8| 0u8),
                _ => unreachable!("{} on bool", op.name()),
            },
            DType::C64 | DType::C128 => complex::part(op, dtype, src, dst, n),
            DType::F16 | DType::BF16 => unreachable!("{dtype} values are computed in f32"),
        }
    }
}

#[inline(always)]
pub(super) fn fmin<T: Float>(x: T, y: T) -> T {
    let m = if x < y { x } else { y };
    if x.is_nan() || y.is_nan() { x + y } else { m }
}

#[inline(always)]
pub(super) fn fmax<T: Float>(x: T, y: T) -> T {
    let m = if x > y { x } else { y };
    if x.is_nan() || y.is_nan() { x + y } else { m }
}

#[inline(always)]
unsafe fn compare<T: Elem>(op: BinaryOp, a: Opnd, b: Opnd, dst: *mut u8, n: usize) {
    use BinaryOp as B;
    unsafe {
        match op {
            B::Eq => map2(a, b, dst, n, |x: T, y: T| (x == y) as u8),
            B::Ne => map2(a, b, dst, n, |x: T, y: T| (x != y) as u8),
            B::Lt => map2(a, b, dst, n, |x: T, y: T| (x < y) as u8),
            B::Le => map2(a, b, dst, n, |x: T, y: T| (x <= y) as u8),
            B::Gt => map2(a, b, dst, n, |x: T, y: T| (x > y) as u8),
            B::Ge => map2(a, b, dst, n, |x: T, y: T| (x >= y) as u8),
            _ => unreachable!(),
        }
    }
}

#[inline(always)]
unsafe fn binary_float<T: Float>(op: BinaryOp, a: Opnd, b: Opnd, dst: *mut u8, n: usize) {
    use BinaryOp as B;
    unsafe {
        match op {
            B::Add => map2(a, b, dst, n, |x: T, y: T| x + y),
            B::Sub => map2(a, b, dst, n, |x: T, y: T| x - y),
            B::Mul => map2(a, b, dst, n, |x: T, y: T| x * y),
            B::Div => map2(a, b, dst, n, |x: T, y: T| x / y),
            B::Rem => map2(a, b, dst, n, |x: T, y: T| x % y),
            B::Min => map2(a, b, dst, n, fmin::<T>),
            B::Max => map2(a, b, dst, n, fmax::<T>),
            B::Pow => T::math_binary(BinaryFn::Pow, a, b, out(dst, n)),
            B::Atan2 => T::math_binary(BinaryFn::Atan2, a, b, out(dst, n)),
            B::Hypot => T::math_binary(BinaryFn::Hypot, a, b, out(dst, n)),
            B::Complex => complex::join::<T>(a, b, dst, n),
            B::CopySign => map2(a, b, dst, n, T::copysign),
            B::NextAfter => map2(a, b, dst, n, T::next_after),
            B::And | B::Or | B::Xor | B::Shl | B::Shr => unreachable!("bitwise op on a float"),
            _ => compare::<T>(op, a, b, dst, n),
        }
    }
}

#[inline(always)]
unsafe fn binary_int<T: Int>(op: BinaryOp, a: Opnd, b: Opnd, dst: *mut u8, n: usize) {
    use BinaryOp as B;
    unsafe {
        match op {
            B::Add => map2(a, b, dst, n, |x: T, y: T| x.wadd(y)),
            B::Sub => map2(a, b, dst, n, |x: T, y: T| x.wsub(y)),
            B::Mul => map2(a, b, dst, n, |x: T, y: T| x.wmul(y)),
            B::Div => map2(a, b, dst, n, |x: T, y: T| x.wdiv(y)),
            B::Rem => map2(a, b, dst, n, |x: T, y: T| x.wrem(y)),
            B::Pow => map2(a, b, dst, n, int_pow::<T>),
            B::Min => map2(a, b, dst, n, |x: T, y: T| x.min(y)),
            B::Max => map2(a, b, dst, n, |x: T, y: T| x.max(y)),
            B::And => map2(a, b, dst, n, |x: T, y: T| x & y),
            B::Or => map2(a, b, dst, n, |x: T, y: T| x | y),
            B::Xor => map2(a, b, dst, n, |x: T, y: T| x ^ y),
            B::Shl => map2(a, b, dst, n, T::shl),
            B::Shr => map2(a, b, dst, n, T::shr),
            B::Atan2 | B::Hypot | B::Complex | B::CopySign | B::NextAfter => {
                unreachable!("{} on integers", op.name())
            }
            _ => compare::<T>(op, a, b, dst, n),
        }
    }
}

/// `dst[i] = op(a[i], b[i])` for operands of type `dtype`.
///
/// # Safety
/// Vector operands and `dst` hold `n` elements; `dst` overlaps no operand.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
pub unsafe fn binary(op: BinaryOp, dtype: DType, a: Opnd, b: Opnd, dst: *mut u8, n: usize) {
    unsafe {
        match dtype {
            DType::F32 => binary_float::<f32>(op, a, b, dst, n),
            DType::F64 => binary_float::<f64>(op, a, b, dst, n),
            DType::I32 => binary_int::<i32>(op, a, b, dst, n),
            DType::I64 => binary_int::<i64>(op, a, b, dst, n),
            // bool values are 0/1, so the u8 bitwise ops and comparisons are the logical ones
            DType::U8 | DType::Bool => binary_int::<u8>(op, a, b, dst, n),
            DType::I8 => binary_int::<i8>(op, a, b, dst, n),
            DType::I16 => binary_int::<i16>(op, a, b, dst, n),
            DType::U16 => binary_int::<u16>(op, a, b, dst, n),
            DType::U32 => binary_int::<u32>(op, a, b, dst, n),
            DType::U64 => binary_int::<u64>(op, a, b, dst, n),
            DType::C64 | DType::C128 => unreachable!("{} of complex values is computed from their parts", op.name()),
            DType::F16 | DType::BF16 => unreachable!("{dtype} values are computed in f32"),
        }
    }
}

/// `dst[i] = cond[i] ? a[i] : b[i]` for values of type `dtype`.
///
/// # Safety
/// As for `binary`; `cond` holds bytes.
/// `((terms[0] + terms[1]) + terms[2]) + ...` lane by lane, in that order (so each lane
/// rounds as the additions one by one would). A tile of lanes stays in registers across
/// all the terms: one store per lane instead of one per addition.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
pub unsafe fn add_chain(dtype: DType, terms: &[Opnd], dst: *mut u8, n: usize) {
    unsafe {
        match dtype {
            DType::F32 => add_terms::<f32>(terms, dst, n),
            DType::F64 => add_terms::<f64>(terms, dst, n),
            _ => unreachable!("chains of additions are of floats"),
        }
    }
}

#[inline(always)]
unsafe fn add_terms<T: Float>(terms: &[Opnd], dst: *mut u8, n: usize) {
    /// Lanes summed at once: four 512-bit registers of f32.
    const TILE: usize = 64;
    let d = unsafe { out::<T>(dst, n) };
    // Every term as a tile's address `base + at * step`: a scalar is a tile of its value
    // read at every `at`, so the loop over terms has one form and the sums stay in
    // registers.
    let splats: smallvec::SmallVec<[[T; TILE]; 4]> = terms
        .iter()
        .filter_map(|&t| match t {
            Opnd::Scalar(bits) => Some([T::from_u64(bits); TILE]),
            Opnd::Vec(_) => None,
        })
        .collect();
    let mut scalars = splats.iter();
    let tiles: smallvec::SmallVec<[(*const T, usize); 32]> = terms
        .iter()
        .map(|&t| match t {
            Opnd::Vec(p) => (p as *const T, 1),
            Opnd::Scalar(_) => (scalars.next().expect("a splat per scalar").as_ptr(), 0),
        })
        .collect();
    let (first, rest) = tiles.split_first().expect("a chain has terms");
    // SAFETY (all reads): vector terms have `n` lanes, splats `TILE`, read at offset 0.
    let tile = |&(base, step): &(*const T, usize), at: usize| unsafe { &*(base.add(at * step) as *const [T; TILE]) };
    let full = n - n % TILE;
    for at in (0..full).step_by(TILE) {
        let mut acc = *tile(first, at);
        for t in rest {
            let v = tile(t, at);
            for j in 0..TILE {
                acc[j] = acc[j] + v[j];
            }
        }
        d[at..at + TILE].copy_from_slice(&acc);
    }
    // SAFETY: as above, lane by lane.
    let lane = |&(base, step): &(*const T, usize), i: usize| unsafe { *base.add(i * step) };
    for (i, o) in d.iter_mut().enumerate().skip(full) {
        *o = rest.iter().fold(lane(first, i), |sum, t| sum + lane(t, i));
    }
}

#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
pub unsafe fn select(dtype: DType, cond: Opnd, a: Opnd, b: Opnd, dst: *mut u8, n: usize) {
    if dtype.is_complex() {
        return unsafe { complex::select(dtype, cond, a, b, dst, n) };
    }
    unsafe {
        with_elem!(dtype, T => {
            let d = out::<T>(dst, n);
            let c = Src::<u8>::new(cond, n);
            let (x, y) = (Src::<T>::new(a, n), Src::<T>::new(b, n));
            match (c, x, y) {
                // Zipped, like `map2`: indexed loops kept their bounds checks and did
                // not vectorise (a boundary's fill select was most of a shifted sum).
                (Src::V(c), Src::V(x), Src::V(y)) => {
                    for (((o, &c), &x), &y) in d.iter_mut().zip(c).zip(x).zip(y) {
                        *o = if c != 0 { x } else { y };
                    }
                }
                (Src::V(c), Src::V(x), Src::S(y)) => {
                    for ((o, &c), &x) in d.iter_mut().zip(c).zip(x) {
                        *o = if c != 0 { x } else { y };
                    }
                }
                (Src::V(c), Src::S(x), Src::V(y)) => {
                    for ((o, &c), &y) in d.iter_mut().zip(c).zip(y) {
                        *o = if c != 0 { x } else { y };
                    }
                }
                (Src::V(c), Src::S(x), Src::S(y)) => {
                    for (o, &c) in d.iter_mut().zip(c) {
                        *o = if c != 0 { x } else { y };
                    }
                }
                (Src::S(c), x, y) => {
                    let chosen = if c != 0 { x } else { y };
                    match chosen {
                        Src::V(v) => d.copy_from_slice(v),
                        Src::S(s) => d.fill(s),
                    }
                }
            }
        })
    }
}

/// `dst[i] = a[i] * b[i] + c[i]` rounded once, for f32 or f64 operands (`mul_add`: the
/// FMA clones' instruction; the baseline clone calls the C library's exact `fma`).
///
/// # Safety
/// As for `binary`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
pub unsafe fn fma(dtype: DType, a: Opnd, b: Opnd, c: Opnd, dst: *mut u8, n: usize) {
    unsafe {
        match dtype {
            DType::F32 => map3::<f32>(a, b, c, dst, n, f32::mul_add),
            DType::F64 => map3::<f64>(a, b, c, dst, n, f64::mul_add),
            _ => unreachable!("fma of {dtype} values"),
        }
    }
}

/// `dst[i] = f(a[i], b[i], c[i])`: separate loops for a scalar `c` (`a * x + s`, the common
/// form) and for vectors, the rest through `Src` per lane.
#[inline(always)]
unsafe fn map3<T: Elem>(a: Opnd, b: Opnd, c: Opnd, dst: *mut u8, n: usize, f: impl Fn(T, T, T) -> T) {
    let d = unsafe { out::<T>(dst, n) };
    let at = |s: &Src<T>, i: usize| match s {
        Src::V(v) => v[i],
        Src::S(x) => *x,
    };
    match unsafe { (Src::<T>::new(a, n), Src::<T>::new(b, n), Src::<T>::new(c, n)) } {
        (Src::V(a), Src::V(b), Src::V(c)) => {
            for (((o, &x), &y), &z) in d.iter_mut().zip(a).zip(b).zip(c) {
                *o = f(x, y, z);
            }
        }
        (Src::V(a), Src::V(b), Src::S(z)) => {
            for ((o, &x), &y) in d.iter_mut().zip(a).zip(b) {
                *o = f(x, y, z);
            }
        }
        (x, y, z) => {
            for (i, o) in d.iter_mut().enumerate() {
                *o = f(at(&x, i), at(&y, i), at(&z, i));
            }
        }
    }
}

#[inline(always)]
unsafe fn cast_from<T>(to: DType, src: *const u8, dst: *mut u8, n: usize)
where
    T: Elem
        + CastTo<f32>
        + CastTo<f64>
        + CastTo<i8>
        + CastTo<i16>
        + CastTo<i32>
        + CastTo<i64>
        + CastTo<u8>
        + CastTo<u16>
        + CastTo<u32>
        + CastTo<u64>
        + CastTo<half::f16>
        + CastTo<half::bf16>
        + Default,
{
    unsafe {
        match to {
            DType::F32 => map1(src, dst, n, |x: T| -> f32 { x.cast_to() }),
            DType::F64 => map1(src, dst, n, |x: T| -> f64 { x.cast_to() }),
            DType::I32 => map1(src, dst, n, |x: T| -> i32 { x.cast_to() }),
            DType::I64 => map1(src, dst, n, |x: T| -> i64 { x.cast_to() }),
            DType::U8 => map1(src, dst, n, |x: T| -> u8 { x.cast_to() }),
            DType::I8 => map1(src, dst, n, |x: T| -> i8 { x.cast_to() }),
            DType::I16 => map1(src, dst, n, |x: T| -> i16 { x.cast_to() }),
            DType::U16 => map1(src, dst, n, |x: T| -> u16 { x.cast_to() }),
            DType::U32 => map1(src, dst, n, |x: T| -> u32 { x.cast_to() }),
            DType::U64 => map1(src, dst, n, |x: T| -> u64 { x.cast_to() }),
            DType::F16 => map1(src, dst, n, |x: T| -> half::f16 { x.cast_to() }),
            DType::BF16 => map1(src, dst, n, |x: T| -> half::bf16 { x.cast_to() }),
            DType::Bool => map1(src, dst, n, |x: T| (x != T::default()) as u8),
            DType::C64 | DType::C128 => unreachable!("casts to complex are built from parts"),
        }
    }
}

/// `dst[i] = src[i] as to`.
///
/// # Safety
/// `src` holds `n` elements of `from`, `dst` room for `n` of `to`; no overlap.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
pub unsafe fn cast(from: DType, to: DType, src: *const u8, dst: *mut u8, n: usize) {
    unsafe {
        match from {
            DType::F16 => cast_from::<half::f16>(to, src, dst, n),
            DType::BF16 => cast_from::<half::bf16>(to, src, dst, n),
            _ => with_elem!(from, T => cast_from::<T>(to, src, dst, n)),
        }
    }
}
