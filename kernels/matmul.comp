// c (m x n x products, dense column-major) = a (m x k) * b (k x n) for each product of a
// batch, both in any strided layout. T (float, double, or vec2/dvec2 for complex),
// MUL(u, v) (T's product) and OP_A, OP_B (the identity, or the complex conjugate) are
// defined before this text. A generalized product (c(i, j) = REDUCE over q of
// COMBINE(a(i, q), b(q, j)), starting from ID) defines those three as well; the plain
// product's are the sum, MUL and 0. Two forms, chosen by the launch:
// - tiled: each workgroup computes a TILE x TILE block of one product's c, staging
//   TILE x TILE blocks of a and b in shared memory; workgroup g (= x + y * groups x)
//   takes block g % tiles m, g / tiles m % tiles n of product g / (tiles m * tiles n).
// - SMALL (matrices of a few elements, many products): each invocation computes one
//   element of c, reading a and b straight from memory.
// Each invocation accumulates its element in T, in order of the inner index.
//
// meta.w: m, n, k, a offset, a stride 0, a stride 1, b offset, b stride 0, b stride 1,
// tiles m, tiles n, products, batch rank r, the r batch sizes, a's r batch strides, b's
// r batch strides (elements; strides may be negative, so they are read as int; an
// operand's stride is 0 along the batch dimensions it broadcasts).

#define TILE 16
#ifndef COMBINE
#define ID T(0)
#define REDUCE(x, y) ((x) + (y))
#define COMBINE(u, v) MUL(u, v)
#endif
#ifdef SMALL
layout(local_size_x = 64) in;
#else
layout(local_size_x = TILE, local_size_y = TILE) in;
shared T ta[TILE][TILE];
shared T tb[TILE][TILE];
#endif
layout(std430, set = 0, binding = 0) readonly buffer Meta { uint w[]; } meta;
layout(std430, set = 0, binding = 1) readonly buffer A { T v[]; } a;
layout(std430, set = 0, binding = 2) readonly buffer B { T v[]; } b;
layout(std430, set = 0, binding = 3) writeonly buffer C { T v[]; } c;

// The offsets of product p's a and b.
ivec2 operands(int p) {
    int rank = int(meta.w[12]);
    ivec2 o = ivec2(int(meta.w[3]), int(meta.w[6]));
    for (int d = 0; d < rank; d++) {
        int size = int(meta.w[13 + d]);
        int i = p % size;
        p /= size;
        o += i * ivec2(int(meta.w[13 + rank + d]), int(meta.w[13 + 2 * rank + d]));
    }
    return o;
}

void main() {
    int m = int(meta.w[0]), n = int(meta.w[1]), k = int(meta.w[2]);
    int a0 = int(meta.w[4]), a1 = int(meta.w[5]);
    int b0 = int(meta.w[7]), b1 = int(meta.w[8]);
    int tiles_m = int(meta.w[9]), tiles_n = int(meta.w[10]), products = int(meta.w[11]);
#ifdef SMALL
    int e = int(gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u);
    int p = e / (m * n);
    if (p >= products) {
        return;
    }
    int i = e % m, j = e / m % n;
    ivec2 o = operands(p);
    precise T acc = ID;
    for (int q = 0; q < k; q++) {
        acc = REDUCE(acc, COMBINE(OP_A(a.v[o.x + i * a0 + q * a1]), OP_B(b.v[o.y + q * b0 + j * b1])));
    }
#else
    int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
    int p = g / (tiles_m * tiles_n);
    // Whole workgroups past the last product leave before any barrier.
    if (p >= products) {
        return;
    }
    int li = int(gl_LocalInvocationID.x), lj = int(gl_LocalInvocationID.y);
    int i = g % tiles_m * TILE + li, j = g / tiles_m % tiles_n * TILE + lj;
    ivec2 o = operands(p);
    precise T acc = ID;
    for (int t = 0; t < k; t += TILE) {
        // ta[p][li] = a(i, t + p); tb[lj][p] = b(t + p, j)
        ta[lj][li] = (i < m && t + lj < k) ? OP_A(a.v[o.x + i * a0 + (t + lj) * a1]) : T(0);
        tb[lj][li] = (t + li < k && j < n) ? OP_B(b.v[o.y + (t + li) * b0 + j * b1]) : T(0);
        memoryBarrierShared();
        barrier();
        // Only the tile's columns inside k: padding is no identity of every pair.
        int steps = min(TILE, k - t);
        for (int q = 0; q < steps; q++) {
            acc = REDUCE(acc, COMBINE(ta[q][li], tb[lj][q]));
        }
        memoryBarrierShared();
        barrier();
    }
#endif
    if (i < m && j < n) {
        c.v[p * m * n + i + j * m] = acc;
    }
}
