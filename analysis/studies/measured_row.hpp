// A measured training row (the layout of data/measured.csv) as the scenario a user would
// write for it: the model from its shape columns, the system from its GPU columns, the
// layout from its parallelism columns and the framework profile from its `framework`
// column. Nothing depends on the row's category; a row that cannot be described is refused
// with a stated physical reason (a GPU outside the catalog, an incomplete shape).
#pragma once

#include <string>

#include "analysis/scenario/csv.hpp"
#include "analysis/run/run.hpp"
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

// The scenario of a training row; throws RowSkip. `what_if` keys (dotted) are applied last,
// for ablations.
ScenarioDraft training_draft(const CsvRow& row, const Overrides& what_if = {});

// A training row's metric (its `metric` column) read from a run of its scenario; throws
// RowSkip for a metric the result does not hold.
// `replicas` (independent_replicas) multiplies the rates; times and per-GPU figures are one
// copy's.
double training_metric(const std::string& metric, const Scenario& s, const Result& r, int replicas = 1);

}  // namespace rentsim::analysis
