#include "analysis/studies/validate.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <string_view>
#include <variant>
#include <sstream>

#include <fmt/format.h>

#include "analysis/studies/calibrate.hpp"
#include "analysis/scenario/calibration_io.hpp"
#include "analysis/scenario/csv.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/json_reader.hpp"
#include "analysis/scenario/measurements.hpp"
#include "analysis/run/run.hpp"
#include "analysis/studies/measured_row.hpp"
#include "analysis/studies/shipped_network_rows.hpp"
#include "models/compute/gpu.hpp"
#include "models/network/calibrate_network.hpp"
#include "models/network/network.hpp"

namespace rentsim::analysis {

namespace {

struct Skip {
    std::string reason;
};

bool in_catalog(const std::string& gpu) { return compute::lookup_gpu(gpu) != nullptr; }

struct TrainingPrediction {
    double value = 0;
    bool fits = true;
};

TrainingPrediction training_prediction(const CsvRow& row, const Overrides& what_if) {
    try {
        const Scenario s = compile_scenario(training_draft(row, what_if));
        const Result r = run_scenario(s, figures_only());
        return {training_metric(row.at("metric"), s, r, harness_of_row(row)), r.fits};
    } catch (const RowSkip& k) {
        throw Skip{k.reason};
    }
}

double spec_prediction(const CsvRow& row) {
    const std::string gpu = row.at("gpu");
    if (gpu.empty()) throw Skip{"GPU not named (a part outside the catalog)"};
    if (!in_catalog(gpu)) throw Skip{"GPU '" + gpu + "' is not in the catalog"};
    const auto& g = compute::find_gpu(gpu);
    const std::string metric = row.at("metric");
    if (metric == "peak_tflops") {
        const auto p = compute::parse_precision(row.at("precision"));
        if (!p) throw Skip{"peak of a precision the catalog does not hold (" + row.at("unit") + ")"};
        return g.peak_tflops[static_cast<std::size_t>(*p)];
    }
    if (metric == "hbm_gbps") return g.hbm_gbps;
    if (metric == "nvlink_gbps") return g.nvlink_gbps;
    if (metric == "tdp_w") return g.tdp_w;
    if (metric == "memory_gib") return g.memory_gib;
    throw Skip{metric.empty() ? "no metric (a node's line rate)" : "metric '" + metric + "' is not in the catalog"};
}

class GemmPredictor {
public:
    explicit GemmPredictor(std::string path) : path_(std::move(path)) {}

    double predict(const CsvRow& row) {
        const std::string gpu = row.at("gpu");
        if (gpu.empty()) throw Skip{"GPU not named (a part outside the catalog)"};
        if (!in_catalog(gpu)) throw Skip{"GPU '" + gpu + "' is not in the catalog"};
        auto it = rows_.find(gpu);
        if (it == rows_.end()) {
            std::vector<std::string> skipped;
            it = rows_.emplace(gpu, read_calibration_rows({path_}, gpu, skipped)).first;
        }
        for (const auto& r : it->second) {
            if (r.id != row.at("id") || r.kind != RowKind::gemm) continue;
            const double s = predict_row(r, shipped_calibration(gpu));
            return 2.0 * r.m * r.n * r.k * r.batch / s / 1e12;
        }
        throw Skip{"no GEMM shape stated in the row"};
    }

private:
    std::string path_;
    std::map<std::string, std::vector<CalibrationRow>> rows_;
};

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The interpretation lines (header kept) of the rows `ids` holds: a file may hold any subset
// of the measurements.
std::string interpretations_of(std::string_view text, const std::set<std::string>& ids) {
    std::string out;
    std::size_t start = 0;
    bool header = true;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(start, end - start);
        const std::string id(line.substr(0, line.find(',')));
        if (header || ids.contains(id)) out += std::string(line) + "\n";
        header = false;
        start = end + 1;
    }
    return out;
}

std::map<std::string, net::ValidationRow> network_predictions(const std::string& path, const std::set<std::string>& ids) {
    std::map<std::string, net::ValidationRow> out;
    const auto files = shipped_network_rows();
    if (files.empty()) return out;
    try {
        const auto data = net::parse_calibration_data(read_text(path), interpretations_of(files.front().text, ids));
        for (auto& v : net::validate_network(data, net::default_network_params())) out[v.id] = v;
    } catch (const std::invalid_argument& e) {
        throw InputError(path, "", e.what());
    }
    return out;
}

// The median of sorted, non-empty values (the mean of the middle two of an even count).
double median_of_sorted(const std::vector<double>& e) {
    const std::size_t h = e.size() / 2;
    return e.size() % 2 ? e[h] : 0.5 * (e[h - 1] + e[h]);
}

}  // namespace

