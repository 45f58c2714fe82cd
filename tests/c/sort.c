/* Sorting from C: a vector of random values with ties and NaNs sorted both ways, its
 * argsort checked for stability (qsort with the position as the tie-break is the
 * reference), the top 5, searchsorted into the sorted copy, unique with counts,
 * nonzero and a histogram; a complex array and a k past the length are refused. */
#include <math.h>

#include "check.h"

enum { N = 2000 };

static double data[N];

/* NaNs after every number, equal numbers by position (a stable order). */
static int by_value_then_position(const void *pa, const void *pb) {
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    double x = data[a], y = data[b];
    int nx = isnan(x), ny = isnan(y);
    if (nx != ny) return nx - ny;
    if (!nx && x != y) return x < y ? -1 : 1;
    return (a > b) - (a < b);
}

int main(void) {
    seed_rng("sort");
    for (int i = 0; i < N; i++) data[i] = rand() % 20 == 0 ? NAN : floor(uniform(-25.0, 24.999));
    sl_array h = vector_f64(data, N), sorted, order;
    OK(sl_sort(h, 0, SL_ASCENDING, &sorted));
    OK(sl_argsort(h, 0, SL_ASCENDING, &order));
    static int64_t want[N], got_order[N];
    static double got[N];
    for (int i = 0; i < N; i++) want[i] = i;
    qsort(want, N, sizeof want[0], by_value_then_position);
    OK(sl_read(sorted, SL_COL_MAJOR, got, sizeof got));
    OK(sl_read(order, SL_COL_MAJOR, got_order, sizeof got_order));
    int nans = 0;
    for (int i = 0; i < N; i++) {
        double w = data[want[i]];
        nans += isnan(w);
        EXPECT(got_order[i] == want[i], "argsort[%d] = %lld, want %lld", i, (long long)got_order[i], (long long)want[i]);
        EXPECT((isnan(w) && isnan(got[i])) || got[i] == w, "sort[%d] = %g, want %g", i, got[i], w);
    }

    /* The 5 largest: the descending order's first, NaNs still last. */
    sl_array top, top_at;
    double top_v[5];
    int64_t top_i[5];
    OK(sl_topk(h, 5, 0, SL_DESCENDING, &top, &top_at));
    OK(sl_read(top, SL_COL_MAJOR, top_v, sizeof top_v));
    OK(sl_read(top_at, SL_COL_MAJOR, top_i, sizeof top_i));
    for (int i = 0; i < 5; i++) {
        EXPECT(top_v[i] == data[top_i[i]], "top %d: value %g is not data[%lld]", i, top_v[i], (long long)top_i[i]);
        EXPECT(top_v[i] == got[N - nans - 1 - i], "top %d is %g, want %g", i, top_v[i], got[N - nans - 1 - i]);
    }

    /* searchsorted of the data into the sorted data: left counts the smaller values. */
    sl_array left;
    static int64_t places[N];
    OK(sl_searchsorted(sorted, h, SL_SIDE_LEFT, &left));
    OK(sl_read(left, SL_COL_MAJOR, places, sizeof places));
    for (int i = 0; i < N; i++) {
        int64_t smaller = 0;
        for (int j = 0; j < N; j++) smaller += isnan(data[i]) ? !isnan(data[j]) : data[j] < data[i];
        EXPECT(places[i] == smaller, "searchsorted[%d] = %lld, want %lld", i, (long long)places[i], (long long)smaller);
    }

    /* unique: the distinct values of -25..24 that occur, and NaN once. */
    sl_array values, counts, inverse;
    OK(sl_unique(h, &values, &counts, &inverse));
    int64_t distinct;
    OK(sl_numel(values, &distinct));
    int present[50] = {0}, expected = nans > 0;
    for (int i = 0; i < N; i++)
        if (!isnan(data[i]) && !present[(int)data[i] + 25]++) expected++;
    EXPECT(distinct == expected, "unique gives %lld values, want %d", (long long)distinct, expected);

    /* nonzero and a histogram of [-25, 25) in 10 bins. */
    sl_array nz, hist;
    OK(sl_nonzero(h, &nz));
    int64_t nonzeros, want_nonzeros = 0, bins[10], want_bins[10] = {0};
    OK(sl_numel(nz, &nonzeros));
    for (int i = 0; i < N; i++) want_nonzeros += data[i] != 0.0;
    EXPECT(nonzeros == want_nonzeros, "nonzero gives %lld, want %lld", (long long)nonzeros, (long long)want_nonzeros);
    OK(sl_histogram_range(h, 10, -25.0, 25.0, &hist));
    OK(sl_read(hist, SL_COL_MAJOR, bins, sizeof bins));
    for (int i = 0; i < N; i++)
        if (!isnan(data[i])) want_bins[(int)(data[i] + 25.0) / 5]++;
    for (int b = 0; b < 10; b++)
        EXPECT(bins[b] == want_bins[b], "bin %d holds %lld, want %lld", b, (long long)bins[b], (long long)want_bins[b]);

    /* Refusals leave null handles and a message naming the problem. */
    sl_array z, bad = 1, bad_i = 1;
    OK(sl_complex(h, h, &z));
    FAILS(sl_sort(z, 0, SL_ASCENDING, &bad), SL_ERR_DTYPE_MISMATCH, "complex numbers have no order");
    FAILS(sl_topk(h, N + 1, 0, SL_DESCENDING, &bad, &bad_i), SL_ERR_INVALID_ARGUMENT, "k is 2001");
    EXPECT(bad == 0 && bad_i == 0, "refused calls leave null handles");

    sl_array all[] = {h, sorted, order, top, top_at, left, values, counts, inverse, nz, hist, z};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
