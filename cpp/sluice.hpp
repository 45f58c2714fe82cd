// Sluice: a data-parallel array runtime (C++17 layer, header-only, over sluice.h).
//
// sluice::Array owns one handle: copying retains it (a second handle to the same array),
// moving transfers it, destruction releases it. Operations return at once with a new
// Array; results are computed when read. Every failing C call becomes a sluice::Error
// carrying the status, the message, the failing function and its call site.
//
// Scopes: a sluice::Scope releases, when it ends, every handle created on this thread
// since it began (copies included), except those passed through sluice::keep. An Array
// that must outlive a Scope is kept (`outer = sluice::keep(inner);`); one that is not
// holds a stale handle afterwards, and using it throws SL_ERR_INVALID_HANDLE.
//
// sluice::macro records a lambda once and replays it on new inputs (a code reuse section).
//
// Destroy every Array before sluice::shutdown(): its handle is invalid afterwards.
#ifndef SLUICE_HPP
#define SLUICE_HPP

#include "sluice.h"

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace sluice {

using Shape = std::vector<int64_t>;

enum class DType : sl_dtype {
    f32 = SL_F32,
    f64 = SL_F64,
    i32 = SL_I32,
    i64 = SL_I64,
    u8 = SL_U8,
    b8 = SL_BOOL,
    c64 = SL_C64,
    c128 = SL_C128,
    i8 = SL_I8,
    i16 = SL_I16,
    u16 = SL_U16,
    u32 = SL_U32,
    u64 = SL_U64,
    f16 = SL_F16,
    bf16 = SL_BF16
};

// Storage for one f16 or bf16 element: its 16 bits (C++17 has no portable half type).
// Arrays of them are created from and read into these; ops compute in f32 (cast to
// float to see values on the host).
struct f16 {
    uint16_t bits;
};
struct bf16 {
    uint16_t bits;
};
static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2, "half storage is two bytes");
enum class Layout : sl_layout { col_major = SL_COL_MAJOR, row_major = SL_ROW_MAJOR };
enum class Boundary : sl_boundary { fill = SL_BOUNDARY_FILL, clamp = SL_BOUNDARY_CLAMP, wrap = SL_BOUNDARY_WRAP };
// Which direction of a Fourier transform is scaled (see sl_fft_norm).
enum class FftNorm : sl_fft_norm { backward = SL_FFT_BACKWARD, ortho = SL_FFT_ORTHO, forward = SL_FFT_FORWARD };
// What an index out of range reads (see sl_index_policy).
enum class IndexPolicy : sl_index_policy {
    clamp = SL_INDEX_CLAMP,
    wrap = SL_INDEX_WRAP,
    fill = SL_INDEX_FILL,
    error = SL_INDEX_ERROR,
};
enum class ScatterMode : sl_scatter_mode {
    replace = SL_SCATTER_REPLACE,
    add = SL_SCATTER_ADD,
    min = SL_SCATTER_MIN,
    max = SL_SCATTER_MAX,
};

// Pass as `dim` to a reduction to reduce over every element.
constexpr int32_t all_dims = SL_ALL_DIMS;

// ---------------------------------------------------------------------------------------
// Errors

// The name of a status code, e.g. "SL_ERR_SHAPE_MISMATCH".
inline const char* status_name(sl_status status) {
    const char* name = nullptr;
    return sl_status_name(status, &name) == SL_OK && name ? name : "SL_ERR_(unknown)";
}

// Where a call was made: the function and the caller's file:line (empty and 0 when the
// caller has no debug information).
struct Site {
    std::string function;
    std::string file;
    int32_t line = 0;
    std::size_t pc = 0;
};

class Error : public std::runtime_error {
public:
    // `message` is the whole text, e.g. "sl_add: add: shapes [3] and [4] do not broadcast".
    Error(sl_status status, const std::string& message, Site call, Site origin = {})
        : std::runtime_error(message), status_(status), call_(std::move(call)), origin_(std::move(origin)) {}

    // The error the last failing C call on this thread reported (it returned `status`).
    static Error last(sl_status status) {
        sl_error_info info{};
        if (sl_last_error(&info) != SL_OK) return Error(status, "no error detail available", {});
        return Error(status, text(info.message),
                     {text(info.function), text(info.call_file), info.call_line, info.call_pc},
                     {text(info.origin_function), text(info.origin_file), info.origin_line, info.origin_pc});
    }

    sl_status status() const noexcept { return status_; }
    const char* status_name() const { return sluice::status_name(status_); }
    std::string message() const { return what(); }
    // The Sluice function that failed, e.g. "sl_add" (or "sluice::section" for an error
    // the C++ layer found before calling C).
    const std::string& function() const noexcept { return call_.function; }
    // Where that function was called from: the application's line that called this
    // header (found from the application's debug information).
    const Site& call() const noexcept { return call_; }
    // For SL_ERR_POISONED: the op whose deferred computation failed, and where it was made.
    const Site& origin() const noexcept { return origin_; }

private:
    static std::string text(const char* s) { return s ? s : ""; }

    sl_status status_;
    Site call_;
    Site origin_;
};

namespace detail {

inline void check(sl_status status) {
    if (status != SL_OK) throw Error::last(status);
}

// An argument error found by the C++ layer (where the C call could not check it).
inline void require(bool ok, const char* function, const std::string& message) {
    if (!ok) throw Error(SL_ERR_INVALID_ARGUMENT, std::string(function) + ": " + message, {function, "", 0, 0});
}

template <class T>
constexpr bool is_complex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

template <class T>
constexpr bool is_element = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int8_t> ||
                            std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                            std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t> ||
                            std::is_same_v<T, uint64_t> || std::is_same_v<T, bool> || std::is_same_v<T, f16> ||
                            std::is_same_v<T, bf16> || is_complex<T>;

// Sluice's bool elements are one byte holding 0 or 1, like C++ bool here.
static_assert(sizeof(bool) == 1, "Sluice bool arrays need a one-byte bool");

}  // namespace detail

// The element type of host type T (float, double, int8_t ... int64_t, uint8_t ... uint64_t,
// bool, f16, bf16, std::complex<float>, std::complex<double>: stored as Sluice stores them,
// real part first).
template <class T> constexpr DType dtype_of() {
    static_assert(detail::is_element<T>,
                  "Sluice elements are float, double, (u)int8_t to (u)int64_t, bool, f16, bf16 or "
                  "std::complex<float/double>");
    if constexpr (std::is_same_v<T, std::complex<float>>) return DType::c64;
    if constexpr (std::is_same_v<T, std::complex<double>>) return DType::c128;
    if constexpr (std::is_same_v<T, float>) return DType::f32;
    if constexpr (std::is_same_v<T, double>) return DType::f64;
    if constexpr (std::is_same_v<T, int32_t>) return DType::i32;
    if constexpr (std::is_same_v<T, int64_t>) return DType::i64;
    if constexpr (std::is_same_v<T, uint8_t>) return DType::u8;
    if constexpr (std::is_same_v<T, int8_t>) return DType::i8;
    if constexpr (std::is_same_v<T, int16_t>) return DType::i16;
    if constexpr (std::is_same_v<T, uint16_t>) return DType::u16;
    if constexpr (std::is_same_v<T, uint32_t>) return DType::u32;
    if constexpr (std::is_same_v<T, uint64_t>) return DType::u64;
    if constexpr (std::is_same_v<T, f16>) return DType::f16;
    if constexpr (std::is_same_v<T, bf16>) return DType::bf16;
    return DType::b8;
}

inline const char* dtype_name(DType dtype) {
    switch (dtype) {
        case DType::f32: return "f32";
        case DType::f64: return "f64";
        case DType::i32: return "i32";
        case DType::i64: return "i64";
        case DType::u8: return "u8";
        case DType::b8: return "bool";
        case DType::c64: return "c64";
        case DType::c128: return "c128";
        case DType::i8: return "i8";
        case DType::i16: return "i16";
        case DType::u16: return "u16";
        case DType::u32: return "u32";
        case DType::u64: return "u64";
        case DType::f16: return "f16";
        case DType::bf16: return "bf16";
    }
    return "unknown dtype";
}

// ---------------------------------------------------------------------------------------
// Arrays

// A section of an array to assign into (Array::at): per dimension a start, a count and a
// stride (none means 1); a stride of 0 fixes the dimension at its start and removes it
// from the section (a projection, Fortran's u(3, :)), and then its count must be 1.
struct Section {
    Shape start;
    Shape count;
    Shape stride = {};
};

class SectionRef;
class MaskRef;
class IndexRef;

class Array {
public:
    // The null array (what a moved-from Array holds); operations on it throw.
    Array() noexcept = default;

    // Takes ownership of a handle from the C API.
    static Array adopt(sl_array handle) noexcept {
        Array a;
        a.handle_ = handle;
        return a;
    }

    // A copy of `data`, shaped `dims`, elements in `layout` order.
    template <class T> explicit Array(const T* data, const Shape& dims, Layout layout = Layout::col_major) {
        create(dtype_of<T>(), dims, layout, data, element_count(dims) * sizeof(T));
    }

    template <class T>
    explicit Array(const std::vector<T>& data, const Shape& dims, Layout layout = Layout::col_major) {
        if constexpr (std::is_same_v<T, bool>) {
            const std::vector<uint8_t> bytes(data.begin(), data.end());  // std::vector<bool> packs bits
            create(DType::b8, dims, layout, bytes.data(), bytes.size());
        } else {
            create(dtype_of<T>(), dims, layout, data.data(), data.size() * sizeof(T));
        }
    }

    // A vector (rank 1).
    template <class T>
    explicit Array(const std::vector<T>& data) : Array(data, Shape{static_cast<int64_t>(data.size())}) {}

    Array(const Array& other) {
        if (other.handle_) detail::check(sl_retain(other.handle_, &handle_));
    }
    Array(Array&& other) noexcept : handle_(std::exchange(other.handle_, 0)) {}
    Array& operator=(Array other) noexcept {
        std::swap(handle_, other.handle_);
        return *this;
    }
    // A failure here (a handle a scope already released) cannot be reported from a destructor.
    ~Array() {
        if (handle_) sl_release(handle_);
    }

    sl_array handle() const noexcept { return handle_; }
    // Gives up ownership: the caller releases the returned handle.
    sl_array detach() noexcept { return std::exchange(handle_, 0); }

    int32_t rank() const {
        int32_t r = 0;
        detail::check(sl_rank(handle_, &r));
        return r;
    }
    Shape shape() const {
        Shape dims(static_cast<std::size_t>(rank()));
        detail::check(sl_shape(handle_, dims.data(), static_cast<int32_t>(dims.size())));
        return dims;
    }
    DType dtype() const {
        sl_dtype d = 0;
        detail::check(sl_get_dtype(handle_, &d));
        return static_cast<DType>(d);
    }
    int64_t numel() const {
        int64_t n = 0;
        detail::check(sl_numel(handle_, &n));
        return n;
    }

