#include "analysis/cli/merge_command.hpp"

#include <iostream>

#include "analysis/report/atomic_file.hpp"
#include "analysis/report/report.hpp"
#include "analysis/run/shard.hpp"

namespace rentsim::cli {

CLI::App* add_merge_command(CLI::App& app, MergeOptions& o) {
    auto* cmd = app.add_subcommand("merge", "join the shard files of one sweep into its JSON, CSV and Markdown");
    cmd->add_option("shards", o.shards, "shard files (`sweep FILE --shard i/N --out SHARD.json`), all N of them")->required();
    cmd->add_option("--out", o.out, "write results as JSON");
    cmd->add_option("--csv", o.csv, "write results as CSV");
    cmd->add_option("--markdown", o.markdown, "write the comparison table as Markdown");
    return cmd;
}

// As `run`: the files first, then the table; a point that broke a rule makes it exit 2.
int merge_command(const MergeOptions& o) {
    const auto results = analysis::merge_shards(o.shards);
    std::vector<analysis::OutputFile> outputs;
    if (!o.out.empty()) outputs.push_back({o.out, analysis::results_to_json(results)});
    if (!o.csv.empty()) outputs.push_back({o.csv, analysis::results_to_csv(results)});
    if (!o.markdown.empty()) outputs.push_back({o.markdown, analysis::results_to_markdown(results)});
    for (std::size_t i = 0; i < outputs.size(); ++i)
        for (std::size_t k = 0; k < i; ++k)
            if (outputs[i].path == outputs[k].path)
                throw std::invalid_argument("merge: two outputs name " + outputs[i].path);
    if (!outputs.empty()) analysis::write_files_together(outputs);
    std::cout << analysis::format_results_text(results);
    int status = 0;
    for (const auto& r : results)
        if (r.status == "invalid") {
            std::cerr << "rentsim: " << r.note << "\n";
            status = 2;
        }
    return status;
}

}  // namespace rentsim::cli
