#include <doctest/doctest.h>

#include "tests/readme_section.hpp"

#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/report/fields.hpp"
#include "analysis/report/report.hpp"
#include "analysis/scenario/json_reader.hpp"

using namespace rentsim;
using analysis::Field;
using analysis::FieldValue;
using analysis::Kind;
using analysis::Outputs;
using analysis::Presence;

namespace {

// A result with every field set to something other than its default.
analysis::Result full_result() {
    analysis::Result r;
    r.name = "t";
    r.point = "cluster.gpus=16";
    r.model = "gpt3-1.3b";
    r.gpu = "a100-sxm4-80gb";
    r.precision = "bf16";
    r.gpus = 16;
    r.tp = 2;
    r.pp = 2;
    r.dp = 4;
    r.global_batch = 64;
    r.micro_batch = 2;
    r.micro_steps = 8;
    r.samples = 6400;
    r.iterations = 100;
    r.time_to_train_s = 1000;
    r.billed_s = 1001;
    r.cost_usd = 50;
    r.throughput_samples_per_s = 6.4;
    r.throughput_tokens_per_s = 13107.2;
    r.iteration_s = 10;
    r.breakdown = {6, 2, 1, 1};
    r.tflops_per_gpu = 100;
    r.mfu = 0.32;
    r.hardware_tflops_per_gpu = 130;
    r.memory_per_gpu_gib = 30;
    r.memory_available_gib = 80;
    r.allreduce_busbw_gbps = 90;
    r.staging_s = 60;
    r.storage_pipeline = true;
    r.input = {analysis::InputBound::storage, 0.1, 100, 4, 10, 8, 7, 9, 11};
    r.epochs = {{500, 60, 0.12}, {440, 40, 0.09}};
    auto& l = r.lifecycle;
    l.plan = "spot";
    l.provider = "aws";
    l.instance = "p4de.24xlarge";
    l.region = "us-east-1";
    l.price_source = "catalog";
    l.usd_per_gpu_hour = 1.5;
    l.gpus_per_instance = 8;
    l.instances = 2;
    l.billed_gpus = 16;
    l.instance_hours = 0.6;
    l.billed_instance_hours = 0.7;
    l.compute_usd = 48;
    l.storage_usd = 1;
    l.egress_usd = 1;
    l.checkpoint_gb = 20;
    l.checkpoint_write_s = 10;
    l.checkpoint_interval_s = 300;
    l.restart_s = 120;
    l.preemptions = 1.5;
    l.failures = 0.5;
    l.checkpoints = 3;
    l.resizes = 1;
    l.restarts = 2;
    l.lost_work_s = 200;
    l.budget_alert_s = 900;
    l.finished_fraction = 0.9;
    l.gave_up_fraction = 0.05;
    l.deadline_h = 1;
    l.deadline_met_fraction = 0.8;
    r.replications = 3;
    r.seed = 7;
    r.time_stats = {1000, 900, 1000, 1100};
    r.cost_stats = {50, 45, 50, 55};
    r.simulated_iterations = 40;
    r.events = 1234;
    r.fingerprint = 0xabcdef;
    return r;
}

// The dotted names of a JSON object's leaves, in order; arrays count as leaves.
void leaves(const analysis::Json& j, const std::string& prefix, std::vector<std::string>& out) {
    for (const auto& [k, v] : j.items()) {
        if (v.is_object()) leaves(v, prefix + k + ".", out);
        else out.push_back(prefix + k);
    }
}

// Whether a CSV cell of this value has text: not absent, not null, not an empty string.
bool has_text(const std::optional<FieldValue>& v) {
    if (!v || std::holds_alternative<std::nullptr_t>(*v)) return false;
    const auto* s = std::get_if<std::string>(&*v);
    return !s || !s->empty();
}

std::vector<std::string> split_line(const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream in(line);
    for (std::string c; std::getline(in, c, ',');) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    return cells;
}

}  // namespace

TEST_CASE("README's field list is the field table") {
    test::check_readme_section("fields", analysis::results_fields_markdown(),
                               "build/ci/tests/analysis/report/report_tests --test-case=\"README*\"");
}

