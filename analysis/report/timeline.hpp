// Timelines as Chrome trace event JSON, the format Perfetto (ui.perfetto.dev) and
// chrome://tracing open: `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`.
//
// A span is a complete event (`ph` "X") on one track of one process: `process` is the pid (one
// per rank), `thread` the track's name (a stream, a loader worker). Times are integer ns; the
// file carries microseconds printed with three decimals, exact to the ns. Spans of one thread
// that overlap without nesting are moved to sub-tracks ("stream 7", "stream 7 #2", ...) so that
// every track's spans are properly nested or disjoint, which Perfetto requires of JSON slices
// (it moves the others to an overflow track). A flow is an arrow from the span with id
// `from_id` to the span with id `to_id`; a counter is one sample of a per-process time series.
// The same timeline always gives the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rentsim::report {

struct TimelineSpan {
    int process = 0;                 // pid, >= 0
    std::string thread;              // the track's name
    std::string name;
    std::string category;
    std::int64_t start_ns = 0;       // >= 0
    std::int64_t dur_ns = 0;         // >= 0
    std::uint64_t id = 0;            // for flows; 0: no flow refers to it
    std::vector<std::pair<std::string, std::string>> args;  // shown in the span's details
};

struct TimelineFlow {
    std::uint64_t from_id = 0;
    std::uint64_t to_id = 0;
};

struct TimelineCounter {
    int process = 0;
    std::string name;
    std::int64_t t_ns = 0;           // >= 0
    double value = 0;                // finite
};

struct Timeline {
    std::vector<std::string> process_names;  // by pid; a pid past the end is named "rank <pid>"
    std::vector<TimelineSpan> spans;
    std::vector<TimelineFlow> flows;
    std::vector<TimelineCounter> counters;
};

// Perfetto's UI struggles with files near 1 GB; a span takes about 150 bytes.
struct TimelineLimits {
    std::size_t max_spans = 2'000'000;
};

// What write_timeline wrote. Past `max_spans`, the first spans in time order are kept and the
// rest dropped with the flows that touch them; the file says so in `otherData`.
struct TimelineWritten {
    std::size_t spans = 0, spans_dropped = 0;
    std::size_t flows = 0, flows_dropped = 0;  // flows dropped: an end was dropped by the cap
    std::size_t tracks = 0;                    // (pid, tid) pairs holding spans
    std::size_t bytes = 0;
};

// The JSON text of a timeline. Throws std::invalid_argument on a negative pid, time or
// duration, a non-finite counter, two spans with one non-zero id, or a flow naming an id no
// span has.
std::string timeline_json(const Timeline& t, const TimelineLimits& limits = {}, TimelineWritten* written = nullptr);

// Writes timeline_json to `path` atomically (analysis/report/atomic_file.hpp; an unwritable
// path is an InputError naming it).
TimelineWritten write_timeline(const Timeline& t, const std::string& path, const TimelineLimits& limits = {});

// `text` as the inside of a JSON string: quotes, backslashes and control characters escaped,
// invalid UTF-8 bytes replaced by U+FFFD.
void append_json_escaped(std::string& out, std::string_view text);

}  // namespace rentsim::report
