// Calibration files: the fitted parameters of the GPU compute model, as JSON (`"schema": 1`).
// The shipped ones (models/compute/calibration/*.json) are compiled into the program so that
// it runs without its source tree; a scenario may name another file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/compute/gpu_model.hpp"

namespace rentsim::analysis {

compute::Calibration parse_calibration(const std::string& text, const std::string& file);
compute::Calibration load_calibration(const std::string& path);
std::string calibration_to_json(const compute::Calibration& c, const std::string& extra_json_fields = "");

// The shipped calibration of a catalog GPU; throws InputError when none ships.
compute::Calibration shipped_calibration(std::string_view gpu);
std::vector<std::string_view> shipped_calibration_gpus();

}  // namespace rentsim::analysis