ErrorStats error_stats(std::vector<double> e) {
    ErrorStats s;
    s.n = static_cast<int>(e.size());
    if (e.empty()) return s;
    std::sort(e.begin(), e.end());
    double sum = 0;
    for (double x : e) sum += x;
    s.mean_abs_error = sum / static_cast<double>(e.size());
    s.median_abs_error = median_of_sorted(e);
    s.max_abs_error = e.back();
    // Nearest rank: the smallest error at least 90% of the rows do not exceed.
    const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(e.size())));
    s.p90_abs_error = e[std::max<std::size_t>(rank, 1) - 1];
    return s;
}

std::string_view scale_group(int gpus) {
    return gpus <= 1 ? scale_groups[0] : gpus <= 8 ? scale_groups[1] : gpus <= 64 ? scale_groups[2] : scale_groups[3];
}

namespace {

const std::set<std::string, std::less<>> spec_metrics{"peak_tflops", "hbm_gbps", "nvlink_gbps", "tdp_w", "memory_gib"};

// Whether a row counts towards the scores: trust high or medium (the data README).
bool scored(const ValidationRow& v) { return v.trust != "low"; }

// The columns a training row and its one-GPU twin may differ in (ValidationReport::TwinScaling):
// what names the row, what grows with the GPU count, and what was measured.
const std::set<std::string, std::less<>> twin_free_columns{"id",  "role",  "category", "gpus",   "global_batch",
                                                           "dp",  "value", "trust",    "source", "notes"};

// Every other column of the row, as one key: rows with equal keys measured the same run.
std::string twin_key(const CsvTable& table, const CsvRow& row) {
    std::string key;
    for (const auto& col : table.header)
        if (!twin_free_columns.contains(col)) key += col + '=' + row.at(col) + '\x1f';
    return key;
}

}  // namespace


