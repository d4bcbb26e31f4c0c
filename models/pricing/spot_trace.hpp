// Recorded spot-capacity traces, replayed as preemptions.
//
// Two formats from uclasystem/bamboo (NSDI 2023), MIT licence (models/pricing/data):
// - node add/remove traces: CSV without a header, `time_ms,event,node`, `event` is `add` or
//   `remove`; a `remove` is the provider taking a spot node back. Shipped: `bamboo-p3`
//   (AWS p3 spot nodes, December 2021, 11.4 h, at most 32 nodes alive).
// - instance-count logs: lines `YYYY-MM-DD, HH:MM:SS, N`, N preemptible instances alive; a
//   drop of N by k is k removals. Shipped: `gcloud-a100-us-east1b` (Google Cloud 1-GPU A100
//   preemptible VMs, us-east1-b, 2021-12-11/12, 27 h, 17 to 64 alive).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/registry.hpp"
#include "models/units.hpp"

namespace rentsim::price {

struct SpotTraceEvent {
    units::Seconds time;   // from the start of the trace
    bool add = false;      // false: remove (a preemption)
    std::string node;
    int alive_before = 0;  // nodes alive just before this event
};

struct SpotTrace {
    std::string name;
    std::vector<SpotTraceEvent> events;  // in time order (stable for equal times)
    units::Seconds span;                 // time of the last event

    int removals() const;
};

// A count trace holds at most this many instances alive, and at most this many arrivals
// and removals in all (each is an event of the replay).
inline constexpr int max_trace_instances = 100000;
inline constexpr std::int64_t max_trace_events = 10000000;

// Throws std::invalid_argument naming the line on a malformed record.
SpotTrace parse_bamboo_trace(std::string_view text, std::string name);
// Instance-count log; lines are sorted by time first (the logs repeat readings and step back
// by up to a minute). Throws std::invalid_argument naming the line on a malformed record.
SpotTrace parse_count_trace(std::string_view text, std::string name);
// The shipped traces by name; the value is the trace's file in models/pricing/data (a .csv
// file is a node add/remove trace, a .txt file an instance-count log).
const Registry<std::string_view>& spot_trace_registry();
// The registry's names, and the parsed trace (std::invalid_argument if unknown).
std::vector<std::string_view> shipped_trace_names();
SpotTrace shipped_trace(std::string_view name);

}  // namespace rentsim::price
