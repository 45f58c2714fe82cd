//! Matrix products against OpenBLAS called directly in the same process: matrix x vector
//! (f32 and f64, 1000 and 4096) beside the time to read the matrix once (the bandwidth
//! floor of a matrix-vector product: the runtime's fused sum of the matrix, which streams
//! it through the same worker threads), complex single-precision GEMM of 1024, and on
//! Vulkan (lavapipe here) matrix x vector through its own kernel beside a product with a
//! two-column matrix, which still goes through the tiled GEMM kernel (matrix x vector's
//! path before it had a kernel of its own). `batched`: 100,000 4 x 4 f32 products of two
//! stacks (numpy's `matmul` of the same stacks is timed by `scripts/bench_numpy.py`), on
//! the CPU and on Vulkan, and f32 GEMM of 1024 with transposed operands read in place
//! beside the untransposed product. `semiring`: (min, +) and (max, min) products of
//! 1024 f32 beside sgemm of the same operands.

use std::time::Duration;

use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main, measurement::WallTime};
use sluice::*;

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

fn start_on(backend: sl_backend) {
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    check(sl_config_default(&mut cfg));
    cfg.backend = backend;
    check(sl_init(&cfg));
}

#[link(name = "openblas")]
unsafe extern "C" {
    fn cblas_sgemv(
        order: i32,
        ta: i32,
        m: i32,
        n: i32,
        alpha: f32,
        a: *const f32,
        lda: i32,
        x: *const f32,
        incx: i32,
        beta: f32,
        y: *mut f32,
        incy: i32,
    );
    fn cblas_dgemv(
        order: i32,
        ta: i32,
        m: i32,
        n: i32,
        alpha: f64,
        a: *const f64,
        lda: i32,
        x: *const f64,
        incx: i32,
        beta: f64,
        y: *mut f64,
        incy: i32,
    );
    fn cblas_cgemm(
        order: i32,
        ta: i32,
        tb: i32,
        m: i32,
        n: i32,
        k: i32,
        alpha: *const f32,
        a: *const f32,
        lda: i32,
        b: *const f32,
        ldb: i32,
        beta: *const f32,
        c: *mut f32,
        ldc: i32,
    );
}

const COL_MAJOR: i32 = 102;
const NO_TRANS: i32 = 111;

/// An array of `dims` and type `dtype` from `data` (column-major).
fn upload<T>(dtype: sl_dtype, dims: &[i64], data: &[T]) -> sl_array {
    let mut h = 0;
    let bytes = std::mem::size_of_val(data);
    check(sl_create(dtype, dims.len() as i32, dims.as_ptr(), SL_COL_MAJOR, data.as_ptr() as *const _, bytes, &mut h));
    h
}

/// Reads `h` into `out` and releases it.
fn read_release<T>(h: sl_array, out: &mut [T]) {
    check(sl_read(h, SL_COL_MAJOR, out.as_mut_ptr() as *mut _, std::mem::size_of_val(out)));
    check(sl_release(h));
}

fn values<T: From<f32>>(n: usize, salt: usize) -> Vec<T> {
    (0..n).map(|i| T::from(((i * salt % 101) as f32) * 0.01 - 0.5)).collect()
}

/// `y = A x` for an `n x n` matrix through Sluice (`sl_matmul` of a matrix and a vector,
/// read back) and OpenBLAS, and one read of A (its sum).
fn gemv_size<T: Copy + Default + From<f32>>(
    g: &mut BenchmarkGroup<WallTime>,
    n: usize,
    dtype: sl_dtype,
    name: &str,
    blas: impl Fn(&[T], &[T], &mut [T]),
) {
    let a: Vec<T> = values(n * n, 7);
    let x: Vec<T> = values(n, 13);
    let mut y = vec![T::default(); n];
    let (ha, hx) = (upload(dtype, &[n as i64, n as i64], &a), upload(dtype, &[n as i64], &x));
    g.bench_function(format!("sluice_{name}_{n}"), |b| {
        b.iter(|| {
            let mut hy = 0;
            check(sl_matmul(ha, hx, &mut hy));
            read_release(hy, &mut y);
        })
    });
    g.bench_function(format!("openblas_{name}_{n}"), |b| b.iter(|| blas(&a, &x, &mut y)));
    let mut total = [T::default()];
    g.bench_function(format!("read_{name}_{n}"), |b| {
        b.iter(|| {
            let mut hs = 0;
            check(sl_sum(ha, SL_ALL_DIMS, &mut hs));
            read_release(hs, &mut total);
        })
    });
    check(sl_release(ha));
    check(sl_release(hx));
}

