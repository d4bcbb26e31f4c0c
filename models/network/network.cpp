#include "models/network/network.hpp"

#include "models/network/presets.hpp"
#include "models/network/wiring.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <limits>
#include <stdexcept>

namespace rentsim::net {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Payload fraction of each protocol: LL sends 4 bytes of data with a 4-byte flag, LL128 keeps
// 120 of 128 bytes and NCCL rates it at 0.92 (NVIDIA/nccl src/graph/tuning.cc @5067397: LL
// "busBw * .5", LL128 "busBw * 0.92 /*120.0/128.0*/").
constexpr double payload(Protocol p) { return p == Protocol::ll ? 0.5 : p == Protocol::ll128 ? 0.92 : 1.0; }

// NCCL lowers the channel count while bytes < channels x threads x threshold (src/enqueue.cc);
// threads per channel and bytes per thread from src/include/device.h and comm.h @5067397:
// LL 512 x 8 B (times the ranks for ring LL), LL128 640 x 8 B, Simple 640 x 64 B.
double channel_quantum(Protocol p, int ranks) {
    switch (p) {
        case Protocol::ll: return 512.0 * 8.0 * ranks;
        case Protocol::ll128: return 640.0 * 8.0;
        case Protocol::simple: return 640.0 * 64.0;
    }
    return 1.0;
}
// Bandwidth one channel can carry: NCCL's per-link NVLink figure for SM70/SM80, 20 GB/s
// (src/graph/topo.h @5067397, SM80_NVLINK_BW).
constexpr double kChannelBw = 20e9;
constexpr int kMaxChannels = 64;  // MAXCHANNELS, src/include/device.h

int ceil_log2(int x) {
    int r = 0;
    while ((1 << r) < x) ++r;
    return r;
}

void check(bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument(message);
}

struct IntraLevel {
    double bw = kInf;    // raw bytes/s each GPU can push around the best ring of this subset
    bool nvlink = true;  // whether that ring's bottleneck is NVLink (else PCIe / CPU links)
};

// Max flow from a set of GPUs to the leaf switch inside one node: how fast the node can send
// into the fabric. Edmonds-Karp on the node's graph; NVLink and other GPUs do not forward.
double node_egress(const Topology& one, std::uint32_t mask) {
    const Graph& g = graph_of(one);
    const std::size_t n = boost::num_vertices(g);
    const std::size_t source = n;
    const std::size_t vertices = n + 1;
    std::vector<double> cap(vertices * vertices, 0.0);
    int sink = -1;
    for (auto [e, end] = boost::edges(g); e != end; ++e) {
        const Link& l = g[*e];
        const auto s = boost::source(*e, g);
        const auto t = boost::target(*e, g);
        if (l.kind == LinkKind::nvlink) continue;
        if (g[s].kind == DeviceKind::gpu && !((mask >> g[s].index) & 1u)) continue;
        if (g[t].kind == DeviceKind::gpu) continue;
        if (l.kind == LinkKind::network && g[t].kind != DeviceKind::leaf_switch) continue;
        if (g[t].kind == DeviceKind::leaf_switch) sink = static_cast<int>(t);
        cap[s * vertices + t] += l.bandwidth.value;
    }
    if (sink < 0) return 0.0;
    for (std::size_t v = 0; v < n; ++v)
        if (g[v].kind == DeviceKind::gpu && ((mask >> g[v].index) & 1u)) cap[source * vertices + v] = kInf;
    double flow = 0.0;
    std::vector<int> parent(vertices);
    for (;;) {
        std::fill(parent.begin(), parent.end(), -1);
        parent[source] = static_cast<int>(source);
        std::deque<std::size_t> queue{source};
        while (!queue.empty() && parent[static_cast<std::size_t>(sink)] < 0) {
            const std::size_t u = queue.front();
            queue.pop_front();
            for (std::size_t v = 0; v < vertices; ++v)
                if (parent[v] < 0 && cap[u * vertices + v] > 1e-9) {
                    parent[v] = static_cast<int>(u);
                    queue.push_back(v);
                }
        }
        if (parent[static_cast<std::size_t>(sink)] < 0) break;
        double push = kInf;
        for (std::size_t v = static_cast<std::size_t>(sink); v != source; v = static_cast<std::size_t>(parent[v]))
            push = std::min(push, cap[static_cast<std::size_t>(parent[v]) * vertices + v]);
        for (std::size_t v = static_cast<std::size_t>(sink); v != source; v = static_cast<std::size_t>(parent[v])) {
            const auto u = static_cast<std::size_t>(parent[v]);
            cap[u * vertices + v] -= push;
            cap[v * vertices + u] += push;
        }
        flow += push;
    }
    return flow;
}

// Whether the GPUs of `mask` can be ordered into a ring whose every hop is an NVLink path
// (a Hamiltonian cycle of the NVLink adjacency; Held-Karp over at most 8 GPUs).
bool nvlink_ring_exists(const NodeDesign& d, std::uint32_t mask) {
    std::vector<int> members;
    for (int i = 0; i < 32; ++i)
        if ((mask >> i) & 1u) members.push_back(i);
    const int s = static_cast<int>(members.size());
    // Without the P2P transport (NCCL_P2P_DISABLE=1) NCCL moves no byte over NVLink.
    if (!d.pcie_p2p) return false;
    if (d.intra == IntraNode::nvswitch) return true;
    if (d.intra != IntraNode::nvlink_mesh) return false;
    std::vector<std::vector<bool>> adj(static_cast<std::size_t>(s), std::vector<bool>(static_cast<std::size_t>(s), false));
    for (const NodeDesign::MeshLink& m : d.mesh)
        for (int i = 0; i < s; ++i)
            for (int j = 0; j < s; ++j)
                if ((members[i] == m.a && members[j] == m.b) || (members[i] == m.b && members[j] == m.a))
                    adj[i][j] = true;
    if (s == 2) return adj[0][1];
    const std::size_t full = (std::size_t{1} << s);
    std::vector<std::vector<bool>> reach(full, std::vector<bool>(static_cast<std::size_t>(s), false));
    reach[1][0] = true;
    for (std::size_t sub = 1; sub < full; ++sub)
        for (int v = 0; v < s; ++v) {
            if (!reach[sub][v]) continue;
            for (int w = 0; w < s; ++w)
                if (!((sub >> w) & 1u) && adj[v][w]) reach[sub | (std::size_t{1} << w)][w] = true;
        }
    for (int v = 1; v < s; ++v)
        if (reach[full - 1][v] && adj[v][0]) return true;
    return false;
}

IntraLevel intra_level(const Topology& one, std::uint32_t mask) {
    const int s = std::popcount(mask);
    if (s < 2) return {};
    const NodeDesign& d = one.design();
    const Graph& g = graph_of(one);
    if (nvlink_ring_exists(d, mask)) {
        // NCCL lays several rings over every NVLink of a GPU: the bound is what each GPU can send
        // to the others over NVLink (a cut bound, reached by the DGX-1 mesh's three rings).
        double bw = kInf;
        for (int local = 0; local < d.gpus_per_node; ++local) {
            if (!((mask >> local) & 1u)) continue;
            double out = 0.0;
            const auto v = static_cast<Graph::vertex_descriptor>(one.gpu_vertex(local));
            for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
                if (g[*e].kind != LinkKind::nvlink) continue;
                const Device& t = g[boost::target(*e, g)];
                if (t.kind == DeviceKind::nvswitch || (t.kind == DeviceKind::gpu && ((mask >> t.index) & 1u)))
                    out += g[*e].bandwidth.value;
            }
            bw = std::min(bw, out);
        }
        return {bw, true};
    }
    // Otherwise one ring in index order over shortest routes; a link that k hops share gives each
    // hop 1/k of its rate.
    std::vector<int> order;
    for (int i = 0; i < d.gpus_per_node; ++i)
        if ((mask >> i) & 1u) order.push_back(i);
    std::vector<int> uses(one.link_count(), 0);
    for (std::size_t i = 0; i < order.size(); ++i)
        for (int id : one.route(order[i], order[(i + 1) % order.size()])) ++uses[static_cast<std::size_t>(id)];
    IntraLevel level{kInf, true};
    for (std::size_t id = 0; id < uses.size(); ++id) {
        if (uses[id] == 0) continue;
        const Link& l = one.link(static_cast<int>(id));
        const double bw = l.bandwidth.value / uses[id];
        if (bw < level.bw) level.bw = bw;
        if (l.kind != LinkKind::nvlink) level.nvlink = false;
    }
    return level;
}

