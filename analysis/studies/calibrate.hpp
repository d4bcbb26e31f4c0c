// Fitting the GPU compute model's parameters to measurements.
//
// Rows come from files in the layout of data/measured.csv (only `role` = calibrate rows are
// used) or from the measurement script's CSV (models/compute/measure). A GPU is fitted with
// the rows of its architecture family (V100, A100, H100/H200): efficiencies are properties of
// the chip and its libraries, while each row is predicted with its own part's datasheet.
// The fit is damped Gauss-Newton (Levenberg-Marquardt) on log(predicted / measured), with
// weak priors so that a parameter no row constrains stays at its documented prior.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/scenario/measurements.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/registry.hpp"
#include "models/workloads/workload.hpp"

namespace rentsim::analysis {

struct FitReport {
    compute::Calibration calibration;
    std::vector<CalibrationRow> rows;
    std::vector<double> predicted_s;
    std::vector<std::string> skipped;  // "id: reason"
    double rms_log_error = 0;
    int iterations = 0;
};

// Predicted seconds of one row under a calibration.
double predict_row(const CalibrationRow& row, const compute::Calibration& c);
// Throws InputError when no row constrains the fit.
FitReport fit_calibration(const std::string& gpu, const std::vector<std::string>& files, const std::string& date);

}  // namespace rentsim::analysis
