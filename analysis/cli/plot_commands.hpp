// `rentsim plot` and `rentsim report`, and the `--plot DIR` of run and sweep: charts and an
// HTML page from a result file (analysis/report/charts.hpp, html.hpp).
#pragma once

#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>

namespace rentsim::cli {

struct PlotOptions {
    std::string file, dir = "plots";
};
struct ReportOptions {
    std::string file, out;
};

// Registration on the program's parser; each returns its subcommand.
CLI::App* add_plot_command(CLI::App& app, PlotOptions& o);
CLI::App* add_report_command(CLI::App& app, ReportOptions& o);

// Charts of RESULT.json into the folder: one line per file written or chart left out, on `out`.
int plot_command(const PlotOptions& o, std::ostream& out);
int report_command(const ReportOptions& o, std::ostream& out);
// For run and sweep: the charts of the JSON they would write with --out (`result_json`),
// named `source` in messages, into `dir`; lines on `out`.
void plot_results(const std::string& result_json, const std::string& source, const std::string& dir, std::ostream& out);

}  // namespace rentsim::cli
