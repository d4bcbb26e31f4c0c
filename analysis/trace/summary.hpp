// What a recorded trace holds, counted: for tests, and for the replay's report of what it
// read (events by kind, kernels by class, collectives by op, steps, unknown kinds, notes).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/trace/trace.hpp"

namespace rentsim::trace {

struct TraceSummary {
    std::int64_t events = 0;
    std::map<EventKind, std::int64_t> by_kind;          // every kept event
    std::map<KernelClass, std::int64_t> kernels_by_class;  // kind kernel only
    std::map<KernelClass, std::int64_t> kernel_ns_by_class;  // their summed durations
    std::map<CollectiveOp, std::int64_t> collective_kernels;  // kernels with a collective, by op
    std::int64_t collective_records = 0;                // host events with a collective
    std::int64_t deps = 0;
    std::vector<Step> steps;
    std::map<std::string, std::int64_t> unknown_kinds;
    std::vector<std::string> notes;
    std::int64_t span_ns = 0;  // first start to last end over all events (0 when none)
};

TraceSummary summarize(const RankTrace& t);

// The summary as a few lines of text ("events 3250: cpu_op 1633, runtime 525, ...").
std::string describe(const TraceSummary& s);

}  // namespace rentsim::trace
