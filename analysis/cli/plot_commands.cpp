#include "analysis/cli/plot_commands.hpp"

#include <ostream>

#include "analysis/report/atomic_file.hpp"
#include "analysis/report/charts.hpp"
#include "analysis/report/html.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/result_file.hpp"

namespace rentsim::cli {

CLI::App* add_plot_command(CLI::App& app, PlotOptions& o) {
    auto* cmd = app.add_subcommand("plot", "charts of a result file (rentsim run/sweep --out) as SVG, and PNG with rsvg-convert");
    cmd->add_option("file", o.file, "result JSON written by rentsim run or sweep --out")->required();
    cmd->add_option("-o,--out", o.dir, "folder for the charts (default: plots)");
    return cmd;
}

CLI::App* add_report_command(CLI::App& app, ReportOptions& o) {
    auto* cmd = app.add_subcommand("report", "one self-contained HTML page of a result file: tables, breakdown and charts");
    cmd->add_option("file", o.file, "result JSON written by rentsim run or sweep --out")->required();
    cmd->add_option("-o,--out", o.out, "the HTML file to write")->required();
    return cmd;
}

namespace {

void write_lines(const std::vector<std::string>& lines, std::ostream& out) {
    for (const auto& l : lines) out << l << "\n";
}

}  // namespace

int plot_command(const PlotOptions& o, std::ostream& out) {
    const auto results = analysis::read_result_file(o.file);
    write_lines(analysis::write_charts(analysis::result_charts(results), o.dir, analysis::find_rsvg_convert()), out);
    return 0;
}

int report_command(const ReportOptions& o, std::ostream& out) {
    const auto results = analysis::read_result_file(o.file);
    const auto charts = analysis::result_charts(results);
    analysis::write_file_atomically(o.out, analysis::result_report_html(results, charts));
    out << "wrote " << o.out << " (" << charts.charts.size() << " chart" << (charts.charts.size() == 1 ? "" : "s") << ")\n";
    write_lines(charts.notes, out);
    return 0;
}

void plot_results(const std::string& result_json, const std::string& source, const std::string& dir, std::ostream& out) {
    const auto results = analysis::parse_result_text(result_json, source);
    write_lines(analysis::write_charts(analysis::result_charts(results), dir, analysis::find_rsvg_convert()), out);
}

}  // namespace rentsim::cli
