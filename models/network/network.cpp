#include "models/network/network.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/compute/gpu.hpp"

namespace rentsim::net {

Topology build_topology(const TopologySpec& spec) {
    if (!spec.preset.empty())
        throw std::invalid_argument("unknown topology preset '" + spec.preset + "'; no presets are defined yet");
    const auto& gpu = compute::find_gpu(spec.gpu);
    Topology t;
    t.gpus = spec.gpus;
    t.gpus_per_node = spec.gpus_per_node;
    const bool nvlink = spec.intra_node == "nvlink" && gpu.nvlink_gbps > 0;
    t.intra_bw = units::gbytes_per_s(nvlink ? gpu.nvlink_gbps * nvlink_bus_efficiency : gpu.pcie_gbps * rdma_efficiency);
    t.intra_latency = units::microseconds(intra_latency_us);
    if (spec.inter_node) {
        const auto& f = *spec.inter_node;
        const double eff = f.fabric == Fabric::tcp ? tcp_efficiency : rdma_efficiency;
        t.inter_bw = units::gbits_per_s(f.gbps_per_gpu * eff / spec.oversubscription);
        t.inter_latency = units::microseconds(f.latency_us);
    }
    return t;
}

CollectiveEstimate Network::collective(Collective op, units::Bytes bytes, int gpus, Algorithm) const {
    if (op != Collective::all_reduce)
        throw std::invalid_argument("collective '" + std::string(to_string(op)) + "' is not modelled yet");
    CollectiveEstimate e;
    if (gpus <= 1) return e;
    const double n = gpus;
    const bool multi_node = gpus > t_.gpus_per_node;
    if (multi_node && t_.inter_bw.value <= 0)
        throw std::invalid_argument("a group spanning nodes needs an inter-node fabric");
    const auto bw = multi_node ? units::min(t_.intra_bw, t_.inter_bw) : t_.intra_bw;
    const auto lat = multi_node ? units::max(t_.intra_latency, t_.inter_latency) : t_.intra_latency;
    const double steps = 2.0 * (n - 1.0);
    e.time = bytes * (steps / n) / bw + lat * steps;
    e.algorithm = Algorithm::ring;
    e.algbw_gbps = bytes.value / e.time.value / 1e9;
    e.busbw_gbps = e.algbw_gbps * steps / n;
    return e;
}

std::string_view to_string(Collective c) {
    switch (c) {
        case Collective::all_reduce: return "all-reduce";
        case Collective::reduce_scatter: return "reduce-scatter";
        case Collective::all_gather: return "all-gather";
        case Collective::broadcast: return "broadcast";
        case Collective::all_to_all: return "all-to-all";
        case Collective::send_recv: return "send-recv";
    }
    return "?";
}

std::string_view to_string(Fabric f) {
    switch (f) {
        case Fabric::nvlink: return "nvlink";
        case Fabric::pcie: return "pcie";
        case Fabric::infiniband: return "infiniband";
        case Fabric::roce: return "roce";
        case Fabric::efa: return "efa";
        case Fabric::tcp: return "tcp";
    }
    return "?";
}

}  // namespace rentsim::net