ValidationReport validate_file(const std::string& path, const Overrides& what_if) {
    const CsvTable table = read_csv(path);
    for (const char* col : {"id", "role", "category", "metric", "value"})
        if (!table.has_column(col)) throw InputError(path, "line 1", std::string("missing column '") + col + "'");
    std::map<std::string, net::ValidationRow> network;
    bool network_read = false;
    GemmPredictor gemm(path);

    ValidationReport rep;
    // group kind -> group -> role -> |errors| of scored rows
    std::map<std::string, std::map<std::string, std::map<std::string, std::vector<double>>>> errors;
    // GPU-count group -> role -> signed errors of the predicted rate (training rows)
    std::map<std::string, std::map<std::string, std::vector<double>>> rate_errors;
    // Predicted, scored training rows by twin key: the first one-GPU row of each key, and every
    // multi-GPU check row (index into rep.rows).
    std::map<std::string, std::size_t> one_gpu;
    std::vector<std::pair<std::string, std::size_t>> multi_gpu;
    for (const CsvRow& row : table.rows) {
        ValidationRow v;
        int gpus = 0;  // training rows: GPUs of the run; 0 otherwise
        v.id = row.at("id");
        v.category = row.at("category");
        v.role = row.at("role");
        v.metric = row.at("metric");
        v.trust = row.at("trust").empty() ? "high" : row.at("trust");
        v.gpu = row.at("gpu");
        try {
            const auto measured = row.number("value");
            if (!measured) throw Skip{"no measured value"};
            if (!(*measured > 0)) throw Skip{"the measured value is not positive"};
            v.measured = *measured;
            // By what the row measured, never by where it came from (its category).
            if (is_training_row(row)) {
                const TrainingPrediction t = training_prediction(row, what_if);
                v.predicted = t.value;
                v.fits = t.fits;
                v.kind = row.at("model");
                gpus = static_cast<int>(row.number("gpus").value_or(1));
            } else if (spec_metrics.contains(v.metric)) {
                v.predicted = spec_prediction(row);
                v.kind = "spec";
            } else if (v.metric == "gemm_tflops") {
                v.predicted = gemm.predict(row);
                v.kind = "gemm";
            } else if (v.metric == "busbw_gbps" || v.metric == "p2p_gbps") {
                if (!network_read) {
                    std::set<std::string> ids;
                    for (const CsvRow& r : table.rows) ids.insert(r.at("id"));
                    network = network_predictions(path, ids);
                    network_read = true;
                }
                const auto it = network.find(v.id);
                if (it == network.end()) throw Skip{"no interpretation of the row in nccl_rows.csv"};
                if (!it->second.modelled) throw Skip{it->second.note.empty() ? "not modelled" : it->second.note};
                v.predicted = it->second.predicted;
                v.kind = "collective";
            } else if (v.metric == "decode_images_per_s_per_core") {
                throw Skip{"CPU decode rates are inputs of the data model (samples_per_s_per_worker), not predictions"};
            } else if (v.metric.empty()) {
                throw Skip{"no metric (a node's line rate)"};
            } else if (!row.at("model").empty()) {
                throw Skip{"metric '" + v.metric + "' is not predicted for training rows"};
            } else {
                throw Skip{"metric '" + v.metric + "' is not predicted"};
            }
            if (!(v.predicted > 0) || !std::isfinite(v.predicted)) throw Skip{"the model predicts no positive value"};
            v.error = v.predicted / v.measured - 1.0;
            if (scored(v)) {
                const double e = std::abs(v.error);
                errors["category"][v.category][v.role].push_back(e);
                errors["category"]["all"][v.role].push_back(e);
                if (!v.gpu.empty()) errors["family"][gpu_family(v.gpu)][v.role].push_back(e);
                if (gpus == 1) one_gpu.try_emplace(twin_key(table, row), rep.rows.size());
                if (gpus > 1 && v.role == "check") multi_gpu.emplace_back(twin_key(table, row), rep.rows.size());
                if (gpus > 0) {
                    const std::string group(scale_group(gpus));
                    errors["scale"][group][v.role].push_back(e);
                    const bool time = v.metric == "iteration_s" || v.metric == "time_to_train_s";
                    rate_errors[group][v.role].push_back(time ? 1.0 / (1.0 + v.error) - 1.0 : v.error);
                }
            }
            errors["trust"][v.trust][v.role].push_back(std::abs(v.error));
        } catch (const Skip& s) {
            v.predicted = 0;
            v.skipped = s.reason;
        } catch (const BudgetError& e) {
            v.predicted = 0;
            v.skipped = e.what();
        } catch (const InputError& e) {
            if (e.file() == path && e.where().empty()) throw;
            v.predicted = 0;
            v.skipped = e.message();
        }
        rep.rows.push_back(std::move(v));
    }
    for (auto& [kind, groups] : errors)
        for (auto& [group, roles] : groups)
            for (auto& [role, e] : roles) {
                auto& target = kind == "category" ? rep.summary
                               : kind == "family" ? rep.by_family
                               : kind == "scale"  ? rep.by_scale
                                                  : rep.by_trust;
                target[group][role] = error_stats(std::move(e));
            }
    for (auto& [group, roles] : rate_errors)
        for (auto& [role, e] : roles) {
            std::sort(e.begin(), e.end());
            rep.scale_rate_bias[group][role] = median_of_sorted(e);
        }
    std::vector<double> twin_rows, twins, scaling;
    for (const auto& [key, i] : multi_gpu) {
        const auto it = one_gpu.find(key);
        if (it == one_gpu.end()) continue;
        const ValidationRow& n = rep.rows[i];
        const ValidationRow& one = rep.rows[it->second];
        twin_rows.push_back(std::abs(n.error));
        twins.push_back(std::abs(one.error));
        scaling.push_back(std::abs((1.0 + n.error) / (1.0 + one.error) - 1.0));
    }
    rep.twin_scaling = {error_stats(std::move(twin_rows)), error_stats(std::move(twins)), error_stats(std::move(scaling))};
    for (const auto& v : rep.rows) {
        if (v.role != "check" || !scored(v)) continue;
        ++rep.check_rows;
        if (v.skipped.empty()) ++rep.check_predicted;
        if (v.skipped.empty() && !v.fits) ++rep.check_misfits;
    }
    return rep;
}

