#include "models/network/topology.hpp"

#include "models/compute/gpu.hpp"
#include "models/names.hpp"
#include "models/network/presets.hpp"
#include "models/network/wiring.hpp"

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/property_map/function_property_map.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

namespace rentsim::net {
namespace {

using Vertex = Graph::vertex_descriptor;
using Edge = Graph::edge_descriptor;

// Route weights prefer fast links: the time to move 1 MiB through a hop plus its latency. This
// makes NVLink win over PCIe between two GPUs that share a PCIe switch.
constexpr double kRouteProbeBytes = 1048576.0;

// Half of NCCL's per-step LL latency for the link class (NVIDIA/nccl src/graph/tuning.cc
// @5067397 hwLatencies, ring/LL: NVLink 0.6 us, PCI 1.0 us), put on each GPU-attached hop so that
// GPU -> switch -> GPU adds up to one step.
constexpr double kNvlinkHopUs = 0.3;
constexpr double kPcieHopUs = 0.5;
// Without PCIe peer-to-peer (GeForce RTX 3090/4090, or NCCL_P2P_DISABLE=1) a copy between two
// GPUs goes through a buffer in host memory (NCCL's SHM transport): device to host, then host to
// device, each copy adding one PCIe step of latency (two hops of kPcieHopUs). Its rate is a
// measurement, not the link's: NCCL's all-reduce over SHM between two GPUs on PCIe Gen3 x16 ran
// at 3.9 GB/s bus bandwidth (NVIDIA/nccl issue #384, nccl-tests with NCCL_P2P_DISABLE=1 and one
// channel, 2020; a broadcast, which loads one direction only, 10.3 GB/s; the maintainer's
// answer: some CPUs handle traffic in both directions through host memory poorly), 0.325 of the
// 12 GB/s NCCL rates a Gen3 x16 link at (PCI_BW, src/graph/topo.h), which is what the model's
// PCIe efficiency gives it. So the bounce link carries that share of the x16 rate, and a
// two-GPU ring reaches 3.9 GB/s on Gen3 and twice that on Gen4. Lambda's SQuAD runs with
// peer-to-peer disabled that no row of measured.csv comes from are slower still:
// lambda-squad-warmup.csv's H100 PCIe runs (30-11-2022) take 0.099 s more per step on 2 GPUs
// than on 1 for 0.67 GB of fp16 gradients, at most 6.8 GB/s (if none of it overlapped the
// backward pass).
constexpr double kHostBounceShare = 3.9 / 12.0;
constexpr double kHostBounceHopUs = kPcieHopUs;

// PCIe x16 rate per direction. Gen3-5 as compute::pcie_x16; Gen6 (64 GT/s, PAM4, FLIT mode: 242
// of every 256 bytes carry transaction and link-layer data; PCI-SIG PCIe 6.0 base specification,
// recalled) only inside nodes whose NICs sit on ConnectX-8's Gen6 switch (presets.cpp).
units::BytesPerSecond pcie_rate(int generation) {
    if (generation >= 6) return units::BytesPerSecond{16.0 * 64.0e9 * (242.0 / 256.0) / 8.0};
    return compute::pcie_x16(generation);
}

void check(bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument(message);
}

}  // namespace

std::string_view to_string(Fabric fabric) {
    switch (fabric) {
        case Fabric::nvlink: return "nvlink";
        case Fabric::pcie: return "pcie";
        case Fabric::infiniband: return "infiniband";
        case Fabric::roce: return "roce";
        case Fabric::efa: return "efa";
        case Fabric::tcp: return "tcp";
    }
    return "?";
}

std::optional<Fabric> parse_fabric(std::string_view text) {
    for (Fabric f : {Fabric::nvlink, Fabric::pcie, Fabric::infiniband, Fabric::roce, Fabric::efa, Fabric::tcp})
        if (to_string(f) == text) return f;
    return std::nullopt;
}

const Registry<Fabric>& fabric_registry() {
    static const Registry<Fabric> registry{
        "fabric",
        {{"infiniband", Fabric::infiniband, "InfiniBand: RDMA verbs through ConnectX NICs (EDR, HDR, NDR)"},
         {"roce", Fabric::roce, "RDMA over Converged Ethernet: InfiniBand's NICs and verbs on an Ethernet fabric"},
         {"efa", Fabric::efa, "AWS Elastic Fabric Adapter (SRD), through aws-ofi-nccl"},
         {"tcp", Fabric::tcp, "NCCL's TCP sockets over Ethernet, which cost host CPU per byte moved"}}};
    return registry;
}

std::string_view to_string(DeviceKind kind) {
    switch (kind) {
        case DeviceKind::gpu: return "gpu";
        case DeviceKind::nvswitch: return "nvswitch";
        case DeviceKind::pcie_switch: return "pcie-switch";
        case DeviceKind::cpu: return "cpu";
        case DeviceKind::nic: return "nic";
        case DeviceKind::leaf_switch: return "leaf";
        case DeviceKind::spine_switch: return "spine";
        case DeviceKind::host_memory: return "host-memory";
    }
    return "?";
}

std::span<const PresetInfo> topology_presets() { return detail::preset_infos(); }

const Registry<const PresetInfo*>& topology_registry() {
    static const Registry<const PresetInfo*> registry = [] {
        std::vector<RegistryEntry<const PresetInfo*>> entries;
        for (const PresetInfo& p : topology_presets()) entries.push_back({p.name, &p, p.description});
        return Registry<const PresetInfo*>("topology preset", std::move(entries));
    }();
    return registry;
}

NodeDesign resolve_node_design(const TopologySpec& spec) {
    NodeDesign design;
    if (!spec.preset.empty()) {
        const NodeDesign* preset = detail::find_preset(spec.preset);
        if (preset == nullptr) throw std::invalid_argument(topology_registry().unknown_message(spec.preset));
        design = *preset;
        if (!spec.gpu.empty() && spec.gpu != design.gpu) {
            // Another memory size of the same part keeps the network; anything else is a mistake.
            const compute::GpuSpec* asked = compute::lookup_gpu(spec.gpu);
            const compute::GpuSpec* own = compute::lookup_gpu(design.gpu);
            check(asked != nullptr && own != nullptr && asked->nvlink_generation == own->nvlink_generation &&
                      asked->pcie_generation == own->pcie_generation && asked->nvswitch == own->nvswitch &&
                      asked->pcie_p2p == own->pcie_p2p && asked->gpu_link_gbps == own->gpu_link_gbps,
                  fmt::format("gpu '{}' does not fit preset '{}', which has {}", spec.gpu, spec.preset, design.gpu));
            design.gpu = spec.gpu;
        }
    } else {
        const auto gpu_names = compute::gpu_registry().names();
        if (spec.gpu.empty()) {
            std::string names;
            for (std::string_view n : gpu_names) names += (names.empty() ? "" : ", ") + std::string(n);
            throw std::invalid_argument("cluster needs a topology preset or a gpu; valid gpus: " + names);
        }
        const compute::GpuSpec* gpu = compute::lookup_gpu(spec.gpu);
        if (gpu == nullptr) throw std::invalid_argument(rentsim::unknown_name_message("gpu", spec.gpu, gpu_names));
        check(spec.gpus_per_node >= 1 && spec.gpus_per_node <= 32,
              fmt::format("gpus_per_node must be between 1 and 32, got {}", spec.gpus_per_node));
        design.gpu = spec.gpu;
        design.gpus_per_node = spec.gpus_per_node;
        design.pcie_generation = gpu->pcie_generation;
        design.pcie_p2p = gpu->pcie_p2p;
        design.gpus_per_pcie_switch = 2;
        design.cpus = spec.gpus_per_node > 4 ? 2 : 1;
        // Inter-socket rate by host era, NCCL's figures (see presets.cpp): Gen3 hosts Broadwell,
        // Gen4 hosts EPYC, Gen5 hosts Sapphire Rapids. An assumption for generic specs.
        design.cpu_link = units::gbytes_per_s(gpu->pcie_generation <= 3 ? 6.0 : gpu->pcie_generation == 4 ? 16.0 : 22.0);
        design.nvlink_per_link = units::gbytes_per_s(
            gpu->nvlink_links > 0 ? gpu->nvlink_gbps / gpu->nvlink_links : 0.0);
        if (spec.intra_node == "nvlink") {
            check(gpu->nvlink_generation > 0,
                  fmt::format("gpu '{}' has no NVLink; use intra_node \"pcie\"", spec.gpu));
            design.nvlink_generation = gpu->nvlink_generation;
            design.nvlink_per_gpu = units::gbytes_per_s(gpu->nvlink_gbps);
            if (gpu->nvswitch) {
                design.intra = IntraNode::nvswitch;
            } else {
                check(spec.gpus_per_node <= 8,
                      fmt::format("gpu '{}' links at most 8 GPUs by NVLink (hybrid cube-mesh); got gpus_per_node {}",
                                  spec.gpu, spec.gpus_per_node));
                design.intra = IntraNode::nvlink_mesh;
                design.mesh = detail::find_preset("dgx1-v100")->mesh;
                std::erase_if(design.mesh, [&](const NodeDesign::MeshLink& l) {
                    return l.a >= spec.gpus_per_node || l.b >= spec.gpus_per_node;
                });
            }
        } else if (spec.intra_node == "pcie") {
            design.intra = IntraNode::pcie;
        } else {
            throw std::invalid_argument(
                fmt::format("unknown intra_node '{}'; valid: nvlink, pcie", spec.intra_node));
        }
    }
    if (!spec.peer_to_peer) design.pcie_p2p = false;
    if (spec.inter_node) {
        const FabricSpec& f = *spec.inter_node;
        check(f.fabric != Fabric::nvlink && f.fabric != Fabric::pcie,
              fmt::format("inter_node fabric must be infiniband, roce, efa or tcp, got {}", to_string(f.fabric)));
        check(f.gbps_per_gpu > 0.0, fmt::format("inter_node gbps_per_gpu must be positive, got {}", f.gbps_per_gpu));
        check(f.latency_us >= 0.0, fmt::format("inter_node latency_us must not be negative, got {}", f.latency_us));
        check(std::isfinite(f.gbps_per_gpu) && std::isfinite(f.latency_us),
              fmt::format("inter_node gbps_per_gpu and latency_us must be finite, got {} and {}", f.gbps_per_gpu,
                          f.latency_us));
        design.nics = design.gpus_per_node;
        design.nic_rate = units::gbits_per_s(f.gbps_per_gpu);
        design.fabric = f.fabric;
        design.nic_latency_us = f.latency_us;
    } else if (spec.preset.empty()) {
        design.nics = 0;
    }
    if (spec.nvlink_domain_gpus != 0) {
        const int per_node = design.gpus_per_node;
        check(spec.nvlink_domain_gpus >= per_node && spec.nvlink_domain_gpus <= max_gpus &&
                  spec.nvlink_domain_gpus % per_node == 0,
              fmt::format("nvlink_domain_gpus must be a multiple of the {} GPUs per node up to {}, got {}", per_node,
                          max_gpus, spec.nvlink_domain_gpus));
        check(spec.nvlink_domain_gpus == per_node || design.intra == IntraNode::nvswitch,
              fmt::format("nvlink_domain_gpus {} needs GPUs on NVSwitch; gpu '{}' has none", spec.nvlink_domain_gpus,
                          design.gpu));
        design.nvlink_domain_gpus = spec.nvlink_domain_gpus == per_node ? 0 : spec.nvlink_domain_gpus;
    }
    return design;
}

namespace {

// The checks of build_from_design, made before resolving the node design so that they come first.
void check_counts(int gpus, double oversubscription, int nodes_per_leaf) {
    check(gpus >= 1, fmt::format("gpus must be at least 1, got {}", gpus));
    check(gpus <= max_gpus, fmt::format("gpus must be at most {}, got {}", max_gpus, gpus));
    check(oversubscription >= 1.0, fmt::format("oversubscription must be at least 1, got {}", oversubscription));
    check(std::isfinite(oversubscription), fmt::format("oversubscription must be finite, got {}", oversubscription));
    check(nodes_per_leaf >= 0, fmt::format("nodes_per_leaf must not be negative, got {}", nodes_per_leaf));
    check(nodes_per_leaf <= max_gpus,
          fmt::format("nodes_per_leaf must be at most {}, got {}", max_gpus, nodes_per_leaf));
}

}  // namespace

Topology build_topology(const TopologySpec& spec) {
    check_counts(spec.gpus, spec.oversubscription, spec.nodes_per_leaf);
    const NodeDesign design = resolve_node_design(spec);
    return build_from_design(design, spec.gpus, spec.oversubscription, spec.nodes_per_leaf);
}

Topology build_from_design(const NodeDesign& design, int gpus, double oversubscription, int nodes_per_leaf) {
    check_counts(gpus, oversubscription, nodes_per_leaf);
    const int per_node = design.gpus_per_node;
    check(per_node >= 1 && per_node <= max_gpus,
          fmt::format("gpus_per_node must be between 1 and {}, got {}", max_gpus, per_node));
    // gpus, per_node and nodes_per_leaf are at most max_gpus: the sums below stay far from INT_MAX.
    const int nodes = (gpus + per_node - 1) / per_node;
    check(nodes == 1 || design.nics > 0,
          fmt::format("{} gpus need {} nodes of {}; inter_node (fabric, gbps_per_gpu, latency_us) is required",
                      gpus, nodes, per_node));
    check(design.nvlink_domain_gpus == 0 ||
              (design.intra == IntraNode::nvswitch && design.nvlink_domain_gpus >= per_node &&
               design.nvlink_domain_gpus <= max_gpus && design.nvlink_domain_gpus % per_node == 0),
          fmt::format("nvlink_domain_gpus {} is not a multiple of {} GPUs per node on NVSwitch",
                      design.nvlink_domain_gpus, per_node));

    Topology t;
    t.design_ = design;
    t.gpus_ = gpus;
    t.nodes_ = nodes;
    t.oversubscription_ = oversubscription;
    t.nodes_per_leaf_ = nodes_per_leaf > 0 ? nodes_per_leaf
                        : oversubscription > 1.0 ? std::max(1, (nodes + 1) / 2)
                                                 : nodes;
    t.leaves_ = (nodes + t.nodes_per_leaf_ - 1) / t.nodes_per_leaf_;
    if (t.leaves_ > 1)
        t.leaf_uplink_ = units::BytesPerSecond{static_cast<double>(t.nodes_per_leaf_) * design.nics *
                                               design.nic_rate.value / oversubscription};
    return t;
}

Topology::Topology() : wiring_(std::make_shared<detail::LazyWiring>()) {}

const detail::Wiring& Topology::wiring() const {
    std::call_once(wiring_->once, [this] { wire(wiring_->wiring); });
    return wiring_->wiring;
}

std::size_t Topology::link_count() const { return wiring().links.size(); }

const Link& Topology::link(int id) const { return wiring().links.at(static_cast<std::size_t>(id)); }

void Topology::wire(detail::Wiring& w) const {
    const NodeDesign& design = design_;
    const int per_node = design.gpus_per_node;
    const int gpus = gpus_;
    const int nodes = nodes_;
    Graph& g = w.graph;

    auto add_vertex = [&](DeviceKind kind, int node, int index) {
        return static_cast<int>(boost::add_vertex(Device{kind, node, index}, g));
    };
    auto add_link = [&](int a, int b, LinkKind kind, units::BytesPerSecond bw, double latency_us) {
        for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
            const Link link{kind, bw, units::microseconds(latency_us), static_cast<int>(w.links.size())};
            boost::add_edge(static_cast<Vertex>(from), static_cast<Vertex>(to), link, g);
            w.links.push_back(link);
            w.link_ends.emplace_back(from, to);
        }
    };

