#include "analysis/scenario/expect.hpp"

#include <cmath>

namespace rentsim::analysis {

const Registry<std::string_view>& expectation_field_registry() {
    // Name, unit (as fields.cpp states it), and no description: the README's field list has them.
    static const Registry<std::string_view> r{
        "result field",
        {
        {"gpus", "", ""},
        {"tp", "", ""},
        {"pp", "", ""},
        {"dp", "", ""},
        {"cp", "", ""},
        {"global_batch", "samples", ""},
        {"micro_batch", "samples", ""},
        {"micro_steps", "", ""},
        {"samples", "samples", ""},
        {"iterations", "", ""},
        {"layout.candidates", "", ""},
        {"memory_per_gpu_gib", "GiB", ""},
        {"memory.params_gib", "GiB", ""},
        {"memory.gradients_gib", "GiB", ""},
        {"memory.optimizer_gib", "GiB", ""},
        {"memory.activations_gib", "GiB", ""},
        {"memory.workspace_gib", "GiB", ""},
        {"memory_available_gib", "GiB", ""},
        {"accuracy.check_rows", "", ""},
        {"accuracy.median_error", "fraction", ""},
        {"accuracy.p90_error", "fraction", ""},
        {"time_to_train_s", "s", ""},
        {"cost_usd", "USD", ""},
        {"cost_per_sample_usd", "USD", ""},
        {"billed_s", "s", ""},
        {"throughput_samples_per_s", "samples/s", ""},
        {"throughput_tokens_per_s", "tokens/s", ""},
        {"iteration_s", "s", ""},
        {"breakdown.compute_s", "s", ""},
        {"breakdown.exposed_comm_s", "s", ""},
        {"breakdown.input_stall_s", "s", ""},
        {"breakdown.pipeline_bubble_s", "s", ""},
        {"rl.ppo_epochs", "", ""},
        {"rl.rollout_s", "s", ""},
        {"rl.generation_s", "s", ""},
        {"rl.scoring_s", "s", ""},
        {"rl.kv_cache_gib", "GiB", ""},
        {"tflops_per_gpu", "TFLOP/s", ""},
        {"mfu", "fraction", ""},
        {"hardware_tflops_per_gpu", "TFLOP/s", ""},
        {"allreduce_busbw_gbps", "GB/s", ""},
        {"simulated_iterations", "", ""},
        {"events", "", ""},
        {"staging_s", "s", ""},
        {"evaluations", "", ""},
        {"evaluation_s", "s", ""},
        {"input.stall_fraction", "fraction", ""},
        {"input.input_bound_s", "s", ""},
        {"input.workers_to_compute_bound", "", ""},
        {"input.capacity_samples_per_s.compute", "samples/s", ""},
        {"input.capacity_samples_per_s.cpu_workers", "samples/s", ""},
        {"input.capacity_samples_per_s.storage", "samples/s", ""},
        {"input.capacity_samples_per_s.ingress", "samples/s", ""},
        {"input.capacity_samples_per_s.h2d", "samples/s", ""},
        {"lifecycle.usd_per_gpu_hour", "USD/GPU-h", ""},
        {"lifecycle.gpus_per_instance", "", ""},
        {"lifecycle.instances", "", ""},
        {"lifecycle.billed_gpus", "", ""},
        {"lifecycle.instance_hours", "h", ""},
        {"lifecycle.billed_instance_hours", "h", ""},
        {"lifecycle.compute_usd", "USD", ""},
        {"lifecycle.storage_usd", "USD", ""},
        {"lifecycle.egress_usd", "USD", ""},
        {"lifecycle.checkpoint_gb", "GB", ""},
        {"lifecycle.checkpoint_write_s", "s", ""},
        {"lifecycle.checkpoint_interval_s", "s", ""},
        {"lifecycle.restart_s", "s", ""},
        {"lifecycle.preemptions", "", ""},
        {"lifecycle.failures", "", ""},
        {"lifecycle.checkpoints", "", ""},
        {"lifecycle.resizes", "", ""},
        {"lifecycle.restarts", "", ""},
        {"lifecycle.lost_work_s", "s", ""},
        {"lifecycle.budget_alert_s", "s", ""},
        {"lifecycle.finished_fraction", "fraction", ""},
        {"lifecycle.gave_up_fraction", "fraction", ""},
        {"lifecycle.deadline_h", "h", ""},
        {"lifecycle.window_h", "h", ""},
        {"lifecycle.deadline_met_fraction", "fraction", ""},
        {"lifecycle.trained_fraction", "fraction", ""},
        {"replications.n", "", ""},
        {"replications.seed", "", ""},
        {"replications.time_to_train_s.mean", "s", ""},
        {"replications.time_to_train_s.p5", "s", ""},
        {"replications.time_to_train_s.p50", "s", ""},
        {"replications.time_to_train_s.p95", "s", ""},
        {"replications.cost_usd.mean", "USD", ""},
        {"replications.cost_usd.p5", "USD", ""},
        {"replications.cost_usd.p50", "USD", ""},
        {"replications.cost_usd.p95", "USD", ""},
        }};
    return r;
}

namespace {

// A bound's number. Any finite value (JSON has no other): the fields' own ranges differ and
// an expectation outside them is merely one that always fails, or never does.
double bound_number(const Value& v) {
    if (!v.json().is_number()) v.fail("expected a number, got " + v.json().dump());
    const double x = v.json().get<double>();
    if (!std::isfinite(x)) v.fail("expected a finite number");
    return x;
}

Bound parse_bound(const std::string& field, const Value& v) {
    if (!v.is_object()) v.fail("expected {\"min\": number, \"max\": number} (either or both), got " + v.json().dump());
    Bound b;
    std::string min_text, max_text;  // as written, for messages
    b.field = field;
    b.pointer = v.pointer();
    for (const auto& [key, x] : v.json().items()) {
        const Value at(x, v.pointer() + "/" + json_pointer_escape(key), v.source());
        if (key == "min") {
            b.min = bound_number(at);
            min_text = x.dump();
        } else if (key == "max") {
            b.max = bound_number(at);
            max_text = x.dump();
        }
        else at.fail(unknown_name_message("bound", key, std::vector<std::string_view>{"min", "max"}));
    }
    if (!b.min && !b.max) v.fail("expected \"min\" or \"max\" (or both)");
    if (b.min && b.max && *b.min > *b.max)
        v.fail("expected min <= max, got min " + min_text + " and max " + max_text);
    return b;
}

// The members of an expectation object other than `skip`: each a field and its bounds.
std::vector<Bound> parse_bounds(const Value& v, std::string_view skip) {
    std::vector<Bound> bounds;
    const auto& fields = expectation_field_registry();
    for (const auto& [key, x] : v.json().items()) {
        if (key == skip) continue;
        const Value at(x, v.pointer() + "/" + json_pointer_escape(key), v.source());
        if (!fields.find(key)) {
            // The pointer names the key itself: the message is about its name.
            std::vector<std::string_view> valid(fields.names().begin(), fields.names().end());
            if (!skip.empty()) valid.insert(valid.begin(), skip);
            at.fail(unknown_name_message(fields.what(), key, valid));
        }
        bounds.push_back(parse_bound(key, at));
    }
    return bounds;
}

}  // namespace

Expectations parse_expectations(const Value& v) {
    if (!v.is_object()) v.fail("expected an object of \"result_field\": {\"min\", \"max\"}, got " + v.json().dump());
    Expectations e;
    e.each = parse_bounds(v, "best");
    if (v.json().contains("best")) {
        const Value best(v.json().at("best"), v.pointer() + "/best", v.source());
        if (!best.is_object()) best.fail("expected an object of \"result_field\": {\"min\", \"max\"} and \"by\", got " + best.json().dump());
        if (best.json().contains("by"))
            e.best_by = Value(best.json().at("by"), best.pointer() + "/by", v.source())
                            .as_name(expectation_field_registry().what(), expectation_field_registry().names());
        e.best = parse_bounds(best, "by");
        if (e.best.empty()) best.fail("expected at least one bound on a result field");
    }
    if (e.empty()) v.fail("expected at least one bound on a result field");
    return e;
}

}  // namespace rentsim::analysis