TEST_CASE("field names are unique, nest without clashes and read as one Markdown line") {
    std::set<std::string> names, columns;
    for (const Field& f : analysis::result_fields()) {
        CAPTURE(f.name);
        CHECK(names.insert(std::string(f.name)).second);
        if (carries(f.outputs, Outputs::csv)) CHECK(columns.insert(std::string(analysis::csv_column(f))).second);
        else CHECK(f.csv_name.empty());
        CHECK((carries(f.outputs, Outputs::json) || carries(f.outputs, Outputs::csv)));
        CHECK(!f.description.empty());
        CHECK(f.description.find_first_of("|\n") == std::string_view::npos);
        CHECK((f.get == nullptr) == (f.kind == Kind::epochs));
        if (f.kind == Kind::epochs) CHECK(!carries(f.outputs, Outputs::csv));
        CHECK(&analysis::field(f.name) == &f);
    }
    // No name is also the object of another: "input" and "input.bound_by" cannot both be fields.
    for (const auto& n : names) CHECK_MESSAGE(names.lower_bound(n + ".") == names.lower_bound(n + "/"), n);
    CHECK_THROWS_AS((void)analysis::field("no_such_field"), std::out_of_range);
}

TEST_CASE("every accessor gives a value of its field's kind") {
    const auto matches = [](Kind k, const FieldValue& v) {
        const bool null = std::holds_alternative<std::nullptr_t>(v);
        const bool integer = std::holds_alternative<std::int64_t>(v) || std::holds_alternative<std::uint64_t>(v);
        switch (k) {
            case Kind::number: return std::holds_alternative<double>(v);
            case Kind::integer: return integer;
            case Kind::boolean: return std::holds_alternative<bool>(v);
            case Kind::string: return std::holds_alternative<std::string>(v);
            case Kind::nullable_number: return null || std::holds_alternative<double>(v);
            case Kind::nullable_integer: return null || integer;
            case Kind::nullable_string: return null || std::holds_alternative<std::string>(v);
            case Kind::counts: return null || std::holds_alternative<analysis::Counts>(v);
            case Kind::epochs: return false;
        }
        return false;
    };
    const analysis::Result full = full_result(), plain{};
    for (const Field& f : analysis::result_fields()) {
        if (!f.get) continue;
        CAPTURE(f.name);
        // Only fields that may be absent give null outside their nullable kinds.
        const bool optional = f.presence == Presence::if_set || f.presence == Presence::fits_if_set;
        for (const FieldValue& v : {f.get(full), f.get(plain)})
            if (!optional || !std::holds_alternative<std::nullptr_t>(v)) CHECK(matches(f.kind, v));
    }
    for (const auto& e : analysis::epoch_fields()) {
        CAPTURE(e.name);
        CHECK(matches(e.kind, e.get(full.epochs[0], 1)));
    }
}

TEST_CASE("JSON holds the table's fields, nested by their dotted names, simulation figures last") {
    const auto j = analysis::parse_json_text(analysis::results_to_json({full_result()}), "results.json");
    CHECK(j.at("schema").get<int>() == 1);
    std::vector<std::string> got, want, last;
    leaves(j.at("results").at(0), "", got);
    const auto full = full_result();
    for (const Field& f : analysis::result_fields())
        if (carries(f.outputs, Outputs::json) && analysis::reported_value(f, full))
            (carries(f.outputs, Outputs::json_last) ? last : want).emplace_back(f.name);
    want.insert(want.end(), last.begin(), last.end());
    CHECK(got == want);
    const auto& r = j.at("results").at(0);
    CHECK(r.at("breakdown").at("compute_s").get<double>() == 6.0);
    CHECK(r.at("input").at("capacity_samples_per_s").at("h2d").get<double>() == 11.0);
    CHECK(r.at("replications").at("cost_usd").at("p95").get<double>() == 55.0);
    CHECK(r.at("fingerprint").get<std::string>() == "0000000000abcdef");
    REQUIRE(r.at("epochs").size() == 2);
    CHECK(r.at("epochs").at(1).dump() == R"({"epoch":2,"time_s":440.0,"input_stall_s":40.0,"stall_fraction":0.09})");
}

