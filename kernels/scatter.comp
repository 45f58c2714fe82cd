// out = dst with values[i] combined into out[index_0[i], index_1[i], ...] for each source
// position i (column-major over the values' shape); positions with an index out of range
// are dropped. Three passes, chosen by PASS:
//   0: copy dst (any layout) densely into out, a word at a time; for replace, set every
//      destination's winner to -1;
//   1: replace: each source claims its destination with atomicMax(winner, i), so the
//      highest source index wins; add/min/max: combine the value into its destination
//      with a compare-and-swap loop on the word holding it;
//   2: replace only: each winning source writes its value.
// out is bound as words (WORD: uint, or uint64_t for 8-byte elements); elements of one
// byte are packed four to a word (PACKED), so neighbours are never written non-atomically.
//
// Defined before this text: PASS, REPLACE (0/1), T (register type), MEM (element type
// in memory), WORD, PACKED (0/1), DRANK (destination rank = index arrays), VRANK (rank of
// the sources' shape); the index buffers idx0..; and
//   T combine(T old, T new), WORD to_bits(T x), T from_bits(WORD w), T from_mem(MEM x),
//   int64_t load_index(int d, int at).
//
// meta.w (int): sources, destination elements, the DRANK destination dims, the VRANK
// source dims, then each array's offset and strides (in elements): dst (DRANK strides),
// values (VRANK), each index array (VRANK).

#define M_SOURCES 0
#define M_ELEMS 1
#define M_DDIMS 2
#define M_VDIMS (M_DDIMS + DRANK)
#define M_DST (M_VDIMS + VRANK)
#define M_VALS (M_DST + 1 + DRANK)
#define M_IDX(d) (M_VALS + (1 + VRANK) * (1 + (d)))
#define STRIDE (gl_NumWorkGroups.x * gl_WorkGroupSize.x)

layout(local_size_x = 128) in;

// Offset of the element at column-major position `lin` of a shape (its dims at `dims`)
// in an array whose offset and strides are at `at`.
int offset_of(int lin, int rank, int dims, int at) {
    int off = meta.w[at];
    for (int d = 0; d < rank; d++) {
        int n = meta.w[dims + d];
        off += (lin % n) * meta.w[at + 1 + d];
        lin /= n;
    }
    return off;
}

// The destination element source `i` goes to, or -1 if an index is out of range.
int target_of(int i) {
    int t = 0, scale = 1;
    for (int d = 0; d < DRANK; d++) {
        int64_t c = load_index(d, offset_of(i, VRANK, M_VDIMS, M_IDX(d)));
        int n = meta.w[M_DDIMS + d];
        if (c < 0 || c >= n) {
            return -1;
        }
        t += int(c) * scale;
        scale *= n;
    }
    return t;
}

T source_value(int i) {
    return from_mem(vals.v[offset_of(i, VRANK, M_VDIMS, M_VALS)]);
}

void main() {
    int sources = meta.w[M_SOURCES], elems = meta.w[M_ELEMS];
#if PASS == 0
    int words = PACKED == 1 ? (elems + 3) / 4 : elems;
    for (uint k = gl_GlobalInvocationID.x; k < uint(words); k += STRIDE) {
#if PACKED == 1
        WORD w = 0u;
        for (int b = 0; b < 4 && 4 * int(k) + b < elems; b++) {
            w |= to_bits(from_mem(dst.v[offset_of(4 * int(k) + b, DRANK, M_DDIMS, M_DST)])) << (8 * b);
        }
        out_w.w[k] = w;
#else
        out_w.w[k] = to_bits(from_mem(dst.v[offset_of(int(k), DRANK, M_DDIMS, M_DST)]));
#endif
    }
#if REPLACE == 1
    for (uint j = gl_GlobalInvocationID.x; j < uint(elems); j += STRIDE) {
        winner.w[j] = -1;
    }
#endif
#else
    for (uint i = gl_GlobalInvocationID.x; i < uint(sources); i += STRIDE) {
        int t = target_of(int(i));
        if (t < 0) {
            continue;
        }
#if PACKED == 1
        uint at = uint(t) >> 2, shift = 8u * (uint(t) & 3u);
        WORD mask = 0xFFu << shift;
#else
        uint at = uint(t), shift = 0u;
        WORD mask = ~WORD(0);
#endif
#if REPLACE == 1 && PASS == 1
        atomicMax(winner.w[t], int(i));
#elif REPLACE == 1
        if (winner.w[t] == int(i)) {
#if PACKED == 1
            atomicAnd(out_w.w[at], ~mask);
            atomicOr(out_w.w[at], to_bits(source_value(int(i))) << shift);
#else
            out_w.w[at] = to_bits(source_value(int(i)));
#endif
        }
#else
        T v = source_value(int(i));
        WORD old = out_w.w[at];
        for (;;) {
            T now = combine(from_bits((old & mask) >> shift), v);
            WORD next = (old & ~mask) | (to_bits(now) << shift);
            WORD seen = atomicCompSwap(out_w.w[at], old, next);
            if (seen == old) {
                break;
            }
            old = seen;
        }
#endif
    }
#endif
}
