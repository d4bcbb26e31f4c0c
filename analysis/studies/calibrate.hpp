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

#include "models/compute/gpu_model.hpp"
#include "models/registry.hpp"
#include "models/workloads/workload.hpp"

namespace rentsim::analysis {

// What a calibration row measured.
enum class RowKind { gemm, copy, elementwise, launch, step };
const Registry<RowKind>& row_kind_registry();

struct CalibrationRow {
    std::string id;             // row id, or file:line
    std::string gpu;
    RowKind kind = RowKind::gemm;
    compute::Precision precision = compute::Precision::fp32;
    double m = 0, n = 0, k = 0, batch = 1;   // gemm
    double bytes = 0;                        // copy, elementwise
    std::shared_ptr<const work::Workload> model;  // step: the model measured
    int micro_batch = 0, accumulation = 1;
    double measured_s = 0;      // seconds per GEMM / copy / kernel, or per sample for steps
};

struct FitReport {
    compute::Calibration calibration;
    std::vector<CalibrationRow> rows;
    std::vector<double> predicted_s;
    std::vector<std::string> skipped;  // "id: reason"
    double rms_log_error = 0;
    int iterations = 0;
};

std::string gpu_family(const std::string& gpu);

// Reads calibration rows for the family of `gpu` from the given files.
std::vector<CalibrationRow> read_calibration_rows(const std::vector<std::string>& files, const std::string& gpu,
                                                  std::vector<std::string>& skipped);
// Predicted seconds of one row under a calibration.
double predict_row(const CalibrationRow& row, const compute::Calibration& c);
// Throws InputError when no row constrains the fit.
FitReport fit_calibration(const std::string& gpu, const std::vector<std::string>& files, const std::string& date);

}  // namespace rentsim::analysis
