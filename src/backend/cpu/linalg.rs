//! Matrix multiplication through the `gemm` crate.

use gemm::{Parallelism, gemm};

use super::threads::Workers;
use crate::ir::{DType, Result, Value, bail};

/// Operand addresses handed to the worker pool.
#[derive(Copy, Clone)]
struct Operands {
    a: *const u8,
    b: *const u8,
    c: *mut u8,
}

// SAFETY: the step that owns the operands waits for the multiplication to finish.
unsafe impl Send for Operands {}

impl Operands {
    /// Taking the whole struct keeps closures from capturing the bare pointers.
    fn parts(self) -> (*const u8, *const u8, *mut u8) {
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

/// `c = a * b` with `a` m x k and `b` k x n in any strided layout; `c` dense column-major.
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    dtype: DType,
    m: usize,
    k: usize,
    n: usize,
    a: &Value,
    b: &Value,
    c: &Value,
    workers: &Workers,
) -> Result<()> {
    let size = dtype.size();
    let ops = Operands { a: host(a, size)?, b: host(b, size)?, c: host(c, size)? as *mut u8 };
    if k == 0 {
        // An empty inner dimension sums nothing.
        unsafe { std::ptr::write_bytes(ops.c, 0, m * n * size) };
        return Ok(());
    }
    let (sa, sb) = (a.layout.strides, b.layout.strides);
    let small = m * n * k < 1 << 18;
    macro_rules! call {
        ($t:ty) => {{
            // A small product runs on the calling thread: handing it to the pool (and
            // waking a worker) would cost more than the product (a solver's matvec).
            let multiply = move |threads: usize| {
                let parallelism = if small || threads == 1 { Parallelism::None } else { Parallelism::Rayon(threads) };
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
                        0.0,
                        1.0,
                        false,
                        false,
                        false,
                        parallelism,
                    )
                }
            };
            if small { workers.run_here(|| multiply(1)) } else { workers.install(multiply) }
        }};
    }
    match dtype {
        DType::F32 => call!(f32),
        DType::F64 => call!(f64),
        _ => bail!(DTypeMismatch, "matmul needs f32 or f64 operands, not {dtype}"),
    }
    Ok(())
}