struct PairInfo {
    double bw = kInf;
    LinkKind kind = LinkKind::nvlink;
    double latency_s = 0.0;
};

PairInfo pair_info(const Topology& t, int a, int b) {
    PairInfo p;
    if (a == b) return p;
    for (int id : t.route(a, b)) {
        const Link& l = t.link(id);
        if (l.bandwidth.value < p.bw) {
            p.bw = l.bandwidth.value;
            p.kind = l.kind;
        }
        p.latency_s += l.latency.value;
    }
    return p;
}

}  // namespace

// Everything collective() needs about the topology. The per-subset and per-pair tables are
// filled on first use, each entry exactly once (std::call_once), so building a Network costs
// little and a Network shared by several threads stays safe and deterministic: an entry is a
// pure function of the node design.
struct Network::Geometry {
    Topology topology;
    Topology one;                         // a single node of the same design
    std::optional<Topology> two;          // two NVLink domains (two nodes), when there is a fabric
    int per_node = 1;
    int domain_nodes = 1;                 // nodes per NVLink domain (GB200 NVL72: 18 trays of 4)
    int domain_gpus = 1;                  // GPUs per NVLink domain: the unit the formulas call a node
    bool every_mask = true;               // tables hold every subset, else prefixes only
    std::vector<IntraLevel> intra;        // by mask (or by prefix size)
    std::vector<double> egress;           // raw node egress by mask (or prefix size)
    std::unique_ptr<std::once_flag[]> slot_once;
    std::vector<PairInfo> pair_intra;     // per_node x per_node, same node
    std::vector<PairInfo> pair_inter;     // per_node x per_node, local a on one node, local b on another
    std::vector<PairInfo> pair_domain;    // per_node x per_node, other node of the same NVLink domain
    std::unique_ptr<std::once_flag[]> pair_once;  // intra pairs, inter pairs, then domain pairs
    bool nvls = false;
    int nvlink_generation = 0;
    double nvlink_per_gpu = 0.0;
    Fabric fabric = Fabric::infiniband;
    double message_latency_us = 0.0;
    bool rdma = true;
    double leaf_uplink = kInf;
    double spine_hop_us = 0.0;