namespace {

// One mechanism switched off: the keys that switch it off, applied to every training row.
struct Ablation {
    std::string_view mechanism;
    Overrides keys;
};

// The GPU-count groups of a report in scale_groups' order (not the map's): f(group, role,
// statistics, rate bias).
template <class F>
void for_each_scale(const ValidationReport& rep, F&& f) {
    for (const auto group : scale_groups) {
        const auto it = rep.by_scale.find(std::string(group));
        if (it == rep.by_scale.end()) continue;
        for (const auto& [role, st] : it->second) f(group, role, st, rep.scale_rate_bias.at(it->first).at(role));
    }
}

std::vector<Ablation> ablations() {
    return {{"FlashAttention (unfused attention everywhere)", {{"workload.attention", std::string("unfused")}}},
            {"fused elementwise kernels (all unfused)", {{"workload.fused_elementwise", false}}},
            {"GeLU in the GEMM's epilogue (off: a kernel of its own)", {{"workload.gemm_epilogue", false}}},
            {"TF32 for fp32 requests (off)", {{"workload.tf32", false}}},
            {"NCHW transposes (NHWC everywhere)", {{"workload.conv_layout", std::string("nhwc")}}},
            {"gradient reduction overlapped with backward (off)", {{"workload.parallelism.overlap_grad_reduce", false}}},
            {"unfused optimizer updates (every update one fused kernel)", {{"workload.optimizer_kernel", std::string("fused")}}},
            {"gradient clipping (off)", {{"workload.grad_clip", std::string("none")}}},
            {"fp32 and fused loss kernels (every loss eager in the training precision)", {{"workload.loss_kernel", std::string("eager")}}},
            {"fp32 gradient reductions (every 16-bit run reduces 16-bit gradients)", {{"workload.grad_reduce", std::string("param")}}},
            {"FSDP2's all-gather copy-out on the compute stream (off)", {{"workload.parallelism.gather_copy_out", false}}},
            {"compute slowed by overlapped collectives (off: overlap is free)", {{"workload.parallelism.overlap_contention", false}}},
            {"Composer's BACKWARD_POST backward gathers (off: prefetched)", {{"workload.parallelism.backward_prefetch", std::string("pre")}}},
            {"Megatron's even pipeline stages (off: stages balanced by time)", {{"workload.parallelism.stage_split", std::string("balanced")}}},
            {"Megatron's main-gradient buffers (off: 16 B per parameter)", {{"workload.main_grads", false}}},
            {"framework profiles (all rows as pytorch-ddp)", {{"workload.framework", std::string("pytorch-ddp")}}}};
}

}  // namespace

