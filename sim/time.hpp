// Simulated time: a signed 64-bit count of nanoseconds since the start of a run.
//
// Integer time keeps runs identical across compilers and thread counts and makes
// ties exact; 2^63 ns is about 292 years of simulated time.
#pragma once

#include <cstdint>

namespace rentsim::sim {

using Time = std::int64_t;

inline constexpr Time ns_per_s = 1'000'000'000;
inline constexpr Time time_max = INT64_MAX;

// Rounds to the nearest nanosecond. Precondition: 0 <= s < 9.2e9 (about 292 years).
Time from_seconds(double s);
// Rounds up to the next nanosecond, for durations that must not finish early.
Time ceil_seconds(double s);
constexpr double to_seconds(Time t) { return static_cast<double>(t) * 1e-9; }

}  // namespace rentsim::sim
