// Shared by the network test files: a topology preset's spec, the Network built from one, and
// rates in GB/s.
#pragma once

#include <string>
#include <utility>

#include "models/network/network.hpp"

namespace rentsim::net::testing {

inline TopologySpec preset(std::string name, int gpus) {
    TopologySpec s;
    s.preset = std::move(name);
    s.gpus = gpus;
    return s;
}

inline double gbytes(units::BytesPerSecond b) { return b.value / 1e9; }

inline Network preset_network(const std::string& name, int gpus, double oversubscription = 1.0,
                              int nodes_per_leaf = 0) {
    TopologySpec s = preset(name, gpus);
    s.oversubscription = oversubscription;
    s.nodes_per_leaf = nodes_per_leaf;
    return Network(build_topology(s));
}

}  // namespace rentsim::net::testing
