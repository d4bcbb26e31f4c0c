#include "sim/time.hpp"

#include <cmath>

namespace rentsim::sim {

Time from_seconds(double s) { return static_cast<Time>(std::llround(s * 1e9)); }

Time ceil_seconds(double s) {
    // Multiply first, then ceil, but forgive a last-bit excess so that 1.0 s stays 1e9 ns.
    const double ns = s * 1e9;
    const double r = std::round(ns);
    if (std::abs(ns - r) <= 1e-6 * std::max(1.0, std::abs(r))) return static_cast<Time>(r);
    return static_cast<Time>(std::ceil(ns));
}

}  // namespace rentsim::sim
