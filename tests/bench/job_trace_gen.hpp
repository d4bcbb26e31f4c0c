// A synthetic job trace in rentsim's job CSV (analysis/jobs/import.hpp, format "csv"), for
// benchmarks at scale: same seed, same bytes, on every platform (splitmix64 and integer
// arithmetic only, no std distributions). By default jobs arrive 0 to 59 s apart; GPU counts are
// drawn from {1 x4, 2, 4, 8 x2, 16, 32}, run times from 60 s to one day, GPU types A100, H100 or
// none; JobShape changes the arrival gaps, the longest run time and the types.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace rentsim::bench {

// splitmix64 (S. Vigna, public domain): one 64-bit step.
inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The trace's shape; the defaults give the trace described above.
struct JobShape {
    std::uint64_t max_gap_s = 59;         // arrivals 0 to max_gap_s apart (uniform, whole seconds)
    std::uint64_t max_duration_s = 86400; // run times 60 to max_duration_s (uniform, whole seconds)
    bool gpu_types = true;                // A100, H100 or none; false: none (any GPU)
};

// Writes `jobs` rows to `path`; returns false when the file cannot be written.
inline bool write_synthetic_jobs(const std::string& path, std::int64_t jobs, std::uint64_t seed,
                                 const JobShape& shape = {}) {
    static constexpr int gpu_choices[] = {1, 1, 1, 1, 2, 4, 8, 8, 16, 32};
    static constexpr const char* types[] = {"A100", "H100", ""};
    std::ofstream out(path, std::ios::binary);
    out << "id,submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok\n";
    std::uint64_t state = seed;
    std::int64_t submit = 0;
    std::string row;
    for (std::int64_t i = 0; i < jobs; ++i) {
        submit += static_cast<std::int64_t>(splitmix64(state) % (shape.max_gap_s + 1));
        const std::uint64_t r = splitmix64(state);
        row = "job-" + std::to_string(i) + "," + std::to_string(submit) + "," + std::to_string(gpu_choices[r % 10]) +
              "," + std::to_string(60 + (r >> 8) % (shape.max_duration_s - 59)) + "," +
              (shape.gpu_types ? types[(r >> 32) % 3] : "") + ",u" +
              std::to_string((r >> 40) % 500) + "," + std::to_string((r >> 50) % 3) + "," +
              ((r >> 60) % 2 ? "true" : "false") + "\n";
        out << row;
    }
    return static_cast<bool>(out.flush());
}

}  // namespace rentsim::bench
