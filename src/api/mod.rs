//! The C ABI. Every export checks its arguments, runs inside the panic boundary, records
//! its call site, and returns an `sl_status`. `include/sluice.h` is generated from these
//! files by cbindgen.

#![allow(non_camel_case_types)]
// C callers pass pointers; every export checks them for null before use.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

#[cfg(test)]
mod allocations;
pub mod apply;
pub mod array;
pub mod assign;
pub mod complex;
pub mod debug;
pub mod elementwise;
pub mod error;
pub mod factor;
pub mod fft;
pub mod macros;
pub mod movement;
pub mod random;
pub mod reduce;
pub mod runtime;
pub mod shapes;
pub mod site;
pub mod sort;
pub mod types;
#[cfg(all(sluice_frame_pointers, target_arch = "x86_64"))]
mod unwind;

use std::sync::Arc;

use crate::front::gather::IndexPolicy;
use crate::front::runtime::{self as rtm, Runtime};
use crate::front::stats::{Reduction, Scan};
use crate::front::{Graph, scope};
use crate::ir::{
    BinaryOp, Boundary, CallSite, DType, Error, MAX_RANK, Node, NodeState, ReduceOp, Result, ScatterMode, Shape,
    UnaryOp, bail,
};
use types::*;

/// The runtime and a graph builder for calls from `site`.
pub(crate) fn graph(rt: &Runtime, site: CallSite) -> Graph<'_> {
    Graph { rt, site }
}

pub(crate) fn runtime() -> Result<Arc<Runtime>> {
    rtm::get()
}

pub(crate) fn node(rt: &Runtime, h: sl_array) -> Result<Arc<Node>> {
    rt.handles.get(h)
}

/// The node of handle `h` in the running runtime.
pub(crate) fn lookup(h: sl_array) -> Result<Arc<Node>> {
    let rt = runtime()?;
    node(&rt, h)
}

pub(crate) fn nodes(rt: &Runtime, hs: *const sl_array, n: i32) -> Result<Vec<Arc<Node>>> {
    slice(hs, n, "array list")?.iter().map(|&h| node(rt, h)).collect()
}

/// Refuses calls that read or write array data while a macro section records on this
/// thread: a replay skips the section's calls, so it cannot repeat them.
pub(crate) fn outside_macro(call: &str) -> Result<()> {
    if let Some(name) = crate::sched::macros::recording_name() {
        bail!(
            InvalidState,
            "{call} is not allowed while macro '{name}' is recording (a replay would skip it); call it before sl_macro_begin or after sl_macro_end"
        );
    }
    Ok(())
}

/// Checks an out-pointer and clears it, so a failed call leaves the null handle.
pub(crate) fn out_slot<'a>(out: *mut sl_array) -> Result<&'a mut sl_array> {
    if out.is_null() {
        bail!(InvalidArgument, "the result pointer is NULL");
    }
    // SAFETY: non-null; the application passes a pointer to writable storage.
    let slot = unsafe { &mut *out };
    *slot = 0;
    Ok(slot)
}

/// Gives `n` a new handle in the current scope and stores it in `out`. In synchronous
/// mode (`SLUICE_SYNC`) the op has already run, and its failure is this call's error.
pub(crate) fn put(rt: &Runtime, out: &mut sl_array, n: Arc<Node>) -> Result<()> {
    if rt.config.synchronous
        && let NodeState::Failed(e) = &*n.state()
    {
        return Err(Error::clone(e));
    }
    let h = rt.handles.insert(n);
    scope::register(h);
    *out = h;
    Ok(())
}

/// Stores `value` through an application's out-pointer named `what`.
pub(crate) fn write_out<T>(p: *mut T, what: &str, value: T) -> Result<()> {
    if p.is_null() {
        bail!(InvalidArgument, "{what} is NULL");
    }
    // SAFETY: non-null; the application passes a pointer to writable storage.
    unsafe { p.write(value) };
    Ok(())
}

/// `n` elements at `p`; NULL is allowed only when `n` is 0.
pub(crate) fn slice<'a, T>(p: *const T, n: i32, what: &str) -> Result<&'a [T]> {
    if n < 0 {
        bail!(InvalidArgument, "{what}: negative length {n}");
    }
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        bail!(InvalidArgument, "{what} is NULL");
    }
    // SAFETY: the application promises `n` readable elements at `p`.
    Ok(unsafe { std::slice::from_raw_parts(p, n as usize) })
}

