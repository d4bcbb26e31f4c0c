// The shipped calibrations (models/compute/calibration/*.json), compiled into the program;
// each file is named by its GPU.
#pragma once

#include "models/embedded.hpp"

namespace rentsim::analysis {

std::span<const EmbeddedFile> shipped_calibration_files();

}  // namespace rentsim::analysis
