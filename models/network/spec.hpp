// What a scenario says about its network, and the names the network model answers to: fabrics,
// topology specs, node designs, presets, collectives, algorithms and protocols. Plain values and
// registries only; building the cluster is topology.hpp, timing collectives network.hpp.
// Rates are bytes per second per direction unless a field says Gb/s; latencies as named.
#pragma once

#include "models/registry.hpp"
#include "models/units.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim::net {

// The most GPUs a topology holds; build_topology refuses more (and fewer than 1).
inline constexpr int max_gpus = 262144;

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
    int gpus = 1;                         // 1 .. max_gpus
    int gpus_per_node = 8;
    std::string gpu;                      // catalog GPU name, e.g. "a100-sxm4-80gb"
    std::string intra_node = "nvlink";    // "nvlink" or "pcie"
    std::optional<FabricSpec> inter_node;
    double oversubscription = 1.0;        // leaf downlink : uplink capacity, >= 1
    int nodes_per_leaf = 0;               // 0: all nodes on one leaf when not oversubscribed,
                                          //    otherwise half of the nodes per leaf
    int nvlink_domain_gpus = 0;           // GPUs that one NVSwitch fabric joins across nodes, a
                                          // multiple of gpus_per_node (GB200 NVL72: 72); 0: the
                                          // preset's own, else one node (= gpus_per_node)
    // Whether GPUs of a node copy to each other directly (NCCL's P2P transport, over NVLink or
    // PCIe). false, as NCCL_P2P_DISABLE=1 sets it, routes every GPU-to-GPU copy of a node through
    // host memory (NCCL's SHM transport) and leaves NVLink unused. A GPU without peer-to-peer
    // (GeForce) has none whatever this says.
    bool peer_to_peer = true;
};

struct PresetInfo {
    std::string_view name;
    std::string_view description;
};

enum class IntraNode { nvswitch, nvlink_mesh, pcie };

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
    // GPUs whose NVSwitch fabric spans several nodes (the NVLink Switch trays of a GB200/GB300
    // NVL72 rack: 72 GPUs on 18 nodes of 4); 0: the NVSwitch, if any, is the node's own. Whole
    // nodes: a multiple of gpus_per_node. GPUs of one domain meet over NVLink, never the NICs.
    int nvlink_domain_gpus = 0;
    // Whether two GPUs copy peer to peer (over PCIe or NVLink); false (GeForce RTX 3090/4090, or
    // TopologySpec::peer_to_peer false) routes every GPU-to-GPU copy of the node through a buffer
    // in host memory (topology.cpp) and leaves NVLink unused (network.cpp).
    bool pcie_p2p = true;
    // The mesh of intra == nvlink_mesh is AMD Infinity Fabric (xGMI), not NVLink: the model treats
    // its links as NVLink links of nvlink_per_link (efficiency of nvlink_generation).
    bool infinity_fabric = false;
};

// Presets by name, each with a one-line description.
std::span<const PresetInfo> topology_presets();
// The preset that describes a price-catalog instance's node and fabric (AWS p4d/p4de, p5,
// p5en, p6-b200, g6e, g6, g5, g4dn; Google Cloud a4, g2; Azure ND GB200 v6, ND MI300X v5);
// empty when no preset does.
std::string_view preset_for_instance(std::string_view provider, std::string_view instance);
// The same presets, in the same order; values point into topology_presets().
const Registry<const PresetInfo*>& topology_registry();

// The fabrics between nodes: infiniband, roce, efa, tcp (nvlink and pcie are inside a node).
const Registry<Fabric>& fabric_registry();
// Every Fabric, nvlink and pcie included.
std::string_view to_string(Fabric fabric);
std::optional<Fabric> parse_fabric(std::string_view text);

enum class Collective { all_reduce, reduce_scatter, all_gather, broadcast, all_to_all, send_recv };
// direct: all-to-all and point-to-point copies along single routes. nvls: NVLink SHARP all-reduce
// in the NVSwitch (H100/H200 class, one node).
enum class Algorithm { automatic, ring, tree, hierarchical, direct, nvls };
// NCCL's wire protocols: LL (8-byte lines, half payload), LL128 (128-byte lines), Simple.
enum class Protocol { ll, ll128, simple };

// Operations by their nccl-tests names: all-reduce, reduce-scatter, all-gather, broadcast,
// all-to-all, send-recv.
const Registry<Collective>& collective_registry();
// Algorithms by name, for the command line and scenarios alike: auto (Algorithm::automatic),
// ring, tree, hierarchical, direct, nvls. Which ones apply depends on the operation and group.
const Registry<Algorithm>& algorithm_registry();

// Registry names ("auto" for Algorithm::automatic); protocols as NCCL spells them (LL, LL128, Simple).
std::string_view to_string(Collective op);
std::string_view to_string(Algorithm algo);
std::string_view to_string(Protocol protocol);
// Registry lookups; parse_algorithm also takes "automatic", the spelling of data/nccl_rows.csv.
std::optional<Collective> parse_collective(std::string_view text);
std::optional<Algorithm> parse_algorithm(std::string_view text);

}  // namespace rentsim::net
