// Hardware tables behind the topology presets: the GPU catalog (NVLink generation and rate,
// PCIe generation) and the node designs of the named presets. Every number carries its source in
// presets.cpp; models/network/README.md lists the same rows.
#pragma once

#include "models/network/topology.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim::net::detail {

struct GpuInfo {
    std::string_view name;
    int nvlink_generation;          // 0: no NVLink (PCIe cards; bridges are not modelled)
    double nvlink_gbytes_per_gpu;   // GB/s per GPU, one direction, all links together
    int nvlink_links;
    int pcie_generation;
    bool nvswitch;                  // sits on an NVSwitch board (SXM3, SXM4, SXM5)
};

std::span<const GpuInfo> gpu_catalog();
const GpuInfo* find_gpu(std::string_view name);

// Node design of a named preset; nullptr when the name is unknown.
const NodeDesign* find_preset(std::string_view name);
std::span<const PresetInfo> preset_infos();

// PCIe x16 rate per direction in bytes/s (after 128b/130b encoding for Gen3 and later).
units::BytesPerSecond pcie_x16(int generation);

// Reference per-message latency of InfiniBand verbs (ib_send_lat, RC, 32 B; source in
// presets.cpp); the per-step network latencies of the collective model are stated for it.
inline constexpr double kInfinibandMessageLatencyUs = 0.83;
// One switch traversal in an InfiniBand fabric: 130 ns port to port, NVIDIA Quantum HDR (QM8700)
// datasheet (recalled, not checked against a stored copy; trust: low).
inline constexpr double kInfinibandSwitchHopUs = 0.13;

// Default per-message latency of a fabric in microseconds (sources in presets.cpp).
double default_message_latency_us(Fabric fabric);


}  // namespace rentsim::net::detail