pub(crate) fn parse_dtype(t: sl_dtype) -> Result<DType> {
    match DType::ALL.get(t as usize) {
        Some(d) if t >= 0 => Ok(*d),
        _ => bail!(InvalidArgument, "{t} is not an sl_dtype"),
    }
}

pub(crate) fn parse_shape(rank: i32, dims: *const i64) -> Result<Shape> {
    if !(0..=MAX_RANK as i32).contains(&rank) {
        bail!(InvalidArgument, "rank {rank} is outside 0..={MAX_RANK}");
    }
    let dims = slice(dims, rank, "shape")?;
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        bail!(InvalidArgument, "negative dimension {d} in shape {dims:?}");
    }
    Shape::sized("shape", &dims.iter().map(|&d| d as u64).collect::<Vec<_>>())
}

pub(crate) fn parse_dim(d: i32, what: &str) -> Result<usize> {
    if !(0..MAX_RANK as i32).contains(&d) {
        bail!(InvalidArgument, "{what}: dimension {d} is out of range");
    }
    Ok(d as usize)
}

pub(crate) fn unary_op(op: sl_unary_op) -> Result<UnaryOp> {
    match UnaryOp::ALL.get(op as usize) {
        Some(u) if op >= 0 => Ok(*u),
        _ => bail!(InvalidArgument, "{op} is not an sl_unary_op"),
    }
}

pub(crate) fn binary_op(op: sl_binary_op) -> Result<BinaryOp> {
    match BinaryOp::ALL.get(op as usize) {
        Some(b) if op >= 0 => Ok(*b),
        _ => bail!(InvalidArgument, "{op} is not an sl_binary_op"),
    }
}

pub(crate) fn reduce_op(op: sl_reduce_op) -> Result<Reduction> {
    Ok(match op {
        SL_NANSUM => Reduction::NanSum,
        SL_NANMEAN => Reduction::NanMean,
        SL_NANMIN => Reduction::NanMin,
        SL_NANMAX => Reduction::NanMax,
        SL_NORM1 => Reduction::Norm1,
        SL_NORM2 => Reduction::Norm2,
        SL_NORMINF => Reduction::NormInf,
        _ => match ReduceOp::ALL.get(op as usize) {
            Some(r) if op >= 0 => Reduction::Plain(*r),
            _ => bail!(InvalidArgument, "{op} is not an sl_reduce_op"),
        },
    })
}

pub(crate) fn scan_op(op: sl_scan_op) -> Result<Scan> {
    Ok(match op {
        SL_SCAN_SUM => Scan::Sum,
        SL_SCAN_PROD => Scan::Prod,
        SL_SCAN_MAX => Scan::Max,
        SL_SCAN_MIN => Scan::Min,
        SL_SCAN_AND => Scan::And,
        SL_SCAN_OR => Scan::Or,
        _ => bail!(InvalidArgument, "{op} is not an sl_scan_op"),
    })
}

pub(crate) fn boundary(b: sl_boundary) -> Result<Boundary> {
    Ok(match b {
        SL_BOUNDARY_FILL => Boundary::Fill,
        SL_BOUNDARY_CLAMP => Boundary::Clamp,
        SL_BOUNDARY_WRAP => Boundary::Wrap,
        _ => bail!(InvalidArgument, "{b} is not an sl_boundary"),
    })
}

pub(crate) fn index_policy(p: sl_index_policy) -> Result<IndexPolicy> {
    Ok(match p {
        SL_INDEX_CLAMP => IndexPolicy::Clamp,
        SL_INDEX_WRAP => IndexPolicy::Wrap,
        SL_INDEX_FILL => IndexPolicy::Fill,
        SL_INDEX_ERROR => IndexPolicy::Error,
        _ => bail!(InvalidArgument, "{p} is not an sl_index_policy"),
    })
}

