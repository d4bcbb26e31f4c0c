// nccl-tests style tables from the network model: one row per message size, printed in the
// layout of nccl-tests output or written as JSON (schema 1). Sizes are written as nccl-tests
// takes them: "8", "1K", "64MiB", "1GiB", "1GB"; a range "8:1GiB" steps by a factor (2 unless
// given as a third field, "8:1GiB:4"), like nccl-tests -b -e -f.
#pragma once

#include "models/network/network.hpp"
#include "models/registry.hpp"
#include "models/units.hpp"

#include <cstddef>
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

// Bounds of the sizes parse_size and parse_size_range accept, and of a range's length.
inline constexpr double kMinSizeBytes = 1.0;
inline constexpr double kMaxSizeBytes = 1125899906842624.0;  // 1 PiB (2^50 bytes)
inline constexpr std::size_t kMaxSizes = 1000;

// A byte count: a number and an optional unit. K, M, G, T and KiB, MiB, GiB, TiB are powers of
// 1024 (as in nccl-tests); KB, MB, GB, TB powers of 1000; B or nothing are bytes. Case does not
// matter. A whole number of bytes from 1 byte to 1 PiB. Throws std::invalid_argument naming the
// text and what was expected.
units::Bytes parse_size(std::string_view text);
// "SIZE" (one size) or "MIN:MAX" or "MIN:MAX:FACTOR": MIN <= MAX, FACTOR a finite number above 1,
// and at most kMaxSizes sizes in sizes_in(); std::invalid_argument otherwise.
SizeRange parse_size_range(std::string_view text);
// MIN, then each size times FACTOR rounded down, but at least one byte more than the one before,
// up to MAX (whole bytes, strictly increasing). Throws std::invalid_argument for a range that
// parse_size_range refuses.
std::vector<units::Bytes> sizes_in(const SizeRange& range);

// How a row is timed: the analytic model (NCCL's algorithm and protocol choice), or the
// flow-level simulation of the collective alone on the cluster (analysis/simulate/
// flow_collectives: ring steps, or direct transfers for all-to-all, as max-min shared flows).
enum class CollectiveModel { analytic, flow };
// analytic, flow.
const Registry<CollectiveModel>& collective_model_registry();

// One row per size over the first `gpus` GPUs. With the flow model the algorithm is ring (direct
// for all-to-all): `algo` must be auto or that one, and gpus at least 2; std::invalid_argument
// otherwise.
std::vector<CollectiveRow> collective_rows(const net::Network& network, net::Collective op, const SizeRange& sizes,
                                           int gpus, net::Algorithm algo = net::Algorithm::automatic,
                                           CollectiveModel model = CollectiveModel::analytic);

// The rows in the column layout of nccl-tests (size, count, type, redop, root, time in us,
// algbw, busbw), with the algorithm appended and the average bus bandwidth at the end.
std::string format_nccl_tests(std::span<const CollectiveRow> rows, std::string_view topology_name);
// {"schema": 1, "rows": [{"op", "bytes", "gpus", "algorithm", "time_s", "algbw_gbps", "busbw_gbps"}]}
std::string collective_rows_json(std::span<const CollectiveRow> rows);

}  // namespace rentsim::analysis