TEST_CASE("a run that does not fit has null times and costs, and no lifecycle or replications") {
    analysis::Result r;
    r.name = "big";
    r.model = "gpt3-13b";
    r.gpu = "a100-sxm4-40gb";
    r.precision = "bf16";
    r.gpus = 1;
    r.global_batch = 1;
    r.micro_batch = 1;
    r.micro_steps = 1;
    r.samples = 1000;
    r.iterations = 1000;
    r.fits = false;
    r.status = "does not fit";
    r.memory_per_gpu_gib = 238.5;
    r.memory_available_gib = 40;
    r.replications = 2;
    r.lifecycle.provider = "aws";
    r.events = 3;
    r.fingerprint = 1;
    CHECK(analysis::results_to_json({r}) == R"({
  "schema": 1,
  "results": [
    {
      "name": "big",
      "model": "gpt3-13b",
      "gpu": "a100-sxm4-40gb",
      "gpus": 1,
      "tp": 1,
      "pp": 1,
      "dp": 1,
      "cp": 1,
      "precision": "bf16",
      "framework": "",
      "attention": "",
      "network_model": "",
      "global_batch": 1,
      "micro_batch": 1,
      "micro_steps": 1,
      "samples": 1000.0,
      "iterations": 1000,
      "layout": {
        "searched": false,
        "chosen": null,
        "runner_up": null,
        "candidates": null,
        "refused": null
      },
      "fits": false,
      "status": "does not fit",
      "memory_per_gpu_gib": 238.5,
      "memory": {
        "params_gib": 0.0,
        "gradients_gib": 0.0,
        "optimizer_gib": 0.0,
        "activations_gib": 0.0,
        "workspace_gib": 0.0
      },
      "memory_available_gib": 40.0,
      "accuracy": {
        "family_calibrated": false,
        "check_rows": 0,
        "median_error": null,
        "p90_error": null
      },
      "time_to_train_s": null,
      "cost_usd": null,
      "cost_per_sample_usd": null,
      "billed_s": null,
      "throughput_samples_per_s": null,
      "throughput_tokens_per_s": null,
      "iteration_s": null,
      "breakdown": null,
      "tflops_per_gpu": null,
      "mfu": null,
      "hardware_tflops_per_gpu": null,
      "allreduce_busbw_gbps": null,
      "staging_s": null,
      "evaluations": null,
      "evaluation_s": null,
      "input": null,
      "epochs": null,
      "simulated_iterations": 0,
      "events": 3,
      "fingerprint": "0000000000000001"
    }
  ]
}
)");
    // CSV: the same figures, empty cells for everything null or absent.
    const std::string csv = analysis::results_to_csv({r});
    const auto nl = csv.find('\n');
    const auto header = split_line(csv.substr(0, nl)), row = split_line(csv.substr(nl + 1, csv.size() - nl - 2));
    REQUIRE(header.size() == row.size());
    std::size_t i = 0;
    for (const Field& f : analysis::result_fields()) {
        if (!carries(f.outputs, Outputs::csv)) continue;
        CAPTURE(f.name);
        CHECK(header.at(i) == analysis::csv_column(f));
        CHECK(row.at(i).empty() != has_text(analysis::reported_value(f, r)));
        if (f.presence != Presence::always && f.presence != Presence::if_set) CHECK(row.at(i).empty());
        ++i;
    }
}

TEST_CASE("CSV has one column per CSV field of the table, in table order") {
    const std::string csv = analysis::results_to_csv({full_result(), analysis::Result{}});
    std::vector<std::string> want;
    std::vector<bool> filled;  // the full result's cells that hold a value
    for (const Field& f : analysis::result_fields())
        if (carries(f.outputs, Outputs::csv)) {
            want.emplace_back(analysis::csv_column(f));
            filled.push_back(has_text(analysis::reported_value(f, full_result())));
        }
    std::stringstream in(csv);
    std::string line;
    std::getline(in, line);
    CHECK(split_line(line) == want);
    std::getline(in, line);
    const auto full = split_line(line);
    REQUIRE(full.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) CHECK_MESSAGE(full[i].empty() != filled[i], want[i]);
    CHECK(full[0] == "t");
    CHECK(full[1] == "cluster.gpus=16");
    std::getline(in, line);
    CHECK(split_line(line).size() == want.size());
}

TEST_CASE("the comparison table shows the columns its points have") {
    auto a = full_result(), b = full_result();
    b.point = "cluster.gpus=32";
    b.fits = false;
    const std::string text = analysis::format_results_text({a, b});
    const auto header = text.substr(text.find('\n') + 1, text.find('\n', text.find('\n') + 1) - text.find('\n') - 1);
    for (const char* c : {"point", "gpus", "time to train", "cost", "samples/s", "step ms", "compute", "exp. comm",
                          "input stall", "bubble", "MFU", "mem GiB", "staging", "bound by", "stall e1", "stall last",
                          "workers needed", "interrupts", "lost work", "deadline met", "time p5-p95", "cost p5-p95"})
        CHECK_MESSAGE(header.find(c) != std::string::npos, c);
    CHECK(text.find("does not fit") != std::string::npos);
    CHECK(text.find("30.0/80") != std::string::npos);
    CHECK(text.find("15.0 min - 18.3 min") != std::string::npos);

    auto plain = analysis::Result{};
    plain.name = "p";
    plain.point = "x=1";
    plain.lifecycle.plan = "on-demand";
    const std::string small = analysis::format_results_text({plain, plain});
    for (const char* c : {"bubble", "staging", "interrupts", "deadline met", "time p5-p95"})
        CHECK_MESSAGE(small.find(c) == std::string::npos, c);
}
