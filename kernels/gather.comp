// A copy of whole slices (see src/ir/slices.rs): out[j * LEN + i] = src[offset[j] + i]
// for every slice j and i < LEN, where a generated pass before this one has written each
// slice's offset in the source. Slices are cut into blocks of BLOCK elements; each
// workgroup copies one block at a time (grid-stride over the blocks of every slice, with
// workgroups along x, then y), neighbouring invocations taking neighbouring elements, so
// reads and writes are contiguous and no index is computed per element.
//
// Defined before this text: WORD (the element's type in memory: uint8_t, uint or
// uint64_t; elements are copied as bits), BASE (where this kernel's meta words start,
// after the offsets pass's), and the bindings SRC, OFFSETS and OUT.
//
// meta.w from BASE: elements per slice (LEN), blocks per slice, blocks in all.

#define ITEMS 8
#define BLOCK (128 * ITEMS)
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) readonly buffer Meta { int w[]; } meta;
layout(std430, set = 0, binding = SRC) readonly buffer In { WORD v[]; } src;
layout(std430, set = 0, binding = OFFSETS) readonly buffer Offsets { int64_t v[]; } offsets;
layout(std430, set = 0, binding = OUT) writeonly buffer Out { WORD v[]; } dst;

void main() {
    uint len = uint(meta.w[BASE]), parts = uint(meta.w[BASE + 1]), blocks = uint(meta.w[BASE + 2]);
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    for (uint b = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; b < blocks; b += groups) {
        uint slice = b / parts, first = (b % parts) * BLOCK;
        uint from = uint(offsets.v[slice]) + first, to = slice * len + first;
        uint n = min(uint(BLOCK), len - first);
        for (uint i = gl_LocalInvocationID.x; i < n; i += 128u) {
            dst.v[to + i] = src.v[from + i];
        }
    }
}
