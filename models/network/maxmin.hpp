// Max-min fair sharing of links among flows, by progressive filling: every unfrozen flow's rate
// rises at the same pace; when a link fills, the flows on it freeze at the current level.
// A pure function: capacities in bytes/s per link, each flow a list of link indices.
#pragma once

#include <span>
#include <vector>

namespace rentsim::net {

// Rates in bytes/s, one per flow. A link listed twice in a path counts twice. Throws
// std::invalid_argument for an empty path, an unknown link or a negative capacity.
std::vector<double> max_min_rates(std::span<const double> capacities, std::span<const std::vector<int>> paths);

}  // namespace rentsim::net