    std::size_t slot(std::uint32_t mask) const {
        return every_mask ? mask : static_cast<std::size_t>(std::popcount(mask));
    }
    // The ring level and node egress of a subset of one node's GPUs.
    std::size_t filled_slot(std::uint32_t mask) {
        const std::size_t i = slot(mask);
        std::call_once(slot_once[i], [&] {
            intra[i] = intra_level(one, mask);
            egress[i] = node_egress(one, mask);
        });
        return i;
    }
    // The route of a GPU pair: same node, another node of the same NVLink domain, or another
    // domain (`same_domain` is ignored when `same_node`).
    const PairInfo& pair(bool same_node, bool same_domain, std::size_t a, std::size_t b) {
        const auto pn = static_cast<std::size_t>(per_node);
        const std::size_t i = a * pn + b;
        const int kind = same_node ? 0 : same_domain ? 2 : 1;
        std::call_once(pair_once[static_cast<std::size_t>(kind) * pn * pn + i], [&] {
            if (kind == 0) pair_intra[i] = pair_info(one, static_cast<int>(a), static_cast<int>(b));
            else if (kind == 1) pair_inter[i] = pair_info(*two, static_cast<int>(a), domain_gpus + static_cast<int>(b));
            else pair_domain[i] = pair_info(*two, static_cast<int>(a), per_node + static_cast<int>(b));
        });
        return kind == 0 ? pair_intra[i] : kind == 1 ? pair_inter[i] : pair_domain[i];
    }
};

// The ranks of one call, reduced to what the formulas need.
struct Network::Group {
    int ranks = 0;
    int nodes = 0;
    int per_node = 0;          // most ranks on one node
    IntraLevel intra;          // worst node
    double egress = kInf;      // worst node, raw
    int leaves = 1;            // leaves the group spans
    double a2a_spine_share = 0.0;  // max over leaves of n_leaf x (nodes - n_leaf)
    std::vector<int> order;    // ranks in ring order (only filled for direct send-recv)
};

double NetworkParams::efficiency(Fabric fabric) const {
    switch (fabric) {
        case Fabric::nvlink: throw std::invalid_argument("NVLink efficiency depends on the generation");
        case Fabric::pcie: return pcie_efficiency;
        case Fabric::infiniband: return infiniband_efficiency;
        case Fabric::roce: return roce_efficiency;
        case Fabric::efa: return efa_efficiency;
        case Fabric::tcp: return tcp_efficiency;
    }
    return 1.0;
}

double NetworkParams::nvlink_efficiency(int generation) const {
    return generation <= 2   ? nvlink2_efficiency
           : generation == 3 ? nvlink3_efficiency
           : generation == 4 ? nvlink4_efficiency
                             : nvlink5_efficiency;
}

double payload_fraction(Protocol protocol) { return payload(protocol); }

double busbw_factor(Collective op, int ranks) {
    if (ranks <= 1) return op == Collective::broadcast || op == Collective::send_recv ? 1.0 : 0.0;
    const double n = ranks;
    switch (op) {
        case Collective::all_reduce: return 2.0 * (n - 1.0) / n;
        case Collective::reduce_scatter:
        case Collective::all_gather:
        case Collective::all_to_all: return (n - 1.0) / n;
        case Collective::broadcast:
        case Collective::send_recv: return 1.0;
    }
    return 1.0;
}

