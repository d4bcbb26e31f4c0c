// Reading back a result file written by `rentsim run/sweep --out` (`"schema": 1`), for the
// plots and the HTML report. Only the fields those use are read, each checked for its kind and
// range; other fields are left alone, so that a newer writer's additions do not break them.
// Errors are InputError with the file and the JSON pointer of the offending value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rentsim::analysis {

// One point of a result file. Figures of a run that does not fit are null in the file and
// nullopt here; memory figures are always present.
struct ResultPoint {
    std::string name, point, model, gpu, precision, status, note, plan;
    // The point label split into (dotted key, value as written): `pricing.plan="spot"`
    // gives ("pricing.plan", "\"spot\""). Empty without a sweep.
    std::vector<std::pair<std::string, std::string>> swept;
    std::int64_t gpus = 0;
    bool fits = false;
    std::optional<double> time_to_train_s, cost_usd, throughput_samples_per_s, iteration_s;  // s, USD, samples/s, s
    std::optional<double> compute_s, exposed_comm_s, input_stall_s, pipeline_bubble_s;       // per step, s
    std::optional<double> deadline_h;             // the scenario's deadline, hours; nullopt: none
    std::optional<double> deadline_met_fraction;  // replications that met it
    double memory_per_gpu_gib = 0, memory_available_gib = 0;
    double params_gib = 0, gradients_gib = 0, optimizer_gib = 0, activations_gib = 0, workspace_gib = 0;
};

struct ResultFile {
    std::string file;
    std::vector<ResultPoint> points;  // in file order, at least one
};

// The most points a result file may hold (a sweep holds at most 100,000; see scenario.cpp).
inline constexpr std::size_t max_result_points = 100000;

ResultFile read_result_file(const std::string& path);
// The same from text; `file` names it in errors.
ResultFile parse_result_text(const std::string& text, const std::string& file);

// Splits a sweep point label ("cluster.gpu=\"h100\" cluster.gpus=8") into its keys and
// values as written (JSON text: strings keep their quotes). Throws std::invalid_argument
// when the label is not a space-separated list of key=JSON.
std::vector<std::pair<std::string, std::string>> split_point_label(std::string_view label);

}  // namespace rentsim::analysis
