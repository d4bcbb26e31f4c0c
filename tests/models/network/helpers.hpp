// Shared by the network test files: a Network built from a topology preset.
#pragma once

#include <string>

#include "models/network/network.hpp"

namespace rentsim::net::testing {

inline Network preset_network(const std::string& name, int gpus, double oversubscription = 1.0,
                              int nodes_per_leaf = 0) {
    TopologySpec s;
    s.preset = name;
    s.gpus = gpus;
    s.oversubscription = oversubscription;
    s.nodes_per_leaf = nodes_per_leaf;
    return Network(build_topology(s));
}

}  // namespace rentsim::net::testing