    const units::BytesPerSecond pcie = pcie_rate(design.pcie_generation);
    const int switches = (per_node + design.gpus_per_pcie_switch - 1) / design.gpus_per_pcie_switch;
    const int domain_nodes = nodes_per_nvlink_domain();
    int domain_switch = -1;  // the NVSwitch vertex of the current NVLink domain

    for (int leaf = 0; leaf < (design.nics > 0 ? leaves_ : 0); ++leaf)
        w.leaf_vertex.push_back(add_vertex(DeviceKind::leaf_switch, -1, leaf));
    if (leaves_ > 1) {
        const int spine = add_vertex(DeviceKind::spine_switch, -1, 0);
        const double hop_us = design.fabric == Fabric::infiniband ? detail::kInfinibandSwitchHopUs : 0.0;
        for (int leaf_vertex : w.leaf_vertex) add_link(leaf_vertex, spine, LinkKind::network, leaf_uplink_, hop_us);
    }

    for (int node = 0; node < nodes; ++node) {
        const int first_gpu = node * per_node;
        const int here = std::min(per_node, gpus - first_gpu);
        std::vector<int> gpu_v;
        for (int l = 0; l < here; ++l) {
            gpu_v.push_back(add_vertex(DeviceKind::gpu, node, first_gpu + l));
            w.gpu_vertex.push_back(gpu_v.back());
        }
        std::vector<int> cpu_v;
        for (int c = 0; c < design.cpus; ++c) cpu_v.push_back(add_vertex(DeviceKind::cpu, node, c));
        for (int c = 0; c + 1 < design.cpus; ++c)
            add_link(cpu_v[c], cpu_v[c + 1], LinkKind::cpu_link, design.cpu_link, 0.0);
        std::vector<int> switch_v;
        for (int s = 0; s < switches; ++s) {
            switch_v.push_back(add_vertex(DeviceKind::pcie_switch, node, s));
            add_link(switch_v[s], cpu_v[s * design.cpus / switches], LinkKind::pcie, pcie, 0.0);
        }
        for (int l = 0; l < here; ++l)
            add_link(gpu_v[l], switch_v[l / design.gpus_per_pcie_switch], LinkKind::pcie, pcie, kPcieHopUs);
        if (!design.pcie_p2p)
            for (int l = 0; l < here; ++l) {
                const int s = l / design.gpus_per_pcie_switch;
                const int buffer = add_vertex(DeviceKind::host_memory, node, l);
                add_link(buffer, cpu_v[s * design.cpus / switches], LinkKind::pcie, pcie * kHostBounceShare,
                         kHostBounceHopUs);
            }

        if (design.intra == IntraNode::nvswitch && domain_nodes > 1) {
            // One NVSwitch fabric for the whole domain (the NVLink Switch trays of a rack), made
            // with the domain's first node.
            if (node % domain_nodes == 0) domain_switch = add_vertex(DeviceKind::nvswitch, node, 0);
            for (int l = 0; l < here; ++l)
                add_link(gpu_v[l], domain_switch, LinkKind::nvlink, design.nvlink_per_gpu, kNvlinkHopUs);
        } else if (design.intra == IntraNode::nvswitch && here > 1) {
            // All NVSwitch chips of a board as one vertex: NCCL stripes over every link of a GPU.
            const int nvswitch = add_vertex(DeviceKind::nvswitch, node, 0);
            for (int l = 0; l < here; ++l)
                add_link(gpu_v[l], nvswitch, LinkKind::nvlink, design.nvlink_per_gpu, kNvlinkHopUs);
        } else if (design.intra == IntraNode::nvlink_mesh) {
            for (const NodeDesign::MeshLink& m : design.mesh)
                if (m.a < here && m.b < here)
                    add_link(gpu_v[m.a], gpu_v[m.b], LinkKind::nvlink, design.nvlink_per_link * m.links,
                             2 * kNvlinkHopUs);
        }

        // NICs: spread over the PCIe switches when there are enough of them, else on the CPUs.
        std::vector<std::vector<int>> nics_of_switch(switches);
        std::vector<int> cpu_nics;
        for (int n = 0; n < design.nics; ++n) {
            const int nic = add_vertex(DeviceKind::nic, node, n);
            if (design.nics >= switches) {
                const int s = n * switches / design.nics;
                add_link(nic, switch_v[s], LinkKind::pcie, pcie, 0.0);
                nics_of_switch[s].push_back(nic);
            } else {
                add_link(nic, cpu_v[n % design.cpus], LinkKind::pcie, pcie, 0.0);
                cpu_nics.push_back(nic);
            }
            add_link(nic, w.leaf_vertex[leaf_of_node(node)], LinkKind::network, design.nic_rate,
                     design.nic_latency_us / 2.0);
        }
        // Rail order per GPU: the NICs of its own PCIe switch, rotated so that neighbours start on
        // different NICs (GPU i pairs with NIC i as NCCL pairs them), then none else.
        for (int l = 0; l < here; ++l) {
            const int s = l / design.gpus_per_pcie_switch;
            std::vector<int> rails = nics_of_switch[s].empty() ? cpu_nics : nics_of_switch[s];
            if (!rails.empty()) {
                const int position = l % design.gpus_per_pcie_switch;
                const auto shift = static_cast<std::ptrdiff_t>(
                    (position * static_cast<int>(rails.size()) / design.gpus_per_pcie_switch) %
                    static_cast<int>(rails.size()));
                std::rotate(rails.begin(), rails.begin() + shift, rails.end());
            }
            w.gpu_nics.push_back(std::move(rails));
        }
    }
}

