"""numpy's times for the work of `benches/factor.rs`, and the ratios to Sluice's: LU
factorization and solve of a 2048 x 2048 f64 system (`numpy.linalg.solve`, which calls
LAPACK's gesv through OpenBLAS with its own threads; and scipy's `lu_factor` + `lu_solve`
where scipy is installed), and 100,000 stacked 4 x 4 f32 systems (`numpy.linalg.solve` on
the stacked array); QR of a 2048 x 2048 f64 matrix (`numpy.linalg.qr`, reduced: Q and R)
and least squares of a 4096 x 256 f64 system (`numpy.linalg.lstsq`, which calls LAPACK's
gelsd, an SVD; and scipy's `lstsq` with `lapack_driver='gelsy'` (QR) where installed).
Run right after `cargo bench --bench factor` (same machine state):
reads criterion's medians from target/criterion/factor and prints a table."""
import numpy as np

from bench_numpy import criterion_median_ns, median_ns


def main():
    rng = np.random.default_rng()
    n = 2048
    a = rng.uniform(-1, 1, (n, n)) + 4 * np.eye(n)
    b = rng.uniform(-1, 1, n)
    rows = [("solve_2048_f64", "numpy.linalg.solve", median_ns(lambda: np.linalg.solve(a, b), 10))]
    try:
        import scipy.linalg as sl

        rows.append(("solve_2048_f64", "scipy lu_factor + lu_solve", median_ns(lambda: sl.lu_solve(sl.lu_factor(a), b), 10)))
    except ImportError:
        pass
    batch = 100_000
    s = (rng.uniform(-1, 1, (batch, 4, 4)) + 4 * np.eye(4)).astype(np.float32)
    r = rng.uniform(-1, 1, (batch, 4, 1)).astype(np.float32)
    rows.append(("solve_4x4_f32_x100000", "numpy.linalg.solve (stacked)", median_ns(lambda: np.linalg.solve(s, r), 10)))
    rows.append(("qr_2048_f64", "numpy.linalg.qr (reduced)", median_ns(lambda: np.linalg.qr(a), 10)))
    tall = rng.uniform(-1, 1, (4096, 256))
    y = rng.uniform(-1, 1, 4096)
    rows.append(("lstsq_4096x256_f64", "numpy.linalg.lstsq", median_ns(lambda: np.linalg.lstsq(tall, y, rcond=None), 10)))
    try:
        import scipy.linalg as sl

        rows.append(
            ("lstsq_4096x256_f64", "scipy lstsq (gelsy)", median_ns(lambda: sl.lstsq(tall, y, lapack_driver="gelsy"), 10))
        )
    except ImportError:
        pass
    print("| work | Sluice | numpy/LAPACK | which | Sluice / LAPACK |")
    print("| --- | --- | --- | --- | --- |")
    for name, what, ns in rows:
        ours = criterion_median_ns("factor", name)
        print(f"| {name} | {ours / 1e6:.2f} ms | {ns / 1e6:.2f} ms | {what} | {ours / ns:.2f}x |")


if __name__ == "__main__":
    main()
