#include "analysis/capacity/quantiles.hpp"

#include <algorithm>
#include <cmath>

namespace rentsim::capacity {

std::int64_t QuantileSketch::key(double value_s) {
    std::int64_t ms = std::llround(std::max(0.0, value_s) * 1000.0);
    if (ms < 10000) return ms;
    // Four significant digits: drop the digits beyond them, rounding half up.
    std::int64_t scale = 1;
    while (ms / scale >= 100000) scale *= 10;
    // ms / scale has 5 digits; keep 4 of them.
    scale *= 10;
    return (ms + scale / 2) / scale * scale;
}

double QuantileSketch::kept(double value_s) { return static_cast<double>(key(value_s)) / 1000.0; }

void QuantileSketch::add(double value_s) {
    ++bins_[key(value_s)];
    ++count_;
    sum_ += value_s;
    max_ = std::max(max_, value_s);
}

double QuantileSketch::quantile(double p) const {
    if (count_ == 0) return 0.0;
    const auto rank = static_cast<std::int64_t>(std::ceil(p * static_cast<double>(count_) - 1e-9));
    std::int64_t seen = 0;
    for (const auto& [k, n] : bins_) {
        seen += n;
        if (seen >= std::max<std::int64_t>(rank, 1)) return static_cast<double>(k) / 1000.0;
    }
    return static_cast<double>(bins_.rbegin()->first) / 1000.0;
}

}  // namespace rentsim::capacity
