// A replay as a timeline (report::Timeline, written as Chrome trace JSON by
// analysis/report/timeline.hpp): one process per rank, one thread per host thread and GPU
// stream, one span per piece of work (host time between calls as "host"), flow arrows for the
// launch, cross-stream and collective dependencies the graph modelled.
#pragma once

#if __has_include("analysis/report/timeline.hpp")
#include "analysis/report/timeline.hpp"
#else
// The timeline writer's types, as analysis/report/timeline.hpp declares them, until it is built
// with this library.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rentsim::report {

struct TimelineSpan { int process; std::string thread; std::string name; std::string category; std::int64_t start_ns; std::int64_t dur_ns; std::uint64_t id; std::vector<std::pair<std::string,std::string>> args; };
struct TimelineFlow { std::uint64_t from_id; std::uint64_t to_id; };      // arrows between spans by id
struct TimelineCounter { int process; std::string name; std::int64_t t_ns; double value; };
struct Timeline { std::vector<std::string> process_names; std::vector<TimelineSpan> spans; std::vector<TimelineFlow> flows; std::vector<TimelineCounter> counters; };
struct TimelineLimits { std::size_t max_spans = 2'000'000; };

}  // namespace rentsim::report
#define RENTSIM_REPLAY_OWN_TIMELINE_WRITER 1
#endif

#include "analysis/replay/graph.hpp"
#include "analysis/replay/replay.hpp"

namespace rentsim::replay {

// Span ids are vertex index + 1. Zero-length bookkeeping vertices (start, arrive, join) have no
// span; a collective's span covers its arrival and transfer.
report::Timeline replay_timeline(const ReplayGraph& g, const ReplayResult& r);

#ifdef RENTSIM_REPLAY_OWN_TIMELINE_WRITER
// Chrome trace JSON ("X" spans, "s"/"f" flows, "M" process names), for the caller to write;
// throws analysis::InputError naming `path` when there are more than limits.max_spans spans.
std::string timeline_json(const report::Timeline& t, const std::string& path, const report::TimelineLimits& limits = {});
#endif

}  // namespace rentsim::replay
