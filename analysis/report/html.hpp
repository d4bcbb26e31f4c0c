// One self-contained HTML page for a result file, to mail around: the scenario, the results
// table, the step and memory breakdowns and the charts inline as SVG. No scripts, no fonts,
// no links to fetch: it renders offline.
#pragma once

#include <string>

#include "analysis/report/charts.hpp"
#include "analysis/scenario/result_file.hpp"

namespace rentsim::analysis {

std::string result_report_html(const ResultFile& results, const Charts& charts);

}  // namespace rentsim::analysis
