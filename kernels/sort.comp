// Sorts and argsorts along a dimension, and searchsorted (see src/backend/vulkan/sort.rs).
// Every element becomes a record of R words: its directed key (R - 1 words, most
// significant first, whose unsigned order is the sort order: backend/cpu/sort.rs's
// mapping) and its position along its line. Records are distinct, so sorting them by
// all their words is the stable sort. Lines are numbered over the other dimensions,
// first fastest; line l's records are at l * n .. l * n + n of a scratch region.
//
// Passes (PASS):
// - TILE: each workgroup loads a tile of P records (P a power of two; a whole line when
//   it fits, else P consecutive elements of one) into shared memory, padding with
//   records above every real one, bitonic-sorts them and stores them to region 0.
// - MERGE: sorted runs of WIDTH records become runs of 2 WIDTH, region FROM to region
//   1 - FROM: each invocation writes ITEMS consecutive records of a merged run, finding
//   where they start in the two runs by a binary search along the merge path, then
//   merging sequentially.
// - EMIT: each output element takes the position of its record (ARGSORT, as i64) or the
//   input element at that position (bits copied; bytes four to an invocation).
// - SEARCH (searchsorted, no scratch): for each element of the values (binding 2), the
//   number of elements of the sorted vector (binding 1) whose ascending keys are below
//   its key (RIGHT: not above), by a binary search, as i64 (binding 3).
//
// Defined before this text: R, ELEM (the input's element bytes: 1, 4 or 8), FLOAT or
// SIGNED (how bits become keys; neither for u8 and bool), DESCENDING, PASS and its
// numbers (TILE: P, LANES; MERGE: WIDTH, FROM; EMIT: FROM, ARGSORT; SEARCH: RIGHT).
//
// meta.w but for SEARCH: n (line length), lines, rank, dim, the input's offset, then
// MAX_RANK sizes and MAX_RANK input strides (in elements).

#define TILE 0
#define MERGE 1
#define EMIT 2
#define SEARCH 3
#define MAX_RANK 8
#define SIGN 0x80000000u
#define ITEMS 16

#if PASS != TILE
#define LANES 64
#endif
layout(local_size_x = LANES) in;
layout(std430, set = 0, binding = 0) readonly buffer Meta { int w[]; } meta;
layout(std430, set = 0, binding = 1) readonly buffer In { uint v[]; } src;
#if PASS == SEARCH
layout(std430, set = 0, binding = 2) readonly buffer Values { uint v[]; } values;
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint v[]; } dst;
#else
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint v[]; } dst;
layout(std430, set = 0, binding = 3) buffer Scratch { uint v[]; } scratch;
#endif

// Where line l starts in the input, in elements.
int line_start(int l) {
    int rank = meta.w[2], dim = meta.w[3];
    int at = meta.w[4];
    for (int d = 0; d < rank; d++) {
        if (d == dim) continue;
        int size = meta.w[5 + d];
        at += (l % size) * meta.w[5 + MAX_RANK + d];
        l /= size;
    }
    return at;
}

int line_step() {
    return meta.w[5 + MAX_RANK + meta.w[3]];
}

// The word of element a's bits in buffer buf at part `word` (ELEM 8: 0 low, 1 high).
#if ELEM == 1
#define BITS(buf, a, word) ((buf.v[(a) >> 2] >> (8u * uint((a) & 3))) & 0xFFu)
#elif ELEM == 4
#define BITS(buf, a, word) buf.v[a]
#else
#define BITS(buf, a, word) buf.v[2 * (a) + (word)]
#endif