pub(crate) fn scatter_mode(m: sl_scatter_mode) -> Result<ScatterMode> {
    Ok(match m {
        SL_SCATTER_REPLACE => ScatterMode::Replace,
        SL_SCATTER_ADD => ScatterMode::Add,
        SL_SCATTER_MIN => ScatterMode::Min,
        SL_SCATTER_MAX => ScatterMode::Max,
        _ => bail!(InvalidArgument, "{m} is not an sl_scatter_mode"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The C constants index the op tables; check each constant names its op.
    #[test]
    fn op_codes_match_names() {
        let unary = [
            (SL_NEG, "neg"),
            (SL_ABS, "abs"),
            (SL_SIGN, "sign"),
            (SL_SQRT, "sqrt"),
            (SL_RSQRT, "rsqrt"),
            (SL_CBRT, "cbrt"),
            (SL_RCP, "rcp"),
            (SL_EXP, "exp"),
            (SL_EXP2, "exp2"),
            (SL_EXPM1, "expm1"),
            (SL_LOG, "log"),
            (SL_LOG2, "log2"),
            (SL_LOG10, "log10"),
            (SL_LOG1P, "log1p"),
            (SL_SIN, "sin"),
            (SL_COS, "cos"),
            (SL_TAN, "tan"),
            (SL_ASIN, "asin"),
            (SL_ACOS, "acos"),
            (SL_ATAN, "atan"),
            (SL_SINH, "sinh"),
            (SL_COSH, "cosh"),
            (SL_TANH, "tanh"),
            (SL_ASINH, "asinh"),
            (SL_ACOSH, "acosh"),
            (SL_ATANH, "atanh"),
            (SL_ERF, "erf"),
            (SL_FLOOR, "floor"),
            (SL_CEIL, "ceil"),
            (SL_ROUND, "round"),
            (SL_TRUNC, "trunc"),
            (SL_ISNAN, "isnan"),
            (SL_ISINF, "isinf"),
            (SL_NOT, "not"),
            (SL_CONJ, "conj"),
            (SL_REAL, "real"),
            (SL_IMAG, "imag"),
            (SL_ARG, "arg"),
            (SL_ISFINITE, "isfinite"),
            (SL_ERFC, "erfc"),
            (SL_ERFINV, "erfinv"),
            (SL_LGAMMA, "lgamma"),
            (SL_TGAMMA, "tgamma"),
        ];
        assert_eq!(unary.len(), UnaryOp::ALL.len());
        for (code, name) in unary {
            assert_eq!(unary_op(code).unwrap().name(), name);
        }
        let binary = [
            (SL_ADD, "add"),
            (SL_SUB, "sub"),
            (SL_MUL, "mul"),
            (SL_DIV, "div"),
            (SL_REM, "rem"),
            (SL_POW, "pow"),
            (SL_ATAN2, "atan2"),
            (SL_HYPOT, "hypot"),
            (SL_MIN, "min"),
            (SL_MAX, "max"),
            (SL_EQ, "eq"),
            (SL_NE, "ne"),
            (SL_LT, "lt"),
            (SL_LE, "le"),
            (SL_GT, "gt"),
            (SL_GE, "ge"),
            (SL_AND, "and"),
            (SL_OR, "or"),
            (SL_XOR, "xor"),
            (SL_COMPLEX, "complex"),
            (SL_SHL, "shl"),
            (SL_SHR, "shr"),
            (SL_COPYSIGN, "copysign"),
            (SL_NEXTAFTER, "nextafter"),
        ];
        assert_eq!(binary.len(), BinaryOp::ALL.len());
        for (code, name) in binary {
            assert_eq!(binary_op(code).unwrap().name(), name);
        }
        let reduce = [
            (SL_SUM, "sum"),
            (SL_PROD, "prod"),
            (SL_MINVAL, "min"),
            (SL_MAXVAL, "max"),
            (SL_MEAN, "mean"),
            (SL_ANY, "any"),
            (SL_ALL, "all"),
            (SL_COUNT, "count"),
            (SL_ARGMIN, "argmin"),
            (SL_ARGMAX, "argmax"),
            (SL_NANSUM, "nansum"),
            (SL_NANMEAN, "nanmean"),
            (SL_NANMIN, "nanmin"),
            (SL_NANMAX, "nanmax"),
            (SL_NORM1, "norm1"),
            (SL_NORM2, "norm2"),
            (SL_NORMINF, "norminf"),
        ];
        assert_eq!(reduce.len(), ReduceOp::ALL.len() + 7);
        for (code, name) in reduce {
            assert_eq!(reduce_op(code).unwrap().name(), name);
        }
        assert_eq!(SL_MAX_ELEMENTS as u64, crate::ir::shape::MAX_ELEMENTS);
        for (code, t) in [
            (SL_F32, DType::F32),
            (SL_F64, DType::F64),
            (SL_I32, DType::I32),
            (SL_I64, DType::I64),
            (SL_U8, DType::U8),
            (SL_BOOL, DType::Bool),
            (SL_C64, DType::C64),
            (SL_C128, DType::C128),
            (SL_I8, DType::I8),
            (SL_I16, DType::I16),
            (SL_U16, DType::U16),
            (SL_U32, DType::U32),
            (SL_U64, DType::U64),
            (SL_F16, DType::F16),
            (SL_BF16, DType::BF16),
        ] {
            assert_eq!(parse_dtype(code).unwrap(), t);
        }
    }
}
