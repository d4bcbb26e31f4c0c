// Analytic model of NCCL collectives over a Topology. For each algorithm and protocol the time is
// latency + bytes / bandwidth, and the automatic choice takes the fastest, as NCCL's tuning model
// does. Bandwidths and latencies per level (inside a node, across nodes, across the spine) are
// precomputed from the graph when the Network is built, so collective() does no graph search.
// The operation, algorithm and protocol names and their registries are in spec.hpp.
#pragma once

#include "models/network/spec.hpp"
#include "models/network/topology.hpp"
#include "models/units.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace rentsim::net {

// One value per protocol, in microseconds.
struct ProtocolTimes {
    double ll = 0.0;
    double ll128 = 0.0;
    double simple = 0.0;
    double operator[](Protocol p) const { return p == Protocol::ll ? ll : p == Protocol::ll128 ? ll128 : simple; }
};

// Constants of the model. Efficiencies are fractions of the raw link rate that NCCL's Simple
// protocol reaches; latencies are per collective (base) or per ring step, in microseconds, for a
// fabric with InfiniBand-class message latency. default_network_params() holds the values fitted
// by calibrate_network() (data/fitted.csv) and sourced priors for what the data cannot fix.
struct NetworkParams {
    double nvlink2_efficiency = 0.0;       // per NVLink generation (V100, A100, H100/H200)
    double nvlink3_efficiency = 0.0;
    double nvlink4_efficiency = 0.0;
    double nvlink5_efficiency = 0.0;       // B200, B300, GB200, GB300
    double pcie_efficiency = 0.0;
    double nvls_efficiency = 0.0;          // NVLS all-reduce, relative to per-GPU NVLink rate (NVLink4)
    double nvls5_efficiency = 0.0;         // the same on NVLink5 (Blackwell)
    double nvlink_copy_efficiency = 0.0;   // copy-engine transfers (Algorithm::direct over NVLink)
    double tree_efficiency = 0.0;          // double binary tree relative to its ideal bandwidth
    double infiniband_efficiency = 0.0;
    double roce_efficiency = 0.0;
    double efa_efficiency = 0.0;
    double tcp_efficiency = 0.0;
    ProtocolTimes base_us;
    ProtocolTimes nvlink_step_us;
    ProtocolTimes pcie_step_us;
    ProtocolTimes net_step_us;
    double nvls_latency_us = 0.0;
    double tcp_cpu_ghz_per_gbps = 0.0;     // CPU cycles TCP spends per bit moved

    double nvlink_efficiency(int generation) const;
    // For pcie and the inter-node fabrics; NVLink depends on the generation (above).
    double efficiency(Fabric fabric) const;
};

NetworkParams default_network_params();
// The starting values of the fit: numbers from NCCL's own tuning tables and published reports,
// each with its source in params.cpp. Parameters the data cannot fix keep these values.
NetworkParams prior_network_params();
// NVLS efficiency on NVLink5 from a fitted NVLink4 (Hopper) one: no measurement times NVLS on
// Blackwell, so it keeps the fitted value's ratio to NCCL's Hopper figure (0.74 / 0.85).
double blackwell_nvls(double hopper_nvls);

struct CollectiveEstimate {
    units::Seconds time{0.0};
    Algorithm algorithm = Algorithm::ring;
    int channels = 0;
    double algbw_gbps = 0.0;               // bytes / time, GB/s (1e9)
    double busbw_gbps = 0.0;               // algbw x busbw_factor(op, ranks)
    Protocol protocol = Protocol::simple;
    units::Seconds latency{0.0};           // the latency part of `time`
    double cpu_ghz_seconds = 0.0;          // per node, for TCP: CPU GHz x seconds spent
};

// Fraction of a protocol's wire bytes that carry data: LL 0.5 (4-byte flag per 4 bytes), LL128
// 0.92 (120 of 128 bytes, as NCCL rates it), Simple 1. Bandwidth terms of the model scale by it.
double payload_fraction(Protocol protocol);

// nccl-tests bus-bandwidth factor: all-reduce 2(n-1)/n, reduce-scatter, all-gather and
// all-to-all (n-1)/n, broadcast and send-recv 1.
double busbw_factor(Collective op, int ranks);

// Analytic model over one Topology. Cheap to copy (shares its precomputed geometry).
class Network {
public:
    explicit Network(Topology topology, NetworkParams params = default_network_params());

    // Group = the first `gpus` GPUs, packed node by node. `bytes` is the nccl-tests size: the
    // whole buffer for all-reduce, reduce-scatter, all-gather and all-to-all, the message for
    // broadcast and send-recv. Throws std::invalid_argument for a group that does not fit the
    // topology or an algorithm that does not apply to the operation.
    CollectiveEstimate collective(Collective op, units::Bytes bytes, int gpus,
                                  Algorithm algo = Algorithm::automatic) const;
    // Group = the listed GPUs (distinct global indices), in any order.
    CollectiveEstimate collective(Collective op, units::Bytes bytes, std::span<const int> ranks,
                                  Algorithm algo = Algorithm::automatic) const;
    // Group = GPUs 0, stride, 2 x stride, ... (`count` of them): a data-parallel group in
    // Megatron's rank order (stride = tp). The same estimate as the rank list, priced per
    // NVLink domain, not per rank, when the stride divides the domain or the domain the
    // stride. Throws std::invalid_argument when the last rank is not a GPU of the topology.
    CollectiveEstimate collective_strided(Collective op, units::Bytes bytes, int count, int stride,
                                          Algorithm algo = Algorithm::automatic) const;

    const Topology& topology() const;
    const NetworkParams& params() const { return params_; }
    // The same geometry with other constants; used by calibration, costs no graph search.
    Network with_params(const NetworkParams& params) const;

    struct Geometry;
    struct Group;

private:
    CollectiveEstimate estimate(Collective op, double bytes, const Group& group, Algorithm algo) const;

    std::shared_ptr<Geometry> geometry_;  // shared by copies; lazily filled, thread-safe
    NetworkParams params_;
};

}  // namespace rentsim::net
