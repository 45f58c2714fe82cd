//! Matrix products: real matrix x vector by a loop at memory bandwidth, the rest (complex
//! types, conjugated operands) through the `gemm` crate.

use gemm::{Parallelism, c32, c64, gemm};
use multiversion::multiversion;

use super::math::Real;
use super::threads::Workers;
use crate::exec::Batch;
use crate::ir::{DType, MAX_RANK, Result, Semiring, Value, bail};
use smallvec::SmallVec;

/// Operand addresses handed to the worker pool.
#[derive(Copy, Clone)]
pub(super) struct Operands {
    a: *const u8,
    b: *const u8,
    pub(super) c: *mut u8,
}

// SAFETY: the step that owns the operands waits for the multiplication to finish.
unsafe impl Send for Operands {}
unsafe impl Sync for Operands {}

impl Operands {
    /// Taking the whole struct keeps closures from capturing the bare pointers.
    pub(super) fn parts(self) -> (*const u8, *const u8, *mut u8) {
        (self.a, self.b, self.c)
    }
}

fn host(v: &Value, size: usize) -> Result<*const u8> {
    match v.storage.host_bytes() {
        // SAFETY: the layout offset lies inside the storage.
        Some(b) => Ok(unsafe { b.as_ptr().add(v.layout.offset as usize * size) }),
        None => bail!(Internal, "matmul operand is not in host memory"),
    }
}

/// Multiply-adds below which a product runs on one thread: handing it to the pool (and
/// waking a worker) would cost more than the product (a solver's matvec).
pub(super) const SERIAL_PRODUCT: usize = 1 << 18;

/// Multiply-adds up to which a real product of a batch is summed by its definition: the
/// `gemm` crate's setup per call costs more than a 4 x 4 product (100,000 of them took
/// twice numpy's time through it).
const DIRECT_PRODUCT: usize = 512;

/// The products of a batch: where each one's operands start (batch strides are elements;
/// `c` is dense), and the operands' strides along their first two dimensions.
pub(super) struct Products {
    ops: Operands,
    batch: Batch,
    batch_strides: [SmallVec<[i64; 6]>; 2],
    /// Bytes of one element, and of one product's c.
    size: usize,
    c_bytes: usize,
    pub(super) strides: [[i64; MAX_RANK]; 2],
}

impl Products {
    fn new(dtype: DType, [m, n]: [usize; 2], batch: &Batch, [a, b, c]: [&Value; 3]) -> Result<Products> {
        let size = dtype.size();
        Ok(Products {
            ops: Operands { a: host(a, size)?, b: host(b, size)?, c: host(c, size)? as *mut u8 },
            batch: *batch,
            batch_strides: [batch.strides(0, &a.layout), batch.strides(1, &b.layout)],
            size,
            c_bytes: m * n * size,
            strides: [a.layout.strides, b.layout.strides],
        })
    }

    pub(super) fn count(&self) -> usize {
        self.batch.dims.numel()
    }

    /// The operands of product `index`.
    pub(super) fn at(&self, index: usize) -> Operands {
        let idx = self.batch.dims.unravel(index);
        let offset = |s: &[i64]| s.iter().zip(idx).map(|(&s, i)| s * i as i64).sum::<i64>() as isize;
        let (a, b, c) = self.ops.parts();
        let size = self.size as isize;
        // SAFETY: every product's operands lie in their arrays (the planner's shapes).
        unsafe {
            Operands {
                a: a.offset(offset(&self.batch_strides[0]) * size),
                b: b.offset(offset(&self.batch_strides[1]) * size),
                c: c.add(index * self.c_bytes),
            }
        }
    }
}

/// `c = a * b` for each index of `batch`, with `a` m x k and `b` k x n in any strided
/// layout, their elements conjugated as `conj` says (complex types); `c` dense
/// column-major. A batch of small products is spread over the workers, each product on
/// one thread; large ones run one after another, each on all threads. A pair other than
/// `PLUS_TIMES` is a generalized product (semiring.rs).
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    dtype: DType,
    [m, k, n]: [usize; 3],
    conj: [bool; 2],
    semiring: Semiring,
    batch: &Batch,
    [a, b, c]: [&Value; 3],
    workers: &Workers,
) -> Result<()> {
    let products = Products::new(dtype, [m, n], batch, [a, b, c])?;
    if m * n == 0 || products.count() == 0 {
        // Nothing to write, however many empty products the batch counts.
        return Ok(());
    }
    if semiring != Semiring::PLUS_TIMES {
        if !semiring.is_intrinsic() || dtype.is_complex() {
            bail!(
                Internal,
                "no product kernel for ({}, {}) on {dtype}",
                semiring.reduce.name(),
                semiring.combine.name()
            );
        }
        super::semiring::inner(dtype, semiring, [m, k, n], &products, workers);
        return Ok(());
    }
    if !(dtype.is_float() || dtype.is_complex()) {
        bail!(DTypeMismatch, "matmul needs float or complex operands, not {dtype}");
    }
    let size = dtype.size();
    let count = products.count();
    if k == 0 {
        // An empty inner dimension sums nothing.
        unsafe { std::ptr::write_bytes(products.ops.c, 0, m * n * count * size) };
        return Ok(());
    }
    let [sa, sb] = products.strides;
    let single = Single { dtype, mkn: [m, k, n], conj, sa, sb };
    if count == 1 {
        single.run(products.ops, workers);
        return Ok(());
    }
    if m * n * k >= SERIAL_PRODUCT {
        for index in 0..count {
            single.run(products.at(index), workers);
        }
        return Ok(());
    }
    let serial = count * m * n * k < SERIAL_PRODUCT;
    let direct = dtype.is_float() && m * n * k <= DIRECT_PRODUCT;
    workers.for_each(count, serial, |indices| {
        for index in indices {
            match dtype {
                DType::F32 if direct => single.direct::<f32>(products.at(index)),
                DType::F64 if direct => single.direct::<f64>(products.at(index)),
                _ => single.gemm(products.at(index), Parallelism::None),
            }
        }
    });
    Ok(())
}

