"""numpy's times for the work of the `random_t*` benchmarks of `benches/core.rs`, for the
ratios in BENCHMARKS.md: 2^24 uniform and normal values (`Generator.random`,
`Generator.standard_normal`, one thread as numpy runs them), stored and summed, and the
Monte Carlo option pricing of `examples/c/monte_carlo.c` at 4M paths written the way a
numpy user would; the conjugate gradient solve of `roundtrip/cg_80_f64_x50` (the same
80 x 80 system, 50 iterations, the residual read every iteration); and `a*x + b` and
`dot(x, x)` of 2^20 f32 for the `midsize` benchmarks; the 8-op chain of `fused/chain8_*`
on 2^24 f32 and f64; square f32 matmuls of 1024 and 2048 (OpenBLAS sgemm, its own
threads); 100,000 stacked 4x4 f32 products (`np.matmul` of two (100000, 4, 4) arrays, the
`batched/sluice_100k_4x4_f32` bench of `benches/linalg.rs`); 10,000 stacked 16x16 f32
products (the `pagewise` benches of `benches/apply.rs`); the complex f32 Fourier
transforms of `benches/fft.rs`; 2^22 values of the random laws of `random_laws_t*`
(`standard_exponential`, `poisson`, `standard_gamma`); and, when scipy is installed,
scipy.special's erfc, erfinv, gammaln and gamma of the 2^22 f32 and f64 inputs of the
`special` group (their ufuncs compute f32 in f32 loops). Writes the median of each to
target/criterion/numpy.json (ns)."""
import json
import math
import os
import sys
import time

import numpy as np

N = 1 << 24
MID = 1 << 20
LAWS = 1 << 22
OUT = os.path.join(os.path.dirname(__file__), "..", "target", "criterion", "numpy.json")


