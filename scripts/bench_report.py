"""Turns criterion's estimates from `cargo bench --bench core` into the ratios that
BENCHMARKS.md records: every Sluice time against a reference measured in the same run.
Prints the tables whose results are present (`--random` for the random-number table
only: `cargo bench --bench core -- "bandwidth|random"` and scripts/bench_numpy.py;
`--midsize` for the 2^20 table: `cargo bench --bench core -- "midsize|shared_core"`;
`--chains` for the 8-op chains and sgemm: `cargo bench --bench core -- "^(bandwidth/triad|fused/chain8|matmul)"`;
`--special` for erfc, erfinv, lgamma and tgamma against scipy.special: `cargo bench --bench core -- "^special/"`
then `scripts/bench_numpy.py 15 scipy_`;
`--laws` for the random laws: `cargo bench --bench core -- "^random_laws"` then `scripts/bench_numpy.py`;
`--apply` for issue 18's: `cargo bench --bench apply` and `python3 scripts/bench_numpy.py 15 matmul_10k`)."""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "target", "criterion")
N = 1 << 24


def mean_ns(group, name, stat="mean"):
    path = os.path.join(ROOT, group, name, "new", "estimates.json")
    with open(path) as f:
        return json.load(f)[stat]["point_estimate"]


def numpy_times():
    """numpy's times from scripts/bench_numpy.py (ns), or none if it has not run."""
    try:
        with open(os.path.join(ROOT, "numpy.json")) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def random_table():
    """Random arrays of 2^24 values and the Monte Carlo example against the write floor
    and numpy (medians, so a noisy neighbour's burst counts less)."""
    try:
        write = mean_ns("bandwidth", "write_f32", "median")
        fresh = mean_ns("bandwidth", "write_f32_fresh", "median")
        with open(os.path.join(ROOT, "numpy.json")) as f:
            numpy = json.load(f)
        runs = {t: {} for t in (1, 2)}
        for t in runs:
            for dist in ("uniform", "normal"):
                for ty in ("f32", "f64"):
                    for what in ("store", "sum"):
                        runs[t][f"{dist}_{ty}_{what}"] = mean_ns(f"random_t{t}", f"{dist}_{ty}_{what}", "median")
                    runs[t][f"fast_{dist}_{ty}_store"] = mean_ns(f"random_t{t}", f"fast_{dist}_{ty}_store", "median")
            runs[t]["monte_carlo_4m"] = mean_ns(f"random_t{t}", "monte_carlo_4m", "median")
    except FileNotFoundError as e:
        sys.exit(f"missing benchmark result: {e.filename}")
    print(
        f"write floor (2^24 f32, 2 threads, non-temporal stores, reused pages as the executor's outputs): "
        f"{write / 1e6:.2f} ms (into fresh pages: {fresh / 1e6:.2f} ms); numpy {numpy['numpy']}"
    )
    print()
    print("| work (2^24 values) | 1 thread | 2 threads | 2 threads vs write floor | numpy (1 thread) | numpy / Sluice (2 threads) |")
    print("|---|---|---|---|---|---|")
    for name in runs[2]:
        floor = write * (2 if "f64" in name and "store" in name else 1)
        vs_floor = f"{runs[2][name] / floor:.2f} x" if name.endswith("store") else ""
        np_time = numpy.get(name.removeprefix("fast_")) if not name.startswith("fast_") else None
        np_cols = [f"{np_time / 1e6:.1f} ms", f"{np_time / runs[2][name]:.1f} x"] if np_time else ["", ""]
        print(f"| {name} | {runs[1][name] / 1e6:.2f} ms | {runs[2][name] / 1e6:.2f} ms | {vs_floor} | " + " | ".join(np_cols) + " |")