Network::Network(Topology topology, NetworkParams params) : params_(params) {
    auto g = std::make_shared<Geometry>();
    const NodeDesign& d = topology.design();
    g->per_node = d.gpus_per_node;
    g->one = topology.with_nodes(1);
    // Every subset up to 8 GPUs per node (256 entries); beyond that, prefixes of each size.
    g->every_mask = d.gpus_per_node <= 8;
    const std::size_t slots = g->every_mask ? (std::size_t{1} << d.gpus_per_node)
                                            : static_cast<std::size_t>(d.gpus_per_node) + 1;
    g->intra.resize(slots);
    g->egress.resize(slots);
    g->slot_once = std::make_unique<std::once_flag[]>(slots);
    const auto pn = static_cast<std::size_t>(d.gpus_per_node);
    g->domain_nodes = topology.nodes_per_nvlink_domain();
    g->domain_gpus = topology.nvlink_domain_gpus();
    g->pair_intra.resize(pn * pn);
    if (d.nics > 0) {
        // Two domains, or one when two would exceed max_gpus (then no pair crosses domains).
        const int domains = 2 * g->domain_gpus <= max_gpus ? 2 : 1;
        g->two = topology.with_nodes(domains * g->domain_nodes);
        g->pair_inter.resize(pn * pn);
        g->pair_domain.resize(pn * pn);
    }
    g->pair_once = std::make_unique<std::once_flag[]>(3 * pn * pn);
    g->nvls = d.intra == IntraNode::nvswitch && d.nvlink_generation >= 4 && d.pcie_p2p;
    g->nvlink_generation = d.nvlink_generation;
    g->nvlink_per_gpu = d.nvlink_per_gpu.value;
    g->fabric = d.fabric;
    g->message_latency_us = d.nic_latency_us;
    g->rdma = d.fabric != Fabric::tcp;
    if (topology.leaves() > 1) {
        g->leaf_uplink = topology.leaf_uplink().value;
        g->spine_hop_us = d.fabric == Fabric::infiniband ? detail::kInfinibandSwitchHopUs : 0.0;
    }
    g->topology = std::move(topology);
    geometry_ = std::move(g);
}

const Topology& Network::topology() const { return geometry_->topology; }

Network Network::with_params(const NetworkParams& params) const {
    Network copy = *this;
    copy.params_ = params;
    return copy;
}

CollectiveEstimate Network::collective(Collective op, units::Bytes bytes, int gpus, Algorithm algo) const {
    Geometry& g = *geometry_;  // tables fill lazily; see Geometry
    const Topology& t = g.topology;
    check(gpus >= 1 && gpus <= t.gpus(),
          fmt::format("collective over {} gpus, but the topology has {}", gpus, t.gpus()));
    check(bytes.value >= 0.0, "collective size must not be negative");
    if (g.domain_nodes > 1) {
        // NVLink domains over several nodes: grouped by domain, as a stride of 1.
        return collective_strided(op, bytes, gpus, 1, algo);
    }
    Group group;
    group.ranks = gpus;
    group.nodes = (gpus + g.per_node - 1) / g.per_node;
    group.per_node = std::min(gpus, g.per_node);
    auto prefix = [](int s) { return s >= 32 ? ~0u : ((1u << s) - 1u); };
    const int last = gpus - (group.nodes - 1) * g.per_node;
    for (int s : {group.per_node, last}) {
        const std::size_t i = g.filled_slot(prefix(s));
        const IntraLevel& level = g.intra[i];
        if (level.bw < group.intra.bw) group.intra = level;
        group.egress = std::min(group.egress, g.egress[i]);
    }
    const int per_leaf = t.nodes_per_leaf();
    group.leaves = (group.nodes - 1) / per_leaf + 1;
    if (group.leaves > 1) {
        const int full = group.nodes / per_leaf;
        const int rest = group.nodes - full * per_leaf;
        double share = full > 0 ? double(per_leaf) * (group.nodes - per_leaf) : 0.0;
        if (rest > 0) share = std::max(share, double(rest) * (group.nodes - rest));
        group.a2a_spine_share = share;
    }
    if (op == Collective::send_recv && algo == Algorithm::direct)
        for (int r = 0; r < gpus; ++r) group.order.push_back(r);
    return estimate(op, bytes.value, group, algo);
}