int Topology::node_of(int gpu) const {
    if (gpu < 0 || gpu >= gpus_) throw std::out_of_range(fmt::format("gpu {} out of range 0..{}", gpu, gpus_ - 1));
    return gpu / design_.gpus_per_node;
}

int Topology::local_index(int gpu) const { return gpu - node_of(gpu) * design_.gpus_per_node; }

int Topology::nvlink_domain_gpus() const {
    return design_.nvlink_domain_gpus > 0 ? design_.nvlink_domain_gpus : design_.gpus_per_node;
}

int Topology::nvlink_domain_of(int gpu) const { return node_of(gpu) / nodes_per_nvlink_domain(); }

int Topology::rails(int gpu) const {
    node_of(gpu);
    return static_cast<int>(wiring().gpu_nics[gpu].size());
}

int Topology::link_source(int id) const { return wiring().link_ends.at(static_cast<std::size_t>(id)).first; }
int Topology::link_target(int id) const { return wiring().link_ends.at(static_cast<std::size_t>(id)).second; }
int Topology::gpu_vertex(int gpu) const {
    node_of(gpu);
    return wiring().gpu_vertex[gpu];
}

// Shortest path inside one node: network links are left out and no GPU other than the source
// forwards traffic.
std::vector<int> Topology::path_links(int from_vertex, int to_vertex, int allowed_gpu) const {
    if (from_vertex == to_vertex) return {};
    const Graph& g = wiring().graph;
    auto keep = [&g, allowed_gpu](const Edge& e) {
        const Link& l = g[e];
        if (l.kind == LinkKind::network) return false;
        const auto s = boost::source(e, g);
        return g[s].kind != DeviceKind::gpu || static_cast<int>(s) == allowed_gpu;
    };
    boost::filtered_graph<Graph, std::function<bool(const Edge&)>> fg(g, keep);
    const std::size_t n = boost::num_vertices(g);
    std::vector<Vertex> pred(n);
    std::vector<double> dist(n, std::numeric_limits<double>::infinity());
    auto weight = boost::make_function_property_map<Edge, double>([&g](const Edge& e) {
        const Link& l = g[e];
        return l.latency.value + kRouteProbeBytes / l.bandwidth.value;
    });
    boost::dijkstra_shortest_paths(
        fg, static_cast<Vertex>(from_vertex),
        boost::predecessor_map(boost::make_iterator_property_map(pred.begin(), boost::get(boost::vertex_index, g)))
            .distance_map(boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, g)))
            .weight_map(weight));
    if (!std::isfinite(dist[static_cast<std::size_t>(to_vertex)]))
        throw std::logic_error(fmt::format("no route from vertex {} to {}", from_vertex, to_vertex));
    std::vector<int> out;
    for (Vertex v = static_cast<Vertex>(to_vertex); v != static_cast<Vertex>(from_vertex); v = pred[v]) {
        // Among parallel edges pick the fastest one that the filter keeps.
        const Vertex u = pred[v];
        int best = -1;
        double best_weight = std::numeric_limits<double>::infinity();
        for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) {
            if (boost::target(*e, g) != v || !keep(*e)) continue;
            const Link& l = g[*e];
            const double w = l.latency.value + kRouteProbeBytes / l.bandwidth.value;
            if (w < best_weight) {
                best_weight = w;
                best = l.id;
            }
        }
        out.push_back(best);
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<int> Topology::route(int gpu_a, int gpu_b, int rail) const {
    const int node_a = node_of(gpu_a);
    const int node_b = node_of(gpu_b);
    const int va = wiring().gpu_vertex[gpu_a];
    const int vb = wiring().gpu_vertex[gpu_b];
    if (node_a == node_b && !design_.pcie_p2p && va != vb) {
        // Device to host into a's bounce buffer, then host to device.
        const Graph& g = wiring().graph;
        int buffer = -1;
        for (std::size_t v = 0; v < boost::num_vertices(g) && buffer < 0; ++v)
            if (g[v].kind == DeviceKind::host_memory && g[v].node == node_a && g[v].index == local_index(gpu_a))
                buffer = static_cast<int>(v);
        if (buffer < 0) throw std::logic_error("GPU without a bounce buffer in a node without peer-to-peer");
        std::vector<int> out = path_links(va, buffer, va);
        for (int id : path_links(buffer, vb, -1)) out.push_back(id);
        return out;
    }
    // Inside a node, and inside an NVLink domain that spans nodes (NVLink only: network links
    // never enter path_links).
    if (node_a == node_b || nvlink_domain_of(gpu_a) == nvlink_domain_of(gpu_b)) return path_links(va, vb, va);
    const auto& rails_a = wiring().gpu_nics[gpu_a];
    const auto& rails_b = wiring().gpu_nics[gpu_b];
    if (rails_a.empty() || rails_b.empty()) throw std::logic_error("GPUs on different nodes without NICs");
    const int nic_a = rails_a[static_cast<std::size_t>(rail) % rails_a.size()];
    const int nic_b = rails_b[static_cast<std::size_t>(rail) % rails_b.size()];
    const Graph& g = wiring().graph;
    auto network_link = [&g](int from, int to) {
        for (auto [e, end] = boost::out_edges(static_cast<Vertex>(from), g); e != end; ++e)
            if (static_cast<int>(boost::target(*e, g)) == to && g[*e].kind == LinkKind::network)
                return g[*e].id;
        throw std::logic_error("missing network link");
    };
    std::vector<int> out = path_links(va, nic_a, va);
    const int leaf_a = wiring().leaf_vertex[leaf_of_node(node_a)];
    const int leaf_b = wiring().leaf_vertex[leaf_of_node(node_b)];
    out.push_back(network_link(nic_a, leaf_a));
    if (leaf_a != leaf_b) {
        int spine = -1;
        for (auto [e, end] = boost::out_edges(static_cast<Vertex>(leaf_a), g); e != end; ++e)
            if (g[boost::target(*e, g)].kind == DeviceKind::spine_switch)
                spine = static_cast<int>(boost::target(*e, g));
        out.push_back(network_link(leaf_a, spine));
        out.push_back(network_link(spine, leaf_b));
    }
    out.push_back(network_link(leaf_b, nic_b));
    for (int id : path_links(nic_b, vb, -1)) out.push_back(id);
    return out;
}