def midsize_table():
    """2^20 f32 against the floors measured in the same run, OpenBLAS sdot and numpy
    (medians); and sum(x*x) with a process spinning on one core against the same read on
    the idle machine (`cargo bench --bench core -- "midsize|shared_core"`, then
    scripts/bench_numpy.py)."""
    try:
        t = {name: mean_ns("midsize", name, "median") for name in (
            "read_floor_f32", "axpb_floor_f32", "axpb_f32", "sumsq_f32", "sumsq_f32_1024", "openblas_sdot_f32")}
        idle = mean_ns("shared_core", "sumsq_f32_idle", "median")
        spin = mean_ns("shared_core", "sumsq_f32_spinner", "median")
        spin_mean = mean_ns("shared_core", "sumsq_f32_spinner")
        idle_mean = mean_ns("shared_core", "sumsq_f32_idle")
    except FileNotFoundError as e:
        sys.exit(f"missing benchmark result: {e.filename}")
    numpy = numpy_times()
    read, axpb_floor, sdot = t["read_floor_f32"], t["axpb_floor_f32"], t["openblas_sdot_f32"]
    print("| work (2^20 f32) | time | vs its floor | vs OpenBLAS sdot | numpy |")
    print("|---|---|---|---|---|")
    np_axpb, np_dot = numpy.get("axpb_f32_2^20"), numpy.get("dot_f32_2^20")
    rows = [
        ("read floor: sum of squares, hand-written, all cores", read, read, "", None),
        ("write floor: a*x + b, hand-written, all cores", axpb_floor, axpb_floor, "", None),
        ("y = a*x + b (Sluice, computed, not read)", t["axpb_f32"], axpb_floor, "", np_axpb),
        ("sum(x*x) (Sluice, read back)", t["sumsq_f32"], read, f"{t['sumsq_f32'] / sdot:.2f} x", np_dot),
        ("OpenBLAS sdot(x, x)", sdot, read, "1 x", np_dot),
        ("sum(x*x) of 1024 f32 (Sluice, read back: the fixed cost)", t["sumsq_f32_1024"], None, "", None),
    ]
    for name, time, floor, vs_sdot, np_time in rows:
        vs_floor = f"{time / floor:.2f} x" if floor else ""
        np_col = f"{np_time / 1e3:.1f} us ({np_time / floor:.2f} x floor)" if np_time else ""
        print(f"| {name} | {time / 1e3:.1f} us | {vs_floor} | {vs_sdot} | {np_col} |")
    print()
    print(f"sum(x*x) 2^20 f32, idle: median {idle / 1e3:.1f} us (mean {idle_mean / 1e3:.1f} us); "
          f"a process spinning on one core: median {spin / 1e3:.1f} us (mean {spin_mean / 1e3:.1f} us): "
          f"{spin / idle:.2f} x (mean {spin_mean / idle_mean:.2f} x)")


def chains_table():
    """The 8-op chain on 2^24 elements against the triad floor of the same bytes (two
    arrays read, one written) and numpy, and sgemm against OpenBLAS called directly and
    numpy's matmul (medians)."""
    try:
        t = {f"{g}/{n}": mean_ns(g, n, "median") for g, n in (
            ("bandwidth", "triad_f32"), ("bandwidth", "triad_f64"), ("fused", "chain8_f32"), ("fused", "chain8_f64"),
            ("matmul", "sluice_1024_f32"), ("matmul", "openblas_1024_f32"),
            ("matmul", "sluice_2048_f32"), ("matmul", "openblas_2048_f32"))}
    except FileNotFoundError as e:
        sys.exit(f"missing benchmark result: {e.filename}")
    numpy = numpy_times()
    print("| work | Sluice | reference (same run) | ratio | numpy | numpy / Sluice |")
    print("|---|---|---|---|---|---|")
    for ty in ("f32", "f64"):
        chain, floor, np_time = t[f"fused/chain8_{ty}"], t[f"bandwidth/triad_{ty}"], numpy.get(f"chain8_{ty}")
        np_cols = [f"{np_time / 1e6:.1f} ms", f"{np_time / chain:.2f} x"] if np_time else ["", ""]
        print(f"| 8-op chain, 2^24 {ty} | {chain / 1e6:.2f} ms | triad {floor / 1e6:.2f} ms | {chain / floor:.2f} x floor | "
              + " | ".join(np_cols) + " |")
    for m in (1024, 2048):
        mm, blas, np_time = t[f"matmul/sluice_{m}_f32"], t[f"matmul/openblas_{m}_f32"], numpy.get(f"sgemm_{m}")
        np_cols = [f"{np_time / 1e6:.1f} ms", f"{np_time / mm:.2f} x"] if np_time else ["", ""]
        print(f"| sgemm {m} | {mm / 1e6:.2f} ms | OpenBLAS {blas / 1e6:.2f} ms | {mm / blas:.2f} x OpenBLAS | "
              + " | ".join(np_cols) + " |")


