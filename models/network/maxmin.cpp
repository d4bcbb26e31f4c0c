#include "models/network/maxmin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace rentsim::net {

std::vector<double> max_min_rates(std::span<const double> capacities, std::span<const std::vector<int>> paths) {
    const std::size_t links = capacities.size();
    for (std::size_t l = 0; l < links; ++l)
        if (!(capacities[l] >= 0.0)) throw std::invalid_argument(fmt::format("link {} has capacity {}", l, capacities[l]));
    std::vector<std::vector<std::size_t>> flows_on(links);
    std::vector<double> users(links, 0.0);
    for (std::size_t f = 0; f < paths.size(); ++f) {
        if (paths[f].empty()) throw std::invalid_argument(fmt::format("flow {} has an empty path", f));
        for (int l : paths[f]) {
            if (l < 0 || static_cast<std::size_t>(l) >= links)
                throw std::invalid_argument(fmt::format("flow {} uses unknown link {}", f, l));
            flows_on[static_cast<std::size_t>(l)].push_back(f);
            users[static_cast<std::size_t>(l)] += 1.0;
        }
    }
    std::vector<double> remaining(capacities.begin(), capacities.end());
    std::vector<double> rate(paths.size(), 0.0);
    std::vector<bool> frozen(paths.size(), false);
    std::size_t active = paths.size();
    double level = 0.0;
    while (active > 0) {
        double step = std::numeric_limits<double>::infinity();
        for (std::size_t l = 0; l < links; ++l)
            if (users[l] > 0.0) step = std::min(step, std::max(0.0, remaining[l]) / users[l]);
        level += step;
        for (std::size_t l = 0; l < links; ++l)
            if (users[l] > 0.0) remaining[l] -= step * users[l];
        // Freeze every flow that crosses a link now full (relative tolerance against rounding).
        for (std::size_t l = 0; l < links; ++l) {
            if (users[l] <= 0.0 || remaining[l] > 1e-12 * capacities[l]) continue;
            for (std::size_t f : flows_on[l]) {
                if (frozen[f]) continue;
                frozen[f] = true;
                rate[f] = level;
                --active;
                for (int k : paths[f]) users[static_cast<std::size_t>(k)] -= 1.0;
            }
        }
    }
    return rate;
}

}  // namespace rentsim::net
