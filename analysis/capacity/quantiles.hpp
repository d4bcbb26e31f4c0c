// Percentiles of a stream in memory bounded by its range, not its length: values are kept
// exactly below 10 s (to the millisecond) and to four significant digits above, counted by
// value. A percentile is the nearest-rank one (the smallest value with at least p of the
// values at or below it), reported as its kept value.
#pragma once

#include <cstdint>
#include <map>

namespace rentsim::capacity {

class QuantileSketch {
public:
    // Precondition: 0 <= value_s < 9e15 (values are seconds).
    void add(double value_s);
    std::int64_t count() const { return count_; }
    double mean() const { return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_); }
    double max() const { return max_; }
    // p in (0, 1]; 0 when empty.
    double quantile(double p) const;
    // The value kept for `value_s` (its bin), for tests.
    static double kept(double value_s);

private:
    static std::int64_t key(double value_s);
    std::map<std::int64_t, std::int64_t> bins_;  // kept value in ms -> count
    std::int64_t count_ = 0;
    double sum_ = 0, max_ = 0;
};

}  // namespace rentsim::capacity
