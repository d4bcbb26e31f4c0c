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

enum class Precision { fp32, tf32, fp16, bf16, fp8 };
inline constexpr std::size_t precision_count = 5;

// Precisions by name, in the order of Precision: fp32, tf32, fp16, bf16, fp8.
const Registry<Precision>& precision_registry();
std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view s);
// Bytes per element of weights and activations as frameworks store them in this precision
// (mixed precision keeps fp16/bf16 activations; fp8 training keeps bf16 activations).
double activation_bytes(Precision p);
// Whether the precision is mixed: fp32 master weights and optimizer state beside 16-bit copies.
bool is_mixed(Precision p);

struct GpuSpec {
    std::string_view name;         // registry name used in scenarios, e.g. "a100-sxm4-80gb"
    std::string_view description;  // one line for `rentsim list gpus`
    int sms;                       // streaming multiprocessors (wave quantisation)
    std::array<double, precision_count> peak_tflops;  // dense peak per Precision, TFLOP/s
    double memory_gib;             // HBM addressable by the framework
    double hbm_gbps;               // HBM bandwidth, GB/s
    int nvlink_generation;         // 0: no NVLink (PCIe cards; bridges are not modelled)
    int nvlink_links;              // NVLink links per GPU
    double nvlink_gbps;            // NVLink bandwidth per GPU per direction, all links, GB/s (0: none)
    bool nvswitch;                 // sits on an NVSwitch board (SXM3, SXM4, SXM5)
    int pcie_generation;           // host link: PCIe x16 of this generation
    double tdp_w;                  // board power, W
    std::string_view source;       // datasheet and the date it was read
};

std::span<const GpuSpec> gpu_catalog();
// The catalog by name, in catalog order; each entry's description is the part's.
const Registry<const GpuSpec*>& gpu_registry();
// Throws std::invalid_argument naming the closest valid name and listing all of them.
const GpuSpec& find_gpu(std::string_view name);
units::FlopsPerSecond peak(const GpuSpec& g, Precision p);
units::BytesPerSecond hbm_bandwidth(const GpuSpec& g);
units::Bytes memory(const GpuSpec& g);
// PCIe x16 rate per direction: 16 lanes x 8, 16 or 32 GT/s (Gen3, Gen4, Gen5) x 128b/130b
// encoding / 8 bits (PCI-SIG base specifications 3.0, 4.0, 5.0).
units::BytesPerSecond pcie_x16(int generation);
units::BytesPerSecond pcie_bandwidth(const GpuSpec& g);
// nullptr when the name is not in the catalog (find_gpu throws instead).
const GpuSpec* lookup_gpu(std::string_view name);

}  // namespace rentsim::compute