/// One product's sizes, conjugations and operand strides (of its first two dimensions).
#[derive(Copy, Clone)]
struct Single {
    dtype: DType,
    mkn: [usize; 3],
    conj: [bool; 2],
    sa: [i64; MAX_RANK],
    sb: [i64; MAX_RANK],
}

impl Single {
    /// The product of `ops`: a real matrix x vector by `gemv`, the rest by the `gemm`
    /// crate, on the calling thread when small and on all workers otherwise.
    fn run(self, ops: Operands, workers: &Workers) {
        let Single { dtype, mkn: [m, k, n], sa, sb, .. } = self;
        // A real matrix times a vector (n = 1) or a vector times a matrix (m = 1, the
        // transposed matrix times the vector): (matrix, its strides, the vector and its stride).
        let matvec = match (n, m) {
            _ if !dtype.is_float() => None,
            (1, _) => Some((m, ops.a, [sa[0], sa[1]], ops.b, sb[0])),
            (_, 1) => Some((n, ops.b, [sb[1], sb[0]], ops.a, sa[1])),
            _ => None,
        };
        if let Some((rows, mat, [rs, cs], x, xs)) = matvec
            && (rs == 1 || cs == 1)
        {
            macro_rules! matvec {
                ($t:ty) => {{
                    let mat = Strided { ptr: mat as *const $t, rs: rs as isize, cs: cs as isize };
                    // SAFETY: the operands span their layouts; `c` is a fresh buffer of `rows`.
                    unsafe {
                        let x = contiguous(x as *const $t, xs as isize, k);
                        gemv(rows, k, mat, &x, ops.c as *mut $t, workers)
                    }
                }};
            }
            match dtype {
                DType::F32 => matvec!(f32),
                _ => matvec!(f64),
            }
        } else if m * n * k < SERIAL_PRODUCT {
            workers.run_here(|| self.gemm(ops, Parallelism::None))
        } else {
            workers.install(|threads| {
                let parallelism = if threads == 1 { Parallelism::None } else { Parallelism::Rayon(threads) };
                self.gemm(ops, parallelism)
            })
        }
    }

    /// The product of `ops` (real, of type `T`) by its definition, each element summed in
    /// order of the inner index.
    fn direct<T: Real>(self, ops: Operands) {
        let Single { mkn: [m, k, n], sa, sb, .. } = self;
        let (a, b, c) = ops.parts();
        let (a, b, c) = (a as *const T, b as *const T, c as *mut T);
        for j in 0..n {
            for i in 0..m {
                // SAFETY: operands span their layouts; `c` is a fresh m*n buffer.
                unsafe {
                    let row = a.offset(i as isize * sa[0] as isize);
                    let col = b.offset(j as isize * sb[1] as isize);
                    let sum = (0..k).fold(T::ZERO, |s, p| {
                        s + *row.offset(p as isize * sa[1] as isize) * *col.offset(p as isize * sb[0] as isize)
                    });
                    *c.add(i + j * m) = sum;
                }
            }
        }
    }

    /// The product of `ops` by the `gemm` crate.
    fn gemm(self, ops: Operands, parallelism: Parallelism) {
        let Single { dtype, mkn: [m, k, n], conj, sa, sb } = self;
        macro_rules! call {
            ($t:ty, $zero:expr, $one:expr) => {{
                let (a, b, c) = ops.parts();
                // SAFETY: operands span their layouts; `c` is a fresh m*n buffer.
                unsafe {
                    gemm::<$t>(
                        m,
                        n,
                        k,
                        c as *mut $t,
                        m as isize,
                        1,
                        false,
                        a as *const $t,
                        sa[1] as isize,
                        sa[0] as isize,
                        b as *const $t,
                        sb[1] as isize,
                        sb[0] as isize,
                        $zero,
                        $one,
                        false,
                        conj[0],
                        conj[1],
                        parallelism,
                    )
                }
            }};
        }
        match dtype {
            DType::F32 => call!(f32, 0.0, 1.0),
            DType::F64 => call!(f64, 0.0, 1.0),
            DType::C64 => call!(c32, c32::new(0.0, 0.0), c32::new(1.0, 0.0)),
            DType::C128 => call!(c64, c64::new(0.0, 0.0), c64::new(1.0, 0.0)),
            _ => unreachable!("matmul checks its type"),
        }
    }
}

