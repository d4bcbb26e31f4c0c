// The charts of a result file (analysis/scenario/result_file.hpp), as SVG documents:
//   time-vs-gpus        time to train against GPU count, one line per group
//   cost-vs-gpus        cost against GPU count, one line per group
//   cost-vs-time        cost against time to train, every point, with the Pareto front
//   scaling-efficiency  throughput per GPU relative to each group's smallest GPU count, in %
//   memory-by-part      memory per GPU by part, stacked, against the GPU's memory
// A group is the points that share every swept value but the GPU count (cluster.gpus,
// cluster.nodes): one line per GPU type or pricing plan. The cheapest point that meets the
// scenario's deadline is called out. A chart that does not apply (one point, no GPU count
// swept) is left out with a note saying why. Points that did not finish (stopped by the
// budget, given up, invalid, not fitting) have no times and are left out of the time and cost
// charts, which say how many.
#pragma once

#include <string>
#include <vector>

#include "analysis/scenario/result_file.hpp"

namespace rentsim::analysis {

struct Chart {
    std::string name;   // the file stem: "time-vs-gpus"
    std::string title;  // "Time to train against GPU count"
    std::string svg;    // a whole SVG document
};

struct Charts {
    std::vector<Chart> charts;       // in the order above
    std::vector<std::string> notes;  // "cost-vs-gpus: left out: ..." for each chart left out
};

Charts result_charts(const ResultFile& results);

// Where rsvg-convert (Debian librsvg2-bin) is on PATH; empty when it is not.
std::string find_rsvg_convert();

// Writes NAME.svg for every chart into `dir` (created when missing), each atomically, and
// NAME.png beside it where `rsvg_convert` is not empty (rendered by it as a child process).
// Chart files of these names that this result does not have (left out, or no PNG) are removed.
// Returns the lines to print: the files written, the charts left out and why, and a note when
// PNGs could not be made. Throws InputError naming the folder or file it cannot write.
std::vector<std::string> write_charts(const Charts& charts, const std::string& dir, const std::string& rsvg_convert);

// The finished points no other finished point is both faster and cheaper than (ties: the
// first), by index, fastest first.
std::vector<std::size_t> pareto_front(const ResultFile& results);

// The cheapest point (index) that finished within the deadline of its scenario; -1 when no
// point has a deadline or none met it. Ties go to the first point.
long cheapest_within_deadline(const ResultFile& results);

}  // namespace rentsim::analysis
