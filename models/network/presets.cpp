// Hardware tables. Each row says where its numbers come from; README.md repeats them.
// "SPC-0xx" and "NCC-0xx" are row ids of the project's data/measured.csv.
#include "models/network/presets.hpp"

#include "models/compute/gpu.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace rentsim::net::detail {
namespace {


// NVIDIA DGX-1 (V100) hybrid cube-mesh: GPU pairs and the number of 25 GB/s NVLinks between them.
// DGX-1 System Architecture white paper WP-08437 (2017), section 3.1 and its topology figure:
// a cube with all twelve edges linked (some doubled) and the diagonals of two opposite faces,
// six links per GPU. The pair list is the figure read as a table (trust: medium).
const std::vector<NodeDesign::MeshLink> kDgx1Mesh{
    {0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
    {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2},
};

// Inter-socket links as NCCL rates them (GB/s per direction, effective): NVIDIA/nccl
// src/graph/topo.h @5067397 (2026-06-11): BDW_QPI_BW 6.0 (Broadwell), SKL_QPI_BW 10.0
// (Skylake/Cascade Lake), AMD_BW 16.0 (EPYC), SRP_QPI_BW 22.0 (Sapphire Rapids).
constexpr double kBroadwellQpi = 6.0;
constexpr double kSkylakeUpi = 10.0;
constexpr double kAmdXgmi = 16.0;
constexpr double kSapphireRapidsUpi = 22.0;

// Per-message latency of each fabric in microseconds.
// InfiniBand: ib_send_lat, RC, 32 B: 0.83 us (D. Potter, master's thesis, table
//   "mtu_performance", git.dennispotter.eu; retrieved 2026-11-29). RoCE: same ConnectX NICs and
//   verbs transport; no source for a difference, so equal.
// EFA: aws/aws-ofi-nccl src/tuner/nccl_ofi_model.cpp @2daf7d3 (2026-08-12), "net_lat" (2 nodes,
//   8 B RDMA write with immediate): 20 us on P5/P5e, 18 us on P5en.
// TCP: NVIDIA/nccl-tests issue #82 (2021-05-11): an 8 B NCCL broadcast between two nodes over
//   TCP sockets took 45.82 us (includes NCCL overhead; trust: low).
constexpr double kEfaP5LatencyUs = 20.0;
constexpr double kEfaP5enLatencyUs = 18.0;
constexpr double kTcpLatencyUs = 45.82;

NodeDesign make(std::string preset, std::string gpu, int gpus_per_node, IntraNode intra,
                double cpu_link_gbytes, int cpus, int nics, double nic_gbps, Fabric fabric,
                double nic_latency_us) {
    const compute::GpuSpec* info = compute::lookup_gpu(gpu);
    if (info == nullptr) throw std::logic_error("preset table names an unknown GPU: " + gpu);
    NodeDesign d;
    d.preset = std::move(preset);
    d.gpu = std::move(gpu);
    d.gpus_per_node = gpus_per_node;
    d.intra = intra;
    d.nvlink_generation = intra == IntraNode::pcie ? 0 : info->nvlink_generation;
    d.nvlink_per_gpu = units::gbytes_per_s(intra == IntraNode::pcie ? 0.0 : info->nvlink_gbps);
    d.nvlink_per_link = units::gbytes_per_s(
        info->nvlink_links > 0 ? info->nvlink_gbps / info->nvlink_links : 0.0);
    if (intra == IntraNode::nvlink_mesh) d.mesh = kDgx1Mesh;
    d.pcie_generation = info->pcie_generation;
    d.gpus_per_pcie_switch = 2;
    d.cpus = cpus;
    d.cpu_link = units::gbytes_per_s(cpu_link_gbytes);
    d.nics = nics;
    d.nic_rate = units::gbits_per_s(nic_gbps);
    d.fabric = fabric;
    d.nic_latency_us = nic_latency_us;
    return d;
}

struct Preset {
    PresetInfo info;
    NodeDesign design;
};

const std::vector<Preset>& presets() {
    static const std::vector<Preset> table{
        // DGX-1 (V100): hybrid cube-mesh NVLink2 (kDgx1Mesh); 4x EDR InfiniBand 100 Gb/s, one per
        // PCIe switch; 2x Xeon E5-2698 v4 (SPC-041: MLPerf v0.6 DGX-1 entry, 2019).
        {{"dgx1-v100", "DGX-1: 8x V100 SXM2, hybrid cube-mesh NVLink2, 4x 100 Gb/s EDR InfiniBand"},
         make("dgx1-v100", "v100-sxm2-16gb", 8, IntraNode::nvlink_mesh, kBroadwellQpi, 2, 4, 100.0,
              Fabric::infiniband, kInfinibandMessageLatencyUs)},
        // DGX A100: NVSwitch, NVLink3 300 GB/s per GPU (SPC-028); 8x ConnectX-6 HDR 200 Gb/s
        // (SPC-040: MLPerf v0.7 system JSON, 2020); two GPUs and two NICs per PCIe 4.0 switch
        // (NVIDIA/nccl issue #1505 topology dump); 2x AMD EPYC 7742.
        {{"dgx-a100", "DGX A100: 8x A100 SXM4, NVSwitch (300 GB/s per GPU), 8x 200 Gb/s HDR InfiniBand"},
         make("dgx-a100", "a100-sxm4-80gb", 8, IntraNode::nvswitch, kAmdXgmi, 2, 8, 200.0,
              Fabric::infiniband, kInfinibandMessageLatencyUs)},
        // AWS p4d.24xlarge: 8x A100 40GB on NVSwitch ("NVLink gen 3 (600 GB/s)" bidirectional,
        // AWS accelerated instance table as mirrored in gist askainet, retrieved 2026-11-29);
        // 400 Gb/s EFA (data/pricing.csv, skypilot catalog v7 @001367d2) over 4 network cards
        // ("4x15" interfaces, gist ystoneman 2021-12-31); Xeon Cascade Lake. EFA latency: no
        // p4d figure, the P5 one is used.
        {{"aws-p4d", "AWS p4d.24xlarge: 8x A100 40GB, NVSwitch, 4x 100 Gb/s EFA"},
         make("aws-p4d", "a100-sxm4-40gb", 8, IntraNode::nvswitch, kSkylakeUpi, 2, 4, 100.0,
              Fabric::efa, kEfaP5LatencyUs)},
        // DGX H100: NVSwitch, NVLink4 450 GB/s per GPU (SPC-029); 8x ConnectX-7 NDR 400 Gb/s and
        // 2x Xeon Platinum 8480C (SPC-039: MLPerf v3.0 system JSON, 2023).
        {{"dgx-h100", "DGX H100: 8x H100 SXM5, NVSwitch (450 GB/s per GPU), 8x 400 Gb/s NDR InfiniBand"},
         make("dgx-h100", "h100-sxm5-80gb", 8, IntraNode::nvswitch, kSapphireRapidsUpi, 2, 8, 400.0,
              Fabric::infiniband, kInfinibandMessageLatencyUs)},
        // HGX H200 node: NVLink4 as H100 (SPC-029 notes). Network assumed equal to DGX H100
        // (SPC-039); the data has no H200 node network figure.
        {{"hgx-h200", "HGX H200: 8x H200 SXM, NVSwitch (450 GB/s per GPU), 8x 400 Gb/s NDR InfiniBand (as DGX H100)"},
         make("hgx-h200", "h200-sxm-141gb", 8, IntraNode::nvswitch, kSapphireRapidsUpi, 2, 8, 400.0,
              Fabric::infiniband, kInfinibandMessageLatencyUs)},
        // AWS p5.48xlarge: 8x H100 on NVSwitch; 3200 Gb/s EFA (data/pricing.csv) over 32 EFA
        // devices (AWS EC2 user guide, efa-acc-inst-types: a P5 launch with 32 EFA devices;
        // retrieved 2026-11-29) = 100 Gb/s each; AMD EPYC host.
        {{"aws-p5", "AWS p5.48xlarge: 8x H100 SXM5, NVSwitch, 32x 100 Gb/s EFA"},
         make("aws-p5", "h100-sxm5-80gb", 8, IntraNode::nvswitch, kAmdXgmi, 2, 32, 100.0,
              Fabric::efa, kEfaP5LatencyUs)},
        // AWS p5en.48xlarge: 8x H200; 3200 Gb/s EFA (data/pricing.csv) over 16 EFA devices
        // (meta-pytorch/torchx PR #995, named_resources_aws: EFA_DEVICE 16; NCC-021 notes
        // "16x200G EFA v3") = 200 Gb/s each; Sapphire Rapids host (dstackai/dstack PR #4110,
        // 2026-08-06).
        {{"aws-p5en", "AWS p5en.48xlarge: 8x H200, NVSwitch, 16x 200 Gb/s EFA"},
         make("aws-p5en", "h200-sxm-141gb", 8, IntraNode::nvswitch, kSapphireRapidsUpi, 2, 16, 200.0,
              Fabric::efa, kEfaP5enLatencyUs)},
        // Azure Standard_NC96ads_A100_v4: 4x A100 80GB PCIe, 80,000 Mb/s network (Azure size
        // table as mirrored in MicrosoftDocs HPC articles, retrieved 2026-11-29); TCP (accelerated
        // networking). Two GPUs per PCIe 4.0 switch and one socket are assumptions.
        {{"pcie-a100", "Azure NC96ads A100 v4 style: 4x A100 PCIe (no NVLink), PCIe 4.0 switches, one 80 Gb/s TCP NIC"},
         make("pcie-a100", "a100-pcie-80gb", 4, IntraNode::pcie, kAmdXgmi, 1, 1, 80.0, Fabric::tcp,
              kTcpLatencyUs)},
        // NVIDIA Enterprise Reference Architecture "PCIe Optimized 2-8-5": 2 sockets, 8 GPUs,
        // 5 NICs of which 4 east-west, one per PCIe switch with two GPUs; 200 Gb/s per GPU, i.e.
        // 400 Gb/s per NIC, Spectrum-X Ethernet (docs.nvidia.com/ai-enterprise/reference-
        // architecture, compute-node-hardware; retrieved 2026-11-29). Sapphire Rapids host.
        {{"pcie-h100", "PCIe-optimized 2-8-5 server: 8x H100 PCIe (no NVLink), PCIe 5.0 switches, 4x 400 Gb/s RoCE"},
         make("pcie-h100", "h100-pcie-80gb", 8, IntraNode::pcie, kSapphireRapidsUpi, 2, 4, 400.0,
              Fabric::roce, kInfinibandMessageLatencyUs)},
    };
    return table;
}


}  // namespace


const NodeDesign* find_preset(std::string_view name) {
    for (const Preset& p : presets())
        if (p.info.name == name) return &p.design;
    return nullptr;
}

std::span<const PresetInfo> preset_infos() {
    static const std::vector<PresetInfo> infos = [] {
        std::vector<PresetInfo> v;
        for (const Preset& p : presets()) v.push_back(p.info);
        return v;
    }();
    return infos;
}

// PCI-SIG base specifications: 8, 16 and 32 GT/s per lane for Gen3, Gen4 and Gen5 with 128b/130b
// encoding, so x16 moves 16 x rate x 128/130 / 8 bytes per second in each direction.

double default_message_latency_us(Fabric fabric) {
    switch (fabric) {
        case Fabric::efa: return kEfaP5LatencyUs;
        case Fabric::tcp: return kTcpLatencyUs;
        default: return kInfinibandMessageLatencyUs;
    }
}


}  // namespace rentsim::net::detail

namespace rentsim::net {

// Instances whose node the presets describe: AWS documents p4d and p4de with the same node
// (8 GPUs on NVSwitch, 4x 100 Gb/s EFA; p4de only doubles GPU memory; AWS EC2 P4 page,
// read 2026-11), and p5 and p5en as the presets of their own names.
std::string_view preset_for_instance(std::string_view provider, std::string_view instance) {
    struct Row {
        std::string_view provider, instance, preset;
    };
    static constexpr Row rows[] = {{"aws", "p4d.24xlarge", "aws-p4d"},
                                   {"aws", "p4de.24xlarge", "aws-p4d"},
                                   {"aws", "p5.48xlarge", "aws-p5"},
                                   {"aws", "p5en.48xlarge", "aws-p5en"}};
    for (const auto& r : rows)
        if (r.provider == provider && r.instance == instance) return r.preset;
    return {};
}

}  // namespace rentsim::net
