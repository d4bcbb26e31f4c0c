// Cluster topology as a graph: GPUs, NVSwitch fabrics, PCIe switches, CPUs, NICs, and a
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
//
//   NVLink domain over several nodes (GB200 NVL72: 18 nodes of 4 GPUs): one NVSwitch vertex for
//   the domain, linked to every GPU of its nodes; routes inside the domain stay on NVLink.
//   No PCIe peer-to-peer (GeForce): each GPU has a bounce buffer in host memory, a vertex on its
//   CPU, and GPU-to-GPU routes run GPU -> CPU -> buffer -> CPU -> GPU.
#pragma once

#include "models/network/spec.hpp"
#include "models/units.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim::net {

namespace detail {
struct Wiring;
struct LazyWiring;
struct TopologyAccess;
}  // namespace detail

// host_memory: a GPU's bounce buffer in host memory, only in nodes without PCIe peer-to-peer
// (index = the GPU's index within the node).
enum class DeviceKind { gpu, nvswitch, pcie_switch, cpu, nic, leaf_switch, spine_switch, host_memory };
enum class LinkKind { nvlink, pcie, cpu_link, network };

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

// A built cluster. Plain value: copyable, immutable after build_topology. The graph behind it
// is private to models/network (wiring.hpp); this header and its callers need no Boost.
class Topology {
public:
    Topology();  // no GPUs; build_topology() makes useful ones

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
    // GPUs of one NVLink domain (whole nodes; gpus_per_node unless the design spans nodes), the
    // nodes it holds, and the domain of a GPU (throws std::out_of_range for an unknown GPU).
    int nvlink_domain_gpus() const;
    int nodes_per_nvlink_domain() const { return nvlink_domain_gpus() / design_.gpus_per_node; }
    int nvlink_domain_of(int gpu) const;

    std::size_t link_count() const;
    const Link& link(int id) const;      // throws std::out_of_range for an unknown id
    int link_source(int id) const;       // vertex index
    int link_target(int id) const;
    int gpu_vertex(int gpu) const;

    // Shortest route from GPU a to GPU b as link ids in order. Routes never pass through another
    // GPU. Inside one NVLink domain the route stays on NVLink, across nodes too; between domains
    // it leaves through NIC number `rail` of a's NICs and enters through NIC number `rail` of b's
    // NICs. Without PCIe peer-to-peer it passes a's bounce buffer in host memory. Graph search:
    // not for hot paths.
    std::vector<int> route(int gpu_a, int gpu_b, int rail = 0) const;
    units::BytesPerSecond bottleneck(int gpu_a, int gpu_b) const;
    units::Seconds latency(int gpu_a, int gpu_b) const;

    // The same node design with `nodes` full nodes on one non-blocking leaf; throws
    // std::invalid_argument when that is under 1 or over max_gpus GPUs.
    Topology with_nodes(int nodes) const;
    std::string describe() const;

private:
    friend Topology build_from_design(const NodeDesign& design, int gpus, double oversubscription,
                                      int nodes_per_leaf);
    friend struct detail::TopologyAccess;
    std::vector<int> path_links(int from_vertex, int to_vertex, int allowed_gpu) const;

    // The graph and its link tables (detail::Wiring), built on first use and shared by copies:
    // a prediction that needs only the per-level figures of one or two nodes never builds the
    // thousand-GPU graph, and copying a Topology never copies one.
    const detail::Wiring& wiring() const;
    void wire(detail::Wiring& w) const;

    std::shared_ptr<detail::LazyWiring> wiring_;
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
// asked for "nvlink", several nodes without inter_node, gpus outside 1..max_gpus, nodes_per_leaf
// outside 0..max_gpus, oversubscription below 1 or not finite, nvlink_domain_gpus that is not a
// multiple of gpus_per_node up to max_gpus or asked of GPUs without NVSwitch.
Topology build_topology(const TopologySpec& spec);

// Resolves a spec to its node design without building the graph (same errors as build_topology).
NodeDesign resolve_node_design(const TopologySpec& spec);
// The same checks on gpus (1..max_gpus), oversubscription and nodes_per_leaf as build_topology.
Topology build_from_design(const NodeDesign& design, int gpus, double oversubscription,
                           int nodes_per_leaf);

std::string_view to_string(DeviceKind kind);

}  // namespace rentsim::net
