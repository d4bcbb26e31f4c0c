// Durations on other GPUs by workload class (pools file: `workload_classes`, `workload_rules`,
// `default_workload_class`). A job of class C recorded on GPU A and run on a pool of GPU B takes
// its recorded duration x step_time(C on B, n) / step_time(C on A, n), n the job's GPUs, each step
// time rentsim's own (`rentsim run`: compile_scenario, then run_scenario's iteration_s). Factors
// are memoised per (class, recorded GPU, pool instance, GPU count): a trace of millions of jobs
// has a few distinct keys. A class that does not fit or is invalid at that count on either side
// makes the pool unusable for the job, with the reason.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "analysis/capacity/config.hpp"
#include "analysis/jobs/job.hpp"
#include "analysis/scenario/scenario.hpp"

namespace rentsim::capacity {

// Optimizer steps each step-model run simulates: enough for the fast-forward to reach its steady
// state (the measured rows of `rentsim validate` use the same count).
inline constexpr std::int64_t class_steps = 20;

// The workload keys a class may set (each a scenario's `workload.<key>`).
inline constexpr std::string_view workload_class_keys[] = {
    "model", "precision", "framework", "attention", "batch_per_gpu", "global_batch", "micro_batch", "seq_len",
    "parallelism"};

// The scenario of class `cls` on `gpus` GPUs of catalog GPU `gpu` (the recorded side): nodes of
// the first topology preset built of that GPU (dgx1-v100 for v100-sxm2-16gb), else one node of
// NVLink (PCIe for a GPU without it) of at most 8 GPUs, no fabric (a larger job cannot be
// modelled there); `class_steps` steps, unpriced. On both sides a job larger than a node is
// modelled on the whole nodes it holds (12 GPUs on nodes of 8: 16), as the scheduler places it.
analysis::ScenarioDraft class_draft_on_gpu(const WorkloadClass& cls, const std::string& gpu, int gpus,
                                           const std::string& file = "workload class");
// The same on `gpus` GPUs of the pool's catalog instance (`cluster.instance`: its GPU, node and,
// where a preset describes it, its network).
analysis::ScenarioDraft class_draft_on_pool(const WorkloadClass& cls, const Pool& pool, int gpus,
                                            const std::string& file = "workload class");

// One step time through `rentsim run`'s code, or why there is none. Memoised for the process by
// the draft's keys (thread-safe).
struct StepTime {
    double step_s = 0;      // 0: it cannot run; `problem` says why
    std::string problem;
};
StepTime class_step_time(const analysis::ScenarioDraft& draft);

// How a job's class was found.
enum class ClassSource : std::uint8_t { trace, rule, default_class, none };
std::string_view to_string(ClassSource s);

// A job's duration on a pool over its recorded duration.
struct ClassFactor {
    double factor = 0;      // 0: the job cannot run on the pool; `problem` says why
    std::string problem;
};

class ClassDurations {
public:
    explicit ClassDurations(const ClusterConfig& config) : c_(config) {}
    bool enabled() const { return !c_.workload_classes.empty(); }
    // The job's class (an index of workload_classes, -1 for none) and where it came from.
    std::pair<int, ClassSource> class_of(const jobs::Job& job) const;
    // Memoised; the reference is valid for this object's life.
    const ClassFactor& factor(int cls, const std::string& recorded_gpu, const Pool& pool, int gpus);

private:
    const StepTime& step_on_gpu(int cls, const std::string& gpu, int gpus);
    const ClusterConfig& c_;
    std::map<std::tuple<int, std::string, int>, StepTime> on_gpu_;
    std::map<std::tuple<int, std::string, std::string, int>, StepTime> on_pool_;
    std::map<std::tuple<int, std::string, std::string, std::string, int>, ClassFactor> factors_;
};

// '*' any run of characters (none included), '?' one character; everything else itself.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace rentsim::capacity
