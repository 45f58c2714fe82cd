// Batched factorizations and solves of small square matrices, one matrix per workgroup
// (see src/backend/vulkan/factor.rs). The matrix is loaded into shared memory
// (m[i + j * N], column-major), lane i owning row i where a step works by rows.
//
// Passes (PASS):
// - LU: partial pivoting as LAPACK's getf2: column c's pivot is the first largest |m[i][c]|
//   for i >= c (a tree reduction over the lanes), its row swapped with row c (a lane per
//   column), the column below the diagonal divided by it unless it is zero, then the
//   rank-1 update of the trailing block (a lane per row). Writes (n + 1) x n per matrix:
//   the packed factors over the 1-based pivots.
// - CHOLESKY: from the lower triangle, column by column: the diagonal's square root, the
//   column below divided by it, the trailing lower triangle updated (a lane per row).
//   Writes L with zeros above, and to the status buffer the first column whose diagonal
//   is not positive plus one, or 0 (the host turns it into the step's error).
// - SOLVE: writes the first diagonal entry of the factor that SINGULAR(d) holds for plus
//   one, or 0, to the status buffer; when there is none, each lane solves right-hand sides
//   lane, lane + N, ... in registers: the pivots' swaps (PERMUTE), STEPS (triangular
//   solves with `lower` and `upper`), the swaps in reverse order (UNPERMUTE).
//
// Defined before this text: T (float or double), PASS, and for SOLVE: STEPS, SINGULAR(d),
// PIVOTS (the factor is LU's (n + 1) x n with its pivot row), PERMUTE or UNPERMUTE.
// meta.w: n, k (right-hand sides), count (matrices), then per operand OPERAND words: its
// offset, rank, MAX_RANK sizes and MAX_RANK strides (in elements; a rank-1 operand's
// column stride 0).

#define LU 0
#define CHOLESKY 1
#define SOLVE 2
#define MAX_RANK 8
#define N 32
#define OPERAND (2 + 2 * MAX_RANK)

layout(local_size_x = N) in;
layout(std430, set = 0, binding = 0) readonly buffer Meta { int w[]; } meta;
layout(std430, set = 0, binding = 1) readonly buffer A { T v[]; } a;
#if PASS == SOLVE
layout(std430, set = 0, binding = 2) readonly buffer B { T v[]; } rhs;
layout(std430, set = 0, binding = 3) writeonly buffer Out { T v[]; } dst;
layout(std430, set = 0, binding = 4) writeonly buffer Status { uint v[]; } status;
#else
layout(std430, set = 0, binding = 2) writeonly buffer Out { T v[]; } dst;
#if PASS == CHOLESKY
layout(std430, set = 0, binding = 3) writeonly buffer Status { uint v[]; } status;
#endif
#endif

shared T m[N * N];
// 0-based pivot rows.
shared int piv[N];
shared T best[N];
shared int best_at[N];

// Where matrix b of operand `op` starts, in elements.
int start(int op, int b) {
    int base = 3 + op * OPERAND;
    int rank = meta.w[base + 1];
    int at = meta.w[base];
    for (int d = 2; d < rank; d++) {
        int size = meta.w[base + 2 + d];
        at += (b % size) * meta.w[base + 2 + MAX_RANK + d];
        b /= size;
    }
    return at;
}

int stride(int op, int d) {
    return meta.w[3 + op * OPERAND + 2 + MAX_RANK + d];
}

#if PASS == LU
void factor(int n, int lane) {
    for (int c = 0; c < n; c++) {
        best[lane] = (lane >= c && lane < n) ? abs(m[lane + c * N]) : T(-1);
        best_at[lane] = lane;
        barrier();
        for (int s = N / 2; s > 0; s >>= 1) {
            if (lane < s) {
                T u = best[lane + s], v = best[lane];
                if (u > v || (u == v && best_at[lane + s] < best_at[lane])) {
                    best[lane] = u;
                    best_at[lane] = best_at[lane + s];
                }
            }
            barrier();
        }
        int p = best_at[0];
        if (lane == 0) piv[c] = p;
        if (p != c && lane < n) {
            T t = m[c + lane * N];
            m[c + lane * N] = m[p + lane * N];
            m[p + lane * N] = t;
        }
        barrier();
        T d = m[c + c * N];
        if (lane > c && lane < n && d != T(0)) m[lane + c * N] /= d;
        barrier();
        if (lane > c && lane < n) {
            T l = m[lane + c * N];
            for (int j = c + 1; j < n; j++) m[lane + j * N] -= l * m[c + j * N];
        }
        barrier();
    }
}
#elif PASS == CHOLESKY
// The first column whose diagonal is not positive, or -1.
int factor(int n, int lane) {
    for (int c = 0; c < n; c++) {
        T d = m[c + c * N];
        // Uniform: every lane reads the same shared value.
        if (!(d > T(0))) return c;
        d = sqrt(d);
        barrier();
        if (lane == c) m[c + c * N] = d;
        if (lane > c && lane < n) m[lane + c * N] /= d;
        barrier();
        if (lane > c && lane < n) {
            T l = m[lane + c * N];
            for (int j = c + 1; j <= lane; j++) m[lane + j * N] -= l * m[j + c * N];
        }
        barrier();
    }
    return -1;
}
#else
// Element (i, j) of the factor, or of its transpose when t.
T elem(int i, int j, bool t) {
    return t ? m[j + i * N] : m[i + j * N];
}

