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
// The same table at NVIDIA/nccl @069a3d4f (src/graph/topo.h, read 2026-12-01) adds AMD_ZEN34_BW
// 24.0 (EPYC Zen 3 and 4: Milan, Genoa), ERP_QPI_BW 40.0 (Emerald Rapids) and keeps ARM_BW 6.0
// (Arm hosts: Grace); AMD_ZEN12_BW 16.0 is the AMD_BW above. Xeon 6 (Granite Rapids) has no
// figure of its own there: the Emerald Rapids one is used (assumption).
constexpr double kAmdZen34Xgmi = 24.0;
constexpr double kEmeraldRapidsUpi = 40.0;
constexpr double kArmHost = 6.0;

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

// AMD Instinct MI300X platform (8 OAM GPUs on one UBB): every GPU links to each of the other
// seven by one Infinity Fabric (xGMI) link of 64 GB/s per direction, 448 GB/s per GPU (AMD
// Instinct MI300X data sheet; measured.csv SPX-047, stas00/ml-engineering: 7 links x 64 GB/s;
// read 2026-12-01). A full mesh, written as the DGX-1 table is.
const std::vector<NodeDesign::MeshLink> kMi300xMesh = [] {
    std::vector<NodeDesign::MeshLink> mesh;
    for (int a = 0; a < 8; ++a)
        for (int b = a + 1; b < 8; ++b) mesh.push_back({a, b, 1});
    return mesh;
}();
constexpr double kXgmiLinkGbytes = 64.0;

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
    d.pcie_p2p = info->pcie_p2p;
    d.gpus_per_pcie_switch = 2;
    d.cpus = cpus;
    d.cpu_link = units::gbytes_per_s(cpu_link_gbytes);
    d.nics = nics;
    d.nic_rate = units::gbits_per_s(nic_gbps);
    d.fabric = fabric;
    d.nic_latency_us = nic_latency_us;
    return d;
}

// A rack-scale NVLink domain: `domain_gpus` GPUs on the NVLink Switch trays of one rack, each
// GPU with its own NIC (one PCIe switch per GPU and NIC).
NodeDesign rack_domain(NodeDesign d, int domain_gpus) {
    d.nvlink_domain_gpus = domain_gpus;
    d.gpus_per_pcie_switch = 1;
    return d;
}

// The NIC of each GPU sits on a PCIe Gen6 switch (ConnectX-8's own, Blackwell Ultra boards),
// not on the GPU catalog's Gen5 host link.
NodeDesign pcie_gen6(NodeDesign d) {
    d.pcie_generation = 6;
    return d;
}

