"""numpy's times for the work of `benches/sort.rs`, and the ratios to Sluice's: `np.sort`
of 2^24 and 2^20 uniform f32 values (numpy's default sort, one thread; it returns a new
array). Run right after `cargo bench --bench sort` (same machine state): reads criterion's
medians from target/criterion/sort and prints a table."""
import numpy as np

from bench_numpy import criterion_median_ns, median_ns


def main():
    rng = np.random.default_rng()
    print("| work | Sluice | np.sort | Sluice / numpy |")
    print("| --- | --- | --- | --- |")
    for name, log in [("f32_2p24", 24), ("f32_2p20", 20)]:
        x = rng.random(1 << log, dtype=np.float32)
        ns = median_ns(lambda: np.sort(x), 10)
        ours = criterion_median_ns("sort", name)
        print(f"| sort {name} | {ours / 1e6:.2f} ms | {ns / 1e6:.2f} ms | {ours / ns:.2f}x |")


if __name__ == "__main__":
    main()