CollectiveEstimate Network::collective(Collective op, units::Bytes bytes, std::span<const int> ranks,
                                       Algorithm algo) const {
    Geometry& g = *geometry_;  // tables fill lazily; see Geometry
    const Topology& t = g.topology;
    check(!ranks.empty(), "collective needs at least one rank");
    check(bytes.value >= 0.0, "collective size must not be negative");
    std::vector<int> sorted(ranks.begin(), ranks.end());
    if (!std::is_sorted(sorted.begin(), sorted.end())) std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        // The messages are formatted only on failure: this loop runs once per rank.
        if (sorted[i] < 0 || sorted[i] >= t.gpus())
            throw std::invalid_argument(
                fmt::format("rank {} is not a GPU of the topology (0..{})", sorted[i], t.gpus() - 1));
        if (i > 0 && sorted[i] == sorted[i - 1])
            throw std::invalid_argument(fmt::format("rank {} listed twice", sorted[i]));
    }
    Group group;
    group.ranks = static_cast<int>(sorted.size());
    std::vector<int> nodes_per_leaf_count;
    std::size_t i = 0;
    // The unit the formulas call a node: an NVLink domain, which is one node unless the design's
    // NVSwitch fabric spans several (GB200 NVL72). Its GPUs meet over NVLink; its egress is that
    // of all its nodes holding ranks; its leaf is that of its first node.
    while (i < sorted.size()) {
        const int domain = sorted[i] / g.domain_gpus;
        IntraLevel domain_level;
        double domain_egress = 0.0;
        int count = 0;
        int nodes_with_ranks = 0;
        while (i < sorted.size() && sorted[i] / g.domain_gpus == domain) {
            const int node = sorted[i] / g.per_node;
            ++nodes_with_ranks;
            std::uint32_t mask = 0;
            for (; i < sorted.size() && sorted[i] / g.per_node == node; ++i) {
                mask |= 1u << (sorted[i] - node * g.per_node);
                ++count;
            }
            const std::size_t slot = g.filled_slot(mask);
            const IntraLevel& level = g.intra[slot];
            if (level.bw < domain_level.bw) domain_level = level;
            domain_egress += g.egress[slot];
        }
        // Ranks on several nodes of one domain: each GPU's NVLinks into the domain's switch.
        if (nodes_with_ranks >= 2 && g.nvlink_per_gpu < domain_level.bw) domain_level = IntraLevel{g.nvlink_per_gpu, true};
        ++group.nodes;
        group.per_node = std::max(group.per_node, count);
        if (domain_level.bw < group.intra.bw) group.intra = domain_level;
        group.egress = std::min(group.egress, domain_egress);
        const auto leaf = static_cast<std::size_t>(t.leaf_of_node(domain * g.domain_nodes));
        if (nodes_per_leaf_count.size() <= leaf) nodes_per_leaf_count.resize(leaf + 1, 0);
        ++nodes_per_leaf_count[leaf];
    }
    for (int c : nodes_per_leaf_count)
        if (c > 0) {
            group.a2a_spine_share = std::max(group.a2a_spine_share, double(c) * (group.nodes - c));
        }
    group.leaves = static_cast<int>(std::count_if(nodes_per_leaf_count.begin(), nodes_per_leaf_count.end(),
                                                  [](int c) { return c > 0; }));
    if (group.leaves <= 1) group.a2a_spine_share = 0.0;
    if (op == Collective::send_recv && algo == Algorithm::direct) group.order = sorted;
    return estimate(op, bytes.value, group, algo);
}

namespace {

// One NVLink domain's share of a group: its ranks, the slowest ring level among its nodes
// (NVLink between its nodes when it has ranks on several) and its nodes' summed egress.
struct DomainShare {
    IntraLevel level;
    double egress = 0.0;
    int count = 0;
};

}  // namespace

CollectiveEstimate Network::collective_strided(Collective op, units::Bytes bytes, int count, int stride,
                                               Algorithm algo) const {
    Geometry& g = *geometry_;  // tables fill lazily; see Geometry
    const Topology& t = g.topology;
    check(count >= 1 && stride >= 1, "a strided collective needs at least one rank and a positive stride");
    check(bytes.value >= 0.0, "collective size must not be negative");
    const std::int64_t last = static_cast<std::int64_t>(count - 1) * stride;
    if (last >= t.gpus())
        throw std::invalid_argument(fmt::format("rank {} is not a GPU of the topology (0..{})", last, t.gpus() - 1));
    const int domain = g.domain_gpus;
    const bool stride_divides = domain % stride == 0, domain_divides = stride % domain == 0;
    if ((!stride_divides && !domain_divides) || (op == Collective::send_recv && algo == Algorithm::direct)) {
        // Irregular domains, or a direct send-recv that needs the ranks in order: the list.
        std::vector<int> ranks(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) ranks[static_cast<std::size_t>(i)] = i * stride;
        return collective(op, bytes, ranks, algo);
    }
    // Every full domain holds the same ranks at the same places (per_domain of them, from its
    // first GPU on); the last may hold fewer. Each domain is summarised as the rank-list path
    // does, node by node, so that the estimate is the same to the last bit.
    const auto share = [&](std::int64_t first, int ranks) {
        DomainShare d;
        int nodes_with_ranks = 0;
        int k = 0;
        while (k < ranks) {
            const std::int64_t node = (first + std::int64_t{k} * stride) / g.per_node;
            ++nodes_with_ranks;
            std::uint32_t mask = 0;
            for (std::int64_t r = first + std::int64_t{k} * stride; k < ranks && r / g.per_node == node;
                 ++k, r += stride) {
                mask |= 1u << (r - node * g.per_node);
                ++d.count;
            }
            const std::size_t slot = g.filled_slot(mask);
            const IntraLevel& level = g.intra[slot];
            if (level.bw < d.level.bw) d.level = level;
            d.egress += g.egress[slot];
        }
        if (nodes_with_ranks >= 2 && g.nvlink_per_gpu < d.level.bw) d.level = IntraLevel{g.nvlink_per_gpu, true};
        return d;
    };
    const int per_domain = stride_divides ? domain / stride : 1;
    const int full = count / per_domain, rest = count % per_domain;
    // Nodes from one of the group's domains to the next.
    const std::int64_t node_step = std::int64_t{stride_divides ? 1 : stride / domain} * g.domain_nodes;
    Group group;
    group.ranks = count;
    const auto add = [&](const DomainShare& d, int domains) {
        group.nodes += domains;
        group.per_node = std::max(group.per_node, d.count);
        if (d.level.bw < group.intra.bw) group.intra = d.level;
        group.egress = std::min(group.egress, d.egress);
    };
    if (full > 0) add(share(0, per_domain), full);
    if (rest > 0) add(share(std::int64_t{full} * per_domain * stride, rest), 1);
    // Domains per leaf: domain i of the group sits at node i x node_step. A step of a whole
    // leaf or more puts each in its own leaf; a shorter one fills every leaf up to the last.
    const std::int64_t per_leaf = t.nodes_per_leaf();
    const std::int64_t m = group.nodes;
    const auto spine_share = [&](std::int64_t c) { return double(c) * static_cast<double>(m - c); };
    if (node_step >= per_leaf) {
        group.leaves = static_cast<int>(m);
        group.a2a_spine_share = spine_share(1);
    } else {
        const std::int64_t last_leaf = (m - 1) * node_step / per_leaf;
        group.leaves = static_cast<int>(last_leaf + 1);
        // Domains in leaf L: i from ceil(L per_leaf / step) up to ceil((L + 1) per_leaf / step).
        const auto first_in = [&](std::int64_t leaf) {
            return std::min(m, (leaf * per_leaf + node_step - 1) / node_step);
        };
        for (std::int64_t leaf = 0; leaf <= last_leaf; ++leaf)
            group.a2a_spine_share = std::max(group.a2a_spine_share, spine_share(first_in(leaf + 1) - first_in(leaf)));
    }
    if (group.leaves <= 1) group.a2a_spine_share = 0.0;
    return estimate(op, bytes.value, group, algo);
}