def criterion_median_ns(group, name):
    """criterion's median for benchmark `group/name` of the last `cargo bench` run."""
    path = os.path.join(os.path.dirname(__file__), "..", "target", "criterion", group, name, "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def median_ns(f, repeat):
    f()  # warm up (page faults, first allocation)
    times = []
    for _ in range(repeat):
        t = time.perf_counter_ns()
        f()
        times.append(time.perf_counter_ns() - t)
    times.sort()
    return times[len(times) // 2]


def monte_carlo(batch=1 << 18, batches=16):
    s0, strike, rate, sigma, years = 100.0, 105.0, 0.05, 0.2, 1.0
    g = np.random.default_rng(20261122)
    m = m2 = 0.0
    for _ in range(batches):
        z = g.standard_normal(batch)
        st = s0 * np.exp(z * (sigma * math.sqrt(years)) + (rate - 0.5 * sigma * sigma) * years)
        payoff = np.maximum(st - strike, 0.0)
        m += payoff.sum()
        m2 += (payoff * payoff).sum()
    return math.exp(-rate * years) * m / (batch * batches)


CG_N, CG_ITERS = 80, 50


def cg_system():
    """The system of `cg_system` in benches/core.rs (same LCG, same order of draws)."""
    state = 20261124
    mask = (1 << 64) - 1

    def uniform():
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) & mask
        return (state >> 11) / float(1 << 53) * 2.0 - 1.0

    b = np.array([uniform() for _ in range(CG_N * CG_N)]).reshape(CG_N, CG_N).T
    a = b.T @ b + 0.01 * np.eye(CG_N)
    rhs = np.array([uniform() for _ in range(CG_N)])
    return a, rhs


def cg_solve(a, rhs):
    x = rhs * 0.0
    r = rhs.copy()
    p = rhs.copy()
    rs = r @ r
    for _ in range(CG_ITERS):
        ap = a @ p
        alpha = rs / (p @ ap)
        x = x + alpha * p
        r = r - alpha * ap
        rs2 = float(r @ r)
        p = r + (rs2 / rs) * p
        rs = rs2
    return rs


def chain8(x, y):
    """`chain8` of benches/core.rs: sin(x)*cos(y) + sqrt(abs(x))*exp(-y*y) - 0.5*x."""
    return np.sin(x) * np.cos(y) + np.sqrt(np.abs(x)) * np.exp(-y * y) - x.dtype.type(0.5) * x


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 15  # then an optional name filter
    g = np.random.default_rng(20261122)
    system = cg_system()
    x_mid = g.random(MID, dtype=np.float32) - np.float32(0.5)
    i = np.arange(N)
    # The inputs of `fused` in benches/core.rs.
    x_chain = ((i % 1000) * 0.001 - 0.5).astype(np.float32)
    y_chain = ((i % 777) * 0.002 - 0.7).astype(np.float32)
    x_chain64, y_chain64 = x_chain.astype(np.float64), y_chain.astype(np.float64)
    mats = {m: g.random((m, m), dtype=np.float32) - np.float32(0.5) for m in (1024, 2048)}
    stacks = [g.random((100_000, 4, 4), dtype=np.float32) for _ in range(2)]
    pages = [g.random((10_000, 16, 16), dtype=np.float32) for _ in range(2)]
    # The complex f32 transforms of benches/fft.rs (numpy 2 transforms c64 in single
    # precision with pocketfft, one thread).
    def signal(shape):
        return (g.random(shape) + 1j * g.random(shape)).astype(np.complex64)

    ffts = {"1d": signal(1 << 20), "batched": signal((64, 1 << 14)), "2d": signal((2048, 2048))}
    cases = {
        "uniform_f32_store": lambda: g.random(N, dtype=np.float32),
        "uniform_f64_store": lambda: g.random(N),
        "normal_f32_store": lambda: g.standard_normal(N, dtype=np.float32),
        "normal_f64_store": lambda: g.standard_normal(N),
        "uniform_f32_sum": lambda: g.random(N, dtype=np.float32).sum(),
        "uniform_f64_sum": lambda: g.random(N).sum(),
        "normal_f32_sum": lambda: g.standard_normal(N, dtype=np.float32).sum(),
        "normal_f64_sum": lambda: g.standard_normal(N).sum(),
        "monte_carlo_4m": monte_carlo,
        "cg_80_f64_x50": lambda: cg_solve(*system),
        # The `midsize` benchmarks: 2^20 f32 (np.dot of f32 calls OpenBLAS sdot).
        "axpb_f32_2^20": lambda: x_mid * np.float32(1.5) + np.float32(0.25),
        "dot_f32_2^20": lambda: np.dot(x_mid, x_mid),
        "chain8_f32": lambda: chain8(x_chain, y_chain),
        "chain8_f64": lambda: chain8(x_chain64, y_chain64),
        "sgemm_1024": lambda: mats[1024] @ mats[1024],
        "sgemm_2048": lambda: mats[2048] @ mats[2048],
        "matmul_100k_4x4_f32": lambda: np.matmul(stacks[0], stacks[1]),
        "matmul_10k_16x16_f32": lambda: np.matmul(pages[0], pages[1]),
        "fft_1d_2p20_c64": lambda: np.fft.fft(ffts["1d"]),
        "fft_batched_64x2p14_c64": lambda: np.fft.fft(ffts["batched"], axis=-1),
        "fft_2d_2048x2048_c64": lambda: np.fft.fft2(ffts["2d"]),
        # The `random_laws` benchmarks.
        "exponential_f32": lambda: g.standard_exponential(LAWS, dtype=np.float32),
        "exponential_f64": lambda: g.standard_exponential(LAWS),
        "poisson_4_i64": lambda: g.poisson(4.0, LAWS),
        "poisson_1000_i64": lambda: g.poisson(1000.0, LAWS),
        "gamma_0.5_f32": lambda: g.standard_gamma(0.5, LAWS, dtype=np.float32),
        "gamma_0.5_f64": lambda: g.standard_gamma(0.5, LAWS),
        "gamma_5_f32": lambda: g.standard_gamma(5.0, LAWS, dtype=np.float32),
        "gamma_5_f64": lambda: g.standard_gamma(5.0, LAWS),
    }
    try:
        import scipy.special as sp

        # The inputs of `special` in benches/core.rs: (i % 1000) * scale + offset in f32.
        k = (np.arange(1 << 22) % 1000).astype(np.float32)
        for name, fn, scale, offset in [
            ("erfc", sp.erfc, 0.013, -3.0),
            ("erfinv", sp.erfinv, 0.001998, -0.999),
            ("lgamma", sp.gammaln, 0.05, 0.01),
            ("tgamma", sp.gamma, 0.03, 0.01),
        ]:
            x32 = k * np.float32(scale) + np.float32(offset)
            cases[f"scipy_{name}_f32"] = (lambda fn, x: lambda: fn(x))(fn, x32)
            cases[f"scipy_{name}_f64"] = (lambda fn, x: lambda: fn(x))(fn, x32.astype(np.float64))
    except ImportError:
        print("scipy is not installed: no special-function times", flush=True)
    # A filtered run keeps the other cases' times from an earlier run.
    results = {}
    if os.path.exists(OUT):
        with open(OUT) as f:
            results = json.load(f)
    results["numpy"] = np.__version__
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    for name, f in cases.items():
        if only not in name:
            continue
        results[name] = median_ns(f, repeat)
        print(f"numpy {name}: {results[name] / 1e6:.3f} ms", flush=True)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