std::string validation_markdown(const ValidationReport& rep) {
    std::string o = fmt::format("Check rows of trust high and medium: {} of {} predicted ({:.1f}%); {} of them the memory "
                                "model says would not fit.\n\n",
                                rep.check_predicted, rep.check_rows,
                                rep.check_rows ? 100.0 * rep.check_predicted / rep.check_rows : 0.0, rep.check_misfits);
    const auto table = [&](std::string_view title, const ErrorSummary& summary) {
        o += fmt::format("| {} | role | rows | median | mean | p90 | max |\n|---|---|---|---|---|---|---|\n", title);
        for (const auto& [group, roles] : summary)
            for (const auto& [role, st] : roles) {
                const bool bold = group == "all" && role == "check";
                const std::string_view b = bold ? "**" : "";
                o += fmt::format("| {}{}{} | {}{}{} | {}{}{} | {}{:.1f}%{} | {:.1f}% | {:.1f}% | {:.1f}% |\n", b, group, b, b,
                                 role, b, b, st.n, b, b, st.median_abs_error * 100, b, st.mean_abs_error * 100,
                                 st.p90_abs_error * 100, st.max_abs_error * 100);
            }
        o += "\n";
    };
    table("category", rep.summary);
    table("GPU family", rep.by_family);
    o += "| GPUs (training rows) | role | rows | median | mean | p90 | max | rate bias |\n|---|---|---|---|---|---|---|---|\n";
    for_each_scale(rep, [&](std::string_view group, const std::string& role, const ErrorStats& st, double bias) {
        o += fmt::format("| {} | {} | {} | {:.1f}% | {:.1f}% | {:.1f}% | {:.1f}% | {:+.1f}% |\n", group, role, st.n,
                         st.median_abs_error * 100, st.mean_abs_error * 100, st.p90_abs_error * 100,
                         st.max_abs_error * 100, bias * 100);
    });
    o += "\n";
    const auto& t = rep.twin_scaling;
    if (t.rows.n > 0) {
        o += fmt::format("| {} multi-GPU check rows with a one-GPU twin | median | mean | p90 | max |\n|---|---|---|---|---|\n",
                         t.rows.n);
        const auto line = [&](std::string_view what, const ErrorStats& st) {
            o += fmt::format("| {} | {:.1f}% | {:.1f}% | {:.1f}% | {:.1f}% |\n", what, st.median_abs_error * 100,
                             st.mean_abs_error * 100, st.p90_abs_error * 100, st.max_abs_error * 100);
        };
        line("the rows", t.rows);
        line("their one-GPU twins", t.twins);
        line("the speed-up from one GPU", t.scaling);
        o += "\n";
    }
    return o;
}

std::string ablation_markdown(const std::string& path) {
    const ValidationReport base = validate_file(path);
    std::map<std::string, double> base_error;
    for (const auto& v : base.rows)
        if (v.role == "check" && v.trust != "low" && v.skipped.empty() && v.kind != "spec" && v.kind != "gemm" &&
            v.kind != "collective")
            base_error[v.id] = std::abs(v.error);
    std::vector<double> all;
    for (const auto& [id, e] : base_error) all.push_back(e);
    const ErrorStats b = error_stats(all);
    std::string o = "| mechanism switched off | rows changed | median | mean | p90 |\n|---|---|---|---|---|\n";
    o += fmt::format("| none (the model as shipped) | {} | {:.1f}% | {:.1f}% | {:.1f}% |\n", b.n, b.median_abs_error * 100,
                     b.mean_abs_error * 100, b.p90_abs_error * 100);
    for (const auto& a : ablations()) {
        const ValidationReport r = validate_file(path, a.keys);
        // The same rows as the baseline: a row the switch makes unpredictable counts at its
        // baseline error, so that the columns compare like with like.
        std::map<std::string, double> changed;
        for (const auto& v : r.rows)
            if (base_error.contains(v.id) && v.skipped.empty()) changed[v.id] = std::abs(v.error);
        std::vector<double> e;
        int n = 0;
        for (const auto& [id, err] : base_error) {
            const auto it = changed.find(id);
            const double now = it == changed.end() ? err : it->second;
            e.push_back(now);
            n += now != err ? 1 : 0;
        }
        const ErrorStats st = error_stats(e);
        o += fmt::format("| {} | {} | {:.1f}% | {:.1f}% | {:.1f}% |\n", a.mechanism, n, st.median_abs_error * 100,
                         st.mean_abs_error * 100, st.p90_abs_error * 100);
    }
    return o;
}