CollectiveEstimate Network::estimate(Collective op, double bytes, const Group& group, Algorithm algo) const {
    Geometry& g = *geometry_;  // tables fill lazily; see Geometry
    const NetworkParams& p = params_;
    const int n = group.ranks;
    const int m = group.nodes;
    const int k = group.per_node;
    CollectiveEstimate best;
    best.algorithm = algo == Algorithm::automatic ? Algorithm::ring : algo;
    if (n <= 1) return best;  // one rank moves nothing

    const double eta_intra = group.intra.nvlink ? p.nvlink_efficiency(g.nvlink_generation) : p.pcie_efficiency;
    const double eta_net = p.efficiency(g.fabric);
    const double b_intra = k > 1 ? group.intra.bw * eta_intra : kInf;
    const double spine = group.leaves > 1 ? g.leaf_uplink : kInf;
    const double b_net = m > 1 ? std::min(group.egress, spine) * eta_net : kInf;
    const double extra_net_us = std::max(0.0, g.message_latency_us - detail::kInfinibandMessageLatencyUs) +
                                (group.leaves > 1 ? 2.0 * g.spine_hop_us : 0.0);
    const ProtocolTimes& intra_step = group.intra.nvlink ? p.nvlink_step_us : p.pcie_step_us;
    auto step_intra = [&](Protocol pr) { return intra_step[pr]; };
    auto step_net = [&](Protocol pr) { return p.net_step_us[pr] + extra_net_us; };
    const bool ll128 = (k == 1 || group.intra.nvlink) && (m == 1 || g.rdma);

    best.time = units::Seconds{kInf};
    auto consider = [&](Algorithm a, Protocol pr, double latency_us, double seconds_bw, double busbw_raw) {
        const double time = latency_us * 1e-6 + seconds_bw;
        if (time < best.time.value) {
            best.time = units::Seconds{time};
            best.algorithm = a;
            best.protocol = pr;
            best.latency = units::microseconds(latency_us);
            const double quanta = std::max(1.0, std::floor(bytes / channel_quantum(pr, n)));
            const double wanted = std::clamp(std::ceil(busbw_raw / kChannelBw), 1.0, double(kMaxChannels));
            best.channels = static_cast<int>(std::min(wanted, quanta));
        }
    };
    // A message too small to fill every channel runs on fewer: at most `quanta` channels.
    auto capped = [&](double bw, Protocol pr) {
        const double quanta = std::max(1.0, std::floor(bytes / channel_quantum(pr, n)));
        return std::min(bw * payload(pr), quanta * kChannelBw * payload(pr));
    };
    const std::array<Protocol, 3> all{Protocol::ll, Protocol::ll128, Protocol::simple};
    auto allowed = [&](Protocol pr) { return pr != Protocol::ll128 || ll128; };

    auto ring = [&] {
        int steps = 0, inter_steps = 0;
        double factor = 1.0;
        switch (op) {
            case Collective::all_reduce: steps = 2 * (n - 1); inter_steps = 2 * (m - 1); factor = 2.0 * (n - 1) / n; break;
            case Collective::reduce_scatter:
            case Collective::all_gather: steps = n - 1; inter_steps = m - 1; factor = double(n - 1) / n; break;
            case Collective::broadcast: steps = n - 1; inter_steps = m - 1; factor = 1.0; break;
            case Collective::send_recv: steps = 1; inter_steps = m > 1 ? 1 : 0; factor = 1.0; break;
            case Collective::all_to_all: return;
        }
        const double busbw = std::min(b_intra, b_net);
        for (Protocol pr : all) {
            if (!allowed(pr)) continue;
            const double lat = p.base_us[pr] + (steps - inter_steps) * step_intra(pr) + inter_steps * step_net(pr);
            consider(Algorithm::ring, pr, lat, factor * bytes / capped(busbw, pr), busbw);
        }
    };
    // Double binary tree: a chain inside each node and binary trees across nodes. Each interior
    // rank moves the message twice per direction (up and down), so the ideal algorithm bandwidth
    // is half the link rate; with two nodes each node exchanges the message only once.
    auto tree = [&] {
        const double node_part = m > 1 ? b_net / (m == 2 ? 1.0 : 2.0) : kInf;
        const double algbw = p.tree_efficiency * std::min(b_intra / 2.0, node_part);
        for (Protocol pr : all) {
            if (!allowed(pr)) continue;
            const double lat = p.base_us[pr] + 2.0 * ((k - 1) * step_intra(pr) + ceil_log2(m) * step_net(pr));
            consider(Algorithm::tree, pr, lat, bytes / (capped(2.0 * algbw, pr) / 2.0), 2.0 * algbw);
        }
    };
    // Reduce-scatter inside nodes, all-reduce of each shard across nodes (k concurrent rings
    // sharing the node's NICs), all-gather inside nodes; the three phases run one after another.
    auto hierarchical = [&] {
        for (Protocol pr : all) {
            if (!allowed(pr)) continue;
            const double lat = p.base_us[pr] + 2.0 * (k - 1) * step_intra(pr) + 2.0 * (m - 1) * step_net(pr);
            const double seconds = 2.0 * (k - 1) / k * bytes / capped(b_intra, pr) +
                                   2.0 * (m - 1) / m * bytes / capped(b_net, pr);
            consider(Algorithm::hierarchical, pr, lat, seconds, std::min(b_intra, b_net));
        }
    };
    // NVLink SHARP: each GPU reads its shard reduced by the switch and multicasts the result, so
    // it sends and receives bytes x (1 + 1/k) over its NVLinks. Simple protocol only.
    auto nvls = [&] {
        const double bw = g.nvlink_per_gpu * (g.nvlink_generation >= 5 ? p.nvls5_efficiency : p.nvls_efficiency);
        consider(Algorithm::nvls, Protocol::simple, p.nvls_latency_us, bytes * (k + 1.0) / k / bw, bw);
    };
    // All-to-all: every rank sends bytes/n to every other rank at once; the slowest of the GPU
    // links, the node's NICs and the leaf uplinks sets the time.
    auto all_to_all = [&] {
        const double intra_bytes = double(k - 1) / n * bytes;
        const double node_bytes = double(k) * (n - k) / n * bytes;
        const double spine_bytes = group.a2a_spine_share * k * k / n * bytes;
        for (Protocol pr : {Protocol::ll, Protocol::simple}) {
            double seconds = k > 1 ? intra_bytes / capped(b_intra, pr) : 0.0;
            if (m > 1) seconds = std::max(seconds, node_bytes / capped(group.egress * eta_net, pr));
            if (group.leaves > 1) seconds = std::max(seconds, spine_bytes / capped(g.leaf_uplink * eta_net, pr));
            const double lat = p.base_us[pr] + (m > 1 ? step_net(pr) : step_intra(pr));
            consider(Algorithm::direct, pr, lat, seconds, std::min(b_intra, b_net));
        }
    };
    // Copies along single routes between consecutive ranks (copy engines, one RDMA queue).
    auto direct_copy = [&] {
        double bw = kInf, latency_s = 0.0;
        for (std::size_t i = 0; i < group.order.size(); ++i) {
            const int a = group.order[i];
            const int b = group.order[(i + 1) % group.order.size()];
            if (group.order.size() == 2 && i == 1) break;
            const bool same = a / g.per_node == b / g.per_node;
            const bool same_domain = a / g.domain_gpus == b / g.domain_gpus;
            const auto la = static_cast<std::size_t>(a % g.per_node);
            const auto lb = static_cast<std::size_t>(b % g.per_node);
            PairInfo pair = g.pair(same, same_domain, la, lb);
            if (!same_domain && g.topology.leaf_of_node(a / g.per_node) != g.topology.leaf_of_node(b / g.per_node)) {
                if (g.leaf_uplink < pair.bw) {
                    pair.bw = g.leaf_uplink;
                    pair.kind = LinkKind::network;
                }
                pair.latency_s += 2e-6 * g.spine_hop_us;
            }
            const double eta = pair.kind == LinkKind::nvlink    ? p.nvlink_copy_efficiency
                               : pair.kind == LinkKind::network ? eta_net
                                                                : p.pcie_efficiency;
            bw = std::min(bw, pair.bw * eta);
            latency_s = std::max(latency_s, pair.latency_s);
        }
        consider(Algorithm::direct, Protocol::simple, latency_s * 1e6, bytes / bw, bw);
        best.channels = 1;
    };

    auto not_applicable = [&](std::string_view valid) {
        throw std::invalid_argument(fmt::format("algorithm {} does not apply to {} over {} ranks on {} node(s); valid: {}",
                                                to_string(algo), to_string(op), n, m, valid));
    };
    switch (op) {
        case Collective::all_reduce: {
            const bool hier_ok = m >= 2 && k >= 2;
            const bool nvls_ok = g.nvls && m == 1 && k >= 2;
            std::string valid = "auto, ring, tree";
            if (hier_ok) valid += ", hierarchical";
            if (nvls_ok) valid += ", nvls";
            switch (algo) {
                case Algorithm::automatic:
                    ring();
                    tree();
                    if (hier_ok) hierarchical();
                    if (nvls_ok) nvls();
                    break;
                case Algorithm::ring: ring(); break;
                case Algorithm::tree: tree(); break;
                case Algorithm::hierarchical: hier_ok ? hierarchical() : not_applicable(valid); break;
                case Algorithm::nvls: nvls_ok ? nvls() : not_applicable(valid); break;
                case Algorithm::direct: not_applicable(valid); break;
            }
            break;
        }
        case Collective::reduce_scatter:
        case Collective::all_gather:
        case Collective::broadcast:
            if (algo != Algorithm::automatic && algo != Algorithm::ring) not_applicable("auto, ring");
            ring();
            break;
        case Collective::all_to_all:
            if (algo != Algorithm::automatic && algo != Algorithm::direct) not_applicable("auto, direct");
            all_to_all();
            break;
        case Collective::send_recv:
            if (algo == Algorithm::direct) {
                direct_copy();
            } else {
                if (algo != Algorithm::automatic && algo != Algorithm::ring) not_applicable("auto, ring, direct");
                ring();
            }
            break;
    }
    best.algbw_gbps = best.time.value > 0.0 ? bytes / best.time.value / 1e9 : 0.0;
    best.busbw_gbps = best.algbw_gbps * busbw_factor(op, n);
    if (g.fabric == Fabric::tcp && m > 1) {
        // Bytes each node sends and receives over TCP: the busbw-normalised volume, both ways.
        const double node_bytes = 2.0 * bytes * busbw_factor(op, n);
        best.cpu_ghz_seconds = node_bytes * 8.0 / 1e9 * p.tcp_cpu_ghz_per_gbps;
    }
    return best;
}

