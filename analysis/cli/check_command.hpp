// `rentsim check FILE... | DIR`: runs the `expect` blocks of scenario files (every scenario
// under a folder), optionally compares every result with a previous run's (`--baseline`), and
// writes JUnit XML for CI. Exit status 0 all passed, 1 a check failed, 2 bad input.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rentsim::cli {

struct CheckOptions {
    std::vector<std::string> inputs;  // scenario files and folders
    std::string junit, baseline, tolerance = "2%", gate, out;  // gate: empty = the default gates
    int jobs = 0;  // 0: all cores
};

CLI::App* add_check_command(CLI::App& app, CheckOptions& o);
int check_command(const CheckOptions& o);

}  // namespace rentsim::cli
