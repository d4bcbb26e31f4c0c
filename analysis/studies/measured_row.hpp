// A measured training row (the layout of data/measured.csv) as the scenario a user would
// write for it: the model from its shape columns, the system from its GPU columns, the
// layout from its parallelism columns and the framework profile from its `framework`
// column. Nothing depends on the row's category; a row that cannot be described is refused
// with a stated physical reason (a GPU outside the catalog, an incomplete shape).
#pragma once

#include <string>

#include "analysis/scenario/csv.hpp"
#include "analysis/run/run.hpp"
#include "analysis/scenario/measurements.hpp"
#include "analysis/scenario/scenario.hpp"

namespace rentsim::analysis {

// Why a row is not predicted.
struct RowSkip {
    std::string reason;
};

// Whether the row describes a training run (a model and a training metric).
bool is_training_row(const CsvRow& row);

// The framework profile a published stack ran as, from the row's `framework` and `source`
// text (e.g. "Megatron-LM ... mcore" -> megatron-core, "llm-foundry" -> pytorch-fsdp).
std::string framework_of_row(const CsvRow& row);

// How many copies of its scenario a row's measurement ran side by side, each on its own GPUs
// and never exchanging gradients, its rate being their rates summed; 1 for a run that trains
// one model. The row's scenario is one copy (its GPUs and global batch divided by this).
int independent_replicas(const CsvRow& row);

// How the row's benchmark took its figure: independent_replicas, and for DeepLearningExamples'
// run_squad.py under Lambda's benchmark (max_steps 100, 2 epochs) the steps it ran and counted
// and the warm-up its timed loop holds (squad_warmup_s).
Harness harness_of_row(const CsvRow& row);

// One-time cost, in seconds, of the first steps of run_squad.py on `gpus` GPUs of one node:
// base + per_doubling x log2(gpus), fitted by fit_squad_warmup.
struct WarmupFit {
    double base_s = 0;
    double per_doubling_s = 0;
};
double squad_warmup_s(int gpus);
// Fits WarmupFit to the runs of a lambda-squad-warmup.csv file (columns gpus, warmup_s,
// in_measured_csv) that no row of measured.csv comes from: base is the median warm-up of the
// one-GPU runs, per_doubling the median over the other runs of (warm-up - base) / log2(gpus).
// Throws InputError naming the file and line of a malformed row.
WarmupFit fit_squad_warmup(const std::string& file);

// The scenario of a training row; throws RowSkip. `what_if` keys (dotted) are applied last,
// for ablations.
ScenarioDraft training_draft(const CsvRow& row, const Overrides& what_if = {});

// A training row's metric (its `metric` column) read from a run of its scenario; throws
// RowSkip for a metric the result does not hold.
// `harness.replicas` multiplies the rates; times and per-GPU figures are one copy's. A harness
// with counted steps scales the rates by counted x step / (run x step + warm-up).
double training_metric(const std::string& metric, const Scenario& s, const Result& r, const Harness& harness = {});

}  // namespace rentsim::analysis
