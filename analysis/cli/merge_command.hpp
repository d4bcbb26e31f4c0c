// `rentsim merge SHARD... [--out R.json] [--csv R.csv] [--markdown R.md]`: joins the shard
// files of one sweep (`rentsim sweep FILE --shard i/N --out SHARD.json`) into the files and
// the table one run of the whole sweep writes, byte for byte.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rentsim::cli {

struct MergeOptions {
    std::vector<std::string> shards;
    std::string out, csv, markdown;
};

CLI::App* add_merge_command(CLI::App& app, MergeOptions& o);
int merge_command(const MergeOptions& o);

}  // namespace rentsim::cli