// The record at `position` of the element of bits (lo, hi): its directed key (NaNs the
// largest key in both directions, -0 +0's) and the position. Records compare without branches (lavapipe
// runs diverging lanes one after the other).
#if R == 2
#define REC uvec2
bool below(uvec2 a, uvec2 b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}
REC record(uint x, uint unused, uint position) {
#ifdef FLOAT
    uint mag = x & ~SIGN;
    if (mag > 0x7F800000u) return uvec2(~0u, position);
    x = mag == 0u ? 0u : x;
    x = (x & SIGN) != 0u ? ~x : x | SIGN;
#elif defined(SIGNED)
    x ^= SIGN;
#endif
#ifdef DESCENDING
    x = ~x;
#endif
    return uvec2(x, position);
}
#if PASS != SEARCH
REC load(int at) {
    return uvec2(scratch.v[at], scratch.v[at + 1]);
}
void put(int at, REC r) {
    scratch.v[at] = r.x;
    scratch.v[at + 1] = r.y;
}
#endif
#else
#define REC uvec3
bool below(uvec3 a, uvec3 b) {
    return a.x < b.x || (a.x == b.x && (a.y < b.y || (a.y == b.y && a.z < b.z)));
}
REC record(uint lo, uint hi, uint position) {
#ifdef FLOAT
    uint mag = hi & ~SIGN;
    if (mag > 0x7FF00000u || (mag == 0x7FF00000u && lo != 0u)) return uvec3(~0u, ~0u, position);
    hi = (mag | lo) == 0u ? 0u : hi;
    bool negative = (hi & SIGN) != 0u;
    hi = negative ? ~hi : hi | SIGN;
    lo = negative ? ~lo : lo;
#elif defined(SIGNED)
    hi ^= SIGN;
#endif
#ifdef DESCENDING
    hi = ~hi;
    lo = ~lo;
#endif
    return uvec3(hi, lo, position);
}
#if PASS != SEARCH
REC load(int at) {
    return uvec3(scratch.v[at], scratch.v[at + 1], scratch.v[at + 2]);
}
void put(int at, REC r) {
    scratch.v[at] = r.x;
    scratch.v[at + 1] = r.y;
    scratch.v[at + 2] = r.z;
}
#endif
#endif

// Input element a's record.
REC element(int a, uint position) {
    return record(BITS(src, a, 0), BITS(src, a, 1), position);
}

#if PASS == TILE

shared REC sh[P];

void main() {
    int n = meta.w[0], lines = meta.w[1];
    int lid = int(gl_LocalInvocationID.x);
    int per_line = (n + P - 1) / P;
    for (int t = int(gl_WorkGroupID.x); t < lines * per_line; t += int(gl_NumWorkGroups.x)) {
        int l = t / per_line, first = (t - l * per_line) * P;
        int len = min(P, n - first);
        int start = line_start(l), step = line_step();
        for (int i = lid; i < P; i += LANES) sh[i] = i < len ? element(start + (first + i) * step, uint(first + i)) : REC(~0u);
        barrier();
        for (int k = 2; k <= P; k <<= 1) {
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int c = lid; c < P / 2; c += LANES) {
                    // Comparator c joins a (bit j clear) and a + j; runs alternate direction.
                    int a = ((c & ~(j - 1)) << 1) | (c & (j - 1)), b = a + j;
                    REC x = sh[a], y = sh[b];
                    bool swap = (a & k) == 0 ? below(y, x) : below(x, y);
                    sh[a] = swap ? y : x;
                    sh[b] = swap ? x : y;
                }
                barrier();
            }
        }
        int base = (l * n + first) * R;
        for (int i = lid; i < len; i += LANES) put(base + i * R, sh[i]);
        barrier();
    }
}

#elif PASS == MERGE

