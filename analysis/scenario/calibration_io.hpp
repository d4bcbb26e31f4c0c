// Calibration files: the fitted parameters of the GPU compute model, as JSON (`"schema": 1`).
// The shipped ones (models/compute/calibration/*.json) are compiled into the program so that
// it runs without its source tree; a scenario may name another file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/compute/gpu_model.hpp"

namespace rentsim::analysis {

// How well a calibration reproduces the rows it was fitted to, written under "fit":
// the root-mean-square of log(predicted / measured) and every row's seconds.
struct CalibrationFit {
    struct Row {
        std::string id;
        double measured_s = 0;
        double predicted_s = 0;
    };
    double rms_log_error = 0;
    std::vector<Row> rows;
};

compute::Calibration parse_calibration(const std::string& text, const std::string& file);
compute::Calibration load_calibration(const std::string& path);
// The calibration file's text (indented by 2, newline-terminated); "fit" only when given.
std::string calibration_to_json(const compute::Calibration& c, const std::optional<CalibrationFit>& fit = std::nullopt);

// The shipped calibration of a catalog GPU, or its priors (compute::prior_calibration) when
// none ships yet.
compute::Calibration shipped_calibration(std::string_view gpu);
std::vector<std::string_view> shipped_calibration_gpus();

}  // namespace rentsim::analysis
