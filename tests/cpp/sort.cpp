// Sorting from C++: a matrix of random floats with ties and NaNs sorted along each
// dimension, both orders, against std::stable_sort with the NaN-last order (argsort
// checked exactly, so stability too); top-k of each column; unique of integers with
// counts and inverse rebuilding the input; compress keeping the positive elements.
#include <algorithm>
#include <numeric>

#include "check.hpp"

using sluice::Array;
using sluice::Order;

namespace {

bool before(float x, float y, bool descending) {
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return descending ? x > y : x < y;
}

}  // namespace

int main() {
    const int64_t rows = 37, cols = 5;
    std::vector<float> a(rows * cols);
    const std::vector<int> picks = test::integers<int>(a.size(), 0, 12);
    for (std::size_t i = 0; i < a.size(); i++) a[i] = picks[i] == 12 ? NAN : float(picks[i] % 6) - 2.5f;
    const Array h(a, {rows, cols});
    for (int dim : {0, 1}) {
        for (Order order : {Order::ascending, Order::descending}) {
            const bool desc = order == Order::descending;
            const std::vector<float> got = sluice::sort(h, dim, order).read<float>();
            const std::vector<int64_t> got_at = sluice::argsort(h, dim, order).read<int64_t>();
            const int64_t n = dim == 0 ? rows : cols, lines = dim == 0 ? cols : rows;
            for (int64_t l = 0; l < lines; l++) {
                auto place = [&](int64_t i) { return dim == 0 ? i + l * rows : l + i * rows; };
                std::vector<int64_t> idx(n);
                std::iota(idx.begin(), idx.end(), 0);
                std::stable_sort(idx.begin(), idx.end(),
                                 [&](int64_t p, int64_t q) { return before(a[place(p)], a[place(q)], desc); });
                for (int64_t i = 0; i < n; i++) {
                    const float want = a[place(idx[i])], g = got[place(i)];
                    EXPECT(got_at[place(i)] == idx[i], "argsort dim " << dim << " line " << l << " at " << i);
                    EXPECT((std::isnan(want) && std::isnan(g)) || g == want, "sort dim " << dim << " line " << l);
                }
            }
        }
    }

    // The 3 smallest of each column, with their rows.
    const sluice::TopK low = sluice::topk(h, 3, 0, Order::ascending);
    const std::vector<float> lv = low.values.read<float>();
    const std::vector<int64_t> li = low.indices.read<int64_t>();
    for (int64_t c = 0; c < cols; c++)
        for (int64_t i = 0; i < 3; i++) {
            EXPECT(lv[i + 3 * c] == a[li[i + 3 * c] + rows * c], "topk value matches its index, column " << c);
            if (i > 0) EXPECT(!before(lv[i + 3 * c], lv[i - 1 + 3 * c], false), "topk ascends, column " << c);
        }
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "k is 6", sluice::topk(h, 6, 1));

    // unique: values[inverse] rebuilds the input; counts add up.
    const std::vector<int32_t> ints = test::integers<int32_t>(500, -4, 4);
    const sluice::Unique u = sluice::unique(Array(ints, {500}));
    const std::vector<int32_t> values = u.values.read<int32_t>();
    const std::vector<int64_t> counts = u.counts.read<int64_t>(), inverse = u.inverse.read<int64_t>();
    EXPECT(std::is_sorted(values.begin(), values.end()) && std::adjacent_find(values.begin(), values.end()) == values.end(),
           "unique values ascend strictly");
    EXPECT(std::accumulate(counts.begin(), counts.end(), int64_t(0)) == 500, "counts add up to the size");
    for (std::size_t i = 0; i < ints.size(); i++) EXPECT(values[inverse[i]] == ints[i], "values[inverse] at " << i);

    // compress: the positive elements in order.
    const std::vector<float> kept = sluice::compress(h > 0.0, h).read<float>();
    std::vector<float> want;
    std::copy_if(a.begin(), a.end(), std::back_inserter(want), [](float x) { return x > 0; });
    EXPECT(kept == want, "compress keeps " << want.size() << " positive elements, got " << kept.size());
    return test::finish("sort");
}
