// Sluice over MPI for C++ (header-only, over sluice_mpi.h and sluice.hpp).
//
// sluice::mpi::Array owns one distributed-array handle: copying retains it, moving
// transfers it, destruction releases it. Operations return at once; communication is
// deferred until a read (local(), gather()) or eval() needs it. Calls that communicate are
// collective: every rank makes them in the same order. A failing call throws sluice::Error
// with the status (SL_ERR_* or SL_MPI_ERR_*), the message (naming the rank) and the
// function.
//
// sluice::mpi::Session starts the library on a communicator and ends it when it goes out
// of scope; destroy every mpi::Array before it ends (their handles are invalid afterwards).
// mpi::Scope and mpi::keep work as sluice::Scope and sluice::keep, for distributed arrays.
#ifndef SLUICE_MPI_HPP
#define SLUICE_MPI_HPP

// Only MPI's C API is used: skip MPI's C++ bindings (deprecated, and removed in MPI-3) where
// mpi.h is first included here.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif

#include "sluice.hpp"
#include "sluice_mpi.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace sluice {
namespace mpi {

// How the ranks combine partial results of float reductions (see sl_mpi_order).
enum class Order : sl_mpi_order { fast = SL_MPI_ORDER_FAST, ranks = SL_MPI_ORDER_RANKS, exact = SL_MPI_ORDER_EXACT };

// `dist` of a replicated array, and the `root` that gathers to every rank.
constexpr int32_t replicated = SL_MPI_REPLICATED;
constexpr int32_t all_ranks = SL_MPI_ALL_RANKS;

namespace detail {

inline const char* text(const char* s) { return s ? s : ""; }

// The error the last failing sl_mpi call on this thread reported.
inline void check(sl_status status) {
    if (status == SL_OK) return;
    sl_error_info info{};
    sl_mpi_last_error(&info);
    const std::string function = text(info.function);
    throw Error(status, function + ": " + text(info.message), {function, "", 0, 0});
}

}  // namespace detail

// The name of a status, this library's (SL_MPI_ERR_*) or Sluice's.
inline const char* status_name(sl_status status) {
    const char* name = nullptr;
    return sl_mpi_status_name(status, &name) == SL_OK && name ? name : "SL_ERR_(unknown)";
}

inline void init(MPI_Comm comm) { detail::check(sl_mpi_init_fint(static_cast<int32_t>(MPI_Comm_c2f(comm)))); }
inline void finalize() { detail::check(sl_mpi_finalize()); }

// Starts the library on `comm` (after MPI_Init); ends it at the end of the scope.
class Session {
public:
    explicit Session(MPI_Comm comm) { init(comm); }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    // A failure here (a rank missing at the end) cannot be reported from a destructor;
    // call finalize() first to see it.
    ~Session() {
        if (!ended_) sl_mpi_finalize();
    }
    void finalize() {
        ended_ = true;
        mpi::finalize();
    }

private:
    bool ended_ = false;
};

// This process's rank and the number of ranks.
inline int32_t rank() {
    int32_t r = 0;
    detail::check(sl_mpi_comm_rank(&r, nullptr));
    return r;
}
inline int32_t size() {
    int32_t s = 0;
    detail::check(sl_mpi_comm_rank(nullptr, &s));
    return s;
}
inline void set_timeout(double seconds) { detail::check(sl_mpi_set_timeout(seconds)); }
inline sl_mpi_stats stats() {
    sl_mpi_stats s{};
    detail::check(sl_mpi_get_stats(&s));
    return s;
}
inline int64_t live_handles() {
    int64_t n = 0;
    detail::check(sl_mpi_live_handles(&n));
    return n;
}

// Rank `index`'s block of `n` elements over `parts` ranks: {first, count}.
inline std::pair<int64_t, int64_t> block(int64_t n, int32_t parts, int32_t index) {
    int64_t start = 0, count = 0;
    detail::check(sl_mpi_block(n, parts, index, &start, &count));
    return {start, count};
}

class Array {
public:
    Array() noexcept = default;
    static Array adopt(sl_mpi_array handle) noexcept {
        Array a;
        a.handle_ = handle;
        return a;
    }
    Array(const Array& other) {
        if (other.handle_) detail::check(sl_mpi_retain(other.handle_, &handle_));
    }
    Array(Array&& other) noexcept : handle_(std::exchange(other.handle_, 0)) {}
    Array& operator=(Array other) noexcept {
        std::swap(handle_, other.handle_);
        return *this;
    }
    ~Array() {
        if (handle_) sl_mpi_release(handle_);
    }

    // Collective: each rank's part (its block along `dist`, or all of a replicated array)
    // of an array of global shape `global`.
    static Array from_local(const sluice::Array& local, const Shape& global, int32_t dist) {
        sl_mpi_array h = 0;
        detail::check(sl_mpi_from_local(local.handle(), static_cast<int32_t>(global.size()), global.data(), dist, &h));
        return adopt(h);
    }
    // Collective: rank `root`'s `global` distributed along `dist` (read on the root only;
    // the others may pass an empty sluice::Array).
    static Array scatter(const sluice::Array& global, int32_t root, int32_t dist) {
        sl_mpi_array h = 0;
        detail::check(sl_mpi_scatter(global.handle(), root, dist, &h));
        return adopt(h);
    }

    sl_mpi_array handle() const noexcept { return handle_; }

    sl_mpi_info info() const {
        sl_mpi_info i{};
        detail::check(sl_mpi_get_info(handle_, &i));
        return i;
    }
    Shape shape() const {
        const sl_mpi_info i = info();
        return Shape(i.dims, i.dims + i.rank);
    }
    DType dtype() const { return static_cast<DType>(info().dtype); }
    // The distributed dimension, or `replicated`.
    int32_t dist() const { return info().dist; }

