// Cluster topology as a Boost.Graph: GPUs, NVSwitch fabrics, PCIe switches, CPUs, NICs, and a
// two-level fat-tree of leaf and spine switches. Every physical link is two directed edges, each
// with its own bandwidth (bytes/s, one direction) and latency, so routes and flows see duplex links.
//
//                 spine (one vertex: all spines, ideal ECMP)
//               /                \                leaf -> spine capacity =
//           leaf 0              leaf 1            nodes_per_leaf x node NIC rate / oversubscription
//           /    \              /    \   (each node: its NICs to its leaf)
//       node 0  node 1      node 2  node 3
//
//   one node:  GPU0 .. GPU7 --- NVSwitch (one vertex for all switch chips)
//               |       |
//          PCIe switch (2 GPUs + NICs) --- CPU === CPU      NIC --- leaf
#pragma once

#include "models/registry.hpp"
#include "models/units.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <optional>
#include <span>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rentsim::net {

enum class Fabric { nvlink, pcie, infiniband, roce, efa, tcp };

// What a scenario says about the network between nodes: fabric, line rate per GPU in Gb/s
// (node rate = gbps_per_gpu x GPUs per node), and per-message latency in microseconds.
struct FabricSpec {
    Fabric fabric;
    double gbps_per_gpu;
    double latency_us;
};

// What a scenario says about its cluster. With a preset, the node design (GPU, GPUs per node,
// NVLink, PCIe, NICs) comes from the preset and `gpus_per_node` is ignored; `inter_node`, when
// given, replaces the preset's NICs by one NIC per GPU at `gbps_per_gpu`.
struct TopologySpec {
    std::string preset;                   // empty or a preset name (see topology_presets())
    int gpus = 1;
    int gpus_per_node = 8;
    std::string gpu;                      // catalog GPU name, e.g. "a100-sxm4-80gb"
    std::string intra_node = "nvlink";    // "nvlink" or "pcie"
    std::optional<FabricSpec> inter_node;
    double oversubscription = 1.0;        // leaf downlink : uplink capacity, >= 1
    int nodes_per_leaf = 0;               // 0: all nodes on one leaf when not oversubscribed,
                                          //    otherwise half of the nodes per leaf
};

struct PresetInfo {
    std::string_view name;
    std::string_view description;
};

enum class DeviceKind { gpu, nvswitch, pcie_switch, cpu, nic, leaf_switch, spine_switch };
enum class LinkKind { nvlink, pcie, cpu_link, network };
enum class IntraNode { nvswitch, nvlink_mesh, pcie };

// A vertex. `node` is -1 for leaf and spine switches; `index` is the global GPU index for GPUs,
// the leaf index for leaves, and the index within the node for everything else.
struct Device {
    DeviceKind kind = DeviceKind::gpu;
    int node = -1;
    int index = 0;
};

// One direction of a physical link. `id` indexes Topology::link().
struct Link {
    LinkKind kind = LinkKind::pcie;
    units::BytesPerSecond bandwidth{0.0};
    units::Seconds latency{0.0};
    int id = -1;
};

// Edges are kept in a vector (the last parameter) rather than the default list: a cluster of
// thousands of GPUs is built per prediction, and one allocation per edge dominated that.
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Device, Link, boost::no_property,
                                    boost::vecS>;

// A node design after resolving a preset or a generic spec: enough to rebuild the node.
struct NodeDesign {
    std::string preset;                  // empty for generic specs
    std::string gpu;
    int gpus_per_node = 8;
    IntraNode intra = IntraNode::nvswitch;
    int nvlink_generation = 0;           // 0: no NVLink
    units::BytesPerSecond nvlink_per_gpu{0.0};
    struct MeshLink { int a, b, links; };
    std::vector<MeshLink> mesh;          // direct NVLink GPU pairs when intra == nvlink_mesh
    units::BytesPerSecond nvlink_per_link{0.0};
    int pcie_generation = 4;
    int gpus_per_pcie_switch = 2;
    int cpus = 2;
    units::BytesPerSecond cpu_link{0.0};
    int nics = 0;
    units::BytesPerSecond nic_rate{0.0};
    Fabric fabric = Fabric::infiniband;
    double nic_latency_us = 0.0;         // per-message latency of the fabric
};

