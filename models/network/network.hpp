// Analytic network model: the time of a collective over a cluster of identical nodes.
//
//   node 0: GPU0 .. GPU7 --NVLink/NVSwitch or PCIe-- | fabric (IB/RoCE/EFA/TCP) | node 1 ...
//
// A ring all-reduce moves 2 (n-1)/n of the message through every GPU's slowest link (NVLink
// inside one node; the GPU's share of the NICs once the ring crosses nodes) and pays one
// hop latency per step, as NCCL's ring does (2 (n-1) steps). Achievable fractions of the
// line rates come from measured rows (models/network/README.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "models/units.hpp"

namespace rentsim::net {

enum class Collective { all_reduce, reduce_scatter, all_gather, broadcast, all_to_all, send_recv };
enum class Fabric { nvlink, pcie, infiniband, roce, efa, tcp };
enum class Algorithm { automatic, ring, tree, hierarchical, direct };

struct FabricSpec {
    Fabric fabric;
    double gbps_per_gpu;  // line rate per GPU, Gb/s
    double latency_us;    // one-way message latency
};

struct TopologySpec {
    std::string preset;            // reserved for named topologies; empty
    int gpus = 1;
    int gpus_per_node = 8;
    std::string gpu;               // catalog GPU name: picks the NVLink or PCIe bandwidth
    std::string intra_node = "nvlink";
    std::optional<FabricSpec> inter_node;
    double oversubscription = 1.0;
};

// Per-level link parameters derived from a TopologySpec.
struct Topology {
    int gpus = 1;
    int gpus_per_node = 8;
    units::BytesPerSecond intra_bw;   // per GPU, achievable
    units::Seconds intra_latency;
    units::BytesPerSecond inter_bw;   // per GPU, achievable (0 without a fabric)
    units::Seconds inter_latency;
};

// Throws std::invalid_argument on a spec the model cannot represent.
Topology build_topology(const TopologySpec& spec);

struct CollectiveEstimate {
    units::Seconds time;
    Algorithm algorithm = Algorithm::ring;
    int channels = 1;
    double algbw_gbps = 0;   // bytes / time, GB/s
    double busbw_gbps = 0;   // algbw x 2 (n-1)/n for all-reduce, as nccl-tests reports
};

class Network {
public:
    explicit Network(Topology t) : t_(t) {}
    // Group: the first `gpus` GPUs, packed node by node. Only all-reduce is modelled here;
    // other collectives throw std::invalid_argument.
    CollectiveEstimate collective(Collective op, units::Bytes bytes, int gpus,
                                  Algorithm algo = Algorithm::automatic) const;
    const Topology& topology() const { return t_; }

private:
    Topology t_;
};

std::string_view to_string(Collective c);
std::string_view to_string(Fabric f);

// Achievable fractions of line rate, each taken from one measured row of data/measured.csv
// (role calibrate): NVLink/NVSwitch all-reduce bus bandwidth 222.72 GB/s of 300 GB/s at
// 512 MiB on 8x A100 SXM (NCC-005); RDMA NIC to NIC 193.72 of 200 Gb/s (P2P-001).
inline constexpr double nvlink_bus_efficiency = 222.72 / 300.0;
inline constexpr double rdma_efficiency = 193.72 / 200.0;
// TCP reaches less of the line rate than RDMA and costs CPU; until a measured row exists,
// 0.6 is the planning figure (an assumption, stated in models/network/README.md).
inline constexpr double tcp_efficiency = 0.6;
// Per-hop latency inside a node (NVLink or PCIe peer access), NCCL's LL protocol order of
// magnitude; an assumption until fitted.
inline constexpr double intra_latency_us = 2.0;

}  // namespace rentsim::net