const Registry<Collective>& collective_registry() {
    static const Registry<Collective> registry{
        "collective",
        {{"all-reduce", Collective::all_reduce, "sum of every rank's buffer, delivered to every rank"},
         {"reduce-scatter", Collective::reduce_scatter, "sum of every rank's buffer, each rank keeping 1/n of it"},
         {"all-gather", Collective::all_gather, "every rank's 1/n of the buffer, gathered on every rank"},
         {"broadcast", Collective::broadcast, "one rank's message copied to every rank"},
         {"all-to-all", Collective::all_to_all, "every rank sends a distinct 1/n of its buffer to every rank"},
         {"send-recv", Collective::send_recv, "one message from one rank to the next"}}};
    return registry;
}

const Registry<Algorithm>& algorithm_registry() {
    static const Registry<Algorithm> registry{
        "collective algorithm",
        {{"auto", Algorithm::automatic, "the fastest algorithm and protocol for the size, as NCCL's tuning model picks"},
         {"ring", Algorithm::ring, "ring over all ranks; every operation but all-to-all"},
         {"tree", Algorithm::tree, "all-reduce: chain inside nodes, double binary tree across them"},
         {"hierarchical", Algorithm::hierarchical,
          "all-reduce over several nodes: reduce-scatter inside, all-reduce across, all-gather inside"},
         {"direct", Algorithm::direct, "all-to-all and send-recv: copies along single routes"},
         {"nvls", Algorithm::nvls, "all-reduce by NVLink SHARP in the NVSwitch (NVLink4, one node)"}}};
    return registry;
}

std::string_view to_string(Collective op) {
    const std::string_view name = collective_registry().name_of(op);
    return name.empty() ? "?" : name;
}

std::string_view to_string(Algorithm algo) {
    const std::string_view name = algorithm_registry().name_of(algo);
    return name.empty() ? "?" : name;
}

std::string_view to_string(Protocol protocol) {
    switch (protocol) {
        case Protocol::ll: return "LL";
        case Protocol::ll128: return "LL128";
        case Protocol::simple: return "Simple";
    }
    return "?";
}

std::optional<Collective> parse_collective(std::string_view text) {
    if (const Collective* c = collective_registry().find(text)) return *c;
    return std::nullopt;
}

std::optional<Algorithm> parse_algorithm(std::string_view text) {
    if (text == "automatic") return Algorithm::automatic;
    if (const Algorithm* a = algorithm_registry().find(text)) return *a;
    return std::nullopt;
}

}  // namespace rentsim::net
