// A recorded cluster job, as the job-trace importers hand it over to the capacity simulator.
// Units: seconds from the trace's start (submit_s) and seconds of run time (duration_s).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rentsim::jobs {

enum class Format : std::uint8_t { philly, philly_csv, gavel, pai, helios, acme, openb, csv };

struct Job {
    std::string id;              // the trace's job id, or "line N" when it has none
    double submit_s = 0;         // submission, seconds from the trace's first submission
    int gpus = 1;                // whole GPUs asked for (fractional shares round up to 1)
    double gpu_fraction = 1.0;   // share of one GPU for a sub-GPU task (openb gpu_milli/1000,
                                 // PAI plan_gpu/100); 1 otherwise
    double duration_s = 0;       // recorded run time on `gpu_type`
    std::string gpu_type;        // as recorded ("V100", "T4", ...); empty when not recorded
    std::string user;            // or virtual cluster when that is all the trace has
    int priority = 0;            // larger runs first where the scheduler honours priorities
    bool spot_ok = false;        // may run on preemptible capacity
    std::string workload;        // workload class when the trace names one ("ResNet-50 ...")
    std::string vc;              // virtual cluster or queue when the trace records one
    std::int64_t line = 0;       // line (or record) it came from, for messages
};

// What an importer found wrong with a row.
struct BadRow {
    std::int64_t line = 0;
    std::string message;
};

// Rows that cannot be read are either skipped (counted, first few kept) or fatal.
enum class BadRowPolicy : std::uint8_t { skip, fail };

// A stream of jobs in submission order. Readers hold only what ordering needs: a format whose
// file is not sorted by submission time says so and is sorted in memory (documented per format).
class JobReader {
public:
    virtual ~JobReader() = default;
    virtual std::optional<Job> next() = 0;     // nullopt at the end
    virtual std::int64_t skipped() const = 0;  // bad rows skipped so far
    virtual const std::vector<BadRow>& bad_rows() const = 0;  // the first ones, for reports
    // Valid rows left out because the job used no GPU time: no GPUs asked for (a CPU job), never
    // started, or ran for zero seconds. Each format's reader documents which of these it drops.
    virtual std::int64_t not_run() const { return 0; }
};

}  // namespace rentsim::jobs
