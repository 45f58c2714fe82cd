// Final pass of a tree reduction: one workgroup per output row (grid-stride over rows)
// folds that row's partials, which the generated first pass wrote (one per workgroup of
// it), then combines its invocations within each subgroup by shuffles (SUBGROUPS == 1)
// and across subgroups (or across all invocations) through shared memory, and stores
// the row's result.
//
// This text defines FINAL_PASS(), a function that does this for one reduction; it is
// included once per reduction of a kernel, each time with the definitions below, and
// main() calls them in turn.
//
// Defined before this text: FINAL_PASS (the function's name), LOCAL (invocations per
// workgroup, a power of two), SUBGROUPS (0/1), O (the output's number), ACC (accumulator type), IDENTITY, COMBINE(inout ACC a,
// inout int64_t ai, ACC b, int64_t bi), ENCODE(ACC) -> uvec2, DECODE(uvec2) -> ACC, the
// buffers meta and part, and STORE_RESULT(uint row, ACC a, int64_t ai).
//
// meta.w[2] is the number of rows, meta.w[3] the partials per row; partial g of row r of
// output O is the pair part.p[2 * ((O * rows + r) * parts + g)] (value) and the next
// word (index, for arg-reductions; -1 when none).

#ifndef REDUCE_SHARED
#define REDUCE_SHARED
shared uvec2 red_a[LOCAL];
shared uvec2 red_i[LOCAL];
#define INDEX_OF(w) int64_t(packUint2x32(w))
#define INDEX_WORDS(i) unpackUint2x32(uint64_t(i))
#endif

void FINAL_PASS() {
    uint lid = gl_LocalInvocationID.x;
    uint rows = meta.w[2], parts = meta.w[3];
    for (uint row = gl_WorkGroupID.x; row < rows; row += gl_NumWorkGroups.x) {
        ACC a = IDENTITY;
        int64_t ai = -1;
        for (uint g = lid; g < parts; g += LOCAL) {
            uint at = ((O * rows + row) * parts + g) * 2u;
            COMBINE(a, ai, DECODE(part.p[at]), INDEX_OF(part.p[at + 1u]));
        }
#if SUBGROUPS == 1
        for (uint d = gl_SubgroupSize / 2u; d > 0u; d >>= 1) {
            uvec2 b = subgroupShuffleDown(ENCODE(a), d);
            uvec2 bi = subgroupShuffleDown(INDEX_WORDS(ai), d);
            if (gl_SubgroupInvocationID + d < gl_SubgroupSize) {
                COMBINE(a, ai, DECODE(b), INDEX_OF(bi));
            }
        }
        uint n = gl_NumSubgroups;
        if (gl_SubgroupInvocationID == 0u) {
            red_a[gl_SubgroupID] = ENCODE(a);
            red_i[gl_SubgroupID] = INDEX_WORDS(ai);
        }
#else
        uint n = LOCAL;
        red_a[lid] = ENCODE(a);
        red_i[lid] = INDEX_WORDS(ai);
#endif
        memoryBarrierShared();
        barrier();
        for (uint s = n / 2u; s > 0u; s >>= 1) {
            if (lid < s) {
                ACC x = DECODE(red_a[lid]);
                int64_t xi = INDEX_OF(red_i[lid]);
                COMBINE(x, xi, DECODE(red_a[lid + s]), INDEX_OF(red_i[lid + s]));
                red_a[lid] = ENCODE(x);
                red_i[lid] = INDEX_WORDS(xi);
            }
            memoryBarrierShared();
            barrier();
        }
        if (lid == 0u) {
            STORE_RESULT(row, DECODE(red_a[0]), INDEX_OF(red_i[0]));
        }
        // red_a is reused by the next row.
        memoryBarrierShared();
        barrier();
    }
}
