// Validation: predicts every row of a measurement file in the layout of
// models/compute/measurements/measured.csv and compares. Training rows become Scenario values
// run by run_scenario, exactly as a user's scenario is; network rows go through the network
// model (with the interpretations in models/network/data/nccl_rows.csv, compiled in); spec
// rows are read from the GPU catalog and GEMM rows from the compute model. A row that cannot
// be predicted is kept, with the reason it was skipped.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/scenario/scenario.hpp"

namespace rentsim::analysis {

struct ValidationRow {
    std::string id, category, role, metric;
    std::string trust;       // high, medium or low (empty column: high)
    std::string gpu;         // the row's GPU, empty for CPU rows
    std::string kind;        // what was predicted: the model name, "spec", "gemm" or "collective"
    double measured = 0;
    double predicted = 0;
    double error = 0;        // predicted / measured - 1 (signed fraction)
    bool fits = true;        // training rows: the memory model says the run fits its GPUs
    std::string skipped;     // empty when predicted; otherwise the reason
};

struct ErrorStats {
    int n = 0;
    double mean_abs_error = 0, median_abs_error = 0, p90_abs_error = 0, max_abs_error = 0;  // fractions
};

using ErrorSummary = std::map<std::string, std::map<std::string, ErrorStats>>;  // group -> role -> stats

// Scores count rows of trust high and medium only (the data README's advice); `by_trust`
// reports every level, low included, for what it is worth.
struct ValidationReport {
    std::vector<ValidationRow> rows;  // in file order
    // category -> role (calibrate, check) -> statistics of |error| over predicted rows;
    // the category "all" holds every category together.
    ErrorSummary summary;
    ErrorSummary by_family;           // GPU architecture family (GpuSpec::family) -> role -> stats
    ErrorSummary by_trust;            // trust level -> role -> stats
    // Training rows by the run's GPU count (scale_groups) -> role -> stats, and the median
    // signed error of the predicted rate, predicted / measured - 1 for rates and measured /
    // predicted - 1 for times: positive where the model is faster than the measurement.
    ErrorSummary by_scale;
    std::map<std::string, std::map<std::string, double>> scale_rate_bias;
    // Scaling from one GPU. A multi-GPU training row whose file also holds the same run on one
    // GPU (its twin: every column equal but the id, role, category, GPU count, global batch,
    // data-parallel degree, value, trust, source and notes) is scored three ways: its own
    // |error|, its twin's, and the |error| of the speed-up from one GPU the model predicts,
    // (predicted_n / predicted_1) / (measured_n / measured_1) - 1, which is what a "8 or 16
    // GPUs?" comparison rests on. Scored check rows with a predicted, scored twin only.
    struct TwinScaling {
        ErrorStats rows, twins, scaling;
    };
    TwinScaling twin_scaling;
    int check_rows = 0;               // scored check rows
    int check_predicted = 0;          // of which predicted
    int check_misfits = 0;            // of which the memory model says would not fit
};


ErrorStats error_stats(std::vector<double> abs_errors);

// The GPU-count groups of ValidationReport::by_scale, in order: one GPU, one 8-GPU server,
// up to 64 GPUs, more.
inline constexpr std::array<std::string_view, 4> scale_groups{"1 GPU", "2-8 GPUs", "9-64 GPUs", "65+ GPUs"};
std::string_view scale_group(int gpus);

// Throws InputError naming the file and line on unreadable input.
// `what_if` keys (dotted scenario keys) are applied to every training row: ablations.
ValidationReport validate_file(const std::string& path, const Overrides& what_if = {});

// The README's validation tables: check rows predicted, then errors by category, by GPU
// family, by GPU count and against one-GPU twins (trust high and medium).
std::string validation_markdown(const ValidationReport& report);

// The README's ablation table: the check rows' error (trust high and medium, training rows)
// with each mechanism switched off in turn, the calibration unchanged.
std::string ablation_markdown(const std::string& path);

// A table per row and per category (console), and `{"schema": 1, "rows": [...], "summary": {...}}`.
std::string validation_text(const ValidationReport& report);
std::string validation_json(const ValidationReport& report);

// The scenario file a training row of `path` becomes (the row with id `id`), as JSON a user
// can run with `rentsim run`. Throws InputError when no row has that id or the row is not a
// training row, naming why it is skipped when it is.
std::string row_scenario_json(const std::string& path, const std::string& id);

}  // namespace rentsim::analysis
