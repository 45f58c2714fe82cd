// RAII lifetimes: after copies, moves, assignments, scopes, keep and exceptions, the number
// of live handles the C API reports returns to where it started, and values survive.
#include <utility>

#include "check.hpp"

using sluice::Array;

static std::vector<double> values(const Array& a) { return a.read<double>(); }

static void copies_and_moves(const std::vector<double>& x) {
    const int64_t start = sluice::live_handles();
    {
        Array a(x);
        EXPECT(sluice::live_handles() == start + 1, "one handle per array");
        Array b = a;  // a second handle to the same array
        EXPECT(sluice::live_handles() == start + 2, "a copy retains");
        EXPECT(b.handle() != a.handle(), "a copy is its own handle");
        Array c = std::move(a);
        EXPECT(sluice::live_handles() == start + 2, "a move transfers");
        EXPECT(a.handle() == 0, "moved-from holds the null handle");
        a = c;  // copy-assign into a moved-from array
        EXPECT(sluice::live_handles() == start + 3, "copy assignment retains");
        b = std::move(c);  // b's old handle is released
        EXPECT(sluice::live_handles() == start + 2, "move assignment releases the old handle");
        b = b;  // self-assignment keeps the array
        EXPECT(sluice::live_handles() == start + 2, "self-assignment");
        EXPECT_CLOSE("copy still reads the data", values(b), x, 0);
        EXPECT_CLOSE("original still reads the data", values(a), x, 0);

        std::vector<Array> many(10, a);  // containers copy
        EXPECT(sluice::live_handles() == start + 12, "ten copies in a vector");
        many.clear();
        EXPECT(sluice::live_handles() == start + 2, "clearing the vector releases");

        const sl_array raw = b.detach();  // hand the handle to C code ...
        EXPECT(sluice::live_handles() == start + 2, "detach does not release");
        Array back = Array::adopt(raw);  // ... and take it back
        EXPECT_CLOSE("adopted handle", values(back), x, 0);
    }
    EXPECT(sluice::live_handles() == start, "copies and moves leak nothing: " << sluice::live_handles() - start);
}

// Temporaries of an expression are released at its end, and compound assignment in a loop
// does not accumulate handles.
static void expressions(const std::vector<double>& x) {
    const int64_t start = sluice::live_handles();
    Array a(x);
    Array acc = a * 0.0;
    for (int i = 0; i < 50; i++) acc += sluice::sin(a) * 2.0 - a / 3.0;
    EXPECT(sluice::live_handles() == start + 2, "loop left " << sluice::live_handles() - start << " handles");
    std::vector<double> want(x.size());
    for (std::size_t i = 0; i < x.size(); i++) {
        double v = 0;
        for (int k = 0; k < 50; k++) v += std::sin(x[i]) * 2.0 - x[i] / 3.0;
        want[i] = v;
    }
    EXPECT_CLOSE("accumulated value", values(acc), want, 1e-12);
}

static void scopes(const std::vector<double>& x) {
    const int64_t start = sluice::live_handles();
    Array kept, stale;
    {
        sluice::Scope scope;
        Array a(x);
        Array twice = a + a;
        Array alias = twice;  // a copy made inside the scope belongs to it too
        kept = sluice::keep(alias * 3.0);
        stale = twice;  // not kept: the scope releases it
        EXPECT(sluice::live_handles() == start + 5, "inside the scope");
    }
    EXPECT(sluice::live_handles() == start + 1,
           "only the kept array outlives the scope: " << sluice::live_handles() - start);
    std::vector<double> want(x.size());
    for (std::size_t i = 0; i < x.size(); i++) want[i] = 3.0 * (x[i] + x[i]);
    EXPECT_CLOSE("kept value", values(kept), want, 1e-15);
    EXPECT_ERROR(SL_ERR_INVALID_HANDLE, "stale", stale.read<double>());

    // keep moves one level out at a time through nested scopes.
    {
        sluice::Scope outer;
        Array survivor;
        {
            sluice::Scope inner;
            survivor = sluice::keep(Array(x) - 1.0);
        }
        kept = sluice::keep(survivor);
    }
    EXPECT(sluice::live_handles() == start + 1, "nested scopes: " << sluice::live_handles() - start);
    for (std::size_t i = 0; i < x.size(); i++) want[i] = x[i] - 1.0;
    EXPECT_CLOSE("kept through two scopes", values(kept), want, 1e-15);

    // Many short scopes (a time loop) leave nothing behind.
    Array u(x);
    for (int step = 0; step < 100; step++) {
        sluice::Scope scope;
        u = sluice::keep(u * 0.5 + 1.0);
    }
    EXPECT(sluice::live_handles() == start + 2, "time loop left " << sluice::live_handles() - start - 2);
    for (std::size_t i = 0; i < x.size(); i++) {
        want[i] = x[i];
        for (int step = 0; step < 100; step++) want[i] = want[i] * 0.5 + 1.0;
    }
    EXPECT_CLOSE("time loop value", values(u), want, 1e-14);

    // unscope takes a handle out of every scope at once: it outlives two.
    {
        Array held;
        {
            sluice::Scope outer;
            sluice::Scope inner;
            held = sluice::unscope(Array(x) * 2.0);
        }
        EXPECT(sluice::live_handles() == start + 3, "an unscoped array outlives its scopes: "
                                                        << sluice::live_handles() - start - 2);
        for (std::size_t i = 0; i < x.size(); i++) want[i] = 2.0 * x[i];
        EXPECT_CLOSE("unscoped value", values(held), want, 1e-15);
    }
    EXPECT(sluice::live_handles() == start + 2, "an unscoped array goes with its Array");
}

// Failing calls create no handles, and unwinding releases what the failed code held.
static void exceptions(const std::vector<double>& x) {
    const int64_t start = sluice::live_handles();
    try {
        sluice::Scope scope;
        Array a(x), b(std::vector<double>(x.size() + 1, 1.0));
        Array fine = sluice::exp(a);
        Array bad = a + b;  // throws: shapes do not broadcast
        EXPECT(false, "a + b of different lengths did not throw");
    } catch (const sluice::Error& e) {
        EXPECT(e.status() == SL_ERR_SHAPE_MISMATCH, e.what());
    }
    EXPECT(sluice::live_handles() == start, "after an exception in a scope: " << sluice::live_handles() - start);

    try {
        Array a(x);
        Array copy = a;
        Array bad = sluice::sum(copy, 5);  // throws: no dimension 5
    } catch (const sluice::Error& e) {
        EXPECT(e.status() == SL_ERR_INVALID_ARGUMENT, e.what());
    }
    EXPECT(sluice::live_handles() == start, "after an exception outside scopes: " << sluice::live_handles() - start);
}

int main() {
    const std::vector<double> x = test::uniform(257, -3, 3);
    const int64_t start = sluice::live_handles();
    copies_and_moves(x);
    expressions(x);
    scopes(x);
    exceptions(x);
    EXPECT(sluice::live_handles() == start, "lifetimes left " << sluice::live_handles() - start << " handles");
    // Stops the runtime's threads before exit (LeakSanitizer may report live threads).
    sluice::shutdown();
    return test::finish("lifetimes");
}
