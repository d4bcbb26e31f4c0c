// Sweeps split over MPI ranks, in a build with RENTSIM_MPI (Debian's OpenMPI). Under
// `mpirun -n K` with K > 1, `rentsim run|sweep FILE` runs on every rank: rank r runs shard
// r+1 of K (analysis/run/shard.hpp) in memory, rank 0 gathers the shard files, joins them as
// `rentsim merge` does and writes the files and the table one process writes. Ranks other
// than 0 print nothing: their standard output and error go to /dev/null. A plain start (one
// rank) and a build without MPI behave as without this file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rentsim::cli {

struct MpiWorld {
    int rank = 0;
    int size = 1;  // ranks in MPI_COMM_WORLD; 1 without MPI
};

// What one rank made of its share of the points.
struct ShareOutcome {
    int status = 0;    // 0: `text` is the rank's shard file; otherwise its exit status
    std::string text;  // the shard file (shard_json), or the message rank 0 prints for it
};

#if defined(RENTSIM_MPI)

// This process's rank and the world's size; {0, 1} before mpi_main started MPI.
MpiWorld mpi_world();

// main() with MPI: MPI_Init, `program` on every rank (the others silenced), then every rank
// exits with the largest status of all ranks, so that mpirun's status is the command's.
int mpi_main(int argc, char** argv, int (*program)(int, char**));

// Collective, every rank calls it once: rank 0 receives every rank's outcome in rank order
// (its own first); the other ranks receive an empty list. Texts may be of any length: when
// they do not fit one MPI message (2 GiB) in all, rank 0 receives status 2 and a message.
std::vector<ShareOutcome> gather_shares(const ShareOutcome& mine);

#else

inline MpiWorld mpi_world() { return {}; }
inline int mpi_main(int argc, char** argv, int (*program)(int, char**)) { return program(argc, argv); }
inline std::vector<ShareOutcome> gather_shares(const ShareOutcome& mine) { return {mine}; }

#endif

}  // namespace rentsim::cli