units::BytesPerSecond Topology::bottleneck(int gpu_a, int gpu_b) const {
    const std::vector<int> links = route(gpu_a, gpu_b);
    if (links.empty()) return units::BytesPerSecond{std::numeric_limits<double>::infinity()};
    double bw = std::numeric_limits<double>::infinity();
    for (int id : links) bw = std::min(bw, link(id).bandwidth.value);
    return units::BytesPerSecond{bw};
}

units::Seconds Topology::latency(int gpu_a, int gpu_b) const {
    units::Seconds total{0.0};
    for (int id : route(gpu_a, gpu_b)) total += link(id).latency;
    return total;
}

Topology Topology::with_nodes(int nodes) const {
    check(nodes >= 1 && nodes <= max_gpus / design_.gpus_per_node,
          fmt::format("with_nodes: {} nodes of {} GPUs is outside 1..{} GPUs", nodes, design_.gpus_per_node, max_gpus));
    return build_from_design(design_, nodes * design_.gpus_per_node, 1.0, 0);
}

std::string Topology::describe() const {
    const char* intra = design_.intra == IntraNode::nvswitch      ? "NVSwitch"
                        : design_.infinity_fabric                 ? "Infinity Fabric (xGMI) full mesh"
                        : design_.intra == IntraNode::nvlink_mesh ? "NVLink hybrid cube-mesh"
                                                                  : "PCIe only";
    std::string s = fmt::format("{}: {} x {} ({} nodes of {} GPUs)\n",
                                design_.preset.empty() ? "custom" : design_.preset, gpus_, design_.gpu,
                                nodes_, design_.gpus_per_node);
    s += fmt::format("  intra-node: {}", intra);
    if (design_.infinity_fabric)
        s += fmt::format(", {:.0f} GB/s per link, {:.0f} GB/s per GPU per direction", design_.nvlink_per_link.value / 1e9,
                         design_.nvlink_per_gpu.value / 1e9);
    else if (design_.nvlink_generation > 0)
        s += fmt::format(", NVLink{} {:.0f} GB/s per GPU per direction", design_.nvlink_generation,
                         design_.nvlink_per_gpu.value / 1e9);
    if (design_.nvlink_domain_gpus > 0)
        s += fmt::format(", NVLink domain of {} GPUs ({} nodes)", nvlink_domain_gpus(), nodes_per_nvlink_domain());
    s += fmt::format("; PCIe Gen{} x16 {:.1f} GB/s", design_.pcie_generation, pcie_rate(design_.pcie_generation).value / 1e9);
    if (!design_.pcie_p2p) s += ", no peer-to-peer (GPU copies bounce through host memory)";
    s += fmt::format("; {} CPU(s)\n", design_.cpus);
    if (design_.nics > 0) {
        s += fmt::format("  inter-node: {} x {:.0f} Gb/s {} per node ({:.1f} GB/s), {:.2f} us per message\n",
                         design_.nics, design_.nic_rate.value * 8 / 1e9, to_string(design_.fabric),
                         design_.nics * design_.nic_rate.value / 1e9, design_.nic_latency_us);
        s += fmt::format("  fabric: {} leaf switch(es), {} nodes per leaf", leaves_, nodes_per_leaf_);
        if (leaves_ > 1)
            s += fmt::format(", spine uplink {:.1f} GB/s per leaf (oversubscription {:g}:1)",
                             leaf_uplink_.value / 1e9, oversubscription_);
        s += "\n";
    }
    s += fmt::format("  graph: {} vertices, {} directed links\n", boost::num_vertices(wiring().graph), wiring().links.size());
    return s;
}

}  // namespace rentsim::net