    // Computes the array (waiting for it) and copies its elements into `count` elements at
    // `dst`, which must be exactly the array's size; T must match the array's dtype.
    template <class T> void read(T* dst, std::size_t count, Layout layout = Layout::col_major) const {
        copy_out(sl_read, dst, count, layout);
    }

    template <class T> std::vector<T> read(Layout layout = Layout::col_major) const {
        return copy_out<T>(sl_read, layout);
    }

    // Debugging: the array's value as `read` gives it, computed from a copy of the work it
    // depends on, so the kernels and results of the rest of the program are as without it.
    template <class T> void peek(T* dst, std::size_t count, Layout layout = Layout::col_major) const {
        copy_out(sl_debug_peek, dst, count, layout);
    }

    template <class T> std::vector<T> peek(Layout layout = Layout::col_major) const {
        return copy_out<T>(sl_debug_peek, layout);
    }

    // The single element of a one-element array (e.g. a full reduction).
    template <class T> T item() const {
        T value{};
        read(&value, 1);
        return value;
    }

    // Starts computing this array now, without waiting.
    const Array& eval() const {
        detail::check(sl_eval(&handle_, 1));
        return *this;
    }

    // Tells the runtime this array will be read soon.
    const Array& hint_read() const {
        detail::check(sl_hint_read(handle_));
        return *this;
    }

    // Assignment into part of the array: a.at(section) = b (or = 2.0), a.where(mask) = b,
    // a.indexed({i, j}) = v or += v. The array keeps its handle and holds the new version;
    // copies of it (and views taken before) keep the old values. When nothing else sees
    // the old version the runtime writes the new one into its memory (see
    // sl_assign_section).
    inline SectionRef at(Section section);
    inline MaskRef where(const Array& mask);
    inline IndexRef indexed(std::vector<Array> indices);

private:
    static std::size_t element_count(const Shape& dims) {
        std::size_t n = 1;
        for (int64_t d : dims) n *= d > 0 ? static_cast<std::size_t>(d) : 0;  // sl_create reports negatives
        return n;
    }

    void create(DType dtype, const Shape& dims, Layout layout, const void* data, std::size_t bytes) {
        detail::check(sl_create(static_cast<sl_dtype>(dtype), static_cast<int32_t>(dims.size()), dims.data(),
                                static_cast<sl_layout>(layout), data, bytes, &handle_));
    }

    // sl_read or sl_debug_peek.
    using CopyOut = decltype(&sl_read);

    template <class T> void copy_out(CopyOut fn, T* dst, std::size_t count, Layout layout) const {
        require_dtype(dtype_of<T>());
        const auto n = static_cast<std::size_t>(numel());
        if (count != n)
            throw Error(SL_ERR_INVALID_ARGUMENT,
                        "sluice::Array::read: the array has " + std::to_string(n) +
                            " elements; the buffer needs exactly that many, not " + std::to_string(count),
                        {"sluice::Array::read", "", 0, 0});
        detail::check(fn(handle_, static_cast<sl_layout>(layout), dst, count * sizeof(T)));
    }

    template <class T> std::vector<T> copy_out(CopyOut fn, Layout layout) const {
        const auto n = static_cast<std::size_t>(numel());
        if constexpr (std::is_same_v<T, bool>) {
            std::vector<uint8_t> bytes(n);
            require_dtype(DType::b8);
            detail::check(fn(handle_, static_cast<sl_layout>(layout), bytes.data(), n));
            return std::vector<bool>(bytes.begin(), bytes.end());
        } else {
            std::vector<T> out(n);
            copy_out(fn, out.data(), n, layout);
            return out;
        }
    }

    // The C calls copy bytes; the C++ element type is checked here.
    void require_dtype(DType wanted) const {
        const DType actual = dtype();
        if (actual != wanted)
            throw Error(SL_ERR_DTYPE_MISMATCH,
                        std::string("sluice::Array::read: reading a ") + dtype_name(actual) + " array into " +
                            dtype_name(wanted) + " elements (cast it first)",
                        {"sluice::Array::read", "", 0, 0});
    }

    sl_array handle_ = 0;
};

namespace detail {

// Calls a C function whose last argument is the out-handle and owns the result.
template <class Fn, class... Args> Array make(Fn fn, Args... args) {
    sl_array out = 0;
    check(fn(args..., &out));
    return Array::adopt(out);
}

inline std::vector<sl_array> handles(const std::vector<Array>& arrays) {
    std::vector<sl_array> hs;
    hs.reserve(arrays.size());
    for (const Array& a : arrays) hs.push_back(a.handle());
    return hs;
}

inline int32_t length(std::size_t n) { return static_cast<int32_t>(n); }

// Arrays of one entry per dimension, where the C call trusts the length.
inline void require_per_dim(const Array& a, const Shape& v, const char* function, const char* what) {
    const int32_t rank = a.rank();
    require(length(v.size()) == rank, function,
            std::string(what) + " has " + std::to_string(v.size()) + " entries for an array of rank " +
                std::to_string(rank));
}

}  // namespace detail

// a.at(section) on the left of an assignment (see Array::at).
class SectionRef {
public:
    SectionRef& operator=(const Array& values) {
        detail::check(sl_assign_section(target_.handle(), s_.start.data(), s_.count.data(), s_.stride.data(),
                                        values.handle()));
        return *this;
    }
    // The value must be exactly representable in the array's type.
    SectionRef& operator=(double value) {
        detail::check(
            sl_assign_section_scalar(target_.handle(), s_.start.data(), s_.count.data(), s_.stride.data(), value));
        return *this;
    }

private:
    friend class Array;
    SectionRef(Array& target, Section s) : target_(target), s_(std::move(s)) {
        if (s_.stride.empty()) s_.stride.assign(s_.start.size(), 1);
        detail::require_per_dim(target_, s_.start, "sluice::Array::at", "start");
        detail::require_per_dim(target_, s_.count, "sluice::Array::at", "count");
        detail::require_per_dim(target_, s_.stride, "sluice::Array::at", "stride");
    }
    Array& target_;
    Section s_;
};

// a.where(mask) on the left of an assignment (see Array::where).
class MaskRef {
public:
    MaskRef& operator=(const Array& values) {
        detail::check(sl_assign_where(target_.handle(), mask_.handle(), values.handle()));
        return *this;
    }
    MaskRef& operator=(double value) {
        detail::check(sl_assign_where_scalar(target_.handle(), mask_.handle(), value));
        return *this;
    }

private:
    friend class Array;
    MaskRef(Array& target, const Array& mask) : target_(target), mask_(mask) {}
    Array& target_;
    const Array& mask_;
};

// a.indexed({i, j}) on the left of an assignment: one integer index array per dimension of a
// (they broadcast with the values); out-of-range positions are dropped (see sl_assign_indexed).
class IndexRef {
public:
    IndexRef& operator=(const Array& values) { return apply(values, ScatterMode::replace); }
    IndexRef& operator+=(const Array& values) { return apply(values, ScatterMode::add); }
    IndexRef& min(const Array& values) { return apply(values, ScatterMode::min); }
    IndexRef& max(const Array& values) { return apply(values, ScatterMode::max); }

private:
    friend class Array;
    IndexRef(Array& target, std::vector<Array> indices) : target_(target), indices_(std::move(indices)) {}
    IndexRef& apply(const Array& values, ScatterMode mode) {
        const auto hs = detail::handles(indices_);
        detail::check(sl_assign_indexed(target_.handle(), hs.data(), detail::length(hs.size()), values.handle(),
                                        static_cast<sl_scatter_mode>(mode)));
        return *this;
    }
    Array& target_;
    std::vector<Array> indices_;
};

inline SectionRef Array::at(Section section) { return SectionRef(*this, std::move(section)); }
inline MaskRef Array::where(const Array& mask) { return MaskRef(*this, mask); }
inline IndexRef Array::indexed(std::vector<Array> indices) { return IndexRef(*this, std::move(indices)); }

// ---------------------------------------------------------------------------------------
// Creation

inline Array constant(DType dtype, const Shape& dims, double value) {
    return detail::make(sl_constant, static_cast<sl_dtype>(dtype), detail::length(dims.size()), dims.data(), value);
}
// A rank-0 array.
inline Array scalar(DType dtype, double value) { return detail::make(sl_scalar, static_cast<sl_dtype>(dtype), value); }
// Elements equal to their index along `dim`.
inline Array iota(DType dtype, const Shape& dims, int32_t dim) {
    return detail::make(sl_iota, static_cast<sl_dtype>(dtype), detail::length(dims.size()), dims.data(), dim);
}
inline Array identity(DType dtype, int64_t rows, int64_t cols) {
    return detail::make(sl_identity, static_cast<sl_dtype>(dtype), rows, cols);
}

// n evenly spaced values from start to stop (f32 or f64); stop included when `endpoint`.
inline Array linspace(DType dtype, double start, double stop, int64_t n, bool endpoint = true) {
    return detail::make(sl_linspace, static_cast<sl_dtype>(dtype), start, stop, n, endpoint ? 1 : 0);
}
// start, start + step, ... before stop; numpy's length ceil((stop - start) / step).
inline Array arange(DType dtype, double start, double stop, double step = 1.0) {
    return detail::make(sl_arange, static_cast<sl_dtype>(dtype), start, stop, step);
}
// arange with exact integer arguments (chosen when all three are integers).
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
inline Array arange(DType dtype, T start, T stop, T step = 1) {
    return detail::make(sl_arange_i, static_cast<sl_dtype>(dtype), static_cast<int64_t>(start),
                        static_cast<int64_t>(stop), static_cast<int64_t>(step));
}

// ---------------------------------------------------------------------------------------
// Random numbers

enum class RngKind : sl_rng_kind { philox = SL_RNG_PHILOX, fast = SL_RNG_FAST, threefry = SL_RNG_THREEFRY };

// A random number generator (owned: destroyed with the object). Each array it makes takes
// one draw; `state`/`set_state` read and restore the seed and the next draw.
class Rng {
public:
    explicit Rng(uint64_t seed, RngKind kind = RngKind::philox) {
        detail::check(sl_rng_create(static_cast<sl_rng_kind>(kind), seed, &rng_));
    }
    Rng(const Rng&) = delete;
    Rng& operator=(const Rng&) = delete;
    Rng(Rng&& other) noexcept : rng_(std::exchange(other.rng_, 0)) {}
    Rng& operator=(Rng&& other) noexcept {
        std::swap(rng_, other.rng_);
        return *this;
    }
    ~Rng() {
        if (rng_ != 0) sl_rng_destroy(rng_);
    }