    // This rank's part (evaluates: collective when communication is pending).
    sluice::Array local() const {
        sl_array h = 0;
        detail::check(sl_mpi_local(handle_, &h));
        return sluice::Array::adopt(h);
    }
    // Collective: the whole array on `root` (an empty sluice::Array elsewhere), or on every
    // rank with `all_ranks`.
    sluice::Array gather(int32_t root = all_ranks) const {
        sl_array h = 0;
        detail::check(sl_mpi_gather(handle_, root, &h));
        return sluice::Array::adopt(h);
    }

private:
    sl_mpi_array handle_ = 0;
};

// Releases, when it ends, every distributed array handle created on this thread since it
// began, except those passed through keep() (as sluice::Scope, for distributed arrays).
class Scope {
public:
    Scope() { detail::check(sl_mpi_scope_begin()); }
    ~Scope() { sl_mpi_scope_end(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
};

inline void eval(std::initializer_list<std::reference_wrapper<const Array>> arrays) {
    std::vector<sl_mpi_array> hs;
    for (const Array& a : arrays) hs.push_back(a.handle());
    detail::check(sl_mpi_eval(hs.data(), static_cast<int32_t>(hs.size())));
}

namespace detail {
template <class F> Array make(F&& f) {
    sl_mpi_array h = 0;
    check(f(&h));
    return Array::adopt(h);
}
}  // namespace detail

// Moves the array's handle from the innermost mpi::Scope to the enclosing one (out of all
// scopes if none) and returns it.
inline Array keep(Array a) {
    detail::check(sl_mpi_keep(a.handle()));
    return a;
}

inline Array unary(sl_unary_op op, const Array& a) {
    return detail::make([&](sl_mpi_array* o) { return sl_mpi_unary(op, a.handle(), o); });
}
inline Array binary(sl_binary_op op, const Array& a, const Array& b) {
    return detail::make([&](sl_mpi_array* o) { return sl_mpi_binary(op, a.handle(), b.handle(), o); });
}
inline Array binary(sl_binary_op op, const Array& a, double s) {
    return detail::make([&](sl_mpi_array* o) { return sl_mpi_binary_scalar(op, a.handle(), s, o); });
}
inline Array binary(sl_binary_op op, double s, const Array& b) {
    return detail::make([&](sl_mpi_array* o) { return sl_mpi_scalar_binary(op, s, b.handle(), o); });
}
inline Array cast(const Array& a, DType t) {
    return detail::make([&](sl_mpi_array* o) { return sl_mpi_cast(a.handle(), static_cast<sl_dtype>(t), o); });
}

inline Array operator+(const Array& a, const Array& b) { return binary(SL_ADD, a, b); }
inline Array operator-(const Array& a, const Array& b) { return binary(SL_SUB, a, b); }
inline Array operator*(const Array& a, const Array& b) { return binary(SL_MUL, a, b); }
inline Array operator/(const Array& a, const Array& b) { return binary(SL_DIV, a, b); }
inline Array operator+(const Array& a, double s) { return binary(SL_ADD, a, s); }
inline Array operator-(const Array& a, double s) { return binary(SL_SUB, a, s); }
inline Array operator*(const Array& a, double s) { return binary(SL_MUL, a, s); }
inline Array operator/(const Array& a, double s) { return binary(SL_DIV, a, s); }
inline Array operator+(double s, const Array& b) { return binary(SL_ADD, s, b); }
inline Array operator-(double s, const Array& b) { return binary(SL_SUB, s, b); }
inline Array operator*(double s, const Array& b) { return binary(SL_MUL, s, b); }
inline Array operator/(double s, const Array& b) { return binary(SL_DIV, s, b); }
inline Array operator-(const Array& a) { return unary(SL_NEG, a); }

// sl_mpi_shift: along the distributed dimension a (deferred) halo exchange.
inline Array shift(const Array& a, int32_t dim, int64_t offset, Boundary boundary = Boundary::fill, double fill = 0) {
    return detail::make([&](sl_mpi_array* o) {
        return sl_mpi_shift(a.handle(), dim, offset, static_cast<sl_boundary>(boundary), fill, o);
    });
}
inline Array rotate(const Array& a, int32_t dim, int64_t offset) {
    return detail::make([&](sl_mpi_array* o) { return sl_mpi_rotate(a.handle(), dim, offset, o); });
}
inline Array reduce(sl_reduce_op op, const Array& a, int32_t dim = all_dims, Order order = Order::fast) {
    return detail::make(
        [&](sl_mpi_array* o) { return sl_mpi_reduce(op, a.handle(), dim, static_cast<sl_mpi_order>(order), o); });
}
inline Array sum(const Array& a, int32_t dim = all_dims, Order order = Order::fast) { return reduce(SL_SUM, a, dim, order); }
inline Array dot(const Array& a, const Array& b, Order order = Order::fast) {
    return detail::make(
        [&](sl_mpi_array* o) { return sl_mpi_dot(a.handle(), b.handle(), static_cast<sl_mpi_order>(order), o); });
}
inline Array matmul(const Array& a, const Array& b) {
    return detail::make([&](sl_mpi_array* o) { return sl_mpi_matmul(a.handle(), b.handle(), o); });
}
inline Array redistribute(const Array& a, int32_t dist) {
    return detail::make([&](sl_mpi_array* o) { return sl_mpi_redistribute(a.handle(), dist, o); });
}

}  // namespace mpi
}  // namespace sluice

#endif
