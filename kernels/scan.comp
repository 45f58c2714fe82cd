// Workgroup steps of the blocked scan along an axis (codegen `Mode::ScanBlocks`). Each
// workgroup owns one block of one row: LOCAL invocations of ITEMS consecutive points.
// The generated first pass folds each invocation's points and calls SCAN_TOTAL to write
// the block's total; the generated second pass calls SCAN_CARRY (what the earlier blocks
// of the row add up to) and SCAN_EXCLUSIVE (what the earlier invocations of the block
// add up to), then writes carry + exclusive + the invocation's own running value.
//
// The order of operations depends only on the row's length, never on the rest of the
// kernel, so a scan gives the same bits fused or alone.
//
// This text defines the three functions for one scan; it is included once per scan of a
// kernel, each time with the definitions below.
//
// Defined before this text: SCAN_TOTAL, SCAN_CARRY, SCAN_EXCLUSIVE (the functions'
// names), LOCAL (invocations per workgroup, a power of two), S (the scan's number among
// the kernel's scans), ACC (the carry type), IDENTITY, OP(ACC a, ACC b) -> ACC (precise),
// ENCODE(ACC) -> uvec2, DECODE(uvec2) -> ACC, the buffers meta and part.
//
// meta.w[2] is the number of rows, meta.w[3] the blocks per row; the total of block b
// of row r of scan S is part.p[(S * rows + r) * blocks + b].

#ifndef SCAN_SHARED
#define SCAN_SHARED
shared uvec2 scan_sh[LOCAL];
#endif

// The workgroup's values combined in a fixed tree; every invocation gets the result.
ACC SCAN_TOTAL(ACC a) {
    uint lid = gl_LocalInvocationID.x;
    scan_sh[lid] = ENCODE(a);
    memoryBarrierShared();
    barrier();
    for (uint s = LOCAL / 2u; s > 0u; s >>= 1) {
        if (lid < s) {
            scan_sh[lid] = ENCODE(OP(DECODE(scan_sh[lid]), DECODE(scan_sh[lid + s])));
        }
        memoryBarrierShared();
        barrier();
    }
    ACC total = DECODE(scan_sh[0]);
    // scan_sh is reused by the next call.
    memoryBarrierShared();
    barrier();
    return total;
}

// The totals of blocks 0 .. blk - 1 of row `row`, combined: each invocation folds every
// LOCAL-th of them, then the workgroup combines the invocations (SCAN_TOTAL).
ACC SCAN_CARRY(uint row, uint blk) {
    uint rows = meta.w[2], blocks = meta.w[3];
    ACC a = IDENTITY;
    for (uint b = gl_LocalInvocationID.x; b < blk; b += LOCAL) {
        a = OP(a, DECODE(part.p[(S * rows + row) * blocks + b]));
    }
    return SCAN_TOTAL(a);
}

// The values of invocations 0 .. lid - 1 combined (an exclusive scan over the workgroup,
// Hillis-Steele: log2(LOCAL) steps).
ACC SCAN_EXCLUSIVE(ACC a) {
    uint lid = gl_LocalInvocationID.x;
    scan_sh[lid] = ENCODE(a);
    memoryBarrierShared();
    barrier();
    for (uint d = 1u; d < LOCAL; d <<= 1) {
        ACC x = DECODE(scan_sh[lid]);
        if (lid >= d) {
            x = OP(DECODE(scan_sh[lid - d]), x);
        }
        memoryBarrierShared();
        barrier();
        scan_sh[lid] = ENCODE(x);
        memoryBarrierShared();
        barrier();
    }
    ACC before = lid == 0u ? IDENTITY : DECODE(scan_sh[lid - 1u]);
    memoryBarrierShared();
    barrier();
    return before;
}
