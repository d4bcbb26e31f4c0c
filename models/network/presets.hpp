// Hardware tables behind the topology presets: the node designs of the named presets. GPU
// facts (NVLink generation, links and rate, NVSwitch, PCIe generation) come from the one GPU
// catalog, models/compute/gpu.cpp. Every number carries its source in
// presets.cpp; models/network/README.md lists the same rows.
#pragma once

#include "models/network/spec.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim::net::detail {


// Node design of a named preset; nullptr when the name is unknown.
const NodeDesign* find_preset(std::string_view name);
std::span<const PresetInfo> preset_infos();


// Reference per-message latency of InfiniBand verbs (ib_send_lat, RC, 32 B; source in
// presets.cpp); the per-step network latencies of the collective model are stated for it.
inline constexpr double kInfinibandMessageLatencyUs = 0.83;
// One switch traversal in an InfiniBand fabric: 130 ns port to port, NVIDIA Quantum HDR (QM8700)
// datasheet (recalled, not checked against a stored copy; trust: low).
inline constexpr double kInfinibandSwitchHopUs = 0.13;

// Default per-message latency of a fabric in microseconds (sources in presets.cpp).
double default_message_latency_us(Fabric fabric);


}  // namespace rentsim::net::detail
