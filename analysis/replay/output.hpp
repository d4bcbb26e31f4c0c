// The replay's results as JSON (schema 1) and as the table `rentsim replay` prints.
//
// JSON: {"schema": 1, "ranks", "step" (null: the whole recording), "recorded_iteration_s" (null
// when the recording has no times), "iteration_s", "error" ((iteration - recorded) / recorded;
// null when retargeted or unknown), "retarget" (when retargeted: GPUs, topologies, scaling,
// classes with kernels, recorded_s and retargeted_s), "breakdown" {compute_s, memory_s, comm_s,
// exposed_comm_s, idle_s, idle {host_wait_s, kernel_wait_s, other_s}}, "overlap_fraction",
// "critical_path" [{name, rank, lane, category, start_s, dur_s, wait_s}] (the first
// max_path_steps), "critical_path_steps", "unknown_kernels" [{name, count, recorded_s,
// replayed_s}], "per_rank" [{rank, step, recorded_s, iteration_s, breakdown}], "notes"}.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "analysis/replay/graph.hpp"
#include "analysis/replay/replay.hpp"
#include "analysis/replay/retarget.hpp"

namespace rentsim::replay {

// Steps of the critical path written to JSON; the table shows the longest ten.
inline constexpr std::size_t max_path_steps = 1000;

std::string replay_json(const ReplayGraph& g, const ReplayResult& r, const std::optional<RetargetSummary>& rt);
std::string replay_table(const ReplayGraph& g, const ReplayResult& r, const std::optional<RetargetSummary>& rt);

}  // namespace rentsim::replay
