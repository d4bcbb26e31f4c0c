#include "analysis/scenario/result_file.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "analysis/scenario/json_reader.hpp"

namespace rentsim::analysis {

namespace {

// The member `key` of an object value; nullopt where it is absent.
std::optional<Value> member(const Value& object, std::string_view key) {
    const Json& j = object.json();
    if (!j.is_object()) object.fail("expected an object, got " + (j.is_array() ? std::string("an array") : j.dump()));
    const auto it = j.find(std::string(key));
    if (it == j.end()) return std::nullopt;
    return Value(*it, object.pointer() + "/" + json_pointer_escape(key), object.source());
}

Value required(const Value& object, std::string_view key) {
    auto v = member(object, key);
    if (!v) object.fail("missing key '" + std::string(key) + "' (is this a file written by rentsim run --out?)");
    return *v;
}

// The largest figure read (seconds, USD, GiB, samples/s): far above any real run, low enough
// that sums and pixel arithmetic on it stay finite.
constexpr double kMaxFigure = 1e15;
constexpr std::int64_t kMaxGpus = 100000000;

double figure(const Value& v) {
    const double x = v.as_nonnegative_number();
    if (x > kMaxFigure) v.fail("expected a number from 0 to 1e15, got " + v.json().dump());
    return x;
}

// A figure or null.
std::optional<double> nullable(const Value& object, std::string_view key) {
    const Value v = required(object, key);
    if (v.json().is_null()) return std::nullopt;
    return figure(v);
}

// `group.key` where `group` is an object, or null as a whole (a run that does not fit).
std::optional<double> nested(const Value& result, std::string_view group, std::string_view key) {
    const Value g = required(result, group);
    if (g.json().is_null()) return std::nullopt;
    return nullable(g, key);
}

ResultPoint read_point(const Value& v) {
    ResultPoint p;
    p.name = required(v, "name").as_string();
    if (const auto point = member(v, "point")) {
        p.point = point->as_string();
        try {
            p.swept = split_point_label(p.point);
        } catch (const std::invalid_argument& e) {
            point->fail(e.what());
        }
    }
    p.model = required(v, "model").as_string();
    p.gpu = required(v, "gpu").as_string();
    p.precision = required(v, "precision").as_string();
    const Value gpus = required(v, "gpus");
    p.gpus = gpus.as_nonnegative_int();  // 0 in the row of an invalid point
    if (p.gpus > kMaxGpus) gpus.fail("expected at most " + std::to_string(kMaxGpus) + " GPUs, got " + gpus.json().dump());
    p.fits = required(v, "fits").as_bool();
    p.status = required(v, "status").as_string();
    if (const auto note = member(v, "note")) p.note = note->as_string();
    p.memory_per_gpu_gib = figure(required(v, "memory_per_gpu_gib"));
    p.memory_available_gib = figure(required(v, "memory_available_gib"));
    const Value memory = required(v, "memory");
    p.params_gib = figure(required(memory, "params_gib"));
    p.gradients_gib = figure(required(memory, "gradients_gib"));
    p.optimizer_gib = figure(required(memory, "optimizer_gib"));
    p.activations_gib = figure(required(memory, "activations_gib"));
    p.workspace_gib = figure(required(memory, "workspace_gib"));
    p.time_to_train_s = nullable(v, "time_to_train_s");
    p.cost_usd = nullable(v, "cost_usd");
    p.throughput_samples_per_s = nullable(v, "throughput_samples_per_s");
    p.iteration_s = nullable(v, "iteration_s");
    p.compute_s = nested(v, "breakdown", "compute_s");
    p.exposed_comm_s = nested(v, "breakdown", "exposed_comm_s");
    p.input_stall_s = nested(v, "breakdown", "input_stall_s");
    p.pipeline_bubble_s = nested(v, "breakdown", "pipeline_bubble_s");
    if (const Value lifecycle = required(v, "lifecycle"); !lifecycle.json().is_null()) {
        p.plan = required(lifecycle, "plan").as_string();
        if (const Value d = required(lifecycle, "deadline_h"); !d.json().is_null()) {
            p.deadline_h = d.as_positive_number();
            if (*p.deadline_h > kMaxFigure) d.fail("expected a number from 0 to 1e15, got " + d.json().dump());
        }
        p.deadline_met_fraction = required(lifecycle, "deadline_met_fraction").as_fraction();
    }
    return p;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> split_point_label(std::string_view label) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t i = 0;
    const auto bad = [&](const std::string& why) {
        throw std::invalid_argument("expected a sweep point label of key=value pairs separated by spaces; " + why);
    };
    while (i < label.size()) {
        const std::size_t eq = label.find('=', i);
        const std::size_t space = label.find(' ', i);
        if (eq == std::string_view::npos || space < eq)
            bad("'" + std::string(label.substr(i, std::min(space, label.size()) - i)) + "' has no '='");
        if (eq == i) bad("a pair has no key");
        const std::string key(label.substr(i, eq - i));
        // The value is JSON text: a string or a bracketed array or object may hold spaces.
        std::size_t j = eq + 1;
        int depth = 0;
        bool in_string = false;
        for (; j < label.size(); ++j) {
            const char c = label[j];
            if (in_string) {
                if (c == '\\') ++j;
                else if (c == '"') in_string = false;
            } else if (c == '"') {
                in_string = true;
            } else if (c == '[' || c == '{') {
                ++depth;
            } else if (c == ']' || c == '}') {
                --depth;
            } else if (c == ' ' && depth <= 0) {
                break;
            }
        }
        if (in_string || depth != 0) bad("the value of '" + key + "' is not closed");
        if (j == eq + 1) bad("'" + key + "' has no value");
        out.emplace_back(key, std::string(label.substr(eq + 1, std::min(j, label.size()) - eq - 1)));
        i = j + 1;
    }
    return out;
}

ResultFile parse_result_text(const std::string& text, const std::string& file) {
    const Json root = parse_json_text(text, file);
    const JsonSource src{file, {}, {}};
    const Value top(root, "", src);
    if (!root.is_object()) top.fail("expected a result file: an object with \"schema\": 1 and \"results\"");
    const Value schema = required(top, "schema");
    if (schema.as_int() != 1) schema.fail("expected schema 1 (the result files this rentsim writes), got " + schema.json().dump());
    const auto results = required(top, "results").as_array();
    if (results.empty()) required(top, "results").fail("expected at least one result, got an empty array");
    if (results.size() > max_result_points)
        required(top, "results").fail("expected at most " + std::to_string(max_result_points) + " results, got " +
                                      std::to_string(results.size()));
    ResultFile f;
    f.file = file;
    f.points.reserve(results.size());
    for (const Value& r : results) f.points.push_back(read_point(r));
    return f;
}

ResultFile read_result_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_result_text(ss.str(), path);
}

}  // namespace rentsim::analysis