fn gemv(c: &mut Criterion) {
    start_on(SL_BACKEND_CPU);
    let mut g = c.benchmark_group("gemv");
    g.sample_size(30).measurement_time(Duration::from_secs(4));
    for n in [1000, 4096] {
        let ni = n as i32;
        gemv_size::<f32>(&mut g, n, SL_F32, "f32", |a, x, y| unsafe {
            cblas_sgemv(COL_MAJOR, NO_TRANS, ni, ni, 1.0, a.as_ptr(), ni, x.as_ptr(), 1, 0.0, y.as_mut_ptr(), 1)
        });
        gemv_size::<f64>(&mut g, n, SL_F64, "f64", |a, x, y| unsafe {
            cblas_dgemv(COL_MAJOR, NO_TRANS, ni, ni, 1.0, a.as_ptr(), ni, x.as_ptr(), 1, 0.0, y.as_mut_ptr(), 1)
        });
    }
    g.finish();
    check(sl_shutdown());
}

/// Complex f32 GEMM of 1024 (interleaved parts) through Sluice and OpenBLAS's cgemm.
fn cgemm(c: &mut Criterion) {
    const N: usize = 1024;
    start_on(SL_BACKEND_CPU);
    let mut g = c.benchmark_group("cgemm");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    let a: Vec<f32> = values(2 * N * N, 7);
    let b: Vec<f32> = values(2 * N * N, 13);
    let mut out = vec![0f32; 2 * N * N];
    let dims = [N as i64, N as i64];
    let (ha, hb) = (upload(SL_C64, &dims, &a), upload(SL_C64, &dims, &b));
    g.bench_function("sluice_1024_c64", |bench| {
        bench.iter(|| {
            let mut m = 0;
            check(sl_matmul(ha, hb, &mut m));
            read_release(m, &mut out);
        })
    });
    let (one, zero) = ([1f32, 0.0], [0f32, 0.0]);
    let n = N as i32;
    g.bench_function("openblas_1024_c64", |bench| {
        bench.iter(|| unsafe {
            cblas_cgemm(
                COL_MAJOR,
                NO_TRANS,
                NO_TRANS,
                n,
                n,
                n,
                one.as_ptr(),
                a.as_ptr(),
                n,
                b.as_ptr(),
                n,
                zero.as_ptr(),
                out.as_mut_ptr(),
                n,
            )
        })
    });
    check(sl_release(ha));
    check(sl_release(hb));
    g.finish();
    check(sl_shutdown());
}

/// On Vulkan: a 1000 x 1000 f32 matrix times a vector (the GEMV kernel) and times a
/// 1000 x 2 matrix (the tiled GEMM kernel, as matrix x vector ran before), read back.
fn vulkan_matvec(c: &mut Criterion) {
    const N: usize = 1000;
    start_on(SL_BACKEND_VULKAN);
    let mut g = c.benchmark_group("vulkan_matvec");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let a: Vec<f32> = values(N * N, 7);
    let x: Vec<f32> = values(2 * N, 13);
    let ha = upload(SL_F32, &[N as i64, N as i64], &a);
    let hx = upload(SL_F32, &[N as i64], &x[..N]);
    let hx2 = upload(SL_F32, &[N as i64, 2], &x);
    let mut y = vec![0f32; 2 * N];
    for (name, rhs, len) in [("gemv_kernel_1000_f32", hx, N), ("tiled_kernel_1000x2_f32", hx2, 2 * N)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut hy = 0;
                check(sl_matmul(ha, rhs, &mut hy));
                read_release(hy, &mut y[..len]);
            })
        });
    }
    for h in [ha, hx, hx2] {
        check(sl_release(h));
    }
    g.finish();
    check(sl_shutdown());
}

