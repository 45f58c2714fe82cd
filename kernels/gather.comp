// A copy of whole slices (see src/ir/slices.rs): out[j * LEN + i] = src[offset[j] + i]
// for every slice j and i < LEN, where a generated pass before this one has written each
// slice's offset in the source. Each slice is copied by LANES neighbouring invocations (a
// power of two, at most the workgroup's 128, chosen at launch to fit the slice), so a
// workgroup copies 128 / LANES slices at a time; long slices are cut into parts of
// LANES * ITEMS elements. Workgroups take one block (a group of slices, one part) at a
// time, grid-stride over the blocks, with workgroups along x, then y. Neighbouring
// invocations take neighbouring elements, so reads and writes are contiguous and no
// index is computed per element.
//
// Defined before this text: WORD (the element's type in memory: uint8_t, uint or
// uint64_t; elements are copied as bits), BASE (where this kernel's meta words start,
// after the offsets pass's), and the bindings SRC, OFFSETS and OUT.
//
// meta.w from BASE: slices, elements per slice (LEN), log2 LANES, parts per slice, blocks
// in all.

#define ITEMS 8u
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) readonly buffer Meta { int w[]; } meta;
layout(std430, set = 0, binding = SRC) readonly buffer In { WORD v[]; } src;
layout(std430, set = 0, binding = OFFSETS) readonly buffer Offsets { int64_t v[]; } offsets;
layout(std430, set = 0, binding = OUT) writeonly buffer Out { WORD v[]; } dst;

void main() {
    uint slices = uint(meta.w[BASE]), len = uint(meta.w[BASE + 1]), shift = uint(meta.w[BASE + 2]);
    uint parts = uint(meta.w[BASE + 3]), blocks = uint(meta.w[BASE + 4]);
    uint lanes = 1u << shift, part_len = lanes * ITEMS;
    uint lane = gl_LocalInvocationID.x & (lanes - 1u), sub = gl_LocalInvocationID.x >> shift;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    for (uint b = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; b < blocks; b += groups) {
        uint slice = (b / parts) * (128u >> shift) + sub, first = (b % parts) * part_len;
        if (slice >= slices) {
            continue;
        }
        uint from = uint(offsets.v[slice]) + first, to = slice * len + first;
        uint n = min(part_len, len - first);
        for (uint i = lane; i < n; i += lanes) {
            dst.v[to + i] = src.v[from + i];
        }
    }
}
