#include "analysis/studies/validate.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <string_view>
#include <sstream>

#include <fmt/format.h>

#include "analysis/studies/calibrate.hpp"
#include "analysis/scenario/calibration_io.hpp"
#include "analysis/scenario/csv.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/json_reader.hpp"
#include "analysis/run/run.hpp"
#include "analysis/studies/shipped_network_rows.hpp"
#include "models/compute/gpu.hpp"
#include "models/network/calibrate_network.hpp"
#include "models/network/network.hpp"

namespace rentsim::analysis {

namespace {

// SQuAD v1.1 training set: 87,599 question-answer pairs (Rajpurkar et al. 2016, Table 2;
// train-v1.1.json, read 2026-11). DLE's SQuAD time-to-train rows state "2 epochs" of it;
// the few questions whose context exceeds 384 tokens and is split in two windows are ignored.
constexpr double squad_v11_train_samples = 87599;
// Steps simulated for a throughput or iteration-time row: enough for the fast-forward to
// reach its steady state.
constexpr double throughput_steps = 20;

struct Skip {
    std::string reason;
};

bool in_catalog(const std::string& gpu) {
    for (const auto& g : compute::gpu_catalog())
        if (g.name == gpu) return true;
    return false;
}

// A count from the row; a cell that is not a whole number within int range skips the row
// (the loader's ranges then check what the count means).
int int_cell(const CsvRow& row, const std::string& col) {
    const auto v = row.number(col);
    if (!v) return 0;
    if (!(std::abs(*v) <= 2147483647.0) || *v != std::floor(*v))
        throw Skip{"column '" + col + "' is not a whole number in range: " + row.at(col).substr(0, 32)};
    return static_cast<int>(*v);
}

// The cluster of a published system: DGX-1 (hybrid cube-mesh), DGX A100, DGX H100 and HGX
// H200 by their presets, DGX-2 (16 V100 SXM3 on NVSwitch, 8x 100 Gb/s EDR InfiniBand: 50 Gb/s
// per GPU; NVIDIA DGX-2 datasheet, read 2026-11) and PCIe servers by an explicit spec.
void cluster_for(const CsvRow& row, const std::string& gpu, int gpus, ScenarioDraft& d) {
    d.set("cluster.gpu", gpu).set("cluster.gpus", std::int64_t{gpus});
    const int per_node = std::max(1, int_cell(row, "gpus_per_node"));
    std::string topology;
    if (gpu.starts_with("v100-sxm2")) topology = "dgx1-v100";
    else if (gpu.starts_with("a100-sxm4")) topology = "dgx-a100";
    else if (gpu == "h100-sxm5-80gb") topology = "dgx-h100";
    else if (gpu == "h200-sxm-141gb") topology = "hgx-h200";
    if (!topology.empty()) {
        d.set("cluster.topology", topology);
        return;
    }
    d.set("cluster.gpus_per_node", std::int64_t{per_node});
    d.set("cluster.intra_node", std::string(gpu.find("pcie") != std::string::npos ? "pcie" : "nvlink"));
    if (gpus > per_node) {
        if (gpu != "v100-sxm3-32gb") throw Skip{"multi-node system of " + gpu + " GPUs has no fabric in the row"};
        d.set("cluster.inter_node.fabric", std::string("infiniband"))
            .set("cluster.inter_node.gbps_per_gpu", std::int64_t{50})
            .set("cluster.inter_node.latency_us", std::int64_t{5});
    }
}

// The scenario a training row describes, as a user would write it, compiled by the loader.
Scenario scenario_for(const CsvRow& row, const std::string& category) {
    const std::string model = row.at("model");
    const std::string gpu = row.at("gpu");
    if (model != "resnet50" && model != "bert-large" && model != "gpt")
        throw Skip{"model '" + model + "' is not in the zoo"};
    if (gpu.empty()) throw Skip{"GPU not named (a part outside the catalog)"};
    if (!in_catalog(gpu)) throw Skip{"GPU '" + gpu + "' is not in the catalog"};
    if (!compute::parse_precision(row.at("precision"))) throw Skip{"no training precision"};
    const int gpus = int_cell(row, "gpus");
    if (gpus < 1) throw Skip{"no GPU count"};

    ScenarioDraft d;
    d.file = row.file;
    d.set("schema", std::int64_t{1}).set("name", row.at("id"));
    d.set("pricing.usd_per_gpu_hour", std::int64_t{0});
    d.set("workload.model", model).set("workload.precision", row.at("precision"));
    const int seq_len = int_cell(row, "seq_len");
    bool squad = false;
    if (model == "bert-large") {
        if (seq_len == 0) throw Skip{"two-phase BERT pretraining (seq 128, then 512) is not one scenario"};
        squad = seq_len == 384;
        d.set("workload.seq_len", std::int64_t{seq_len}).set("workload.task", std::string(squad ? "squad" : "pretraining"));
    } else if (model == "gpt") {
        const int layers = int_cell(row, "layers"), hidden = int_cell(row, "hidden"), heads = int_cell(row, "heads"),
                  vocab = int_cell(row, "vocab"), ffn = int_cell(row, "ffn_hidden");
        if (!layers || !hidden || !heads || !seq_len || !vocab) throw Skip{"incomplete GPT shape"};
        d.set("workload.layers", std::int64_t{layers}).set("workload.hidden", std::int64_t{hidden});
        d.set("workload.heads", std::int64_t{heads}).set("workload.vocab", std::int64_t{vocab});
        d.set("workload.seq_len", std::int64_t{seq_len});
        if (ffn) d.set("workload.ffn_hidden", std::int64_t{ffn});
    }

    const int tp = std::max(1, int_cell(row, "tp")), pp = std::max(1, int_cell(row, "pp"));
    const std::int64_t model_parallel = std::int64_t{tp} * pp;
    if (gpus % model_parallel != 0) throw Skip{"tp x pp does not divide the GPU count"};
    const int dp = static_cast<int>(gpus / model_parallel);
    d.set("workload.parallelism.tp", std::int64_t{tp}).set("workload.parallelism.pp", std::int64_t{pp});
    if (row.at("sequence_parallel") == "true") d.set("workload.parallelism.sequence_parallel", true);
    if (!row.at("recompute").empty()) d.set("workload.parallelism.recompute", row.at("recompute"));
    if (const int zero = int_cell(row, "zero")) d.set("workload.parallelism.zero", std::int64_t{zero});

    const int per_gpu = int_cell(row, "batch_per_gpu");
    const int global = int_cell(row, "global_batch");
    const int micro = int_cell(row, "micro_batch");
    double step_samples = 0;
    if (model == "gpt") {
        if (global < 1) throw Skip{"no global batch"};
        // Without a stated micro-batch: a whole replica's share without a pipeline, 1 with one.
        const int m = micro ? micro : pp > 1 ? 1 : std::max(1, global / dp);
        if (global % (dp * m) != 0) throw Skip{"global batch is not a multiple of dp x micro-batch"};
        d.set("workload.global_batch", std::int64_t{global}).set("workload.micro_batch", std::int64_t{m});
        step_samples = global;
    } else {
        if (per_gpu < 1) throw Skip{"no batch per GPU"};
        // DLE tables reach their global batch by gradient accumulation over micro-batches of batch_per_gpu.
        if (global > per_gpu * gpus && global % gpus == 0 && (global / gpus) % per_gpu == 0) {
            d.set("workload.batch_per_gpu", std::int64_t{global / gpus}).set("workload.micro_batch", std::int64_t{per_gpu});
            step_samples = static_cast<double>(global / gpus) * gpus;
        } else {
            d.set("workload.batch_per_gpu", std::int64_t{per_gpu});
            step_samples = static_cast<double>(per_gpu) * gpus;
        }
    }
    if (row.at("metric") == "time_to_train_s") {
        if (const auto n = row.number("samples_to_train")) d.set("workload.samples", *n);
        else if (squad && row.at("notes").find("2 epochs") != std::string::npos)
            d.set("workload.samples", 2 * squad_v11_train_samples);
        else
            throw Skip{"the row states no amount of training"};
    } else {
        d.set("workload.samples", step_samples * throughput_steps);
    }
    // The MLPerf submissions fuse elementwise ops into their neighbours (fused NHWC
    // BN-add-ReLU in the MXNet ResNet, fused bias-GELU and bias-dropout-add in the PyTorch
    // BERT; NVIDIA's MLPerf Training v0.7-v2.1 result code). The DLE containers are taken as
    // unfused, XLA included (README, Validation).
    if (category == "mlperf_time_to_train") d.set("workload.fused_elementwise", true);
    cluster_for(row, gpu, gpus, d);
    return compile_scenario(d);
}

double training_prediction(const CsvRow& row, const std::string& category) {
    const Scenario s = scenario_for(row, category);
    const Result r = run_scenario(s);
    if (!r.fits) throw Skip{fmt::format("does not fit: {:.1f} GiB per GPU of {:.0f}", r.memory_per_gpu_gib,
                                        r.memory_available_gib)};
    const std::string metric = row.at("metric");
    if (metric == "throughput_samples_per_s") return r.throughput_samples_per_s;
    if (metric == "throughput_tokens_per_s") return r.throughput_tokens_per_s;
    if (metric == "iteration_s") return r.iteration_s;
    if (metric == "time_to_train_s") return r.time_to_train_s;
    // Megatron's 2021 TFLOP/s count the recomputed forward (README Caveats): hardware FLOPs.
    if (metric == "tflops_per_gpu")
        return s.workload.parallelism.recompute == compute::Recompute::full ? r.hardware_tflops_per_gpu : r.tflops_per_gpu;
    if (metric == "mfu") return r.mfu;
    throw Skip{"metric '" + metric + "' is not predicted for training rows"};
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

}  // namespace

ErrorStats error_stats(std::vector<double> e) {
    ErrorStats s;
    s.n = static_cast<int>(e.size());
    if (e.empty()) return s;
    std::sort(e.begin(), e.end());
    double sum = 0;
    for (double x : e) sum += x;
    s.mean_abs_error = sum / static_cast<double>(e.size());
    const std::size_t h = e.size() / 2;
    s.median_abs_error = e.size() % 2 ? e[h] : 0.5 * (e[h - 1] + e[h]);
    s.max_abs_error = e.back();
    return s;
}

ValidationReport validate_file(const std::string& path) {
    const CsvTable table = read_csv(path);
    for (const char* col : {"id", "role", "category", "metric", "value"})
        if (!table.has_column(col)) throw InputError(path, "line 1", std::string("missing column '") + col + "'");
    std::map<std::string, net::ValidationRow> network;
    bool network_read = false;
    GemmPredictor gemm(path);

    ValidationReport rep;
    std::map<std::string, std::map<std::string, std::vector<double>>> errors;
    for (const CsvRow& row : table.rows) {
        ValidationRow v{row.at("id"), row.at("category"), row.at("role"), row.at("metric"), 0, 0, 0, ""};
        try {
            const auto measured = row.number("value");
            if (!measured) throw Skip{"no measured value"};
            if (!(*measured > 0)) throw Skip{"the measured value is not positive"};
            v.measured = *measured;
            const std::string& c = v.category;
            if (c == "dle_throughput" || c == "dle_time_to_train" || c == "mlperf_time_to_train" ||
                c == "megatron_scaling") {
                v.predicted = training_prediction(row, c);
            } else if (c == "gpu_spec") {
                v.predicted = spec_prediction(row);
            } else if (c == "gemm_efficiency") {
                v.predicted = gemm.predict(row);
            } else if (c == "nccl_busbw" || c == "p2p_bw") {
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
            } else if (c == "dataload") {
                throw Skip{"CPU decode rates are inputs of the data model (samples_per_s_per_worker), not predictions"};
            } else {
                throw Skip{"unknown category '" + c + "'"};
            }
            if (!(v.predicted > 0) || !std::isfinite(v.predicted)) throw Skip{"the model predicts no positive value"};
            v.error = v.predicted / v.measured - 1.0;
            errors[v.category][v.role].push_back(std::abs(v.error));
            errors["all"][v.role].push_back(std::abs(v.error));
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
    for (auto& [category, roles] : errors)
        for (auto& [role, e] : roles) rep.summary[category][role] = error_stats(std::move(e));
    return rep;
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
        o += fmt::format("{:<12} {:<20} {:<9} {:<25} {:>12.4g} {:>12.4g} {:>7.1f}%\n", v.id, v.category, v.role,
                         v.metric, v.measured, v.predicted, v.error * 100);
    }
    int skipped = 0;
    for (const auto& v : rep.rows) skipped += v.skipped.empty() ? 0 : 1;
    o += fmt::format("\n{} rows, {} predicted, {} skipped\n\n", rep.rows.size(), static_cast<int>(rep.rows.size()) - skipped,
                     skipped);
    o += fmt::format("{:<20} {:<9} {:>4} {:>10} {:>10} {:>10}\n", "category", "role", "n", "mean |e|", "median |e|",
                     "max |e|");
    for (const auto& [category, roles] : rep.summary)
        for (const auto& [role, s] : roles)
            o += fmt::format("{:<20} {:<9} {:>4} {:>9.1f}% {:>9.1f}% {:>9.1f}%\n", category, role, s.n,
                             s.mean_abs_error * 100, s.median_abs_error * 100, s.max_abs_error * 100);
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
        if (v.skipped.empty()) {
            r["predicted"] = v.predicted;
            r["error"] = v.error;
        } else {
            r["skipped"] = v.skipped;
        }
        j["rows"].push_back(std::move(r));
    }
    j["summary"] = Json::object();
    for (const auto& [category, roles] : rep.summary)
        for (const auto& [role, s] : roles)
            j["summary"][category][role] = {{"n", s.n},
                                            {"mean_abs_error", s.mean_abs_error},
                                            {"median_abs_error", s.median_abs_error},
                                            {"max_abs_error", s.max_abs_error}};
    return j.dump(2) + "\n";
}

}  // namespace rentsim::analysis