    sl_rng handle() const noexcept { return rng_; }
    // {seed, next draw}
    std::array<uint64_t, 2> state() const {
        std::array<uint64_t, 2> s{};
        detail::check(sl_rng_get_state(rng_, &s[0], &s[1]));
        return s;
    }
    void set_state(uint64_t seed, uint64_t draw) { detail::check(sl_rng_set_state(rng_, seed, draw)); }
    // Values uniform on [0, 1) / standard normal, of dtype f32 or f64; normal values also
    // of c64 or c128 (the standard complex normal: parts independent, each of variance 1/2).
    Array uniform(DType dtype, const Shape& dims) const {
        return detail::make(sl_random_uniform, rng_, static_cast<sl_dtype>(dtype), detail::length(dims.size()),
                            dims.data());
    }
    Array normal(DType dtype, const Shape& dims) const {
        return detail::make(sl_random_normal, rng_, static_cast<sl_dtype>(dtype), detail::length(dims.size()),
                            dims.data());
    }
    // Values uniform on [lo, hi) (f32, f64; every value in [lo, hi) as the type holds them).
    Array uniform(double lo, double hi, DType dtype, const Shape& dims) const {
        return law(sl_random_uniform_range, dtype, dims, lo, hi);
    }
    // Integers uniform on [lo, hi) (i32, where hi may be 2^31, or i64), unbiased.
    Array integers(int64_t lo, int64_t hi, DType dtype, const Shape& dims) const {
        return law(sl_random_integers, dtype, dims, lo, hi);
    }
    // Exponential values of mean `scale` (rate 1/scale).
    Array exponential(double scale, DType dtype, const Shape& dims) const {
        return law(sl_random_exponential, dtype, dims, scale);
    }
    // A bool array, each element true with probability p.
    Array bernoulli(double p, const Shape& dims) const {
        return detail::make(sl_random_bernoulli, rng_, p, detail::length(dims.size()), dims.data());
    }
    // Poisson values of mean lambda (i32, i64).
    Array poisson(double lambda, DType dtype, const Shape& dims) const {
        return law(sl_random_poisson, dtype, dims, lambda);
    }
    // Gamma values of shape k and scale theta; beta(a, b) (two draws); chi-square(df).
    Array gamma(double k, double theta, DType dtype, const Shape& dims) const {
        return law(sl_random_gamma, dtype, dims, k, theta);
    }
    Array beta(double a, double b, DType dtype, const Shape& dims) const {
        return law(sl_random_beta, dtype, dims, a, b);
    }
    Array chisquare(double df, DType dtype, const Shape& dims) const {
        return law(sl_random_chisquare, dtype, dims, df);
    }

private:
    template <class Fn, class... Params> Array law(Fn fn, DType dtype, const Shape& dims, Params... params) const {
        return detail::make(fn, rng_, params..., static_cast<sl_dtype>(dtype), detail::length(dims.size()),
                            dims.data());
    }

    sl_rng rng_ = 0;
};

enum class SobolScramble : sl_sobol_scramble { plain = SL_SOBOL_PLAIN, shift = SL_SOBOL_SHIFT, owen = SL_SOBOL_OWEN };

// Points first .. first+count-1 of the `dims`-dimensional Sobol' sequence (quasi-Monte
// Carlo), shape {count, dims}: element (i, j) is coordinate j of point first + i.
// Scrambled with `seed` unless `scramble` is plain.
inline Array sobol(int64_t dims, int64_t first, int64_t count, DType dtype = DType::f64,
                   SobolScramble scramble = SobolScramble::plain, uint64_t seed = 0) {
    return detail::make(sl_random_sobol, dims, first, count, static_cast<sl_sobol_scramble>(scramble), seed,
                        static_cast<sl_dtype>(dtype));
}

// ---------------------------------------------------------------------------------------
// Scopes, evaluation, runtime

