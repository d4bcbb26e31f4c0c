// The accepted ranges of the numbers in the files rentsim reads (README, "Accepted
// ranges"): each numeric key, named by its dotted path without array indices
// ("cluster.gpus", "elastic.schedule.gpus"), with inclusive bounds and a unit for messages.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace rentsim::analysis {

struct NumberRange {
    std::string_view key;
    double lo, hi;
    std::string_view unit;
};

std::span<const NumberRange> scenario_number_ranges();
std::span<const NumberRange> calibration_number_ranges();

// "| `cluster.gpus` | 1 | 65536 | GPUs |" lines under a header, for the README.
std::string ranges_markdown(std::span<const NumberRange> ranges);

}  // namespace rentsim::analysis
