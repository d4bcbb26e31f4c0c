// A replay as a timeline (report::Timeline, written as Chrome trace JSON by
// report::write_timeline): one process per rank, one thread per host thread and GPU
// stream, one span per piece of work (host time between calls as "host"), flow arrows for the
// launch, cross-stream and collective dependencies the graph modelled.
#pragma once

#include "analysis/replay/graph.hpp"
#include "analysis/replay/replay.hpp"
#include "analysis/report/timeline.hpp"

namespace rentsim::replay {

// Span ids are vertex index + 1. Zero-length bookkeeping vertices (start, arrive, join) have no
// span; a collective's span covers its arrival and transfer.
report::Timeline replay_timeline(const ReplayGraph& g, const ReplayResult& r);

}  // namespace rentsim::replay
