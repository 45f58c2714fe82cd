"""The 6-op complex chain of benches/core.rs (`complex/chain6_*`) driven through the C API
of a given libsluice.so, a fixed number of calls, printing the minimum, first quartile and
median time per call: for A/B runs of two builds alternated on a shared machine, where
the minimum and quartile move less than criterion's mean.

    python3 scripts/bench_complex_chain.py LIBSLUICE.so DTYPE N CALLS
    (DTYPE 6 = SL_C64, 7 = SL_C128)
"""
import ctypes as C, sys, time, array
lib = C.CDLL(sys.argv[1]); dt = int(sys.argv[2]); n = int(sys.argv[3]); iters = int(sys.argv[4])
A = C.c_uint64
def ck(s):
    if s != 0: raise SystemExit(f"status {s}")
ck(lib.sl_init(None))
w = 8 if dt == 6 else 16
fmt = 'f' if dt == 6 else 'd'
base = array.array(fmt, [((i % 1000) * 0.001 - 0.5) for i in range(2 * 65536)])
re = base * (n // 65536)
im = array.array(fmt, reversed(base)) * (n // 65536)
def up(buf):
    h = A(); dims = C.c_int64(n)
    addr, _ = buf.buffer_info()
    ck(lib.sl_create(dt, 1, C.byref(dims), 0, C.c_void_p(addr), C.c_size_t(n * w), C.byref(h))); return h
a, b = up(re), up(im)
lib.sl_mul_scalar.argtypes = [A, C.c_double, C.POINTER(A)]
lib.sl_binary_scalar_c.argtypes = [C.c_int, A, C.c_double, C.c_double, C.POINTER(A)]
def chain():
    p, c, s, h, d, r, out = (A() for _ in range(7))
    ck(lib.sl_scope_begin())
    ck(lib.sl_mul(a, b, C.byref(p))); ck(lib.sl_conj(a, C.byref(c))); ck(lib.sl_add(p, c, C.byref(s)))
    ck(lib.sl_mul_scalar(s, 0.5, C.byref(h))); ck(lib.sl_sub(h, b, C.byref(d)))
    ck(lib.sl_binary_scalar_c(2, d, 1.0, -2.0, C.byref(r))); ck(lib.sl_add(r, a, C.byref(out)))
    ck(lib.sl_keep(out)); ck(lib.sl_scope_end())
    ck(lib.sl_eval(C.byref(out), 1)); ck(lib.sl_sync()); ck(lib.sl_release(out))
for _ in range(3): chain()
ts = []
for _ in range(iters):
    t = time.perf_counter(); chain(); ts.append(time.perf_counter() - t)
ts.sort()
print(f"min {ts[0]*1e3:.3f} q25 {ts[len(ts)//4]*1e3:.3f} med {ts[len(ts)//2]*1e3:.3f} ms")