// The AMD Infinity Fabric full mesh: the NVLink-mesh machinery with xGMI links. Efficiency class:
// RCCL rates an MI300X xGMI link at 48 of its 64 GB/s (ROCm/rccl src/graph/topo.h
// GFX94X_XGMI_WIDTH 48.0, as two secondary copies quote it; read 2026-12-01), 0.75; the model's
// nearest fitted NVLink efficiency, NVLink3's 0.739, stands for it (assumption: NCCL's ring and
// tree apply to RCCL with that rate; no measured RCCL row).
NodeDesign infinity_fabric(NodeDesign d) {
    d.intra = IntraNode::nvlink_mesh;
    d.mesh = kMi300xMesh;
    d.infinity_fabric = true;
    d.nvlink_generation = 3;
    d.nvlink_per_link = units::gbytes_per_s(kXgmiLinkGbytes);
    d.nvlink_per_gpu = units::gbytes_per_s(7 * kXgmiLinkGbytes);
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

        // ---- 2026 parts (issue "The GPUs people rent in 2026"). Sources read 2026-12-01 unless
        // marked "recalled" (recalled: a datasheet or provider page not checked against a stored
        // copy; trust: medium). NVLink5 is 18 links x 50 GB/s = 900 GB/s per GPU per direction
        // (1.8 TB/s counting both directions; measured.csv SPX-043..046), the GPU catalog's
        // nvlink_gbps; every NVLink figure below is per direction.

        // DGX B200: 8x B200 on NVSwitch (NVLink5, 14.4 TB/s aggregate = 8 x 1.8 TB/s both ways);
        // 8x single-port ConnectX-7 VPI at 400 Gb/s InfiniBand NDR, one per GPU; 2x Xeon
        // Platinum 8570 (Emerald Rapids). NVIDIA DGX B200 datasheet (recalled). An HGX B200 node
        // of another maker with 8x 400 Gb/s NICs is the same preset.
        {{"dgx-b200", "DGX B200: 8x B200, NVSwitch (NVLink5, 900 GB/s per GPU), 8x 400 Gb/s NDR InfiniBand"},
         make("dgx-b200", "b200", 8, IntraNode::nvswitch, kEmeraldRapidsUpi, 2, 8, 400.0, Fabric::infiniband,
              kInfinibandMessageLatencyUs)},
        // HGX B300 (DGX B300): 8x B300 on NVSwitch (NVLink5, 900 GB/s); 8x ConnectX-8 SuperNIC at
        // 800 Gb/s, one per GPU, each GPU reaching its NIC through the ConnectX-8's PCIe Gen6
        // switch; Xeon 6 host. NVIDIA DGX B300 datasheet (recalled); AWS p6-b300.48xlarge lists
        // 6,400 Gb/s for 8 GPUs (tsaol/aws-gpu data/p6-b300_instances.js, instances.vantage.sh
        // data of 2026-01-21), the same 800 Gb/s per GPU.
        {{"hgx-b300", "HGX/DGX B300: 8x B300, NVSwitch (NVLink5, 900 GB/s per GPU), 8x 800 Gb/s XDR InfiniBand (ConnectX-8, PCIe Gen6)"},
         pcie_gen6(make("hgx-b300", "b300", 8, IntraNode::nvswitch, kEmeraldRapidsUpi, 2, 8, 800.0,
                        Fabric::infiniband, kInfinibandMessageLatencyUs))},
        // GB200 NVL72: one rack of 18 compute trays, each 2 Grace CPUs and 4 Blackwell GPUs,
        // joined by the NVLink Switch trays into one 72-GPU NVLink domain (130 TB/s = 72 x 1.8
        // TB/s both ways: each GPU reaches every other GPU of the rack at its full 900 GB/s per
        // direction). Beyond the rack: 4x ConnectX-7 400 Gb/s per tray, one per GPU, InfiniBand
        // NDR. NVIDIA GB200 NVL72 spec page (recalled); measured.csv SPX-044 (72-GPU domain). A
        // node is one tray (4 GPUs), the unit that hosts and bills. Grace-to-Grace: NCCL's ARM_BW.
        {{"gb200-nvl72", "GB200 NVL72: trays of 4 GB200 GPUs in a 72-GPU NVLink domain (900 GB/s per GPU), 400 Gb/s NDR InfiniBand per GPU beyond the rack"},
         rack_domain(make("gb200-nvl72", "gb200", 4, IntraNode::nvswitch, kArmHost, 2, 4, 400.0,
                          Fabric::infiniband, kInfinibandMessageLatencyUs),
                     72)},
        // GB300 NVL72: as GB200 NVL72 with Blackwell Ultra GPUs and 4x ConnectX-8 SuperNICs at
        // 800 Gb/s per tray (one per GPU, PCIe Gen6), InfiniBand XDR (Quantum-X800). NVIDIA GB300
        // NVL72 spec page (recalled); Verda's GB300 NVL72 post as the GPU catalog cites it
        // (72-GPU rack, 576 TB/s = 72 x 8 TB/s of HBM).
        {{"gb300-nvl72", "GB300 NVL72: trays of 4 GB300 GPUs in a 72-GPU NVLink domain (900 GB/s per GPU), 800 Gb/s XDR InfiniBand per GPU beyond the rack"},
         rack_domain(pcie_gen6(make("gb300-nvl72", "gb300", 4, IntraNode::nvswitch, kArmHost, 2, 4, 800.0,
                                    Fabric::infiniband, kInfinibandMessageLatencyUs)),
                     72)},
        // AMD Instinct MI300X platform: 8x MI300X in an Infinity Fabric full mesh (kMi300xMesh,
        // 7 x 64 GB/s per GPU); 8x 400 Gb/s NICs, one per GPU (assumption, as DGX H100 and the
        // Azure ND MI300X v5 below); 2x EPYC 9004 (Genoa) host (assumption). Collectives are
        // RCCL's: see infinity_fabric() for the efficiency assumption.
        {{"mi300x-8", "AMD MI300X platform: 8x MI300X, Infinity Fabric mesh (7 x 64 GB/s per GPU), 8x 400 Gb/s NDR InfiniBand"},
         infinity_fabric(make("mi300x-8", "mi300x", 8, IntraNode::pcie, kAmdZen34Xgmi, 2, 8, 400.0,
                              Fabric::infiniband, kInfinibandMessageLatencyUs))},

        // AWS p6-b200.48xlarge: 8x B200 on NVSwitch ("1800 GB/s NVLink", both directions); 3,200
        // Gb/s EFAv4 (tsaol/aws-gpu data/p6-b200_instances.js, instances.vantage.sh data of
        // 2026-01-21; the issue says EFA v3, the source EFAv4) over 8 network cards of 400 Gb/s,
        // one per GPU (AWS P6 page, recalled); Emerald Rapids host (recalled). EFA latency: no
        // P6 figure, the P5 one (aws-ofi-nccl) is used.
        {{"aws-p6-b200", "AWS p6-b200.48xlarge: 8x B200, NVSwitch (900 GB/s per GPU), 8x 400 Gb/s EFA"},
         make("aws-p6-b200", "b200", 8, IntraNode::nvswitch, kEmeraldRapidsUpi, 2, 8, 400.0, Fabric::efa,
              kEfaP5LatencyUs)},
        // AWS g6e.48xlarge: 8x L40S (PCIe Gen4, no NVLink), 400 Gb/s (tsaol/aws-gpu
        // data/g6e_instances.js, 2026-01-21), modelled as 4 cards of 100 Gb/s, one per PCIe switch
        // as on p4d (AWS states the total only); EFA (AWS EFA instance list, recalled); AMD EPYC
        // Milan host (recalled).
        {{"aws-g6e", "AWS g6e.48xlarge: 8x L40S PCIe (no NVLink), PCIe 4.0 switches, 4x 100 Gb/s EFA"},
         make("aws-g6e", "l40s", 8, IntraNode::pcie, kAmdZen34Xgmi, 2, 4, 100.0, Fabric::efa, kEfaP5LatencyUs)},
        // AWS g6.48xlarge: 8x L4, 100 Gb/s (tsaol/aws-gpu data/g6_instances.js, 2026-01-21), one
        // EFA adapter; AMD EPYC Milan host (recalled).
        {{"aws-g6", "AWS g6.48xlarge: 8x L4 PCIe, PCIe 4.0 switches, one 100 Gb/s EFA"},
         make("aws-g6", "l4", 8, IntraNode::pcie, kAmdZen34Xgmi, 2, 1, 100.0, Fabric::efa, kEfaP5LatencyUs)},
        // AWS g5.48xlarge: 8x A10G, 100 Gb/s (tsaol/aws-gpu data/g5_instances.js, 2026-01-21), one
        // EFA adapter; AMD EPYC Rome host (recalled), NCCL's AMD_BW (Zen 1/2).
        {{"aws-g5", "AWS g5.48xlarge: 8x A10G PCIe, PCIe 4.0 switches, one 100 Gb/s EFA"},
         make("aws-g5", "a10g", 8, IntraNode::pcie, kAmdXgmi, 2, 1, 100.0, Fabric::efa, kEfaP5LatencyUs)},
        // AWS g4dn.metal: 8x T4 (PCIe Gen3), 100 Gb/s (tsaol/aws-gpu data/g4dn_instances.js,
        // 2026-01-21), one EFA adapter; Xeon Cascade Lake host (recalled).
        {{"aws-g4dn", "AWS g4dn.metal: 8x T4 PCIe, PCIe 3.0 switches, one 100 Gb/s EFA"},
         make("aws-g4dn", "t4", 8, IntraNode::pcie, kSkylakeUpi, 2, 1, 100.0, Fabric::efa, kEfaP5LatencyUs)},
        // Google Cloud a4-highgpu-8g: 8x B200 on NVSwitch; 8x 400 Gb/s ConnectX-7 GPU NICs over
        // RoCE (3,200 Gb/s, beside 400 Gb/s of gVNIC for the host); Emerald Rapids host. Google
        // Cloud accelerator-optimized machine family page, A4 series (recalled).
        {{"gcp-a4", "Google Cloud a4-highgpu-8g: 8x B200, NVSwitch (900 GB/s per GPU), 8x 400 Gb/s RoCE"},
         make("gcp-a4", "b200", 8, IntraNode::nvswitch, kEmeraldRapidsUpi, 2, 8, 400.0, Fabric::roce,
              kInfinibandMessageLatencyUs)},
        // Google Cloud g2-standard-96: 8x L4, 100 Gb/s gVNIC (TCP, no RDMA); Xeon Cascade Lake
        // host. Google Cloud accelerator-optimized machine family page, G2 series (recalled).
        {{"gcp-g2", "Google Cloud g2-standard-96: 8x L4 PCIe, PCIe 4.0 switches, one 100 Gb/s TCP NIC"},
         make("gcp-g2", "l4", 8, IntraNode::pcie, kSkylakeUpi, 2, 1, 100.0, Fabric::tcp, kTcpLatencyUs)},
        // Azure ND GB200 v6: GB200 NVL72 racks cut into VMs of one tray, 4 GPUs each, the NVLink
        // domain spanning 18 VMs; 4x 400 Gb/s InfiniBand per VM. Azure ND GB200 v6 size page
        // (recalled).
        {{"azure-nd-gb200-v6", "Azure ND GB200 v6: VMs of 4 GB200 GPUs in a 72-GPU NVLink domain, 4x 400 Gb/s NDR InfiniBand per VM"},
         rack_domain(make("azure-nd-gb200-v6", "gb200", 4, IntraNode::nvswitch, kArmHost, 2, 4, 400.0,
                          Fabric::infiniband, kInfinibandMessageLatencyUs),
                     72)},
        // Azure ND MI300X v5: 8x MI300X (Infinity Fabric mesh), 8x 400 Gb/s InfiniBand (3.2 Tb/s
        // per VM), 2x 4th-generation Xeon (Sapphire Rapids). Azure ND MI300X v5 size page
        // (recalled).
        {{"azure-nd-mi300x-v5", "Azure ND MI300X v5: 8x MI300X, Infinity Fabric mesh (7 x 64 GB/s per GPU), 8x 400 Gb/s NDR InfiniBand"},
         infinity_fabric(make("azure-nd-mi300x-v5", "mi300x", 8, IntraNode::pcie, kSapphireRapidsUpi, 2, 8, 400.0,
                              Fabric::infiniband, kInfinibandMessageLatencyUs))},

        // PCIe servers without NVLink. pcie-l40s: the NVIDIA Enterprise Reference Architecture
        // "PCIe Optimized 2-8-5" of pcie-h100 with L40S, whose GPUs are PCIe Gen4: 4x 400 Gb/s
        // RoCE, one per PCIe switch of two GPUs; Sapphire Rapids host (docs.nvidia.com/ai-
        // enterprise/reference-architecture, retrieved 2026-11-29, lists L40S among its GPUs).
        {{"pcie-l40s", "PCIe-optimized 2-8-5 server: 8x L40S (no NVLink), PCIe 4.0 switches, 4x 400 Gb/s RoCE"},
         make("pcie-l40s", "l40s", 8, IntraNode::pcie, kSapphireRapidsUpi, 2, 4, 400.0, Fabric::roce,
              kInfinibandMessageLatencyUs)},
        // pcie-l4: the node of g6.48xlarge and g2-standard-96 (8x L4, 100 Gb/s; sources above)
        // over plain Ethernet: one 100 Gb/s TCP NIC, EPYC host.
        {{"pcie-l4", "8x L4 PCIe server (no NVLink), PCIe 4.0 switches, one 100 Gb/s TCP NIC"},
         make("pcie-l4", "l4", 8, IntraNode::pcie, kAmdZen34Xgmi, 2, 1, 100.0, Fabric::tcp, kTcpLatencyUs)},
        // pcie-a10g: the g5.48xlarge node (source above) over its ENA network (TCP) instead of EFA.
        {{"pcie-a10g", "AWS g5.48xlarge node over ENA: 8x A10G PCIe, PCIe 4.0 switches, one 100 Gb/s TCP NIC"},
         make("pcie-a10g", "a10g", 8, IntraNode::pcie, kAmdXgmi, 2, 1, 100.0, Fabric::tcp, kTcpLatencyUs)},
        // pcie-rtx4090: 8x RTX 4090 on a two-socket EPYC Genoa board (the ASRock Rack
        // GENOA2D24G-2L host of tinygrad/open-gpu-kernel-modules issue #17), 2 GPUs per PCIe
        // switch (assumption, as the other PCIe presets), one 100 Gb/s TCP NIC (assumption). No
        // peer-to-peer: NVIDIA's GeForce driver disables PCIe P2P on the RTX 4090 (NVIDIA/nccl issue
        // #1127, 2024-02-22; tinygrad's patched kernel modules exist to re-enable it), so NCCL
        // copies between GPUs through host memory (GpuSpec::pcie_p2p, wired in topology.cpp).
        {{"pcie-rtx4090", "8x GeForce RTX 4090 server: PCIe 4.0, no peer-to-peer (copies bounce through host memory), one 100 Gb/s TCP NIC"},
         make("pcie-rtx4090", "rtx4090", 8, IntraNode::pcie, kAmdZen34Xgmi, 2, 1, 100.0, Fabric::tcp, kTcpLatencyUs)},
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
// read 2026-11), and p5 and p5en as the presets of their own names. The 2026 rows name each
// provider's instance as its catalog does; sources are those of the presets (presets.cpp).
std::string_view preset_for_instance(std::string_view provider, std::string_view instance) {
    struct Row {
        std::string_view provider, instance, preset;
    };
    static constexpr Row rows[] = {{"aws", "p4d.24xlarge", "aws-p4d"},
                                   {"aws", "p4de.24xlarge", "aws-p4d"},
                                   {"aws", "p5.48xlarge", "aws-p5"},
                                   {"aws", "p5en.48xlarge", "aws-p5en"},
                                   {"aws", "p6-b200.48xlarge", "aws-p6-b200"},
                                   {"aws", "g6e.48xlarge", "aws-g6e"},
                                   {"aws", "g6.48xlarge", "aws-g6"},
                                   {"aws", "g5.48xlarge", "aws-g5"},
                                   {"aws", "g4dn.metal", "aws-g4dn"},
                                   {"gcp", "a4-highgpu-8g", "gcp-a4"},
                                   {"gcp", "g2-standard-96", "gcp-g2"},
                                   {"azure", "Standard_ND128isr_NDR_GB200_v6", "azure-nd-gb200-v6"},
                                   {"azure", "Standard_ND96isr_MI300X_v5", "azure-nd-mi300x-v5"}};
    for (const auto& r : rows)
        if (r.provider == provider && r.instance == instance) return r.preset;
    return {};
}

}  // namespace rentsim::net
