// Explicit 2-D heat diffusion over 100 steps, distributed along dimension 0 with the C++
// layer, against the same steps on one process with plain sluice::Array (every rank runs
// both): the results are equal bit for bit (element-wise work and shifts only). Also
// checks the C++ layer's errors (a sluice::Error with the SL_MPI_* status and the rank in
// its message) and that nothing leaks.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#include <sluice_mpi.hpp>  // with mpi.h

namespace {

constexpr int64_t rows = 61, cols = 47;
constexpr int steps = 100;
constexpr double alpha = 0.2;

int me = 0, ranks = 1, failures = 0;

void expect(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "[rank %d] heat: %s\n", me, what);
        failures++;
    }
}

template <class A, class S> A step(const A& u, S shift) {
    const A laplacian = shift(u, 0, 1) + shift(u, 0, -1) + shift(u, 1, 1) + shift(u, 1, -1) - 4.0 * u;
    return u + alpha * laplacian;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    unsigned seed = 0;
    if (me == 0) {
        const char* s = std::getenv("SLUICE_TEST_SEED");
        seed = s ? static_cast<unsigned>(std::strtoul(s, nullptr, 10)) : static_cast<unsigned>(std::time(nullptr));
        std::printf("heat on %d ranks: SLUICE_TEST_SEED=%u\n", ranks, seed);
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
    try {
        const int64_t sluice_before = sluice::live_handles();
        {
            sluice::mpi::Session session(MPI_COMM_WORLD);
            std::mt19937_64 rng(seed);
            std::uniform_real_distribution<double> uniform(0.0, 1.0);
            std::vector<double> u0(rows * cols);
            for (double& v : u0) v = uniform(rng);

            // One process.
            sluice::Array u(u0, {rows, cols});
            for (int s = 0; s < steps; s++) {
                u = step(u, [](const sluice::Array& a, int32_t d, int64_t o) { return sluice::shift(a, d, o); });
            }
            const std::vector<double> want = u.read<double>();

            // Distributed: the root scatters the initial grid.
            namespace mpi = sluice::mpi;
            const sluice::Array whole(u0, {rows, cols});
            mpi::Array d = mpi::Array::scatter(me == 0 ? whole : sluice::Array(), 0, 0);
            for (int s = 0; s < steps; s++) {
                d = step(d, [](const mpi::Array& a, int32_t dim, int64_t o) { return mpi::shift(a, dim, o); });
                if (s % 10 == 9) mpi::eval({d});  // communicate and start the local work
            }
            const std::vector<double> got = d.gather().read<double>();
            expect(got.size() == want.size() && std::memcmp(got.data(), want.data(), got.size() * sizeof(double)) == 0,
                   "the distributed grid differs from the one-process grid");

            // This rank's part is the block the rule gives.
            const auto [start, count] = mpi::block(rows, ranks, me);
            const sluice::Array part = d.local();
            expect(part.shape() == sluice::Shape({count, cols}), "the local part's shape");
            const std::vector<double> mine = part.read<double>();
            bool same = true;
            for (int64_t j = 0; j < cols; j++)
                for (int64_t i = 0; i < count; i++) same &= mine[i + count * j] == want[start + i + rows * j];
            expect(same, "the local part is the rank's block of the result");

            // Errors: a sluice::Error with the status, naming the rank.
            const mpi::Array columns = mpi::redistribute(d, 1);
            try {
                const mpi::Array bad = d + columns;
                expect(false, "operands split along different dimensions were accepted");
            } catch (const sluice::Error& e) {
                expect(e.status() == SL_ERR_SHAPE_MISMATCH, "status of mismatched distributions");
                expect(std::strstr(e.what(), "distributed differently") != nullptr, "message of mismatched distributions");
                expect(std::strstr(e.what(), "[rank ") != nullptr, "the message names the rank");
                expect(e.function() == "sl_mpi_binary", "the failing function");
            }
            expect(std::strcmp(mpi::status_name(SL_MPI_ERR_TIMEOUT), "SL_MPI_ERR_TIMEOUT") == 0 &&
                       std::strcmp(mpi::status_name(SL_ERR_SHAPE_MISMATCH), "SL_ERR_SHAPE_MISMATCH") == 0,
                   "status names");
            const sl_mpi_stats stats = mpi::stats();
            expect(ranks == 1 || stats.messages > 0, "halos were exchanged");
            expect(ranks == 1 || stats.overlapped > 0, "interior pieces started before the halos arrived");
            expect(mpi::size() == ranks && mpi::rank() == me, "rank and size");
            session.finalize();
        }
        expect(sluice::live_handles() == sluice_before, "Sluice handles leaked");
    } catch (const sluice::Error& e) {
        std::fprintf(stderr, "[rank %d] heat: %s (%s)\n", me, e.what(), e.status_name());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sl_device_info device{};
    sl_get_device_info(&device);
    if (me == 0)
        std::printf("heat on %d ranks, %d steps, on %s: %s\n", ranks, steps, device.name, total ? "FAILED" : "passed");
    MPI_Finalize();
    return total ? 1 : 0;
}
