// The calibration files compiled into the program (generated from models/compute/calibration/).
#pragma once

#include <span>
#include <string_view>

namespace rentsim::analysis {

struct EmbeddedFile {
    std::string_view gpu;
    std::string_view text;
};

std::span<const EmbeddedFile> shipped_calibration_files();

}  // namespace rentsim::analysis