/// Stacks of 100,000 4 x 4 f32 matrices multiplied product by product (read back), on
/// `backend`.
fn batched_on(c: &mut Criterion, backend: sl_backend, name: &str) {
    const COUNT: usize = 100_000;
    start_on(backend);
    let mut g = c.benchmark_group("batched");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    let dims = [4, 4, COUNT as i64];
    let (ha, hb) =
        (upload(SL_F32, &dims, &values::<f32>(16 * COUNT, 7)), upload(SL_F32, &dims, &values::<f32>(16 * COUNT, 13)));
    let mut out = vec![0f32; 16 * COUNT];
    g.bench_function(format!("{name}_100k_4x4_f32"), |b| {
        b.iter(|| {
            let mut hc = 0;
            check(sl_matmul(ha, hb, &mut hc));
            read_release(hc, &mut out);
        })
    });
    check(sl_release(ha));
    check(sl_release(hb));
    g.finish();
    check(sl_shutdown());
}

fn batched(c: &mut Criterion) {
    batched_on(c, SL_BACKEND_CPU, "sluice");
    batched_on(c, SL_BACKEND_VULKAN, "vulkan");
}

/// f32 GEMM of 1024: `a b`, `a^T b`, `a b^T` and `a^T b^T` through `sl_gemm`, the
/// transposes read in place (views of computed arrays), read back.
fn transposed(c: &mut Criterion) {
    const N: usize = 1024;
    start_on(SL_BACKEND_CPU);
    let mut g = c.benchmark_group("transposed");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let dims = [N as i64, N as i64];
    let (ha, hb) = (upload(SL_F32, &dims, &values::<f32>(N * N, 7)), upload(SL_F32, &dims, &values::<f32>(N * N, 13)));
    let mut out = vec![0f32; N * N];
    for (name, ops) in [
        ("nn", [SL_NO_TRANS; 2]),
        ("tn", [SL_TRANS, SL_NO_TRANS]),
        ("nt", [SL_NO_TRANS, SL_TRANS]),
        ("tt", [SL_TRANS; 2]),
    ] {
        g.bench_function(format!("gemm_{name}_1024_f32"), |b| {
            b.iter(|| {
                let mut hc = 0;
                check(sl_gemm(ops[0], ha, ops[1], hb, 1.0, 0, 0.0, &mut hc));
                read_release(hc, &mut out);
            })
        });
    }
    check(sl_release(ha));
    check(sl_release(hb));
    g.finish();
    check(sl_shutdown());
}

/// f32 of 1024 on the CPU: the (min, +) product (`sl_inner_product`, the register-tiled
/// semiring kernel) beside sgemm (`sl_matmul`) of the same operands, read back.
fn semiring(c: &mut Criterion) {
    const N: usize = 1024;
    start_on(SL_BACKEND_CPU);
    let mut g = c.benchmark_group("semiring");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let dims = [N as i64, N as i64];
    let (ha, hb) = (upload(SL_F32, &dims, &values::<f32>(N * N, 7)), upload(SL_F32, &dims, &values::<f32>(N * N, 13)));
    let mut out = vec![0f32; N * N];
    for (name, pair) in
        [("sgemm", None), ("min_plus", Some((SL_MINVAL, SL_ADD))), ("max_min", Some((SL_MAXVAL, SL_MIN)))]
    {
        g.bench_function(format!("{name}_1024_f32"), |b| {
            b.iter(|| {
                let mut hc = 0;
                match pair {
                    None => check(sl_matmul(ha, hb, &mut hc)),
                    Some((reduce, combine)) => check(sl_inner_product(reduce, combine, ha, hb, &mut hc)),
                }
                read_release(hc, &mut out);
            })
        });
    }
    check(sl_release(ha));
    check(sl_release(hb));
    g.finish();
    check(sl_shutdown());
}

criterion_group!(benches, gemv, cgemm, vulkan_matvec, batched, transposed, semiring);
criterion_main!(benches);