// Opens a scope for its lifetime (on this thread; see the top of this file).
class Scope {
public:
    Scope() { detail::check(sl_scope_begin()); }
    ~Scope() { sl_scope_end(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
};

// Moves the array's handle from the innermost Scope to the enclosing one (out of all
// scopes if none) and returns it: `outer = sluice::keep(inner);`.
inline Array keep(Array a) {
    detail::check(sl_keep(a.handle()));
    return a;
}

// Takes the array's handle out of every Scope on this thread and returns it: no Scope ends
// it, only the Array's destruction (for an array that must outlive its callers' scopes).
inline Array unscope(Array a) {
    detail::check(sl_unscope(a.handle()));
    return a;
}

// Starts computing these arrays now, without waiting.
inline void eval(const std::vector<Array>& arrays) {
    const std::vector<sl_array> hs = detail::handles(arrays);
    detail::check(sl_eval(hs.data(), detail::length(hs.size())));
}
inline void hint_read(const Array& a) { a.hint_read(); }
// Computes everything pending and waits for all work.
inline void sync() { detail::check(sl_sync()); }

// The library's {major, minor, patch} (compare with SL_VERSION_*).
inline std::array<int32_t, 3> version() {
    std::array<int32_t, 3> v{};
    detail::check(sl_version(&v[0], &v[1], &v[2]));
    return v;
}
inline sl_config config_default() {
    sl_config config{};
    detail::check(sl_config_default(&config));
    return config;
}
// Optional: the first call of anything else starts the runtime with the defaults.
inline void init(const sl_config& config) { detail::check(sl_init(&config)); }
inline void init() { detail::check(sl_init(nullptr)); }
inline void shutdown() { detail::check(sl_shutdown()); }
// Profiling: from profile_begin(path) to profile_end(), which writes <path>.txt (time by
// call site), <path>.json (raw records) and <path>.trace.json (a Chrome trace).
inline void profile_begin(const std::string& path) { detail::check(sl_profile_begin(path.c_str())); }
inline void profile_end() { detail::check(sl_profile_end()); }
// Names the call site of this thread's following calls (nullptr clears it).
inline void set_call_site(const char* file, int line) { detail::check(sl_set_call_site(file, line)); }
inline sl_stats stats() {
    sl_stats s{};
    detail::check(sl_get_stats(&s));
    return s;
}
// Which executor runs kernels, on what device, and why it was chosen.
inline sl_device_info device_info() {
    sl_device_info d{};
    detail::check(sl_get_device_info(&d));
    return d;
}
enum class Cache : sl_cache { trace = SL_CACHE_TRACE, macro = SL_CACHE_MACRO, program = SL_CACHE_PROGRAM };
inline sl_cache_stats cache_stats(Cache which) {
    sl_cache_stats s{};
    detail::check(sl_get_cache_stats(static_cast<sl_cache>(which), &s));
    return s;
}
// Result comparison: a reference run (op by op, in f64 on the CPU) beside the optimised
// one; an element passes when |computed - reference| <= abs_tol + rel_tol * |reference|
// (a negative tolerance: the default for the result's type).
enum class Compare : sl_compare_mode { off = SL_COMPARE_OFF, compute = SL_COMPARE_COMPUTE, copyout = SL_COMPARE_COPYOUT };
enum class CompareAction : sl_compare_action {
    report = SL_COMPARE_REPORT,
    error = SL_COMPARE_ERROR,
    abort = SL_COMPARE_ABORT,
};
inline void set_compare(Compare mode, CompareAction action = CompareAction::report, double abs_tol = -1,
                        double rel_tol = -1) {
    const sl_compare_settings s{static_cast<sl_compare_mode>(mode), static_cast<sl_compare_action>(action), abs_tol,
                                rel_tol};
    detail::check(sl_set_compare(&s));
}
inline sl_compare_settings compare_settings() {
    sl_compare_settings s{};
    detail::check(sl_get_compare(&s));
    return s;
}
inline sl_compare_stats compare_stats() {
    sl_compare_stats s{};
    detail::check(sl_get_compare_stats(&s));
    return s;
}
// The reference value of `a` (f64 for floating-point arrays), computed while comparison was on.
inline Array reference(const Array& a) { return detail::make(sl_reference, a.handle()); }

// Handles the application holds (to check for leaks).
inline int64_t live_handles() {
    int64_t n = 0;
    detail::check(sl_live_handles(&n));
    return n;
}
// A handler runs for every failing call before it throws; it must not throw itself
// (it is called from inside the C library).
inline void push_error_handler(sl_error_handler handler, void* user = nullptr) {
    detail::check(sl_push_error_handler(handler, user));
}
inline void pop_error_handler() { detail::check(sl_pop_error_handler()); }

// ---------------------------------------------------------------------------------------
// Macros (code reuse sections)

namespace detail {

template <class R> constexpr bool always_false = false;

// What a macro body returns: one Array, or a std::array of them.
template <class R> struct MacroOutputs {
    static_assert(always_false<R>, "a macro body returns a sluice::Array or a std::array<sluice::Array, N>");
};
template <> struct MacroOutputs<Array> {
    static constexpr std::size_t count = 1;
    static std::array<sl_array, 1> handles(const Array& a) { return {a.handle()}; }
    static Array adopt(const std::array<sl_array, 1>& h) { return Array::adopt(h[0]); }
};
template <std::size_t N> struct MacroOutputs<std::array<Array, N>> {
    static constexpr std::size_t count = N;
    static std::array<sl_array, N> handles(const std::array<Array, N>& arrays) {
        std::array<sl_array, N> hs{};
        for (std::size_t i = 0; i < N; i++) hs[i] = arrays[i].handle();
        return hs;
    }
    static std::array<Array, N> adopt(const std::array<sl_array, N>& hs) {
        std::array<Array, N> arrays;
        for (std::size_t i = 0; i < N; i++) arrays[i] = Array::adopt(hs[i]);
        return arrays;
    }
};

}  // namespace detail

// A code reuse section. The first time for this name, these inputs' dtypes and shapes and
// these control values, body(inputs) runs and Sluice records it; later calls skip the body
// and replay the recording on the inputs' current values. Either way the result is what
// the body returns: a sluice::Array or a std::array<sluice::Array, N>.
//
// The body may use only `inputs` and arrays computed from them. Values that change between
// calls must be inputs, or controls when they change what the body does (an if/else picks
// an entry per control value); scalars written in the body are fixed when it records, and
// constant inputs (sluice::constant, sluice::scalar) are keyed by their value.
// Reads, eval and arrays made from host data are refused while recording. An exception
// from the body cancels the recording and propagates.
template <class Body>
auto macro(const std::string& name, const std::vector<Array>& inputs, const std::vector<double>& controls, Body body) {
    using Result = std::invoke_result_t<Body&, const std::vector<Array>&>;
    using Outputs = detail::MacroOutputs<Result>;
    const std::vector<sl_array> in = detail::handles(inputs);
    std::array<sl_array, Outputs::count> out{};
    sl_macro_mode mode = SL_MACRO_REPLAY;
    detail::check(sl_macro_begin(name.c_str(), in.data(), detail::length(in.size()), controls.data(),
                                 detail::length(controls.size()), out.data(), detail::length(out.size()), &mode));
    if (mode == SL_MACRO_REPLAY) return Outputs::adopt(out);
    Result result;
    try {
        result = body(inputs);
    } catch (...) {
        sl_macro_cancel();
        throw;
    }
    out = Outputs::handles(result);
    detail::check(sl_macro_end(out.data(), detail::length(out.size())));
    return result;
}

template <class Body> auto macro(const std::string& name, const std::vector<Array>& inputs, Body body) {
    return macro(name, inputs, {}, std::move(body));
}

// ---------------------------------------------------------------------------------------
// Applying a function to pieces (elements, blocks)

// One output of apply_blocks (sl_block_output): the aggregate size (default), a slice or a
// scalar per block, or an explicit size.
struct BlockOutput {
    static BlockOutput aggregate() { return BlockOutput(SL_OUTPUT_AGGREGATE); }
    static BlockOutput slice() { return BlockOutput(SL_OUTPUT_SLICE); }
    static BlockOutput scalar() { return BlockOutput(SL_OUTPUT_SCALAR); }
    static BlockOutput size(const Shape& dims) {
        detail::require(dims.size() <= static_cast<std::size_t>(SL_MAX_RANK), "sluice::BlockOutput::size",
                        "more than SL_MAX_RANK dimensions");
        BlockOutput o(SL_OUTPUT_SIZE);
        o.c.rank = detail::length(dims.size());
        std::copy(dims.begin(), dims.end(), o.c.dims);
        return o;
    }
    sl_block_output c{};

private:
    explicit BlockOutput(sl_block_output_kind kind) { c.kind = kind; }
};

// How apply_blocks cuts its inputs (sl_block_options).
struct BlockOptions {
    int32_t dim = SL_DIM_AUTO;
    int64_t block_size = 1;
    int64_t overlap_before = 0;
    int64_t overlap_after = 0;
    Boundary boundary = Boundary::fill;
    double pad = 0;
    // One per output, or none: every output is BlockOutput::aggregate().
    std::vector<BlockOutput> outputs;
    // Values the function's calls depend on besides its pieces (as a macro's controls).
    std::vector<double> controls;
};

namespace detail {

// What the C function for a lambda of type F gets as `user`.
template <class F> struct ApplyCall {
    F& f;
    std::exception_ptr error;
};

// The C function (sl_apply_fn) for lambdas of type F: one per type, so each lambda is its
// own cache key. An exception from the lambda is kept and rethrown by the caller.
template <class F>
sl_status apply_trampoline(const sl_array* pieces, int32_t n_in, sl_array* outputs, int32_t n_out, void* user) {
    using Result = std::invoke_result_t<F&, const std::vector<Array>&>;
    using Outputs = MacroOutputs<Result>;
    auto* call = static_cast<ApplyCall<F>*>(user);
    try {
        std::vector<Array> in;
        for (int32_t i = 0; i < n_in; i++) {
            sl_array h = 0;
            check(sl_retain(pieces[i], &h));
            in.push_back(Array::adopt(h));
        }
        require(static_cast<std::size_t>(n_out) == Outputs::count, "sluice::apply", "output count mismatch");
        Result result = call->f(in);
        // The handles stay valid until the apply ends (the recording's scope releases them).
        const auto hs = Outputs::handles(result);
        for (std::size_t i = 0; i < Outputs::count; i++) check(sl_retain(hs[i], &outputs[i]));
        return SL_OK;
    } catch (const Error& e) {
        call->error = std::current_exception();
        return e.status();
    } catch (...) {
        call->error = std::current_exception();
        return SL_ERR_INVALID_ARGUMENT;
    }
}

// Runs `c_apply(trampoline, user, outputs, n_out)`, rethrowing the lambda's exception.
template <class F, class CApply> auto run_apply(F& f, CApply c_apply) {
    using Result = std::invoke_result_t<F&, const std::vector<Array>&>;
    using Outputs = MacroOutputs<Result>;
    ApplyCall<F> call{f, nullptr};
    std::array<sl_array, Outputs::count> out{};
    const sl_status status = c_apply(&apply_trampoline<F>, static_cast<void*>(&call), out.data(),
                                     length(out.size()));
    if (call.error) std::rethrow_exception(call.error);
    check(status);
    return Outputs::adopt(out);
}

}  // namespace detail

// f(pieces) once per element of the inputs (inputs of size 1 along a dimension repeat
// along it): the lambda is recorded once on rank-0 placeholders and returns a
// sluice::Array or a std::array<sluice::Array, N> of one value each; the outputs have the
// inputs' aggregate size. It runs as one fused kernel; calling it again with a lambda of
// the same type, inputs of the same types and shapes and the same controls replays the
// recording without calling the lambda (values it captures are fixed when it records:
// pass what changes as inputs, or as controls when it changes what the lambda does).
template <class F>
auto apply_elements(F f, const std::vector<Array>& inputs, const std::vector<double>& controls = {}) {
    const std::vector<sl_array> in = detail::handles(inputs);
    return detail::run_apply(f, [&](sl_apply_fn fn, void* user, sl_array* out, int32_t n_out) {
        return sl_apply_elements(fn, user, in.data(), detail::length(in.size()), controls.data(),
                                 detail::length(controls.size()), out, n_out);
    });
}

// f(pieces) on blocks of the inputs along one dimension (see BlockOptions and
// sl_apply_blocks): the lambda is recorded once on placeholders shaped like one block of
// each input and returns a sluice::Array or a std::array<sluice::Array, N>; every block
// runs as one batched program. Cached as apply_elements is, also under the options.
template <class F> auto apply_blocks(F f, const std::vector<Array>& inputs, const BlockOptions& options = {}) {
    const std::vector<sl_array> in = detail::handles(inputs);
    std::vector<sl_block_output> outs;
    for (const BlockOutput& o : options.outputs) outs.push_back(o.c);
    sl_block_options c{};
    detail::check(sl_block_options_default(&c));
    c.dim = options.dim;
    c.block_size = options.block_size;
    c.overlap_before = options.overlap_before;
    c.overlap_after = options.overlap_after;
    c.boundary = static_cast<sl_boundary>(options.boundary);
    c.pad = options.pad;
    c.outputs = outs.empty() ? nullptr : outs.data();
    c.n_outputs = detail::length(outs.size());
    c.controls = options.controls.data();
    c.n_controls = detail::length(options.controls.size());
    return detail::run_apply(f, [&](sl_apply_fn fn, void* user, sl_array* out, int32_t n_out) {
        return sl_apply_blocks(fn, user, in.data(), detail::length(in.size()), &c, out, n_out);
    });
}

// Inside a lambda apply_blocks is recording: how many of the block's own elements lie
// inside the array (a rank-0 i64 array that differs from block to block).
inline Array block_length() { return detail::make(sl_apply_block_length); }

// ---------------------------------------------------------------------------------------
// Element-wise: generic forms, select, cast

inline Array unary(sl_unary_op op, const Array& a) { return detail::make(sl_unary, op, a.handle()); }
inline Array binary(sl_binary_op op, const Array& a, const Array& b) {
    return detail::make(sl_binary, op, a.handle(), b.handle());
}
namespace detail {
template <class T> using if_real = std::enable_if_t<std::is_arithmetic_v<T>, Array>;
}  // namespace detail

// The scalar is weak (README "Type promotion"): an integer scalar takes the array's type,
// a floating-point one the array's floating-point type, or f64 for an integer array.
// A bool scalar is a rank-0 bool array: bool is the lowest kind, so it never widens.
template <class T> detail::if_real<T> binary(sl_binary_op op, const Array& a, T s) {
    if constexpr (std::is_same_v<T, bool>) return binary(op, a, scalar(DType::b8, s));
    else if constexpr (std::is_integral_v<T>) return detail::make(sl_binary_scalar_i, op, a.handle(), int64_t(s));
    else return detail::make(sl_binary_scalar, op, a.handle(), double(s));
}
template <class T> detail::if_real<T> binary(sl_binary_op op, T s, const Array& b) {
    if constexpr (std::is_same_v<T, bool>) return binary(op, scalar(DType::b8, s), b);
    else if constexpr (std::is_integral_v<T>) return detail::make(sl_scalar_binary_i, op, int64_t(s), b.handle());
    else return detail::make(sl_scalar_binary, op, double(s), b.handle());
}
// cond ? a : b element-wise (cond is bool; all three broadcast; a and b are promoted).
inline Array select(const Array& cond, const Array& a, const Array& b) {
    return detail::make(sl_select, cond.handle(), a.handle(), b.handle());
}
// cond ? a : s and cond ? s : b with a floating-point scalar (PeakStream's cond(p, a, 0.0f)).
inline Array select(const Array& cond, const Array& a, double s) {
    return detail::make(sl_select_scalar, cond.handle(), a.handle(), s);
}
inline Array select(const Array& cond, double s, const Array& b) {
    return detail::make(sl_scalar_select, cond.handle(), s, b.handle());
}
inline Array cast(const Array& a, DType dtype) {
    return detail::make(sl_cast, a.handle(), static_cast<sl_dtype>(dtype));
}

// ---------------------------------------------------------------------------------------
// Element-wise unary ops

inline Array neg(const Array& a) { return detail::make(sl_neg, a.handle()); }
inline Array abs(const Array& a) { return detail::make(sl_abs, a.handle()); }
inline Array sign(const Array& a) { return detail::make(sl_sign, a.handle()); }
inline Array sqrt(const Array& a) { return detail::make(sl_sqrt, a.handle()); }
inline Array rsqrt(const Array& a) { return detail::make(sl_rsqrt, a.handle()); }
inline Array cbrt(const Array& a) { return detail::make(sl_cbrt, a.handle()); }
inline Array rcp(const Array& a) { return detail::make(sl_rcp, a.handle()); }
inline Array exp(const Array& a) { return detail::make(sl_exp, a.handle()); }
inline Array exp2(const Array& a) { return detail::make(sl_exp2, a.handle()); }
inline Array expm1(const Array& a) { return detail::make(sl_expm1, a.handle()); }
inline Array log(const Array& a) { return detail::make(sl_log, a.handle()); }
inline Array log2(const Array& a) { return detail::make(sl_log2, a.handle()); }
inline Array log10(const Array& a) { return detail::make(sl_log10, a.handle()); }
inline Array log1p(const Array& a) { return detail::make(sl_log1p, a.handle()); }
inline Array sin(const Array& a) { return detail::make(sl_sin, a.handle()); }
inline Array cos(const Array& a) { return detail::make(sl_cos, a.handle()); }
inline Array tan(const Array& a) { return detail::make(sl_tan, a.handle()); }
inline Array asin(const Array& a) { return detail::make(sl_asin, a.handle()); }
inline Array acos(const Array& a) { return detail::make(sl_acos, a.handle()); }
inline Array atan(const Array& a) { return detail::make(sl_atan, a.handle()); }
inline Array sinh(const Array& a) { return detail::make(sl_sinh, a.handle()); }
inline Array cosh(const Array& a) { return detail::make(sl_cosh, a.handle()); }
inline Array tanh(const Array& a) { return detail::make(sl_tanh, a.handle()); }
inline Array asinh(const Array& a) { return detail::make(sl_asinh, a.handle()); }
inline Array acosh(const Array& a) { return detail::make(sl_acosh, a.handle()); }
inline Array atanh(const Array& a) { return detail::make(sl_atanh, a.handle()); }
inline Array erf(const Array& a) { return detail::make(sl_erf, a.handle()); }
inline Array erfc(const Array& a) { return detail::make(sl_erfc, a.handle()); }
// a * b + c rounded once (floating-point arrays).
inline Array fma(const Array& a, const Array& b, const Array& c) {
    return detail::make(sl_fma, a.handle(), b.handle(), c.handle());
}
// Inverse error function: NaN outside [-1, 1], ±inf at ±1.
inline Array erfinv(const Array& a) { return detail::make(sl_erfinv, a.handle()); }
// log |Γ(a)|; +inf at 0 and the negative integers.
inline Array lgamma(const Array& a) { return detail::make(sl_lgamma, a.handle()); }
// Γ(a); NaN at the negative integers.
inline Array tgamma(const Array& a) { return detail::make(sl_tgamma, a.handle()); }
inline Array floor(const Array& a) { return detail::make(sl_floor, a.handle()); }
inline Array ceil(const Array& a) { return detail::make(sl_ceil, a.handle()); }
// Halfway cases away from zero.
inline Array round(const Array& a) { return detail::make(sl_round, a.handle()); }
inline Array trunc(const Array& a) { return detail::make(sl_trunc, a.handle()); }
inline Array isnan(const Array& a) { return detail::make(sl_isnan, a.handle()); }
inline Array isinf(const Array& a) { return detail::make(sl_isinf, a.handle()); }
// Logical not (bool) or bitwise not (integers); `not` is a C++ keyword.
inline Array not_(const Array& a) { return detail::make(sl_not, a.handle()); }
inline Array isfinite(const Array& a) { return detail::make(sl_isfinite, a.handle()); }

// ---------------------------------------------------------------------------------------
// Complex numbers: DType::c64 holds std::complex<float>, DType::c128 std::complex<double>.
// The arithmetic, comparison and math functions take them where they have a meaning
// (+ - * /, pow, ==, !=, abs, exp, log, sqrt, sin, cos, tan, sinh, cosh, tanh, sum, prod,
// mean, cumsum, cumprod, scatter replacing or adding, Rng::normal).

inline Array conj(const Array& a) { return detail::make(sl_conj, a.handle()); }
// The parts, of the parts' type (a real array: itself, and zeros).
inline Array real(const Array& a) { return detail::make(sl_real, a.handle()); }
inline Array imag(const Array& a) { return detail::make(sl_imag, a.handle()); }
// The phase angle, atan2(imag, real).
inline Array arg(const Array& a) { return detail::make(sl_arg, a.handle()); }
// re + i im from two f32 arrays (c64) or two f64 arrays (c128).
inline Array complex(const Array& re, const Array& im) { return detail::make(sl_complex, re.handle(), im.handle()); }
// r (cos theta + i sin theta).
inline Array polar(const Array& r, const Array& theta) { return detail::make(sl_polar, r.handle(), theta.handle()); }
// A rank-0 complex array (dtype c64 or c128).
inline Array scalar(DType dtype, std::complex<double> value) {
    return detail::make(sl_scalar_c, static_cast<sl_dtype>(dtype), value.real(), value.imag());
}
// An array of complex `dtype` with every element `value`.
inline Array constant(DType dtype, const Shape& dims, std::complex<double> value) {
    return detail::make(sl_constant_c, static_cast<sl_dtype>(dtype), detail::length(dims.size()), dims.data(),
                        value.real(), value.imag());
}
// op with a complex scalar: the array is complex, or real and taken as complex.
inline Array binary(sl_binary_op op, const Array& a, std::complex<double> s) {
    return detail::make(sl_binary_scalar_c, op, a.handle(), s.real(), s.imag());
}
inline Array binary(sl_binary_op op, std::complex<double> s, const Array& b) {
    return detail::make(sl_scalar_binary_c, op, s.real(), s.imag(), b.handle());
}
inline Array add(const Array& a, std::complex<double> s) { return binary(SL_ADD, a, s); }
inline Array add(std::complex<double> s, const Array& b) { return binary(SL_ADD, s, b); }
inline Array sub(const Array& a, std::complex<double> s) { return binary(SL_SUB, a, s); }
inline Array sub(std::complex<double> s, const Array& b) { return binary(SL_SUB, s, b); }
inline Array mul(const Array& a, std::complex<double> s) { return binary(SL_MUL, a, s); }
inline Array mul(std::complex<double> s, const Array& b) { return binary(SL_MUL, s, b); }
inline Array div(const Array& a, std::complex<double> s) { return binary(SL_DIV, a, s); }
inline Array div(std::complex<double> s, const Array& b) { return binary(SL_DIV, s, b); }
inline Array eq(const Array& a, std::complex<double> s) { return binary(SL_EQ, a, s); }
inline Array eq(std::complex<double> s, const Array& b) { return binary(SL_EQ, s, b); }
inline Array ne(const Array& a, std::complex<double> s) { return binary(SL_NE, a, s); }
inline Array ne(std::complex<double> s, const Array& b) { return binary(SL_NE, s, b); }
inline Array pow(const Array& a, std::complex<double> s) { return binary(SL_POW, a, s); }
inline Array pow(std::complex<double> s, const Array& b) { return binary(SL_POW, s, b); }

// ---------------------------------------------------------------------------------------
// Element-wise binary ops, each with arrays or a scalar on either side (arrays broadcast;
// the scalar is weak: an integer scalar takes the array's type, a double one the array's
// floating-point type, or f64 for an integer array; README "Type promotion")

inline Array add(const Array& a, const Array& b) { return detail::make(sl_add, a.handle(), b.handle()); }
inline Array add(const Array& a, double s) { return detail::make(sl_add_scalar, a.handle(), s); }
template <class T> detail::if_real<T> add(const Array& a, T s) { return binary(SL_ADD, a, s); }
template <class T> detail::if_real<T> add(T s, const Array& b) { return add(b, s); }
inline Array sub(const Array& a, const Array& b) { return detail::make(sl_sub, a.handle(), b.handle()); }
inline Array sub(const Array& a, double s) { return detail::make(sl_sub_scalar, a.handle(), s); }
template <class T> detail::if_real<T> sub(const Array& a, T s) { return binary(SL_SUB, a, s); }
inline Array sub(double s, const Array& b) { return detail::make(sl_rsub_scalar, b.handle(), s); }
template <class T> detail::if_real<T> sub(T s, const Array& b) { return binary(SL_SUB, s, b); }
inline Array mul(const Array& a, const Array& b) { return detail::make(sl_mul, a.handle(), b.handle()); }
inline Array mul(const Array& a, double s) { return detail::make(sl_mul_scalar, a.handle(), s); }
template <class T> detail::if_real<T> mul(const Array& a, T s) { return binary(SL_MUL, a, s); }
template <class T> detail::if_real<T> mul(T s, const Array& b) { return mul(b, s); }
// Integer division truncates; x / 0 is 0 for integers.
inline Array div(const Array& a, const Array& b) { return detail::make(sl_div, a.handle(), b.handle()); }
inline Array div(const Array& a, double s) { return detail::make(sl_div_scalar, a.handle(), s); }
template <class T> detail::if_real<T> div(const Array& a, T s) { return binary(SL_DIV, a, s); }
inline Array div(double s, const Array& b) { return detail::make(sl_rdiv_scalar, b.handle(), s); }
template <class T> detail::if_real<T> div(T s, const Array& b) { return binary(SL_DIV, s, b); }
// Remainder with the sign of the dividend (C fmod, %); x % 0 is 0 for integers.
inline Array rem(const Array& a, const Array& b) { return detail::make(sl_rem, a.handle(), b.handle()); }
template <class T> detail::if_real<T> rem(const Array& a, T s) { return binary(SL_REM, a, s); }
template <class T> detail::if_real<T> rem(T s, const Array& b) { return binary(SL_REM, s, b); }
inline Array pow(const Array& a, const Array& b) { return detail::make(sl_pow, a.handle(), b.handle()); }
inline Array pow(const Array& a, double s) { return detail::make(sl_pow_scalar, a.handle(), s); }
template <class T> detail::if_real<T> pow(const Array& a, T s) { return binary(SL_POW, a, s); }
template <class T> detail::if_real<T> pow(T s, const Array& b) { return binary(SL_POW, s, b); }
// The angle of the point (b, a).
inline Array atan2(const Array& a, const Array& b) { return detail::make(sl_atan2, a.handle(), b.handle()); }
template <class T> detail::if_real<T> atan2(const Array& a, T s) { return binary(SL_ATAN2, a, s); }
template <class T> detail::if_real<T> atan2(T s, const Array& b) { return binary(SL_ATAN2, s, b); }
inline Array hypot(const Array& a, const Array& b) { return detail::make(sl_hypot, a.handle(), b.handle()); }
template <class T> detail::if_real<T> hypot(const Array& a, T s) { return binary(SL_HYPOT, a, s); }
template <class T> detail::if_real<T> hypot(T s, const Array& b) { return binary(SL_HYPOT, s, b); }
// Element-wise smaller / larger (NaN if either is NaN); minval/maxval reduce.
inline Array min(const Array& a, const Array& b) { return detail::make(sl_min, a.handle(), b.handle()); }
inline Array min(const Array& a, double s) { return detail::make(sl_min_scalar, a.handle(), s); }
template <class T> detail::if_real<T> min(const Array& a, T s) { return binary(SL_MIN, a, s); }
template <class T> detail::if_real<T> min(T s, const Array& b) { return min(b, s); }
inline Array max(const Array& a, const Array& b) { return detail::make(sl_max, a.handle(), b.handle()); }
inline Array max(const Array& a, double s) { return detail::make(sl_max_scalar, a.handle(), s); }
template <class T> detail::if_real<T> max(const Array& a, T s) { return binary(SL_MAX, a, s); }
template <class T> detail::if_real<T> max(T s, const Array& b) { return max(b, s); }

// Comparisons give bool arrays.
inline Array eq(const Array& a, const Array& b) { return detail::make(sl_eq, a.handle(), b.handle()); }
template <class T> detail::if_real<T> eq(const Array& a, T s) { return binary(SL_EQ, a, s); }
template <class T> detail::if_real<T> eq(T s, const Array& b) { return binary(SL_EQ, s, b); }
inline Array ne(const Array& a, const Array& b) { return detail::make(sl_ne, a.handle(), b.handle()); }
template <class T> detail::if_real<T> ne(const Array& a, T s) { return binary(SL_NE, a, s); }
template <class T> detail::if_real<T> ne(T s, const Array& b) { return binary(SL_NE, s, b); }
inline Array lt(const Array& a, const Array& b) { return detail::make(sl_lt, a.handle(), b.handle()); }
template <class T> detail::if_real<T> lt(const Array& a, T s) { return binary(SL_LT, a, s); }
template <class T> detail::if_real<T> lt(T s, const Array& b) { return binary(SL_LT, s, b); }
inline Array le(const Array& a, const Array& b) { return detail::make(sl_le, a.handle(), b.handle()); }
template <class T> detail::if_real<T> le(const Array& a, T s) { return binary(SL_LE, a, s); }
template <class T> detail::if_real<T> le(T s, const Array& b) { return binary(SL_LE, s, b); }
inline Array gt(const Array& a, const Array& b) { return detail::make(sl_gt, a.handle(), b.handle()); }
template <class T> detail::if_real<T> gt(const Array& a, T s) { return binary(SL_GT, a, s); }
template <class T> detail::if_real<T> gt(T s, const Array& b) { return binary(SL_GT, s, b); }
inline Array ge(const Array& a, const Array& b) { return detail::make(sl_ge, a.handle(), b.handle()); }
template <class T> detail::if_real<T> ge(const Array& a, T s) { return binary(SL_GE, a, s); }
template <class T> detail::if_real<T> ge(T s, const Array& b) { return binary(SL_GE, s, b); }

// Logical on bool, bitwise on integers; `and`, `or`, `xor` are C++ keywords.
inline Array and_(const Array& a, const Array& b) { return detail::make(sl_and, a.handle(), b.handle()); }
template <class T> detail::if_real<T> and_(const Array& a, T s) { return binary(SL_AND, a, s); }
template <class T> detail::if_real<T> and_(T s, const Array& b) { return binary(SL_AND, s, b); }
inline Array or_(const Array& a, const Array& b) { return detail::make(sl_or, a.handle(), b.handle()); }
template <class T> detail::if_real<T> or_(const Array& a, T s) { return binary(SL_OR, a, s); }
template <class T> detail::if_real<T> or_(T s, const Array& b) { return binary(SL_OR, s, b); }
inline Array xor_(const Array& a, const Array& b) { return detail::make(sl_xor, a.handle(), b.handle()); }
template <class T> detail::if_real<T> xor_(const Array& a, T s) { return binary(SL_XOR, a, s); }
template <class T> detail::if_real<T> xor_(T s, const Array& b) { return binary(SL_XOR, s, b); }

// Integer shifts; a count outside 0 .. bits shifts every bit out (>> is arithmetic for
// signed types, logical for unsigned ones).
inline Array shl(const Array& a, const Array& b) { return detail::make(sl_shl, a.handle(), b.handle()); }
template <class T> detail::if_real<T> shl(const Array& a, T s) { return binary(SL_SHL, a, s); }
inline Array shr(const Array& a, const Array& b) { return detail::make(sl_shr, a.handle(), b.handle()); }
template <class T> detail::if_real<T> shr(const Array& a, T s) { return binary(SL_SHR, a, s); }
// The magnitude of a with the sign of b; the next float after a toward b.
inline Array copysign(const Array& a, const Array& b) { return detail::make(sl_copysign, a.handle(), b.handle()); }
template <class T> detail::if_real<T> copysign(const Array& a, T s) { return binary(SL_COPYSIGN, a, s); }
inline Array nextafter(const Array& a, const Array& b) { return detail::make(sl_nextafter, a.handle(), b.handle()); }
template <class T> detail::if_real<T> nextafter(const Array& a, T s) { return binary(SL_NEXTAFTER, a, s); }
// Remainder with the sign of the divisor (Python's %, Fortran's modulo); rem keeps the
// dividend's sign.
inline Array mod(const Array& a, const Array& b) { return detail::make(sl_mod, a.handle(), b.handle()); }
// min(max(a, lo), hi); scalar bounds take a's type.
inline Array clamp(const Array& a, const Array& lo, const Array& hi) {
    return detail::make(sl_clamp, a.handle(), lo.handle(), hi.handle());
}
inline Array clamp(const Array& a, double lo, double hi) { return detail::make(sl_clamp_scalar, a.handle(), lo, hi); }
// floor / ceil / round (halves away from zero) as an integer type in one call; NaN gives 0
// and out-of-range values saturate.
inline Array floor_to(const Array& a, DType dtype) {
    return detail::make(sl_floor_to, a.handle(), static_cast<sl_dtype>(dtype));
}
inline Array ceil_to(const Array& a, DType dtype) {
    return detail::make(sl_ceil_to, a.handle(), static_cast<sl_dtype>(dtype));
}
inline Array round_to(const Array& a, DType dtype) {
    return detail::make(sl_round_to, a.handle(), static_cast<sl_dtype>(dtype));
}

// ---------------------------------------------------------------------------------------
// Operators: an Array with an Array or an arithmetic scalar on either side

namespace detail {
template <class T> constexpr bool is_scalar = std::is_arithmetic_v<T> || is_complex<T>;
template <class L, class R>
constexpr bool operands = (std::is_same_v<L, Array> && (std::is_same_v<R, Array> || is_scalar<R>)) ||
                          (is_scalar<L> && std::is_same_v<R, Array>);
template <class L, class R> using if_operands = std::enable_if_t<operands<L, R>, Array>;
}  // namespace detail

template <class L, class R> detail::if_operands<L, R> operator+(const L& a, const R& b) { return add(a, b); }
template <class L, class R> detail::if_operands<L, R> operator-(const L& a, const R& b) { return sub(a, b); }
template <class L, class R> detail::if_operands<L, R> operator*(const L& a, const R& b) { return mul(a, b); }
template <class L, class R> detail::if_operands<L, R> operator/(const L& a, const R& b) { return div(a, b); }
template <class L, class R> detail::if_operands<L, R> operator%(const L& a, const R& b) { return rem(a, b); }
template <class L, class R> detail::if_operands<L, R> operator==(const L& a, const R& b) { return eq(a, b); }
template <class L, class R> detail::if_operands<L, R> operator!=(const L& a, const R& b) { return ne(a, b); }
template <class L, class R> detail::if_operands<L, R> operator<(const L& a, const R& b) { return lt(a, b); }
template <class L, class R> detail::if_operands<L, R> operator<=(const L& a, const R& b) { return le(a, b); }
template <class L, class R> detail::if_operands<L, R> operator>(const L& a, const R& b) { return gt(a, b); }
template <class L, class R> detail::if_operands<L, R> operator>=(const L& a, const R& b) { return ge(a, b); }
template <class L, class R> detail::if_operands<L, R> operator&(const L& a, const R& b) { return and_(a, b); }
template <class L, class R> detail::if_operands<L, R> operator|(const L& a, const R& b) { return or_(a, b); }
template <class L, class R> detail::if_operands<L, R> operator^(const L& a, const R& b) { return xor_(a, b); }
// Shifts of integer arrays (a stream << is not an array shift: the left operand is an Array).
template <class R> detail::if_operands<Array, R> operator<<(const Array& a, const R& b) { return shl(a, b); }
template <class R> detail::if_operands<Array, R> operator>>(const Array& a, const R& b) { return shr(a, b); }
inline Array operator-(const Array& a) { return neg(a); }
inline Array operator!(const Array& a) { return not_(a); }
inline Array operator~(const Array& a) { return not_(a); }

template <class R> detail::if_operands<Array, R>& operator+=(Array& a, const R& b) { return a = a + b; }
template <class R> detail::if_operands<Array, R>& operator-=(Array& a, const R& b) { return a = a - b; }
template <class R> detail::if_operands<Array, R>& operator*=(Array& a, const R& b) { return a = a * b; }
template <class R> detail::if_operands<Array, R>& operator/=(Array& a, const R& b) { return a = a / b; }
template <class R> detail::if_operands<Array, R>& operator%=(Array& a, const R& b) { return a = a % b; }

// ---------------------------------------------------------------------------------------
// Reductions: along `dim` (kept with size 1) or over everything to rank 0 (all_dims)

inline Array reduce(sl_reduce_op op, const Array& a, int32_t dim = all_dims) {
    return detail::make(sl_reduce, op, a.handle(), dim);
}
inline Array sum(const Array& a, int32_t dim = all_dims) { return detail::make(sl_sum, a.handle(), dim); }
inline Array prod(const Array& a, int32_t dim = all_dims) { return detail::make(sl_prod, a.handle(), dim); }
inline Array minval(const Array& a, int32_t dim = all_dims) { return detail::make(sl_minval, a.handle(), dim); }
inline Array maxval(const Array& a, int32_t dim = all_dims) { return detail::make(sl_maxval, a.handle(), dim); }
inline Array mean(const Array& a, int32_t dim = all_dims) { return detail::make(sl_mean, a.handle(), dim); }
inline Array any(const Array& a, int32_t dim = all_dims) { return detail::make(sl_any, a.handle(), dim); }
inline Array all(const Array& a, int32_t dim = all_dims) { return detail::make(sl_all, a.handle(), dim); }
// Nonzero elements (i64).
inline Array count(const Array& a, int32_t dim = all_dims) { return detail::make(sl_count, a.handle(), dim); }
// Index (i64) of the first smallest / largest element (column-major linear index over all).
inline Array argmin(const Array& a, int32_t dim = all_dims) { return detail::make(sl_argmin, a.handle(), dim); }
inline Array argmax(const Array& a, int32_t dim = all_dims) { return detail::make(sl_argmax, a.handle(), dim); }
// Inclusive scans along `dim`.
inline Array cumsum(const Array& a, int32_t dim) { return detail::make(sl_cumsum, a.handle(), dim); }
inline Array cumprod(const Array& a, int32_t dim) { return detail::make(sl_cumprod, a.handle(), dim); }
// Running maximum / minimum (the input's type), and / or of `a != 0` (bool).
inline Array cummax(const Array& a, int32_t dim) { return detail::make(sl_cummax, a.handle(), dim); }
inline Array cummin(const Array& a, int32_t dim) { return detail::make(sl_cummin, a.handle(), dim); }
inline Array cumand(const Array& a, int32_t dim) { return detail::make(sl_cumand, a.handle(), dim); }
inline Array cumor(const Array& a, int32_t dim) { return detail::make(sl_cumor, a.handle(), dim); }
// Any scan (sl_scan_op), inclusive or exclusive (element i combines 0..i-1).
inline Array scan(sl_scan_op op, const Array& a, int32_t dim, bool exclusive = false) {
    return detail::make(sl_scan, op, a.handle(), dim, static_cast<int32_t>(exclusive));
}
// A scan along each dimension whose bit is set in `dims` (bit d is dimension d).
inline Array scan_dims(sl_scan_op op, const Array& a, uint32_t dims, bool exclusive = false) {
    return detail::make(sl_scan_dims, op, a.handle(), dims, static_cast<int32_t>(exclusive));
}
// A reduction over every dimension whose bit is set in `dims`, each kept with size 1.
inline Array reduce_dims(sl_reduce_op op, const Array& a, uint32_t dims) {
    return detail::make(sl_reduce_dims, op, a.handle(), dims);
}
// NaN-ignoring reductions and norms (sl_reduce_op); norm2 over both dimensions of a
// matrix (all_dims) is its Frobenius norm.
inline Array nansum(const Array& a, int32_t dim = all_dims) { return reduce(SL_NANSUM, a, dim); }
inline Array nanmean(const Array& a, int32_t dim = all_dims) { return reduce(SL_NANMEAN, a, dim); }
inline Array nanmin(const Array& a, int32_t dim = all_dims) { return reduce(SL_NANMIN, a, dim); }
inline Array nanmax(const Array& a, int32_t dim = all_dims) { return reduce(SL_NANMAX, a, dim); }
inline Array norm1(const Array& a, int32_t dim = all_dims) { return reduce(SL_NORM1, a, dim); }
inline Array norm2(const Array& a, int32_t dim = all_dims) { return reduce(SL_NORM2, a, dim); }
inline Array norminf(const Array& a, int32_t dim = all_dims) { return reduce(SL_NORMINF, a, dim); }
// Variance and standard deviation with `ddof` degrees of freedom taken off the count,
// computed stably (sl_var); along `dim` or over everything, or over a set of dimensions.
inline Array var(const Array& a, int32_t dim = all_dims, int64_t ddof = 0) {
    return detail::make(sl_var, a.handle(), dim, ddof);
}
inline Array stddev(const Array& a, int32_t dim = all_dims, int64_t ddof = 0) {
    return detail::make(sl_std, a.handle(), dim, ddof);
}
inline Array var_dims(const Array& a, uint32_t dims, int64_t ddof = 0) {
    return detail::make(sl_var_dims, a.handle(), dims, ddof);
}
inline Array stddev_dims(const Array& a, uint32_t dims, int64_t ddof = 0) {
    return detail::make(sl_std_dims, a.handle(), dims, ddof);
}

// ---------------------------------------------------------------------------------------
// Data movement

// The same elements (column-major order) with a new shape.
inline Array reshape(const Array& a, const Shape& dims) {
    return detail::make(sl_reshape, a.handle(), detail::length(dims.size()), dims.data());
}
// Dimension d of the result is dimension perm[d] of `a`.
inline Array permute(const Array& a, const std::vector<int32_t>& perm) {
    return detail::make(sl_permute, a.handle(), perm.data(), detail::length(perm.size()));
}
// Swaps the first two dimensions (a vector of length n becomes 1 x n).
inline Array transpose(const Array& a) { return detail::make(sl_transpose, a.handle()); }
// Elements start[d] + i * stride[d] for i < count[d] (one entry per dimension; a negative
// stride walks backwards; no strides means 1).
inline Array section(const Array& a, const Shape& start, const Shape& count, Shape stride = {}) {
    if (stride.empty()) stride.assign(start.size(), 1);
    detail::require_per_dim(a, start, "sluice::section", "start");
    detail::require_per_dim(a, count, "sluice::section", "count");
    detail::require_per_dim(a, stride, "sluice::section", "stride");
    return detail::make(sl_section, a.handle(), start.data(), count.data(), stride.data());
}
// The slice at `index` of dimension `dim`, with that dimension removed.
inline Array project(const Array& a, int32_t dim, int64_t index) {
    return detail::make(sl_project, a.handle(), dim, index);
}
// out[.., i, ..] = a[.., i - offset, ..] along `dim`; outside positions take `fill` or the edge.
inline Array shift(const Array& a, int32_t dim, int64_t offset, Boundary boundary = Boundary::fill, double fill = 0) {
    return detail::make(sl_shift, a.handle(), dim, offset, static_cast<sl_boundary>(boundary), fill);
}
// Cyclic shift along `dim`.
inline Array rotate(const Array& a, int32_t dim, int64_t offset) {
    return detail::make(sl_rotate, a.handle(), dim, offset);
}
// lo[d] elements added before and hi[d] after each dimension (one entry per dimension).
inline Array pad(const Array& a, const Shape& lo, const Shape& hi, Boundary boundary = Boundary::fill,
                 double fill = 0) {
    detail::require_per_dim(a, lo, "sluice::pad", "lo");
    detail::require_per_dim(a, hi, "sluice::pad", "hi");
    return detail::make(sl_pad, a.handle(), lo.data(), hi.data(), static_cast<sl_boundary>(boundary), fill);
}
// `a` repeated reps[d] times along each dimension (more entries than the rank add dimensions).
inline Array tile(const Array& a, const Shape& reps) {
    return detail::make(sl_tile, a.handle(), reps.data(), detail::length(reps.size()));
}
// `a` stretched to `dims` (its size-1 and missing trailing dimensions).
inline Array broadcast_to(const Array& a, const Shape& dims) {
    return detail::make(sl_broadcast_to, a.handle(), detail::length(dims.size()), dims.data());
}
// The arrays joined along `dim`.
inline Array concat(const std::vector<Array>& arrays, int32_t dim) {
    const std::vector<sl_array> hs = detail::handles(arrays);
    return detail::make(sl_concat, hs.data(), detail::length(hs.size()), dim);
}
// out[i] = src[indices[0][i], ..., indices[r-1][i]]: one index array per dimension of `src`
// (they broadcast together; integers, or f32/f64 floored); out-of-range indices clamp to
// the edge.
inline Array gather(const Array& src, const std::vector<Array>& indices) {
    const std::vector<sl_array> hs = detail::handles(indices);
    return detail::make(sl_gather, src.handle(), hs.data(), detail::length(hs.size()));
}
// `gather` with out-of-range indices read as `policy` says (`fill` for IndexPolicy::fill).
inline Array gather(const Array& src, const std::vector<Array>& indices, IndexPolicy policy, double fill = 0) {
    const std::vector<sl_array> hs = detail::handles(indices);
    return detail::make(sl_gather_with, src.handle(), hs.data(), detail::length(hs.size()),
                        static_cast<sl_index_policy>(policy), fill);
}
// `src` read along `dim` at `index` (numpy's take_along_axis; see sl_take_along).
inline Array take_along(const Array& src, const Array& index, int32_t dim, IndexPolicy policy = IndexPolicy::clamp,
                        double fill = 0) {
    return detail::make(sl_take_along, src.handle(), index.handle(), dim, static_cast<sl_index_policy>(policy), fill);
}
// Linear interpolation of `src` along `dim` at fractional positions `pos` (see sl_interp1).
inline Array interp1(const Array& src, const Array& pos, int32_t dim, IndexPolicy policy = IndexPolicy::clamp,
                     double fill = 0) {
    return detail::make(sl_interp1, src.handle(), pos.handle(), dim, static_cast<sl_index_policy>(policy), fill);
}
// Bilinear interpolation of `src` along `dim0` and `dim1` at `pos0` and `pos1` (see sl_interp2).
inline Array interp2(const Array& src, const Array& pos0, const Array& pos1, int32_t dim0, int32_t dim1,
                     IndexPolicy policy = IndexPolicy::clamp, double fill = 0) {
    return detail::make(sl_interp2, src.handle(), pos0.handle(), pos1.handle(), dim0, dim1,
                        static_cast<sl_index_policy>(policy), fill);
}
// A copy of `dst` with values[i] written at (indices[0][i], ...), combined by `mode`;
// out-of-range positions are dropped.
inline Array scatter(const Array& dst, const std::vector<Array>& indices, const Array& values,
                     ScatterMode mode = ScatterMode::replace) {
    const std::vector<sl_array> hs = detail::handles(indices);
    return detail::make(sl_scatter, dst.handle(), hs.data(), detail::length(hs.size()), values.handle(),
                        static_cast<sl_scatter_mode>(mode));
}

// The square matrix with the vector v on diagonal k.
inline Array diag_matrix(const Array& v, int64_t k = 0) { return detail::make(sl_diag_matrix, v.handle(), k); }
// Diagonal k of the matrices in the first two dimensions (batched over the others), a view.
inline Array diagonal(const Array& a, int64_t k = 0) { return detail::make(sl_diagonal, a.handle(), k); }
// numpy's diag: diag_matrix of a vector, diagonal of anything of rank 2 or more.
inline Array diag(const Array& a, int64_t k = 0) { return a.rank() == 1 ? diag_matrix(a, k) : diagonal(a, k); }
// Zeros below (triu) or above (tril) diagonal k, batched over dimensions 2 and up.
inline Array triu(const Array& a, int64_t k = 0) { return detail::make(sl_triu, a.handle(), k); }
inline Array tril(const Array& a, int64_t k = 0) { return detail::make(sl_tril, a.handle(), k); }
// Each element repeated `count` times along `dim` (APL replicate).
inline Array repeat(const Array& a, int64_t count, int32_t dim = 0) {
    return detail::make(sl_repeat, a.handle(), count, dim);
}
// Element i along `dim` repeated counts[i] times; waits for the counts (the size depends on them).
inline Array repeat(const Array& a, const Array& counts, int32_t dim = 0) {
    return detail::make(sl_repeat_counts, a.handle(), counts.handle(), dim);
}

enum class Indexing : sl_indexing { ij = SL_INDEXING_IJ, xy = SL_INDEXING_XY };

// Coordinate arrays of the grid the vectors span (xy: the first two swap, numpy's default).
inline std::vector<Array> meshgrid(const std::vector<Array>& vectors, Indexing indexing = Indexing::xy) {
    const std::vector<sl_array> hs = detail::handles(vectors);
    std::vector<sl_array> outs(hs.size(), 0);
    detail::check(sl_meshgrid(hs.data(), detail::length(hs.size()), static_cast<sl_indexing>(indexing), outs.data()));
    std::vector<Array> grids;
    grids.reserve(outs.size());
    for (sl_array h : outs) grids.push_back(Array::adopt(h));
    return grids;
}
// `a` reversed along each of `dims`.
inline Array flip(const Array& a, const std::vector<int32_t>& dims) {
    return detail::make(sl_flip, a.handle(), dims.data(), detail::length(dims.size()));
}
// Without dimension `dim` (of size 1), or every size-1 dimension (dim = -1).
inline Array squeeze(const Array& a, int32_t dim = -1) { return detail::make(sl_squeeze, a.handle(), dim); }
// With a new size-1 dimension at position `dim`.
inline Array expand_dims(const Array& a, int32_t dim) { return detail::make(sl_expand_dims, a.handle(), dim); }
// Dimension `from` moved to position `to`.
inline Array moveaxis(const Array& a, int32_t from, int32_t to) {
    return detail::make(sl_moveaxis, a.handle(), from, to);
}

// ---------------------------------------------------------------------------------------
// Linear algebra

// a (m x k) times b (k x n); either may be a vector of length k (f32, f64, c64, c128).
inline Array matmul(const Array& a, const Array& b) { return detail::make(sl_matmul, a.handle(), b.handle()); }
// Sum of the element-wise products of two arrays of the same shape (rank 0).
inline Array dot(const Array& a, const Array& b) { return detail::make(sl_dot, a.handle(), b.handle()); }
// The m x n matrix of a[i] * b[j] for vectors a (length m) and b (length n).
inline Array outer(const Array& a, const Array& b) { return detail::make(sl_outer, a.handle(), b.handle()); }
// op(a[i...], b[j...]) for every element of a and of b, shaped a's dimensions then b's.
inline Array outer(sl_binary_op op, const Array& a, const Array& b) {
    return detail::make(sl_outer_product, op, a.handle(), b.handle());
}
// reduce over p of combine(a[i, p], b[p, j]) with matmul's shapes and batches, e.g.
// (SL_MINVAL, SL_ADD) for shortest paths, (SL_ANY, SL_AND) for reachability.
inline Array inner_product(sl_reduce_op reduce, sl_binary_op combine, const Array& a, const Array& b) {
    return detail::make(sl_inner_product, reduce, combine, a.handle(), b.handle());
}
// dot(conj(a), b): the inner product of complex vectors.
inline Array vdot(const Array& a, const Array& b) { return detail::make(sl_vdot, a.handle(), b.handle()); }

// What gemm does to an operand first.
enum class Op : sl_transpose_op { none = SL_NO_TRANS, trans = SL_TRANS, conj_trans = SL_CONJ_TRANS };

// alpha op_a(a) op_b(b) + beta c; an empty c (Array()) for none. With beta 0, c is not
// read. c is not changed: the result is a new array.
inline Array gemm(Op op_a, const Array& a, Op op_b, const Array& b, double alpha = 1.0, const Array& c = Array(),
                  double beta = 0.0) {
    return detail::make(sl_gemm, static_cast<sl_transpose_op>(op_a), a.handle(), static_cast<sl_transpose_op>(op_b),
                        b.handle(), alpha, c.handle(), beta);
}
// gemm with complex scalars.
inline Array gemm(Op op_a, const Array& a, Op op_b, const Array& b, std::complex<double> alpha,
                  const Array& c = Array(), std::complex<double> beta = 0.0) {
    return detail::make(sl_gemm_c, static_cast<sl_transpose_op>(op_a), a.handle(), static_cast<sl_transpose_op>(op_b),
                        b.handle(), alpha.real(), alpha.imag(), c.handle(), beta.real(), beta.imag());
}

// ---------------------------------------------------------------------------------------
// Fourier transforms along 1 to 3 of the array's dimensions, batched over the others

// The discrete Fourier transform along `dims` (a real array is taken as complex).
inline Array fft(const Array& a, const std::vector<int32_t>& dims, FftNorm norm = FftNorm::backward) {
    return detail::make(sl_fft, a.handle(), detail::length(dims.size()), dims.data(), static_cast<sl_fft_norm>(norm));
}
// Its inverse; with the default normalisation ifft(fft(a, dims), dims) is a.
inline Array ifft(const Array& a, const std::vector<int32_t>& dims, FftNorm norm = FftNorm::backward) {
    return detail::make(sl_ifft, a.handle(), detail::length(dims.size()), dims.data(), static_cast<sl_fft_norm>(norm));
}
// The transform of a real array; the last of `dims` (length n) keeps n/2 + 1 points.
inline Array rfft(const Array& a, const std::vector<int32_t>& dims, FftNorm norm = FftNorm::backward) {
    return detail::make(sl_rfft, a.handle(), detail::length(dims.size()), dims.data(), static_cast<sl_fft_norm>(norm));
}
// The real array of length `n` along the last of `dims` whose rfft is `a`.
inline Array irfft(const Array& a, const std::vector<int32_t>& dims, int64_t n, FftNorm norm = FftNorm::backward) {
    return detail::make(sl_irfft, a.handle(), detail::length(dims.size()), dims.data(), n,
                        static_cast<sl_fft_norm>(norm));
}

// ---------------------------------------------------------------------------------------
// Factorizations and solves of square (LU: any) matrices, batched over dimensions 2 and up

// An LU factorization: packed factors (L below the diagonal, unit diagonal implied, U on
// and above) and the i32 pivots in LAPACK's 1-based ipiv convention.
struct LU {
    Array factors;
    Array pivots;
};
// A = P L U unpacked.
struct LUFactors {
    Array l;
    Array u;
    Array p;
};
// A determinant as its sign and the log of its modulus.
struct SignLogDet {
    Array sign;
    Array logabs;
};

// A QR factorization A = Q R (q is empty when only R was asked for).
struct QR {
    Array q;
    Array r;
};

enum class Uplo : sl_uplo { lower = SL_LOWER, upper = SL_UPPER };
enum class QrMode : sl_qr_mode { reduced = SL_QR_REDUCED, complete = SL_QR_COMPLETE, r = SL_QR_R };
enum class Diag : sl_diag { non_unit = SL_NON_UNIT_DIAG, unit = SL_UNIT_DIAG };

// LU with partial pivoting (a singular matrix is factored, with a zero on U's diagonal).
inline LU lu(const Array& a) {
    sl_array f = 0, p = 0;
    detail::check(sl_lu(a.handle(), &f, &p));
    return {Array::adopt(f), Array::adopt(p)};
}
// x with op(A) x = b from A's LU factorization.
inline Array lu_solve(const LU& f, const Array& b, Op op = Op::none) {
    return detail::make(sl_lu_solve, f.factors.handle(), f.pivots.handle(), static_cast<sl_transpose_op>(op),
                        b.handle());
}
// L, U and P of a square LU factorization.
inline LUFactors lu_unpack(const LU& f) {
    sl_array l = 0, u = 0, p = 0;
    detail::check(sl_lu_unpack(f.factors.handle(), f.pivots.handle(), &l, &u, &p));
    return {Array::adopt(l), Array::adopt(u), Array::adopt(p)};
}
// x with A x = b (throws sluice::Error with SL_ERR_SINGULAR where x is read if A is singular).
inline Array solve(const Array& a, const Array& b) { return detail::make(sl_solve, a.handle(), b.handle()); }
inline Array inv(const Array& a) { return detail::make(sl_inv, a.handle()); }
inline Array det(const Array& a) { return detail::make(sl_det, a.handle()); }
inline SignLogDet slogdet(const Array& a) {
    sl_array s = 0, l = 0;
    detail::check(sl_slogdet(a.handle(), &s, &l));
    return {Array::adopt(s), Array::adopt(l)};
}
// Sorting and searching (README "Sorting"): one order for all, by value with -0 equal to
// +0 and NaNs after every number in both directions; sorts are stable.
enum class Order : sl_sort_order { ascending = SL_ASCENDING, descending = SL_DESCENDING };
enum class Side : sl_side { left = SL_SIDE_LEFT, right = SL_SIDE_RIGHT };
// Every line along dim sorted.
inline Array sort(const Array& a, int32_t dim = 0, Order order = Order::ascending) {
    return detail::make(sl_sort, a.handle(), dim, static_cast<sl_sort_order>(order));
}
// The (i64, 0-based) positions along dim that sort every line.
inline Array argsort(const Array& a, int32_t dim = 0, Order order = Order::ascending) {
    return detail::make(sl_argsort, a.handle(), dim, static_cast<sl_sort_order>(order));
}
// The k largest (Order::descending) or smallest elements along dim, and their positions.
struct TopK {
    Array values;
    Array indices;
};
inline TopK topk(const Array& a, int64_t k, int32_t dim = 0, Order order = Order::descending) {
    sl_array v = 0, i = 0;
    detail::check(sl_topk(a.handle(), k, dim, static_cast<sl_sort_order>(order), &v, &i));
    return {Array::adopt(v), Array::adopt(i)};
}
// For each element of v, the number of elements of the ascending vector `sorted` before it
// (Side::right: before or equal).
inline Array searchsorted(const Array& sorted, const Array& v, Side side = Side::left) {
    return detail::make(sl_searchsorted, sorted.handle(), v.handle(), static_cast<sl_side>(side));
}
// The 0-based column-major indices of the nonzero elements (waits for the data).
inline Array nonzero(const Array& a) { return detail::make(sl_nonzero, a.handle()); }
// The elements of a where mask holds, as a vector (waits for mask).
inline Array compress(const Array& mask, const Array& a) { return detail::make(sl_compress, mask.handle(), a.handle()); }
// The distinct values (ascending), their counts, and each element's place among them.
struct Unique {
    Array values;
    Array counts;
    Array inverse;
};
inline Unique unique(const Array& a) {
    sl_array v = 0, c = 0, i = 0;
    detail::check(sl_unique(a.handle(), &v, &c, &i));
    return {Array::adopt(v), Array::adopt(c), Array::adopt(i)};
}
// Counts in the bins between consecutive edges (numpy's rule; outside and NaN dropped).
inline Array histogram(const Array& a, const Array& edges) {
    return detail::make(sl_histogram, a.handle(), edges.handle());
}
// Counts in `bins` equal bins spanning [lo, hi].
inline Array histogram(const Array& a, int64_t bins, double lo, double hi) {
    return detail::make(sl_histogram_range, a.handle(), bins, lo, hi);
}
// The reciprocal condition number in the 1-norm, estimated as LAPACK's gecon does.
inline Array rcond(const Array& a) { return detail::make(sl_rcond, a.handle()); }
// The lower Cholesky factor L of a Hermitian positive definite a = L L^H.
inline Array cholesky(const Array& a) { return detail::make(sl_cholesky, a.handle()); }
// x with L L^H x = b.
inline Array cholesky_solve(const Array& l, const Array& b) {
    return detail::make(sl_cholesky_solve, l.handle(), b.handle());
}
// x with op(T) x = b, T the `uplo` triangle of t.
inline Array triangular_solve(const Array& t, const Array& b, Uplo uplo, Op op = Op::none,
                              Diag diag = Diag::non_unit) {
    return detail::make(sl_triangular_solve, t.handle(), static_cast<sl_uplo>(uplo), static_cast<sl_transpose_op>(op),
                        static_cast<sl_diag>(diag), b.handle());
}
// Householder QR as numpy's linalg.qr(a, mode): Q m x k and R k x n (k = min(m, n)),
// Q m x m and R m x n, or R alone (q empty). Q and R are unique only up to signs.
inline QR qr(const Array& a, QrMode mode = QrMode::reduced) {
    sl_array q = 0, r = 0;
    detail::check(sl_qr(a.handle(), static_cast<sl_qr_mode>(mode), mode == QrMode::r ? nullptr : &q, &r));
    return {mode == QrMode::r ? Array() : Array::adopt(q), Array::adopt(r)};
}
// The least-squares x of A x = b (least-norm when A is wide) through QR; a rank-deficient
// A throws sluice::Error with SL_ERR_SINGULAR where x is read.
inline Array lstsq(const Array& a, const Array& b) { return detail::make(sl_lstsq, a.handle(), b.handle()); }

}  // namespace sluice

#endif  // SLUICE_HPP
