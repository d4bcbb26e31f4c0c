// Shards: a deterministic share of a sweep's points, run apart (a CI matrix, a Slurm job
// array, Kubernetes indexed jobs) and joined by `rentsim merge` into the files one run writes.
// Shard i of N holds the points whose index (from 0, in sweep order) is i - 1 modulo N, so
// that neighbouring points, often of similar cost, spread over the shards.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run/run.hpp"

namespace rentsim::analysis {

struct ShardSpec {
    int index = 0;  // 1..count
    int count = 0;  // 0: not sharded
    bool active() const { return count > 0; }
};

// The largest N of `--shard i/N`: more shards than points are allowed (some are empty).
inline constexpr int max_shards = 100000;

// "i/N", 1 <= i <= N <= max_shards; InputError naming `--shard` otherwise.
ShardSpec parse_shard(std::string_view text);

// The indices of the shard's points among `points`, increasing.
std::vector<std::size_t> shard_points(std::size_t points, ShardSpec shard);

// A shard file: {"schema": 1, "shard": {"index", "count", "points", "name", "inputs"},
// "results": [{"index", "inputs", "result"}]}: the point records of result_record() with
// their indices and input hashes (point_input_hashes), and a digest of every point's hash so
// that shards of different inputs refuse to merge. `hashes`: every point's, by index.
std::string shard_json(ShardSpec shard, std::string_view name, const std::vector<std::string>& hashes,
                       const std::vector<std::size_t>& indices, const std::vector<Result>& results);

// The results of every point, in order, from the shard files of one sweep: all N shards, each
// once, of the same inputs, holding exactly their points. InputError naming the file otherwise.
std::vector<Result> merge_shards(const std::vector<std::string>& paths);
// The same from (name, text) pairs: the names stand for the files in messages.
std::vector<Result> merge_shard_texts(const std::vector<std::pair<std::string, std::string>>& shards);

}  // namespace rentsim::analysis
