// The Boost graph behind a Topology and its link tables. Internal to models/network: only its
// .cpp files include this header, so that the public headers (spec.hpp, topology.hpp,
// network.hpp) and their callers compile without Boost.
#pragma once

#include "models/network/topology.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <mutex>
#include <utility>
#include <vector>

namespace rentsim::net {

// Edges are kept in a vector (the last parameter) rather than the default list: a cluster of
// thousands of GPUs is built per prediction, and one allocation per edge dominated that.
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Device, Link, boost::no_property,
                                    boost::vecS>;

namespace detail {

struct Wiring {
    Graph graph;
    // Links by id, kept apart from the graph: edge descriptors do not survive copying a graph.
    std::vector<Link> links;
    std::vector<std::pair<int, int>> link_ends;
    std::vector<int> gpu_vertex;
    std::vector<std::vector<int>> gpu_nics;   // per GPU: NIC vertices in rail order
    std::vector<int> leaf_vertex;
};

// Filled once (std::call_once) on first use; shared by copies of a Topology, which never copy
// the graph (Boost's adjacency_list has no move operations of its own).
struct LazyWiring {
    std::once_flag once;
    Wiring wiring;
};

struct TopologyAccess {
    static const Wiring& wiring(const Topology& t) { return t.wiring(); }
};

}  // namespace detail

// The graph of a topology, built on first use (thread-safe).
inline const Graph& graph_of(const Topology& t) { return detail::TopologyAccess::wiring(t).graph; }

}  // namespace rentsim::net
