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

#include "models/units.hpp"

namespace rentsim::compute {

enum class Precision { fp32, tf32, fp16, bf16, fp8 };
inline constexpr std::size_t precision_count = 5;

std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view s);
// Bytes per element of weights and activations as frameworks store them in this precision
// (mixed precision keeps fp16/bf16 activations; fp8 training keeps bf16 activations).
double activation_bytes(Precision p);
// Whether the precision is mixed: fp32 master weights and optimizer state beside 16-bit copies.
bool is_mixed(Precision p);

struct GpuSpec {
    std::string_view name;         // registry name used in scenarios, e.g. "a100-sxm4-80gb"
    std::string_view description;  // one line for `rentsim help gpus`
    int sms;                       // streaming multiprocessors (wave quantisation)
    std::array<double, precision_count> peak_tflops;  // dense peak per Precision, TFLOP/s
    double memory_gib;             // HBM addressable by the framework
    double hbm_gbps;               // HBM bandwidth, GB/s
    double nvlink_gbps;            // NVLink bandwidth per GPU per direction, GB/s (0: none)
    double pcie_gbps;              // host link per direction, GB/s
    double tdp_w;                  // board power, W
    std::string_view source;       // datasheet and the date it was read
};

std::span<const GpuSpec> gpu_catalog();
// Throws std::invalid_argument naming the closest valid name and listing all of them.
const GpuSpec& find_gpu(std::string_view name);
units::FlopsPerSecond peak(const GpuSpec& g, Precision p);
units::BytesPerSecond hbm_bandwidth(const GpuSpec& g);
units::Bytes memory(const GpuSpec& g);

}  // namespace rentsim::compute
