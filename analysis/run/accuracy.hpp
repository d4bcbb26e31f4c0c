// How far to trust a prediction: the validation errors of its GPU family and workload kind.
// `rentsim validate models/compute/measurements/measured.csv` predicts every measured row;
// the check rows of trust high and medium (the rows no calibration was fitted to) give, per
// (GpuSpec::family, workload kind), a count and the median and 90th percentile of
// |predicted / measured - 1|. That table ships as models/compute/accuracy.csv, compiled into
// the program and regenerated from the validation by tests/analysis/run/accuracy_test.cpp.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim::analysis {

// What a result says about its own accuracy (Result::accuracy).
struct Accuracy {
    bool family_calibrated = false;  // the GPU's shipped calibration was fitted from rows of its own family
    int check_rows = 0;              // validated check rows of the GPU's family and the workload's kind
    double median_error = 0, p90_error = 0;  // fractions, over those rows; meaningless when check_rows is 0
};

// One line of the table. A pair without check rows has check_rows 0, errors 0 and a note.
struct AccuracyRow {
    std::string family, kind;
    int check_rows = 0;
    double median_error = 0, p90_error = 0;
};

// The workload kinds of the table: ResNet-50, BERT, Transformer-XL, GPT-family LLMs.
inline constexpr std::array<std::string_view, 4> workload_kinds{"cnn", "bert", "transformer-xl", "llm"};
// The note of a pair without check rows.
inline constexpr std::string_view outside_validation = "outside every validated region";

// The kind of a model name (a scenario's `model`, a measurement row's `model`): "cnn"
// (resnet50), "bert" (bert-base, bert-large), "transformer-xl" (its presets), "llm" (gpt and
// the GPT presets); empty for any other name.
std::string_view workload_kind(std::string_view model);

// Whether the shipped calibration of a catalog GPU was fitted from rows of the GPU's own
// family: its `fitted_from` is not empty (a calibration ships) and does not say "borrowed".
bool family_calibrated(std::string_view gpu);

// The shipped table (models/compute/accuracy.csv), one row per family and kind, in file order.
const std::vector<AccuracyRow>& accuracy_table();
// The table's CSV text: a provenance comment, a header and one line per row, errors to four
// decimals; and back (std::invalid_argument naming the line on a malformed table).
std::string accuracy_csv(const std::vector<AccuracyRow>& rows);
std::vector<AccuracyRow> parse_accuracy_csv(std::string_view text);

// The accuracy of a run of `model` on the catalog GPU `gpu`, from the shipped table.
Accuracy accuracy_of(std::string_view gpu, std::string_view model);

}  // namespace rentsim::analysis
