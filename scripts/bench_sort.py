"""numpy's times for the sorts Sluice is measured on, and the ratios to Sluice's: `np.sort`
of 2^24 and 2^20 uniform f32 values (numpy's default sort, one thread; it returns a new
array), and with `--driver` also `np.argsort(kind="stable")` of the 2^24 values.

Without `--driver`: run right after `cargo bench --bench sort` (same machine state); reads
criterion's medians from target/criterion/sort and prints a table.

With `--driver PATH` (benches/sort_calls.c built against the library): runs the driver
and numpy alternately, `--rounds` times, each timing `--reps` calls after a warm-up on the
same values (the driver's hash of the index), and prints the median over the rounds of
each side's median and of the per-round ratios, with the ratios' range."""
import argparse
import statistics
import subprocess

import numpy as np

from bench_numpy import criterion_median_ns, median_ns

# (name, log2 of the length, argsort?)
WORK = [("sort f32 2^24", 24, False), ("sort f32 2^20", 20, False), ("argsort f32 2^24", 24, True)]


def values(log):
    """The driver's values: a fixed hash of the index, scaled to [0, 1)."""
    h = np.arange(1 << log, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    h = ((h << np.uint64(17)) | (h >> np.uint64(47))) * np.uint64(0xBF58476D1CE4E5B9)
    return (h >> np.uint64(40)).astype(np.float32) / np.float32(1 << 24)


def criterion_table():
    rng = np.random.default_rng()
    print("| work | Sluice | np.sort | Sluice / numpy |")
    print("| --- | --- | --- | --- |")
    for name, log in [("f32_2p24", 24), ("f32_2p20", 20)]:
        x = rng.random(1 << log, dtype=np.float32)
        ns = median_ns(lambda: np.sort(x), 10)
        ours = criterion_median_ns("sort", name)
        print(f"| sort {name} | {ours / 1e6:.2f} ms | {ns / 1e6:.2f} ms | {ours / ns:.2f}x |")


def driver_table(driver, rounds, reps):
    xs = {log: values(log) for log in {log for _, log, _ in WORK}}
    ours = {name: [] for name, _, _ in WORK}
    theirs = {name: [] for name, _, _ in WORK}
    for _ in range(rounds):
        for name, log, arg in WORK:
            out = subprocess.run([driver, str(log), str(reps), str(int(arg))], check=True, capture_output=True, text=True)
            ours[name].append(int(out.stdout.split()[0]))
            x = xs[log]
            numpy_sort = (lambda: np.argsort(x, kind="stable")) if arg else (lambda: np.sort(x))
            theirs[name].append(median_ns(numpy_sort, reps))
    print("| work | Sluice (sort + read) | numpy | Sluice / numpy (range over rounds) |")
    print("| --- | --- | --- | --- |")
    for name, _, arg in WORK:
        ratios = [a / b for a, b in zip(ours[name], theirs[name])]
        reference = 'np.argsort(kind="stable")' if arg else "np.sort"
        print(
            f"| {name} | {statistics.median(ours[name]) / 1e6:.2f} ms | "
            f"{statistics.median(theirs[name]) / 1e6:.2f} ms ({reference}) | "
            f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |"
        )


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--driver", help="benches/sort_calls.c built against the library")
    p.add_argument("--rounds", type=int, default=5, help="alternations of the driver and numpy")
    p.add_argument("--reps", type=int, default=10, help="timed calls per side and round")
    args = p.parse_args()
    if args.driver:
        driver_table(args.driver, args.rounds, args.reps)
    else:
        criterion_table()


if __name__ == "__main__":
    main()
