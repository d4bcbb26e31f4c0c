// Constants of the network model. prior_network_params() holds sourced starting values;
// default_network_params() holds the values fitted from the nccl_busbw and p2p_bw calibrate rows of models/compute/measurements/measured.csv by
// calibrate_network() (see data/fitted.csv, which lists the rows behind every value).
#include "models/network/network.hpp"

namespace rentsim::net {

double blackwell_nvls(double hopper_nvls) {
    const NetworkParams prior = prior_network_params();
    return hopper_nvls * prior.nvls5_efficiency / prior.nvls_efficiency;
}

NetworkParams prior_network_params() {
    NetworkParams p;
    // NCCL's effective per-link NVLink rates (src/graph/topo.h @5067397: SM70_NVLINK_BW 20,
    // SM80_NVLINK_BW 20, SM90_NVLINK_BW 20.6 GB/s) over the 25 GB/s raw rate of one link of
    // NVLink2, NVLink3 and NVLink4 alike.
    p.nvlink2_efficiency = 20.0 / 25.0;
    p.nvlink3_efficiency = 20.0 / 25.0;
    p.nvlink4_efficiency = 20.6 / 25.0;
    // NVLink5 (Blackwell): SM100_NVLINK_BW 40.1 GB/s (src/graph/topo.h @5067397) over the 50 GB/s
    // of one link per direction (18 links, 900 GB/s per GPU).
    p.nvlink5_efficiency = 40.1 / 50.0;
    // NCCL's PCI_BW 12 GB/s for Gen3 x16 (src/graph/topo.h) over the raw 15.754 GB/s.
    p.pcie_efficiency = 12.0 / 15.754;
    // NCCL's nvlsEfficiency for Hopper, 0.85 (src/graph/tuning.cc @5067397).
    p.nvls_efficiency = 0.85;
    // NCCL's nvlsEfficiency for Blackwell, 0.74 (the same table).
    p.nvls5_efficiency = 0.74;
    p.nvlink_copy_efficiency = 20.0 / 25.0;
    // NCCL scales tree all-reduce bandwidth by 0.92 against the ring (src/graph/tuning.cc).
    p.tree_efficiency = 0.92;
    // NCCL's NET_BW 12 GB/s for a 100 Gb/s (12.5 GB/s) NIC (src/graph/topo.h).
    p.infiniband_efficiency = 12.0 / 12.5;
    p.roce_efficiency = 12.0 / 12.5;
    p.efa_efficiency = 12.0 / 12.5;
    // NVIDIA/nccl issue #450 (2021-01-06, user report, 100 Gb/s TCP): all-reduce busbw 5.21 GB/s
    // at 16 MiB between two nodes, 0.42 of 12.5 GB/s. Trust: low.
    p.tcp_efficiency = 5.21 / 12.5;
    // NCCL ring base latencies and per-step hardware latencies in microseconds for LL, LL128,
    // Simple (src/graph/tuning.cc @5067397, baseLatencies and hwLatencies, ring rows).
    p.base_us = {6.6, 14.0, 8.4};
    p.nvlink_step_us = {0.6, 1.9, 3.4};
    p.pcie_step_us = {1.0, 2.5, 5.7};
    p.net_step_us = {2.7, 4.0, 14.0};
    // NCCL's NVLS latency on NVLink, 25 us (hwLatencies, NVLS/Simple).
    p.nvls_latency_us = 25.0;
    // "1 GHz of CPU per 1 Gb/s of TCP throughput": A. Foong et al., "TCP performance re-visited",
    // ISPASS 2003 (recalled, not checked against a stored copy; trust: low).
    p.tcp_cpu_ghz_per_gbps = 1.0;
    return p;
}

// Fitted 2026-11-29 from the nccl_busbw and p2p_bw calibrate rows of models/compute/measurements/measured.csv; each line names the rows it depends on.
NetworkParams default_network_params() {
    NetworkParams p = prior_network_params();
    p.nvlink3_efficiency = 0.739019;  // 9 rows (data/fitted.csv)
    p.nvlink4_efficiency = 0.822351;  // 8 rows (data/fitted.csv)
    p.nvls_efficiency = 0.680125;  // 8 rows (data/fitted.csv)
    p.nvlink_copy_efficiency = 0.87793;  // P2P-002 P2P-003
    p.tree_efficiency = 0.628416;  // NCC-026
    p.infiniband_efficiency = 0.985211;  // 5 rows (data/fitted.csv)
    p.efa_efficiency = 0.969015;  // P2P-001
    p.nvlink_step_us.ll = 2.89732;  // NCC-001 NCC-002 NCC-009
    p.nvlink_step_us.ll128 = 8.47293;  // NCC-003
    p.nvlink_step_us.simple = 12.0058;  // 18 rows (data/fitted.csv)
    p.nvls_latency_us = 72.8813;  // 8 rows (data/fitted.csv)
    // No RoCE row: RoCE uses the same ConnectX NICs and verbs transport as InfiniBand.
    p.roce_efficiency = p.infiniband_efficiency;
    p.nvls5_efficiency = blackwell_nvls(p.nvls_efficiency);
    return p;
}

}  // namespace rentsim::net
