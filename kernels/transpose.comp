// A copy through a permutation: the output (dense, column-major, first dimension
// fastest) holds the input read at offset + sum c[d] * stride[d], where the input is
// contiguous along dimension B of the output and the output along dimension A (A != B).
// Each workgroup copies TILE x TILE blocks of the (A, B) plane, one at a time
// (grid-stride over blocks and over the other dimensions, the "batch"): it reads a block
// with neighbouring invocations along B, so reads are contiguous, into shared memory,
// and writes it with neighbouring invocations along A, so writes are contiguous too.
//
// Defined before this text: WORD (the element's type in memory: uint8_t, uint or
// uint64_t; elements are copied as bits) and REG (the type held in shared memory).
//
// meta.w: rank, A, B, blocks along A, blocks along B, blocks in all, input offset, then
// the output's dims (rank of them) and the input's strides over them (elements; strides
// may be negative, so words are read as int).

#define TILE 32
#define ROWS 4
layout(local_size_x = TILE, local_size_y = ROWS) in;
layout(std430, set = 0, binding = 0) readonly buffer Meta { int w[]; } meta;
layout(std430, set = 0, binding = 1) readonly buffer In { WORD v[]; } src;
layout(std430, set = 0, binding = 2) writeonly buffer Out { WORD v[]; } dst;

// One more column than TILE: reading a column then hits TILE different banks.
shared REG block[TILE][TILE + 1];

#define RANK meta.w[0]
#define DIM(d) meta.w[7 + (d)]
#define STRIDE(d) meta.w[7 + RANK + (d)]

void main() {
    int a = meta.w[1], b = meta.w[2];
    int blocks_a = meta.w[3], blocks_b = meta.w[4], blocks = meta.w[5];
    int na = DIM(a), nb = DIM(b), sa = STRIDE(a), sb = STRIDE(b);
    int x = int(gl_LocalInvocationID.x), y = int(gl_LocalInvocationID.y);
    for (int t = int(gl_WorkGroupID.x); t < blocks; t += int(gl_NumWorkGroups.x)) {
        int ba = t % blocks_a, bb = (t / blocks_a) % blocks_b, batch = t / (blocks_a * blocks_b);
        // Where this block's plane starts in the input and the output, and the output's
        // strides along A and B.
        int from = meta.w[6], to = 0, dense = 1, oa = 0, ob = 0;
        for (int d = 0; d < RANK; d++) {
            int n = DIM(d);
            if (d == a) {
                oa = dense;
            } else if (d == b) {
                ob = dense;
            } else {
                int c = batch % n;
                batch /= n;
                from += c * STRIDE(d);
                to += c * dense;
            }
            dense *= n;
        }
        for (int r = y; r < TILE; r += ROWS) {
            int ia = ba * TILE + r, ib = bb * TILE + x;
            if (ia < na && ib < nb) {
                block[r][x] = REG(src.v[from + ia * sa + ib * sb]);
            }
        }
        memoryBarrierShared();
        barrier();
        for (int r = y; r < TILE; r += ROWS) {
            int ia = ba * TILE + x, ib = bb * TILE + r;
            if (ia < na && ib < nb) {
                dst.v[to + ia * oa + ib * ob] = WORD(block[x][r]);
            }
        }
        // The block is refilled for the next one.
        memoryBarrierShared();
        barrier();
    }
}
