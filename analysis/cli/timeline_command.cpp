#include "analysis/cli/timeline_command.hpp"

#include <fmt/format.h>

#include "analysis/report/step_timeline.hpp"
#include "analysis/report/timeline.hpp"
#include "analysis/scenario/input_error.hpp"

namespace rentsim::cli {

std::string write_run_timeline(const analysis::ScenarioSet& set, const std::vector<analysis::Result>& results,
                               const std::string& path, std::size_t max_spans) {
    // A sweep shows one point: the first that fits (a step of a run that does not fit is
    // nobody's question), else the first valid one.
    const analysis::Scenario* point = nullptr;
    for (std::size_t i = 0; i < set.points.size() && !point; ++i)
        if (set.points[i].invalid.empty() && i < results.size() && results[i].fits) point = &set.points[i];
    for (std::size_t i = 0; i < set.points.size() && !point; ++i)
        if (set.points[i].invalid.empty()) point = &set.points[i];
    if (!point) throw analysis::InputError("--timeline", "", "no valid point to show");
    const report::StepTimeline st = report::step_timeline(*point);
    const report::TimelineWritten w = report::write_timeline(st.timeline, path, {.max_spans = max_spans});
    std::string line = fmt::format("timeline: step {} of {}{}, {:.3f} ms, {} spans on {} tracks, written to {}", st.step + 1,
                                   point->name, point->point.empty() ? "" : " (" + point->point + ")",
                                   static_cast<double>(st.step_ns) * 1e-6, w.spans, w.tracks, path);
    if (w.spans_dropped > 0)
        line += fmt::format("; {} spans past --timeline-max-spans {} dropped", w.spans_dropped, max_spans);
    return line + "\n";
}

}  // namespace rentsim::cli