// A built cluster. Plain value: copyable, immutable after build_topology.
class Topology {
public:
    const Graph& graph() const { return wiring().graph; }
    const NodeDesign& design() const { return design_; }
    int gpus() const { return gpus_; }
    int nodes() const { return nodes_; }
    int gpus_per_node() const { return design_.gpus_per_node; }
    int node_of(int gpu) const;
    int local_index(int gpu) const;
    int leaves() const { return leaves_; }
    int nodes_per_leaf() const { return nodes_per_leaf_; }
    int leaf_of_node(int node) const { return node / nodes_per_leaf_; }
    double oversubscription() const { return oversubscription_; }
    // Raw capacity of one leaf's uplink to the spine, per direction (0 with a single leaf).
    units::BytesPerSecond leaf_uplink() const { return leaf_uplink_; }
    // NICs that a GPU uses first (those under its own PCIe switch, or the nearest ones).
    int rails(int gpu) const;

    std::size_t link_count() const { return wiring().links.size(); }
    const Link& link(int id) const { return wiring().links.at(static_cast<std::size_t>(id)); }
    int link_source(int id) const;       // vertex index
    int link_target(int id) const;
    int gpu_vertex(int gpu) const;

    // Shortest route from GPU a to GPU b as link ids in order. Routes never pass through another
    // GPU. Between nodes the route leaves through NIC number `rail` of a's NICs and enters
    // through NIC number `rail` of b's NICs. Graph search: not for hot paths.
    std::vector<int> route(int gpu_a, int gpu_b, int rail = 0) const;
    units::BytesPerSecond bottleneck(int gpu_a, int gpu_b) const;
    units::Seconds latency(int gpu_a, int gpu_b) const;

    // The same node design with `nodes` full nodes on one non-blocking leaf.
    Topology with_nodes(int nodes) const;
    std::string describe() const;

private:
    friend Topology build_from_design(const NodeDesign& design, int gpus, double oversubscription,
                                      int nodes_per_leaf);
    std::vector<int> path_links(int from_vertex, int to_vertex, int allowed_gpu) const;

    // The graph and its link tables, built on first use (std::call_once) and shared by copies:
    // a prediction that needs only the per-level figures of one or two nodes never builds the
    // thousand-GPU graph, and copying or moving a Topology never copies one (Boost's
    // adjacency_list has no move operations of its own).
    struct Wiring {
        Graph graph;
        // Links by id, kept apart from the graph: edge descriptors do not survive copying a graph.
        std::vector<Link> links;
        std::vector<std::pair<int, int>> link_ends;
        std::vector<int> gpu_vertex;
        std::vector<std::vector<int>> gpu_nics;   // per GPU: NIC vertices in rail order
        std::vector<int> leaf_vertex;
    };
    struct LazyWiring {
        std::once_flag once;
        Wiring wiring;
    };
    const Wiring& wiring() const;
    void wire(Wiring& w) const;

    std::shared_ptr<LazyWiring> wiring_ = std::make_shared<LazyWiring>();
    NodeDesign design_;
    int gpus_ = 0;
    int nodes_ = 0;
    int leaves_ = 1;
    int nodes_per_leaf_ = 1;
    double oversubscription_ = 1.0;
    units::BytesPerSecond leaf_uplink_{0.0};
};

// Builds the cluster. Throws std::invalid_argument with a message that names the bad field:
// unknown preset (lists valid names, suggests the closest), unknown GPU, GPU without NVLink
// asked for "nvlink", several nodes without inter_node, non-positive counts.
Topology build_topology(const TopologySpec& spec);

// Presets by name, each with a one-line description.
std::span<const PresetInfo> topology_presets();
// The same presets, in the same order; values point into topology_presets().
const Registry<const PresetInfo*>& topology_registry();

// Resolves a spec to its node design without building the graph (same errors as build_topology).
NodeDesign resolve_node_design(const TopologySpec& spec);
Topology build_from_design(const NodeDesign& design, int gpus, double oversubscription,
                           int nodes_per_leaf);

// The fabrics between nodes: infiniband, roce, efa, tcp (nvlink and pcie are inside a node).
const Registry<Fabric>& fabric_registry();
// Every Fabric, nvlink and pcie included.
std::string_view to_string(Fabric fabric);
std::optional<Fabric> parse_fabric(std::string_view text);
std::string_view to_string(DeviceKind kind);

}  // namespace rentsim::net
