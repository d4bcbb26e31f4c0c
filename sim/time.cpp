#include "sim/time.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rentsim::sim {

Time from_seconds(double s) { return static_cast<Time>(std::llround(s * 1e9)); }

Time ceil_seconds(double s) {
    // Multiply first, then ceil, but forgive a few ulps of excess from the multiplication so
    // that 1.0 s stays 1e9 ns; anything larger rounds up and never finishes early.
    const double ns = s * 1e9;
    const double r = std::round(ns);
    if (std::abs(ns - r) <= 4.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(r)))
        return static_cast<Time>(r);
    return static_cast<Time>(std::ceil(ns));
}

}  // namespace rentsim::sim
