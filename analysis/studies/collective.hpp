// nccl-tests style tables from the network model: one row per message size, printed in the
// layout of nccl-tests output or written as JSON (schema 1). Sizes are written as nccl-tests
// takes them: "8", "1K", "64MiB", "1GiB", "1GB"; a range "8:1GiB" steps by a factor (2 unless
// given as a third field, "8:1GiB:4"), like nccl-tests -b -e -f.
#pragma once

#include "models/network/network.hpp"
#include "models/units.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim::analysis {

// The collective result row of the public contract.
struct CollectiveRow {
    std::string op;
    double bytes = 0.0;
    int gpus = 0;
    std::string algorithm;
    double time_s = 0.0;
    double algbw_gbps = 0.0;
    double busbw_gbps = 0.0;
};

struct SizeRange {
    units::Bytes min{0.0};
    units::Bytes max{0.0};
    double factor = 2.0;
};

// A byte count: a number and an optional unit. K, M, G, T and KiB, MiB, GiB, TiB are powers of
// 1024 (as in nccl-tests); KB, MB, GB, TB powers of 1000; B or nothing are bytes. Case does not
// matter. Throws std::invalid_argument naming the text and what was expected.
units::Bytes parse_size(std::string_view text);
// "SIZE" (one size) or "MIN:MAX" or "MIN:MAX:FACTOR"; MIN <= MAX, MIN > 0 for a range, FACTOR > 1.
SizeRange parse_size_range(std::string_view text);
// MIN, MIN x FACTOR, ... up to MAX (whole bytes).
std::vector<units::Bytes> sizes_in(const SizeRange& range);

std::vector<CollectiveRow> collective_rows(const net::Network& network, net::Collective op, const SizeRange& sizes,
                                           int gpus, net::Algorithm algo = net::Algorithm::automatic);

// The rows in the column layout of nccl-tests (size, count, type, redop, root, time in us,
// algbw, busbw), with the algorithm appended and the average bus bandwidth at the end.
std::string format_nccl_tests(std::span<const CollectiveRow> rows, std::string_view topology_name);
// {"schema": 1, "rows": [{"op", "bytes", "gpus", "algorithm", "time_s", "algbw_gbps", "busbw_gbps"}]}
std::string collective_rows_json(std::span<const CollectiveRow> rows);

}  // namespace rentsim::analysis