// x = op^-1 x for op the lower triangle of `elem(., ., t)` (its diagonal ones when unit).
void lower(inout T x[N], int n, bool t, bool unit) {
    for (int i = 0; i < n; i++) {
        T s = x[i];
        for (int j = 0; j < i; j++) s -= elem(i, j, t) * x[j];
        x[i] = unit ? s : s / elem(i, i, t);
    }
}

// x = op^-1 x for op the upper triangle of `elem(., ., t)` (its diagonal ones when unit).
void upper(inout T x[N], int n, bool t, bool unit) {
    for (int i = n - 1; i >= 0; i--) {
        T s = x[i];
        for (int j = i + 1; j < n; j++) s -= elem(i, j, t) * x[j];
        x[i] = unit ? s : s / elem(i, i, t);
    }
}

void swap(inout T x[N], int i, int p) {
    T t = x[i];
    x[i] = x[p];
    x[p] = t;
}

// Solves column c of matrix b's right-hand sides into the result.
void solve(int n, int k, int b, int c) {
    int at = start(1, b) + c * stride(1, 1), rs = stride(1, 0);
    T x[N];
    for (int i = 0; i < n; i++) x[i] = rhs.v[at + i * rs];
#ifdef PERMUTE
    for (int i = 0; i < n; i++) {
        if (piv[i] >= 0 && piv[i] < n) swap(x, i, piv[i]);
    }
#endif
    STEPS
#ifdef UNPERMUTE
    for (int i = n - 1; i >= 0; i--) {
        if (piv[i] >= 0 && piv[i] < n) swap(x, i, piv[i]);
    }
#endif
    int o = (b * k + c) * n;
    for (int i = 0; i < n; i++) dst.v[o + i] = x[i];
}
#endif

void main() {
    int n = meta.w[0], k = meta.w[1], count = meta.w[2];
    int lane = int(gl_LocalInvocationID.x);
    int rs = stride(0, 0), cs = stride(0, 1);
    for (int b = int(gl_WorkGroupID.x); b < count; b += int(gl_NumWorkGroups.x)) {
        int at = start(0, b);
        for (int e = lane; e < n * n; e += N) m[e % n + e / n * N] = a.v[at + e % n * rs + e / n * cs];
#ifdef PIVOTS
        // The pivot row (1-based, as the element type).
        if (lane < n) piv[lane] = int(a.v[at + n * rs + lane * cs]) - 1;
#endif
        barrier();
#if PASS == LU
        factor(n, lane);
        int o = b * (n + 1) * n;
        for (int e = lane; e < (n + 1) * n; e += N) {
            int i = e % (n + 1), j = e / (n + 1);
            dst.v[o + e] = i < n ? m[i + j * N] : T(piv[j] + 1);
        }
#elif PASS == CHOLESKY
        int failed = factor(n, lane);
        barrier();
        if (lane == 0) status.v[b] = uint(failed + 1);
        for (int e = lane; e < n * n; e += N) {
            int i = e % n, j = e / n;
            dst.v[b * n * n + e] = i >= j ? m[i + j * N] : T(0);
        }
#else
        int zero = -1;
        for (int i = n - 1; i >= 0; i--) {
            T d = m[i + i * N];
            if (SINGULAR(d)) zero = i;
        }
        if (lane == 0) status.v[b] = uint(zero + 1);
        if (zero < 0) {
            for (int c = lane; c < k; c += N) solve(n, k, b, c);
        }
#endif
        // Before the next matrix overwrites shared memory.
        barrier();
    }
}
