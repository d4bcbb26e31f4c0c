// Compiled only with RENTSIM_MPI: the MPI calls of mpi_sweep.hpp, nothing else. Only the main
// thread calls MPI (the sweep's thread pool does not), hence MPI_THREAD_FUNNELED.
#include "analysis/cli/mpi_sweep.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <iostream>

#include <fcntl.h>
#include <unistd.h>

// The C API only: the deprecated C++ bindings of mpi.h do not compile warning-free.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

namespace rentsim::cli {

namespace {

MpiWorld world;

// Ranks other than 0 print nothing: rank 0 prints what one process would, and their errors
// reach it through gather_shares.
void silence() {
    std::fflush(stdout);
    std::fflush(stderr);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null < 0) return;
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::close(null);
}

}  // namespace

MpiWorld mpi_world() { return world; }

int mpi_main(int argc, char** argv, int (*program)(int, char**)) {
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        std::cerr << "rentsim: cannot start MPI\n";
        return 3;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world.size);
    if (world.size > 1 && world.rank != 0) silence();
    const int status = program(argc, argv);
    std::cout.flush();
    std::fflush(stdout);
    int agreed = status;
    if (world.size > 1) MPI_Allreduce(&status, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return agreed;
}

std::vector<ShareOutcome> gather_shares(const ShareOutcome& mine) {
    // Every rank learns every status and length, so that all agree whether the texts fit the
    // int counts of MPI_Gatherv before any of them calls it.
    const auto ranks = static_cast<std::size_t>(world.size);
    const std::int64_t head[2] = {mine.status, static_cast<std::int64_t>(mine.text.size())};
    std::vector<std::int64_t> heads(2 * ranks);
    MPI_Allgather(head, 2, MPI_INT64_T, heads.data(), 2, MPI_INT64_T, MPI_COMM_WORLD);
    std::int64_t total = 0;
    for (std::size_t r = 0; r < ranks; ++r) total += heads[2 * r + 1];
    if (total > INT_MAX) {
        if (world.rank != 0) return {};
        return {{2, "rentsim: the ranks' shard files exceed one MPI message (2 GiB); split the sweep with --shard\n"}};
    }
    std::vector<int> counts(ranks), offsets(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        counts[r] = static_cast<int>(heads[2 * r + 1]);
        offsets[r] = r == 0 ? 0 : offsets[r - 1] + counts[r - 1];
    }
    std::string all(world.rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
    MPI_Gatherv(mine.text.data(), static_cast<int>(mine.text.size()), MPI_CHAR, all.data(), counts.data(), offsets.data(),
                MPI_CHAR, 0, MPI_COMM_WORLD);
    if (world.rank != 0) return {};
    std::vector<ShareOutcome> outcomes(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        outcomes[r].status = static_cast<int>(heads[2 * r]);
        outcomes[r].text = all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(counts[r]));
    }
    return outcomes;
}

}  // namespace rentsim::cli
