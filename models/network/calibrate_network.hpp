// Calibration of the network model against published NCCL measurements, and the validation
// table. Inputs are CSV texts (no file access here): the measurements in the layout of
// data/measured.csv (only nccl_busbw and p2p_bw rows with role calibrate are used), and
// data/nccl_rows.csv, which says for each row which collective, size,
// group and topology it describes (those live only in the measurement's notes).
#pragma once

#include "models/network/network.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rentsim::net {

struct MeasuredRow {
    std::string id, role, category, gpu, metric, unit, trust, source, notes;
    int gpus = 0;
    int gpus_per_node = 0;
    double value = 0.0;
};

// How a measurement maps onto the model; `modelled` false when it cannot be (reason in `note`).
struct RowInterpretation {
    std::string id;
    bool modelled = false;
    Collective op = Collective::all_reduce;
    double bytes = 0.0;
    int gpus = 0;
    std::vector<int> ranks;    // empty: the first `gpus` GPUs
    TopologySpec topology;
    Algorithm algorithm = Algorithm::automatic;
    bool size_stated = true;   // false: the size is an assumption
    std::string note;
};

struct CalibrationData {
    std::vector<MeasuredRow> rows;
    std::vector<RowInterpretation> interpretations;
};

// Parses both CSV texts; throws std::invalid_argument naming the row and column on bad input.
CalibrationData parse_calibration_data(std::string_view measured_csv, std::string_view interpretation_csv);

struct FittedParameter {
    std::string name;
    double value = 0.0;
    double prior = 0.0;
    bool fitted = false;             // false: the data does not move it; the prior stays
    bool bound = false;              // moved until no row depends on it: a bound, not a value
    std::vector<std::string> rows;   // rows whose prediction depends on it
    std::string note;
};

struct CalibrationResult {
    NetworkParams params;
    std::vector<FittedParameter> parameters;
    double rms_log_error = 0.0;
    int iterations = 0;   // Levenberg-Marquardt steps, summed over the starts
};

// Least squares on log(predicted / measured) over every modelled calibrate row, by
// Levenberg-Marquardt (models/fit) on the log of each parameter, starting from prior_network_params().
CalibrationResult calibrate_network(const CalibrationData& data);

struct ValidationRow {
    std::string id;
    bool modelled = false;
    std::string op, algorithm;
    double bytes = 0.0;
    int gpus = 0;
    double measured = 0.0;
    double predicted = 0.0;
    double error_pct = 0.0;          // (predicted - measured) / measured x 100
    bool size_stated = true;
    std::string note;                // assumption, or the reason a row is not modelled
};

std::vector<ValidationRow> validate_network(const CalibrationData& data, const NetworkParams& params);

// Markdown report of a validation (the content of models/network/VALIDATION.md).
std::string validation_markdown(const std::vector<ValidationRow>& rows, const CalibrationResult& fit);
// CSV of the fitted parameters (the content of models/network/data/fitted.csv).
std::string fitted_csv(const CalibrationResult& fit, std::string_view date);

}  // namespace rentsim::net
