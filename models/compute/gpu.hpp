// GPU catalog: datasheet facts about the accelerators rentsim models.
//
// Peak rates are dense (no structured sparsity), in FLOP/s; a zero peak means the GPU has
// no hardware path for that precision. Memory is what the framework can address (GiB),
// bandwidths are per direction. Every row cites its datasheet and the date it was read.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "models/registry.hpp"
#include "models/units.hpp"

namespace rentsim::compute {

enum class Precision { fp32, tf32, fp16, bf16, fp8, fp4 };
inline constexpr std::size_t precision_count = 6;

// Precisions by name, in the order of Precision: fp32, tf32, fp16, bf16, fp8, fp4.
const Registry<Precision>& precision_registry();
std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view s);
// Bytes per element of weights and activations as frameworks store them in this precision
// (mixed precision keeps fp16/bf16 activations; fp8 and fp4 training keep bf16 activations).
double activation_bytes(Precision p);
// Whether the precision is mixed: fp32 master weights and optimizer state beside 16-bit copies.
bool is_mixed(Precision p);

// One accelerator's datasheet facts: an aggregate, one row per part in gpu.cpp, every field set
// on every row. Figures are per GPU; a field a part lacks is 0 (or false), never left out.
//   family: the architecture family whose fitted efficiencies a part shares, one of
//     gpu_families: "volta" (V100), "ampere" (A100), "hopper" (H100, H200, H100/H200 NVL),
//     "blackwell" (B200, GB200, B300, GB300), "ada" (L40S, L40, L4, RTX 4090, RTX 6000 Ada),
//     "ampere-ga10x" (A40, A10, A10G, RTX 3090, RTX A6000), "turing" (T4), "cdna3" (MI300X).
//   pcie_p2p: two such GPUs in one PCIe server can copy peer to peer over PCIe (false where the
//     driver disables it: GeForce RTX 3090 and 4090; the row's source says why).
//   gpu_link_gbps: a GPU-to-GPU fabric that is not NVLink (MI300X's Infinity Fabric), per GPU per
//     direction, all links, GB/s; 0 elsewhere. The nvlink_* fields hold NVLink only, so that code
//     testing nvlink_gbps > 0 or nvlink_generation never mistakes another fabric for NVLink; the
//     network model does not read gpu_link_gbps yet.
struct GpuSpec {
    std::string_view name;         // registry name used in scenarios, e.g. "a100-sxm4-80gb"
    std::string_view description;  // one line for `rentsim list gpus`
    int sms;                       // streaming multiprocessors, compute units on AMD (wave quantisation)
    std::array<double, precision_count> peak_tflops;  // dense peak per Precision, TFLOP/s
    double memory_gib;             // device memory (HBM, or GDDR on PCIe cards) addressable by the framework
    double hbm_gbps;               // device memory bandwidth (HBM or GDDR), GB/s
    int nvlink_generation;         // 0: no NVLink (PCIe cards; bridges of A40/A6000/3090 are not modelled)
    int nvlink_links;              // NVLink links per GPU
    double nvlink_gbps;            // NVLink bandwidth per GPU per direction, all links, GB/s (0: none)
    bool nvswitch;                 // sits on an NVSwitch board (SXM3, SXM4, SXM5, HGX/NVL72 Blackwell)
    int pcie_generation;           // host link: PCIe x16 of this generation
    double tdp_w;                  // board power, W
    std::string_view source;       // datasheet and the date it was read
    std::string_view family;       // architecture family, one of gpu_families
    bool pcie_p2p;                 // PCIe peer-to-peer copies between two such GPUs work
    double gpu_link_gbps;          // non-NVLink GPU fabric per GPU per direction, GB/s (0: none)

    // The part has a path for precision p (a nonzero peak).
    constexpr bool has(Precision p) const { return peak_tflops[static_cast<std::size_t>(p)] > 0.0; }
};

// The values GpuSpec::family takes, oldest first.
inline constexpr std::array<std::string_view, 8> gpu_families{"volta", "turing", "ampere", "ampere-ga10x",
                                                              "ada", "hopper", "blackwell", "cdna3"};

std::span<const GpuSpec> gpu_catalog();
// The catalog by name, in catalog order; each entry's description is the part's.
const Registry<const GpuSpec*>& gpu_registry();
// Throws std::invalid_argument naming the closest valid name and listing all of them.
const GpuSpec& find_gpu(std::string_view name);
units::FlopsPerSecond peak(const GpuSpec& g, Precision p);
// The 16-bit tensor peak, the larger of fp16's and bf16's (0 where the part has neither).
units::FlopsPerSecond half_peak(const GpuSpec& g);
units::BytesPerSecond hbm_bandwidth(const GpuSpec& g);
units::Bytes memory(const GpuSpec& g);
// PCIe x16 rate per direction: 16 lanes x 8, 16 or 32 GT/s (Gen3, Gen4, Gen5) x 128b/130b
// encoding / 8 bits (PCI-SIG base specifications 3.0, 4.0, 5.0).
units::BytesPerSecond pcie_x16(int generation);
units::BytesPerSecond pcie_bandwidth(const GpuSpec& g);
// nullptr when the name is not in the catalog (find_gpu throws instead).
const GpuSpec* lookup_gpu(std::string_view name);

}  // namespace rentsim::compute
