// `rentsim replay TRACE... | DIR`: replays recorded traces (analysis/replay), optionally
// retargeted to another GPU, precision or cluster size; prints the table, writes --out JSON and
// a --timeline Chrome trace.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rentsim::cli {

struct ReplayOptions {
    std::vector<std::string> paths;
    int step = -1;
    std::string gpu, recorded_gpu, precision, topology, scale = "weak", out, timeline;
    int gpus = 0;
    std::size_t timeline_max_spans = 2'000'000;
};

// Adds the subcommand to `app`, its options bound to `o`.
CLI::App* add_replay_command(CLI::App& app, ReplayOptions& o);
// Runs it; returns the exit status. Throws analysis::InputError on bad input.
int replay_command(const ReplayOptions& o);

}  // namespace rentsim::cli
