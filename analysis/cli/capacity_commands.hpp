// `rentsim cluster` and `rentsim plan`: replay a job trace on rented pools, and search the
// cheapest pools meeting a service level (analysis/capacity). Registered by main.cpp in two lines.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace rentsim::cli {

struct CapacityOptions {
    std::string trace, format, pools, out, jobs_csv, utilization_csv, bad_rows = "skip";
    std::string slo;  // plan only
    CLI::App* cluster = nullptr;
    CLI::App* plan = nullptr;

    bool selected() const { return (cluster && *cluster) || (plan && *plan); }
};

// Adds both subcommands to `app`; `o` receives their options and must outlive the parse.
void add_capacity_commands(CLI::App& app, CapacityOptions& o);
// Runs the selected one; its exit status. Throws InputError on bad input.
int run_capacity_command(const CapacityOptions& o);

}  // namespace rentsim::cli
