// Measurement files read for calibration: rows in the layout of data/measured.csv (only
// `role` = calibrate rows) or of the measurement script's CSV (models/compute/measure).
// A row that is malformed raises InputError with the file, the line and the column; a row
// the compute model does not describe is skipped with its reason.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/compute/gpu.hpp"
#include "models/registry.hpp"
#include "models/workloads/workload.hpp"

namespace rentsim::analysis {

struct Scenario;

// What a calibration row measured.
enum class RowKind { gemm, copy, elementwise, attention, launch, step };
const Registry<RowKind>& row_kind_registry();

// How a published benchmark turns its run into the figure it reports, where that is not one
// copy's steady-state rate.
struct Harness {
    int replicas = 1;  // independent copies of the scenario whose rates the row sums
    // Scripts that report counted_steps x global batch over the wall time of a loop that ran
    // run_steps steps and a one-time warm-up of warmup_s seconds; counted_steps 0: the figure
    // is the steady-state rate.
    double counted_steps = 0, run_steps = 0, warmup_s = 0;
};

struct CalibrationRow {
    std::string id;             // row id, or file:line
    std::string gpu;
    RowKind kind = RowKind::gemm;
    compute::Precision precision = compute::Precision::fp32;
    double m = 0, n = 0, k = 0, batch = 1;   // gemm
    double bytes = 0;                        // copy, elementwise, attention (HBM traffic)
    double flops = 0, query_blocks = 0;      // attention: FLOPs (causal halved), 128-row query blocks
    std::shared_ptr<const work::Workload> model;  // step rows of the measurement script: the model measured
    // Training rows of published files: the scenario the row describes (analysis/studies
    // builds it) and the metric, whose value is held in measured_s as seconds per unit
    // (1 / rate for throughputs and FLOP rates).
    std::shared_ptr<const Scenario> scenario;
    std::string metric;
    Harness harness;            // how the row's figure was taken
    int micro_batch = 0, accumulation = 1;
    double measured_s = 0;      // seconds per GEMM / copy / kernel, or per sample for steps
};

std::string gpu_family(const std::string& gpu);

// Reads calibration rows for the family of `gpu` from the given files.
std::vector<CalibrationRow> read_calibration_rows(const std::vector<std::string>& files, const std::string& gpu,
                                                  std::vector<std::string>& skipped);
}  // namespace rentsim::analysis
