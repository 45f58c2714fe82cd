// c (m x n, dense column-major) = a (m x k) * b (k x n), both in any strided layout.
// T (float, double, or vec2/dvec2 for complex), MUL(u, v) (T's product) and OP_A, OP_B
// (the identity, or the complex conjugate) are defined before this text. Each workgroup computes a TILE x TILE
// block of c, staging TILE x TILE blocks of a and b in shared memory; each invocation
// accumulates one element in T, in order of the inner index.
//
// meta.w: m, n, k, a offset, a stride 0, a stride 1, b offset, b stride 0, b stride 1
// (elements; strides may be negative, so they are read as int).

#define TILE 16
layout(local_size_x = TILE, local_size_y = TILE) in;
layout(std430, set = 0, binding = 0) readonly buffer Meta { uint w[]; } meta;
layout(std430, set = 0, binding = 1) readonly buffer A { T v[]; } a;
layout(std430, set = 0, binding = 2) readonly buffer B { T v[]; } b;
layout(std430, set = 0, binding = 3) writeonly buffer C { T v[]; } c;

shared T ta[TILE][TILE];
shared T tb[TILE][TILE];

void main() {
    int m = int(meta.w[0]), n = int(meta.w[1]), k = int(meta.w[2]);
    int ao = int(meta.w[3]), a0 = int(meta.w[4]), a1 = int(meta.w[5]);
    int bo = int(meta.w[6]), b0 = int(meta.w[7]), b1 = int(meta.w[8]);
    int i = int(gl_GlobalInvocationID.x), j = int(gl_GlobalInvocationID.y);
    int li = int(gl_LocalInvocationID.x), lj = int(gl_LocalInvocationID.y);
    precise T acc = T(0);
    for (int t = 0; t < k; t += TILE) {
        // ta[p][li] = a(i, t + p); tb[lj][p] = b(t + p, j)
        ta[lj][li] = (i < m && t + lj < k) ? OP_A(a.v[ao + i * a0 + (t + lj) * a1]) : T(0);
        tb[lj][li] = (t + li < k && j < n) ? OP_B(b.v[bo + (t + li) * b0 + j * b1]) : T(0);
        memoryBarrierShared();
        barrier();
        for (int p = 0; p < TILE; p++) {
            acc += MUL(ta[p][li], tb[lj][p]);
        }
        memoryBarrierShared();
        barrier();
    }
    if (i < m && j < n) {
        c.v[i + j * m] = acc;
    }
}
