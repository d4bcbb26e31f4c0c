// Recorded spot-capacity traces, replayed as preemptions.
//
// The format is Bamboo's (uclasystem/bamboo, NSDI 2023) node add/remove trace: CSV without
// a header, `time_ms,event,node`, `event` is `add` or `remove`. A `remove` is the provider
// taking a spot node back. The shipped trace is models/pricing/data/spot-trace-bamboo-p3.csv
// (AWS p3 spot nodes, December 2021, 11.4 h, at most 32 nodes alive; MIT licence beside it).
#pragma once

#include <string>
#include <string_view>
#include <vector>

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

// Throws std::invalid_argument naming the line on a malformed record.
SpotTrace parse_bamboo_trace(std::string_view text, std::string name);
// Names of the shipped traces, and the trace itself (std::invalid_argument if unknown).
std::vector<std::string_view> shipped_trace_names();
SpotTrace shipped_trace(std::string_view name);

}  // namespace rentsim::price