std::string validation_text(const ValidationReport& rep) {
    std::string o = fmt::format("{:<12} {:<20} {:<9} {:<25} {:>12} {:>12} {:>8}\n", "id", "category", "role", "metric",
                                "measured", "predicted", "error");
    for (const auto& v : rep.rows) {
        if (!v.skipped.empty()) {
            o += fmt::format("{:<12} {:<20} {:<9} {:<25} {:>12.4g} {:>12} {:>8}  skipped: {}\n", v.id, v.category,
                             v.role, v.metric, v.measured, "-", "-", v.skipped);
            continue;
        }
        o += fmt::format("{:<12} {:<20} {:<9} {:<25} {:>12.4g} {:>12.4g} {:>7.1f}%{}{}\n", v.id, v.category, v.role,
                         v.metric, v.measured, v.predicted, v.error * 100, v.trust == "low" ? "  (trust low: not scored)" : "",
                         v.fits ? "" : "  (the memory model says it does not fit)");
    }
    int skipped = 0;
    for (const auto& v : rep.rows) skipped += v.skipped.empty() ? 0 : 1;
    o += fmt::format("\n{} rows, {} predicted, {} skipped\n\n", rep.rows.size(), static_cast<int>(rep.rows.size()) - skipped,
                     skipped);
    o += fmt::format("check rows of trust high and medium: {} of {} predicted ({:.1f}%), {} of them predicted not to fit\n\n",
                     rep.check_predicted, rep.check_rows,
                     rep.check_rows ? 100.0 * rep.check_predicted / rep.check_rows : 0.0, rep.check_misfits);
    const auto table = [&](std::string_view title, const ErrorSummary& summary) {
        o += fmt::format("{:<20} {:<9} {:>4} {:>10} {:>10} {:>10} {:>10}\n", title, "role", "n", "mean |e|", "median |e|",
                         "p90 |e|", "max |e|");
        for (const auto& [group, roles] : summary)
            for (const auto& [role, s] : roles)
                o += fmt::format("{:<20} {:<9} {:>4} {:>9.1f}% {:>9.1f}% {:>9.1f}% {:>9.1f}%\n", group, role, s.n,
                                 s.mean_abs_error * 100, s.median_abs_error * 100, s.p90_abs_error * 100,
                                 s.max_abs_error * 100);
        o += "\n";
    };
    table("category", rep.summary);
    table("gpu family", rep.by_family);
    table("trust (all scored)", rep.by_trust);
    o += fmt::format("{:<20} {:<9} {:>4} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "gpus (training)", "role", "n", "mean |e|",
                     "median |e|", "p90 |e|", "max |e|", "rate bias");
    for_each_scale(rep, [&](std::string_view group, const std::string& role, const ErrorStats& s, double bias) {
        o += fmt::format("{:<20} {:<9} {:>4} {:>9.1f}% {:>9.1f}% {:>9.1f}% {:>9.1f}% {:>+9.1f}%\n", group, role, s.n,
                         s.mean_abs_error * 100, s.median_abs_error * 100, s.p90_abs_error * 100, s.max_abs_error * 100,
                         bias * 100);
    });
    o += "\n";
    const auto& t = rep.twin_scaling;
    if (t.rows.n > 0) {
        o += fmt::format("{:<30} {:>4} {:>10} {:>10} {:>10} {:>10}\n", "check rows with a 1-GPU twin", "n", "mean |e|",
                         "median |e|", "p90 |e|", "max |e|");
        const auto line = [&](std::string_view what, const ErrorStats& s) {
            o += fmt::format("{:<30} {:>4} {:>9.1f}% {:>9.1f}% {:>9.1f}% {:>9.1f}%\n", what, s.n, s.mean_abs_error * 100,
                             s.median_abs_error * 100, s.p90_abs_error * 100, s.max_abs_error * 100);
        };
        line("  the rows", t.rows);
        line("  their 1-GPU twins", t.twins);
        line("  speed-up from 1 GPU", t.scaling);
        o += "\n";
    }
    return o;
}