def special_table():
    """The special functions of 2^22 values against scipy.special in the same run (medians)."""
    numpy = numpy_times()
    print("| function | Sluice f32 | scipy f32 | ratio | Sluice f64 | scipy f64 | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name in ("erfc", "erfinv", "lgamma", "tgamma"):
        cells = []
        for t in ("f32", "f64"):
            try:
                ours = mean_ns("special", f"{name}_{t}", "median")
            except FileNotFoundError:
                sys.exit(f"missing benchmark result: special/{name}_{t}")
            theirs = numpy.get(f"scipy_{name}_{t}")
            ratio = f"{theirs / ours:.1f}x faster" if theirs else "no scipy time"
            cells += [f"{ours / 1e6:.2f} ms", f"{theirs / 1e6:.1f} ms" if theirs else "", ratio]
        print(f"| {name} | " + " | ".join(cells) + " |")


def laws_table():
    """The random laws' 2^22 values (`random_laws_t*`) against numpy's Generator (medians)."""
    numpy = numpy_times()
    names = ["exponential_f32", "exponential_f64", "poisson_4_i64", "poisson_1000_i64",
             "gamma_0.5_f32", "gamma_0.5_f64", "gamma_5_f32", "gamma_5_f64"]
    try:
        runs = {t: {n: mean_ns(f"random_laws_t{t}", n, "median") for n in names} for t in (1, 2)}
    except FileNotFoundError as e:
        sys.exit(f"missing benchmark result: {e.filename}")
    print(f"numpy {numpy.get('numpy', '(not run)')}")
    print()
    print("| law (2^22 values) | 1 thread | 2 threads | numpy (1 thread) | numpy / Sluice (1 thread) | numpy / Sluice (2 threads) |")
    print("|---|---|---|---|---|---|")
    for n in names:
        np_time = numpy.get(n)
        np_cols = [f"{np_time / 1e6:.1f} ms", f"{np_time / runs[1][n]:.2f} x", f"{np_time / runs[2][n]:.2f} x"] if np_time else ["", "", ""]
        print(f"| {n} | {runs[1][n] / 1e6:.2f} ms | {runs[2][n] / 1e6:.2f} ms | " + " | ".join(np_cols) + " |")


def apply_table():
    """Issue 18: a function applied to every element against the same calls on whole
    arrays, a moving mean over blocks against the floor of reading and writing one array,
    and 10,000 page-wise 16x16 products against a loop of `sl_matmul` calls and numpy's
    batched matmul (medians of `cargo bench --bench apply` and scripts/bench_numpy.py)."""
    try:
        t = {f"{g}/{n}": mean_ns(g, n, "median") for g, n in (
            ("apply_elements", "whole_chain8_f32"), ("apply_elements", "apply_chain8_f32"),
            ("apply_blocks", "copy_f32"), ("apply_blocks", "moving_mean_17_f32"),
            ("pagewise", "batched_16x16x10000_f32"), ("pagewise", "loop_16x16x10000_f32"))}
    except FileNotFoundError as e:
        sys.exit(f"missing benchmark result: {e.filename}")
    numpy = numpy_times().get("matmul_10k_16x16_f32")
    whole, applied = t["apply_elements/whole_chain8_f32"], t["apply_elements/apply_chain8_f32"]
    floor, mean = t["apply_blocks/copy_f32"], t["apply_blocks/moving_mean_17_f32"]
    batched, looped = t["pagewise/batched_16x16x10000_f32"], t["pagewise/loop_16x16x10000_f32"]
    print("| work | Sluice | reference (same run) | ratio | target |")
    print("|---|---|---|---|---|")
    print(f"| arrayfun of the 8-op chain, 2^24 f32 | {applied / 1e6:.2f} ms | whole arrays {whole / 1e6:.2f} ms | "
          f"{applied / whole:.2f} x | <= 1.1x |")
    print(f"| slicefun moving mean (block 1, overlap 8 each side), 2^24 f32 | {mean / 1e6:.2f} ms | "
          f"read + write floor {floor / 1e6:.2f} ms | {mean / floor:.2f} x floor | <= 1.5x |")
    print(f"| 10,000 page-wise 16x16 f32 products | {batched / 1e6:.2f} ms | loop of sl_matmul {looped / 1e6:.1f} ms | "
          f"{looped / batched:.1f} x faster | >= 20x |")
    if numpy:
        print(f"| same | {batched / 1e6:.2f} ms | numpy matmul of the stacks {numpy / 1e6:.2f} ms | "
              f"{batched / numpy:.2f} x numpy | <= 2x |")



def main():
    if "--apply" in sys.argv:
        apply_table()
        return
    if "--special" in sys.argv:
        special_table()
        return
    if "--laws" in sys.argv:
        laws_table()
        return
    if "--chains" in sys.argv:
        chains_table()
        return
    if "--random" in sys.argv:
        random_table()
        return
    if "--midsize" in sys.argv:
        midsize_table()
        return
    try:
        triad = mean_ns("bandwidth", "triad_f32")
        read = mean_ns("bandwidth", "read_f32")
        axpb = mean_ns("fused", "axpb_f32")
        chain = mean_ns("fused", "chain8_f32")
        sumsq = mean_ns("fused", "sumsq_f32")
        overhead = mean_ns("overhead", "y_mul_add_1024_x10000")
        no_trace = mean_ns("overhead_no_trace_cache", "y_mul_add_1024_x10000")
        calls8 = mean_ns("macro", "step8_calls_1024_x10000")
        replay8 = mean_ns("macro", "step8_replay_1024_x10000")
        replay_mul_add = mean_ns("macro", "mul_add_replay_1024_x10000")
        it_on = mean_ns("trace_cache_on", "ops20_65536_x200")
        it_off = mean_ns("trace_cache_off", "ops20_65536_x200")
        mm = mean_ns("matmul", "sluice_2048_f32")
        blas = mean_ns("matmul", "openblas_2048_f32")
        unfused = mean_ns("unfused", "chain8_f32")
        with open(os.path.join(ROOT, "trace_cache_on", "planning.json")) as f:
            planning = json.load(f)
    except FileNotFoundError as e:
        sys.exit(f"missing benchmark result: {e.filename}")
    triad_bw = 3 * 4 * N / triad  # bytes per ns = GB/s
    read_bw = 4 * N / read
    axpb_bw = 2 * 4 * N / axpb
    rows = [
        ("STREAM triad bandwidth (reference)", f"{triad / 1e6:.2f} ms", f"{triad_bw:.1f} GB/s", "", ""),
        ("read bandwidth (reference)", f"{read / 1e6:.2f} ms", f"{read_bw:.1f} GB/s", "", ""),
        ("y = a*x + b, f32, 2^24", f"{axpb / 1e6:.2f} ms", f"{axpb_bw:.1f} GB/s", f"{axpb_bw / triad_bw * 100:.0f}% of triad bandwidth", ">= 75%"),
        ("8-op chain, f32, 2^24", f"{chain / 1e6:.2f} ms", "", f"{chain / triad:.2f} x floor (3 arrays at triad bandwidth)", "<= 4x"),
        ("same chain, fusion off", f"{unfused / 1e6:.2f} ms", "", f"fusion is {unfused / chain:.2f} x faster", ""),
        ("sum(x*x), f32, 2^24", f"{sumsq / 1e6:.2f} ms", "", f"{sumsq / read:.2f} x read floor", "<= 1.5x"),
        ("y = y*0.99 + x, 1024 f32, per iteration", f"{overhead / 1e4 / 1e3:.2f} us", "", "", "< 1 us"),
        ("same loop as a macro (replayed), per iteration", f"{replay_mul_add / 1e4 / 1e3:.2f} us", "", "", "<= 0.5 us"),
        ("8-op step, 1024 f32, op by op, per step", f"{calls8 / 1e4 / 1e3:.2f} us", "", "", ""),
        ("same step as a macro (replayed), per step", f"{replay8 / 1e4 / 1e3:.2f} us", "", f"{calls8 / replay8:.2f} x faster than the calls", ""),
        ("20-op update, 2^16 f32, flushed each iteration", f"{it_on / 200 / 1e3:.1f} us", "", "", ""),
        ("same, trace cache off", f"{it_off / 200 / 1e3:.1f} us", "", f"{it_off / it_on:.2f} x the time with the cache (total, incl. compute)", ""),
        ("its planning per flush: hit vs planned afresh", f"{planning['hit_ns'] / planning['hits'] / 1e3:.1f} us", "", f"hits are {planning['saved_ns'] / planning['hit_ns']:.1f} x cheaper", ">= 5x"),
        ("same loop, trace cache off", f"{no_trace / 1e4 / 1e3:.2f} us", "", f"the trace cache is {no_trace / overhead:.2f} x faster", ""),
        ("matmul 2048^2 f32", f"{mm / 1e6:.1f} ms", f"{2 * 2048**3 / mm:.0f} GFLOP/s", f"{mm / blas:.2f} x OpenBLAS ({blas / 1e6:.1f} ms)", "<= 1.25x"),
    ]
    print("| benchmark | time | rate | ratio (same run) | target |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    random_table()
    print()
    midsize_table()


main()