void main() {
    int n = meta.w[0], lines = meta.w[1];
    int from = FROM * n * lines * R, to = (1 - FROM) * n * lines * R;
    // Chunks of ITEMS outputs: per pair of runs, 2 WIDTH / ITEMS of them.
    int per_pair = 2 * WIDTH / ITEMS, per_line = (n + 2 * WIDTH - 1) / (2 * WIDTH) * per_pair;
    for (int g = int(gl_GlobalInvocationID.x); g < lines * per_line; g += int(gl_NumWorkGroups.x) * LANES) {
        int l = g / per_line, c = g - l * per_line;
        int start = (c / per_pair) * 2 * WIDTH, d = (c % per_pair) * ITEMS;
        int la = min(WIDTH, n - start), lb = clamp(n - start - WIDTH, 0, WIDTH);
        if (d >= la + lb) continue;
        int a = from + (l * n + start) * R, b = a + la * R;
        // Merge path: i records of run a and d - i of run b come before output d.
        int lo = max(0, d - lb), hi = min(d, la);
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            bool under = below(load(a + mid * R), load(b + (d - mid - 1) * R));
            lo = under ? mid + 1 : lo;
            hi = under ? hi : mid;
        }
        int i = lo, j = d - lo, at = to + (l * n + start + d) * R;
        // Indices clamped into the runs (b's last may be a's last: never taken).
        REC x = load(a + min(i, la - 1) * R), y = load(b + min(j, lb - 1) * R);
        for (int t = 0; t < ITEMS && d + t < la + lb; t++) {
            bool take_a = j >= lb || (i < la && below(x, y));
            put(at + t * R, take_a ? x : y);
            if (take_a) {
                i++;
                x = load(a + min(i, la - 1) * R);
            } else {
                j++;
                y = load(b + min(j, lb - 1) * R);
            }
        }
    }
}

#elif PASS == EMIT

// The input element output element o (dense, first dimension fastest) takes.
int source_of(int o) {
    int n = meta.w[0], rank = meta.w[2], dim = meta.w[3];
    int l = 0, scale = 1, i = 0;
    for (int d = 0; d < rank; d++) {
        int size = meta.w[5 + d];
        int c = o % size;
        o /= size;
        if (d == dim) {
            i = c;
        } else {
            l += c * scale;
            scale *= size;
        }
    }
    int position = int(scratch.v[(FROM * n * meta.w[1] + l * n + i) * R + R - 1]);
#ifdef ARGSORT
    return position;
#else
    return line_start(l) + position * line_step();
#endif
}

void main() {
    int total = meta.w[0] * meta.w[1];
#if ELEM == 1 && !defined(ARGSORT)
    int units = (total + 3) / 4;
#else
    int units = total;
#endif
    for (int u = int(gl_GlobalInvocationID.x); u < units; u += int(gl_NumWorkGroups.x) * LANES) {
#ifdef ARGSORT
        dst.v[2 * u] = uint(source_of(u));
        dst.v[2 * u + 1] = 0u;
#elif ELEM == 1
        uint word = 0u;
        for (int b = 0; b < 4 && 4 * u + b < total; b++) word |= BITS(src, source_of(4 * u + b), 0) << (8 * b);
        dst.v[u] = word;
#elif ELEM == 4
        dst.v[u] = src.v[source_of(u)];
#else
        int a = source_of(u);
        dst.v[2 * u] = src.v[2 * a];
        dst.v[2 * u + 1] = src.v[2 * a + 1];
#endif
    }
}

#else

// meta.w: the sorted vector's length, its offset and stride, values, their rank and
// offset, then MAX_RANK sizes and MAX_RANK strides of the values (in elements).
void main() {
    int m = meta.w[0], total = meta.w[3], rank = meta.w[4];
    for (int o = int(gl_GlobalInvocationID.x); o < total; o += int(gl_NumWorkGroups.x) * LANES) {
        int at = meta.w[5], rest = o;
        for (int d = 0; d < rank; d++) {
            int size = meta.w[6 + d];
            at += (rest % size) * meta.w[6 + MAX_RANK + d];
            rest /= size;
        }
        REC x = record(BITS(values, at, 0), BITS(values, at, 1), 0u);
        // How many of the sorted keys are below x's (RIGHT: not above).
        int lo = 0, hi = m;
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            int a = meta.w[1] + mid * meta.w[2];
            REC y = record(BITS(src, a, 0), BITS(src, a, 1), 0u);
#ifdef RIGHT
            bool before = !below(x, y);
#else
            bool before = below(y, x);
#endif
            lo = before ? mid + 1 : lo;
            hi = before ? hi : mid;
        }
        dst.v[2 * o] = uint(lo);
        dst.v[2 * o + 1] = 0u;
    }
}

#endif