std::string validation_json(const ValidationReport& rep) {
    Json j;
    j["schema"] = 1;
    j["rows"] = Json::array();
    for (const auto& v : rep.rows) {
        Json r;
        r["id"] = v.id;
        r["category"] = v.category;
        r["role"] = v.role;
        r["metric"] = v.metric;
        r["measured"] = v.measured;
        r["trust"] = v.trust;
        if (v.skipped.empty()) {
            r["predicted"] = v.predicted;
            r["error"] = v.error;
            if (!v.fits) r["fits"] = false;
        } else {
            r["skipped"] = v.skipped;
        }
        j["rows"].push_back(std::move(r));
    }
    const auto stats = [](const ErrorStats& s) {
        return Json{{"n", s.n},
                    {"mean_abs_error", s.mean_abs_error},
                    {"median_abs_error", s.median_abs_error},
                    {"p90_abs_error", s.p90_abs_error},
                    {"max_abs_error", s.max_abs_error}};
    };
    const auto summary = [&](const ErrorSummary& groups) {
        Json out = Json::object();
        for (const auto& [group, roles] : groups)
            for (const auto& [role, s] : roles) out[group][role] = stats(s);
        return out;
    };
    j["summary"] = summary(rep.summary);
    j["by_family"] = summary(rep.by_family);
    j["by_trust"] = summary(rep.by_trust);
    j["by_scale"] = summary(rep.by_scale);
    for (const auto& [group, roles] : rep.scale_rate_bias)
        for (const auto& [role, bias] : roles) j["by_scale"][group][role]["median_rate_error"] = bias;
    j["check"] = {{"rows", rep.check_rows}, {"predicted", rep.check_predicted}, {"misfits", rep.check_misfits}};
    j["twin_scaling"] = {{"rows", stats(rep.twin_scaling.rows)},
                         {"twins", stats(rep.twin_scaling.twins)},
                         {"scaling", stats(rep.twin_scaling.scaling)}};
    return j.dump(2) + "\n";
}

std::string row_scenario_json(const std::string& path, const std::string& id) {
    const CsvTable table = read_csv(path);
    for (const CsvRow& row : table.rows) {
        if (row.at("id") != id) continue;
        const std::string line = "line " + std::to_string(row.line);  // quoted cells may span lines
        if (!is_training_row(row)) throw InputError(path, line, "row '" + id + "' is not a training row (no scenario)");
        ScenarioDraft draft;
        try {
            draft = training_draft(row);
        } catch (const RowSkip& k) {
            throw InputError(path, line, "row '" + id + "' is skipped: " + k.reason);
        }
        // Dotted keys into nested objects; a later key overrides an earlier one, as in
        // compile_scenario.
        Json j = Json::object();
        for (const auto& [key, value] : draft.keys) {
            Json* at = &j;
            std::size_t start = 0;
            for (std::size_t dot; (dot = key.find('.', start)) != std::string::npos; start = dot + 1)
                at = &(*at)[key.substr(start, dot - start)];
            const std::string leaf = key.substr(start);  // clang 14 cannot capture a structured binding
            std::visit([&](const auto& v) { (*at)[leaf] = v; }, value);
        }
        return j.dump(2) + "\n";
    }
    throw InputError(path, "", "no row has id '" + id + "'");
}

}  // namespace rentsim::analysis