/// A matrix read in place: element (i, p) at `ptr + i * rs + p * cs`.
#[derive(Copy, Clone)]
struct Strided<T> {
    ptr: *const T,
    rs: isize,
    cs: isize,
}

// SAFETY: the step that owns the matrix waits for the product to finish.
unsafe impl<T> Send for Strided<T> {}
unsafe impl<T> Sync for Strided<T> {}

/// Rows per task of a matrix-vector product: a block of `y` that stays in L1 while the
/// matrix streams past.
const GEMV_ROWS: usize = 512;

/// `y = mat * x` for a `rows x cols` matrix with unit stride along rows or along columns
/// and a dense `x`; `y` dense. Memory-bound: each element of the matrix is read once, in
/// the order it is stored, by rows split across the workers.
///
/// # Safety
/// `mat` spans `rows x cols` elements, `x` holds `cols` and `y` `rows`, not overlapping.
unsafe fn gemv<T: Real>(rows: usize, cols: usize, mat: Strided<T>, x: &[T], y: *mut T, workers: &Workers) {
    let y = Strided { ptr: y as *const T, rs: 1, cs: 0 };
    let serial = rows * cols < 1 << 16;
    workers.for_each(rows.div_ceil(GEMV_ROWS), serial, |tasks| {
        // Whole structs, so the closure does not capture their bare pointers.
        let (mat, y) = (mat, y);
        let start = tasks.start * GEMV_ROWS;
        let end = (tasks.end * GEMV_ROWS).min(rows);
        // SAFETY: each task writes its own rows of `y`; the caller's bounds hold.
        unsafe {
            let out = std::slice::from_raw_parts_mut((y.ptr as *mut T).add(start), end - start);
            let first = mat.ptr.offset(start as isize * mat.rs);
            if mat.rs == 1 {
                gemv_columns(Strided { ptr: first, ..mat }, x, out);
            } else {
                for (i, yi) in out.iter_mut().enumerate() {
                    *yi = dot(std::slice::from_raw_parts(first.offset(i as isize * mat.rs), cols), x);
                }
            }
        }
    });
}

/// `out = mat * x` where the matrix's columns are contiguous: `out` accumulates four
/// columns at a time, so it is loaded and stored once per four columns.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
unsafe fn gemv_columns<T: Real>(mat: Strided<T>, x: &[T], out: &mut [T]) {
    let len = out.len();
    // SAFETY: column p spans `len` elements from `ptr + p * cs` (the caller's bounds).
    let col = |p: usize| unsafe { std::slice::from_raw_parts(mat.ptr.offset(p as isize * mat.cs), len) };
    out.fill(T::ZERO);
    let quads = x.len() / 4 * 4;
    for p in (0..quads).step_by(4) {
        let (c0, c1, c2, c3) = (col(p), col(p + 1), col(p + 2), col(p + 3));
        let (x0, x1, x2, x3) = (x[p], x[p + 1], x[p + 2], x[p + 3]);
        for ((((o, &a0), &a1), &a2), &a3) in out.iter_mut().zip(c0).zip(c1).zip(c2).zip(c3) {
            *o = *o + a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3;
        }
    }
    for (p, &xp) in x.iter().enumerate().skip(quads) {
        for (o, &a) in out.iter_mut().zip(col(p)) {
            *o = *o + a * xp;
        }
    }
}

/// Sum of products with sixteen partial sums, so the loop vectorises.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
fn dot<T: Real>(a: &[T], b: &[T]) -> T {
    const LANES: usize = 16;
    let mut acc = [T::ZERO; LANES];
    let (ac, bc) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: T = ac.remainder().iter().zip(bc.remainder()).fold(T::ZERO, |s, (&x, &y)| s + x * y);
    for (ca, cb) in ac.zip(bc) {
        for l in 0..LANES {
            acc[l] = acc[l] + ca[l] * cb[l];
        }
    }
    acc.iter().fold(tail, |s, &v| s + v)
}

/// The `len` elements at `ptr` with `stride`, borrowed when they are contiguous.
///
/// # Safety
/// The elements lie in one live allocation.
unsafe fn contiguous<'a, T: Copy>(ptr: *const T, stride: isize, len: usize) -> std::borrow::Cow<'a, [T]> {
    unsafe {
        if stride == 1 {
            std::borrow::Cow::Borrowed(std::slice::from_raw_parts(ptr, len))
        } else {
            (0..len).map(|p| *ptr.offset(p as isize * stride)).collect()
        }
    }
}
