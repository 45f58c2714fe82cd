// y (dense, length rows) = mat (rows x cols) * x (length cols), both in any strided
// layout. T (float, double, or vec2/dvec2 for complex), MUL(u, v) (T's product), MAT and
// X (the bindings, 1 or 2, the matrix and the vector come in: a vector times a matrix is
// the transposed matrix times the vector) and OP_MAT, OP_X (the identity, or the complex
// conjugate) are defined before this text. Two forms, chosen by the launch:
// - LANE_PER_ROW: each invocation sums one row; neighbouring lanes read neighbouring
//   elements when the matrix's columns are contiguous.
// - otherwise each workgroup sums one row (row = workgroup x + y * groups x), its lanes
//   striding along it, then adding their partial sums in shared memory.
// Sums are in T, in order of the column index within a lane.
//
// meta.w: rows, cols, mat offset, row stride, column stride, x offset, x stride
// (elements; strides may be negative, so they are read as int).

#define LANES 64
layout(local_size_x = LANES) in;
layout(std430, set = 0, binding = 0) readonly buffer Meta { uint w[]; } meta;
layout(std430, set = 0, binding = MAT) readonly buffer Mat { T v[]; } mat;
layout(std430, set = 0, binding = X) readonly buffer Vec { T v[]; } x;
layout(std430, set = 0, binding = 3) writeonly buffer Y { T v[]; } y;

#ifndef LANE_PER_ROW
shared T part[LANES];
#endif

void main() {
    int rows = int(meta.w[0]), cols = int(meta.w[1]);
    int mo = int(meta.w[2]), rs = int(meta.w[3]), cs = int(meta.w[4]);
    int xo = int(meta.w[5]), xs = int(meta.w[6]);
#ifdef LANE_PER_ROW
    int i = int(gl_GlobalInvocationID.x);
    if (i >= rows) {
        return;
    }
    precise T acc = T(0);
    for (int p = 0; p < cols; p++) {
        acc += MUL(OP_MAT(mat.v[mo + i * rs + p * cs]), OP_X(x.v[xo + p * xs]));
    }
    y.v[i] = acc;
#else
    int i = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
    int l = int(gl_LocalInvocationID.x);
    precise T acc = T(0);
    if (i < rows) {
        for (int p = l; p < cols; p += LANES) {
            acc += MUL(OP_MAT(mat.v[mo + i * rs + p * cs]), OP_X(x.v[xo + p * xs]));
        }
    }
    part[l] = acc;
    memoryBarrierShared();
    barrier();
    for (int s = LANES / 2; s > 0; s >>= 1) {
        if (l < s) {
            part[l] += part[l + s];
        }
        memoryBarrierShared();
        barrier();
    }
    if (l == 0 && i < rows) {
        y.v[i] = part[0];
    }
#endif
}
