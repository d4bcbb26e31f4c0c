// Writers of results: a console table for people, CSV and JSON (`"schema": 1`) for programs.
// JSON and CSV carry the fields of result_fields() (fields.hpp) under their names, in their
// order; the names are the public contract (README.md, "Results").
#pragma once

#include <string>
#include <vector>

#include "analysis/run/run.hpp"

namespace rentsim::analysis {

// One scenario: a labelled block. Several: one comparison table, one row per point.
std::string format_results_text(const std::vector<Result>& results);
std::string results_to_json(const std::vector<Result>& results);
std::string results_to_csv(const std::vector<Result>& results);
// The comparison table as GitHub-flavoured Markdown, for a pull-request comment: the same
// columns and cells as the console table, and the notes of points without figures.
std::string results_to_markdown(const std::vector<Result>& results);
// "2.50 h", "41.3 min", "12.0 s"
std::string human_duration(double seconds);

}  // namespace rentsim::analysis
