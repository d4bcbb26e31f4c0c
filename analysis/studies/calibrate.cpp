#include "analysis/studies/calibrate.hpp"

#include <cmath>
#include <limits>
#include <charconv>

#include <fmt/format.h>
#include <string_view>

#include <Eigen/Dense>

#include "analysis/scenario/csv.hpp"
#include "analysis/scenario/input_error.hpp"
#include "models/compute/step.hpp"
#include "models/fit/levenberg_marquardt.hpp"
#include "models/workloads/zoo.hpp"

namespace rentsim::analysis {

namespace {

using compute::Precision;

// Parameter vector, in a transformed space where any real value is valid:
// efficiencies through a logistic, positive quantities through exp.
enum Param : int { p_fp32, p_tf32, p_half, p_fp8, p_conv, p_kfill, p_mem, p_kernel, p_step, n_params };

// Weak priors, the starting point and the value of any parameter no row constrains:
// large GEMMs reach about 80% of peak, convolutions a little less than a GEMM of the same
// shape, streaming kernels 80% of HBM bandwidth, a few microseconds per kernel launch,
// a millisecond per step of host work. Their spread (one unit in the transformed space)
// is wide enough that a handful of rows overrides them.
constexpr double prior_eff = 0.8, prior_conv = 0.8, prior_mem = 0.8, prior_kfill = 128.0, prior_kernel_s = 5e-6,
                 prior_step_s = 1e-3;
constexpr double prior_weight = 0.1;

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double logit(double p) { return std::log(p / (1.0 - p)); }

compute::Calibration to_calibration(const Eigen::VectorXd& x, const std::string& gpu) {
    compute::Calibration c;
    c.gpu = gpu;
    const auto& spec = compute::find_gpu(gpu);
    auto eff = [&](Precision p, int i) {
        return spec.peak_tflops[static_cast<std::size_t>(p)] > 0 ? logistic(x[i]) : 0.0;
    };
    c.matmul_eff[0] = eff(Precision::fp32, p_fp32);
    c.matmul_eff[1] = eff(Precision::tf32, p_tf32);
    c.matmul_eff[2] = eff(Precision::fp16, p_half);
    c.matmul_eff[3] = eff(Precision::bf16, p_half);
    c.matmul_eff[4] = eff(Precision::fp8, p_fp8);
    c.conv_eff = logistic(x[p_conv]);
    c.k_fill = std::exp(x[p_kfill]);
    c.mem_eff = logistic(x[p_mem]);
    c.kernel_overhead_s = std::exp(x[p_kernel]);
    c.step_overhead_s = std::exp(x[p_step]);
    return c;
}

Eigen::VectorXd prior_vector() {
    Eigen::VectorXd x(n_params);
    x[p_fp32] = x[p_tf32] = x[p_half] = x[p_fp8] = logit(prior_eff);
    x[p_conv] = logit(prior_conv);
    x[p_kfill] = std::log(prior_kfill);
    x[p_mem] = logit(prior_mem);
    x[p_kernel] = std::log(prior_kernel_s);
    x[p_step] = std::log(prior_step_s);
    return x;
}

// Per-row predicted time, for the row's own GPU part with the shared efficiencies.
double predict(const CalibrationRow& row, compute::Calibration c) {
    const auto& spec = compute::find_gpu(row.gpu);
    // A part without TF32 units (V100) runs TF32 requests as FP32.
    if (spec.peak_tflops[1] == spec.peak_tflops[0]) c.matmul_eff[1] = c.matmul_eff[0];
    c.gpu = row.gpu;
    const compute::GpuModel gpu(spec, c);
    switch (row.kind) {
        case RowKind::gemm: return gpu.gemm_time(row.m, row.n, row.k, row.batch, row.precision).value;
        case RowKind::copy:
        case RowKind::elementwise: return gpu.stream_time(units::Bytes{row.bytes}).value;
        case RowKind::launch: return c.kernel_overhead_s;
        case RowKind::step: break;
    }
    // step: seconds per sample, the optimizer amortised over the accumulated micro-batches.
    const work::Workload& w = *row.model;
    compute::StepConfig cfg;
    cfg.micro_batch = row.micro_batch;
    cfg.precision = row.precision;
    const auto step = compute::plan_step(w, gpu, cfg);
    const double per_step = row.accumulation * (step.fwd + step.bwd).value + step.optimizer.value + c.step_overhead_s;
    return per_step / (row.accumulation * row.micro_batch);
}

// A whole number of at most 9 digits at `text[at]`; advances `at` past it. GEMM dimensions
// beyond that are not shapes a row describes.
bool read_dim(std::string_view text, std::size_t& at, double& out) {
    std::size_t end = at;
    while (end < text.size() && end - at < 10 && text[end] >= '0' && text[end] <= '9') ++end;
    if (end == at || end - at > 9 || (end < text.size() && text[end] >= '0' && text[end] <= '9')) return false;
    long long v = 0;
    std::from_chars(text.data() + at, text.data() + end, v);
    out = static_cast<double>(v);
    at = end;
    return true;
}

// "MxNxK=4096x4096x8192" or "m=n=k=8192" in a row's notes; a plain scan (no regex, which
// recurses per character on long cells).
bool parse_gemm_shape(std::string_view notes, double& m, double& n, double& k) {
    if (auto at = notes.find("MxNxK="); at != std::string_view::npos) {
        at += 6;
        if (read_dim(notes, at, m) && at < notes.size() && notes[at] == 'x' && read_dim(notes, ++at, n) &&
            at < notes.size() && notes[at] == 'x' && read_dim(notes, ++at, k))
            return true;
    }
    if (auto at = notes.find("m=n=k="); at != std::string_view::npos) {
        at += 6;
        if (read_dim(notes, at, m)) {
            n = k = m;
            return true;
        }
    }
    return false;
}

// A number the row must hold, within [lo, hi]: a missing or out-of-range cell is an input
// error naming the file, the line and the column.
double need(const CsvRow& r, const std::string& col, double lo, double hi) {
    const auto v = r.number(col);
    if (!v) throw InputError(r.file, "line " + std::to_string(r.line), "column '" + col + "': expected a number, got an empty cell");
    if (!(*v >= lo && *v <= hi))
        throw InputError(r.file, "line " + std::to_string(r.line),
                         "column '" + col + "': expected a number from " + fmt::format("{:g}", lo) + " to " +
                             fmt::format("{:g}", hi) + ", got " + fmt::format("{:g}", *v));
    return *v;
}
double optional_cell(const CsvRow& r, const std::string& col, double lo, double hi, double fallback) {
    return r.number(col) ? need(r, col, lo, hi) : fallback;
}

void read_published(const CsvTable& t, const std::string& family, std::vector<CalibrationRow>& rows,
                    std::vector<std::string>& skipped) {
    for (const auto& r : t.rows) {
        if (r.at("role") != "calibrate") continue;
        const std::string& gpu = r.at("gpu");
        if (gpu.empty() || gpu_family(gpu) != family) continue;
        const std::string id = r.at("id");
        const std::string& cat = r.at("category");
        const auto prec = compute::parse_precision(r.at("precision"));
        CalibrationRow row;
        row.id = id;
        row.gpu = gpu;
        if (cat == "gemm_efficiency") {
            if (!prec) { skipped.push_back(id + ": no precision"); continue; }
            if (!parse_gemm_shape(r.at("notes"), row.m, row.n, row.k)) { skipped.push_back(id + ": GEMM shape not stated"); continue; }
            row.kind = RowKind::gemm;
            row.precision = *prec;
            row.measured_s = 2.0 * row.m * row.n * row.k / (need(r, "value", 1e-6, 1e6) * 1e12);
        } else if (cat == "dle_throughput") {
            const std::string& model = r.at("model");
            if (model != "resnet50" && model != "bert-large") { skipped.push_back(id + ": model '" + model + "' is not in the zoo"); continue; }
            if (need(r, "gpus", 1, 65536) != 1) { skipped.push_back(id + ": multi-GPU row (needs the network model)"); continue; }
            if (!prec) { skipped.push_back(id + ": no precision"); continue; }
            row.kind = RowKind::step;
            row.precision = *prec;
            row.micro_batch = static_cast<int>(need(r, "batch_per_gpu", 1, 1048576));
            const int seq_len = static_cast<int>(optional_cell(r, "seq_len", 1, 512, 0));
            if (model == "bert-large" && seq_len == 0) { skipped.push_back(id + ": BERT row without a sequence length"); continue; }
            row.model = std::make_shared<const work::Workload>(
                model == "resnet50" ? work::resnet50()
                : seq_len == 384    ? work::bert_squad("large", seq_len)
                                    : work::bert("large", seq_len));
            if (r.number("global_batch")) row.accumulation = std::max(1, static_cast<int>(std::lround(need(r, "global_batch", 1, 16777216) / row.micro_batch)));
            row.measured_s = 1.0 / need(r, "value", 1e-6, 1e9);
        } else {
            continue;  // spec sheets, collectives and decode rates calibrate other models
        }
        rows.push_back(row);
    }
}

void read_script(const CsvTable& t, const std::string& family, std::vector<CalibrationRow>& rows,
                 std::vector<std::string>& skipped) {
    for (const auto& r : t.rows) {
        const std::string& gpu = r.at("gpu");
        if (gpu_family(gpu) != family) continue;
        const std::string id = t.file + ":" + std::to_string(r.line);
        CalibrationRow row;
        row.id = id;
        row.gpu = gpu;
        const RowKind* kind = row_kind_registry().find(r.at("kind"));
        if (!kind) {
            skipped.push_back(id + ": kind '" + r.at("kind").substr(0, 32) + "' is a check, not fitted");
            continue;
        }
        row.kind = *kind;
        if (auto p = compute::parse_precision(r.at("precision"))) row.precision = *p;
        if (row.kind == RowKind::gemm) {
            row.m = need(r, "m", 1, 1e7);
            row.n = need(r, "n", 1, 1e7);
            row.k = need(r, "k", 1, 1e7);
            row.batch = optional_cell(r, "batch", 1, 1e6, 1);
            row.measured_s = need(r, "time_s", 1e-9, 1e6);
        } else if (row.kind == RowKind::copy || row.kind == RowKind::elementwise) {
            row.bytes = need(r, "bytes", 1, 1e13);
            row.measured_s = need(r, "time_s", 1e-9, 1e6);
        } else if (row.kind == RowKind::launch) {
            if (r.at("name") != "launch_event") continue;  // host wall time is not GPU time
            row.measured_s = need(r, "time_s", 1e-9, 1e6);
        } else {
            const std::string& name = r.at("name");
            row.micro_batch = static_cast<int>(need(r, "batch", 1, 1048576));
            const int seq_len = static_cast<int>(optional_cell(r, "seq_len", 1, 4194304, 0));
            if (name == "resnet50") {
                row.model = std::make_shared<const work::Workload>(work::resnet50());
            } else if (name == "bert-large" && seq_len > 0 && seq_len <= 512) {
                row.model = std::make_shared<const work::Workload>(seq_len == 384 ? work::bert_squad("large", seq_len)
                                                                                  : work::bert("large", seq_len));
            } else if (name == "gpt-1.3b" && seq_len > 0) {
                row.model = std::make_shared<const work::Workload>(
                    work::gpt(work::GptShape{24, 2048, 16, seq_len, 50257, 0, 0, false}, "gpt"));
            } else {
                skipped.push_back(id + ": step '" + name.substr(0, 32) + "' is not in the zoo");
                continue;
            }
            row.measured_s = 1.0 / need(r, "samples_per_s", 1e-6, 1e9);
        }
        rows.push_back(row);
    }
}

}  // namespace

const Registry<RowKind>& row_kind_registry() {
    static const Registry<RowKind> r{"calibration row kind",
                                     {{"gemm", RowKind::gemm, "one GEMM's time"},
                                      {"copy", RowKind::copy, "a device-to-device copy"},
                                      {"elementwise", RowKind::elementwise, "a streaming elementwise kernel"},
                                      {"launch", RowKind::launch, "an empty kernel's GPU time"},
                                      {"step", RowKind::step, "seconds per sample of a training step"}}};
    return r;
}

std::string gpu_family(const std::string& gpu) {
    if (gpu.starts_with("v100")) return "v100";
    if (gpu.starts_with("a100")) return "a100";
    if (gpu.starts_with("h100") || gpu.starts_with("h200")) return "h100";
    return gpu;
}

std::vector<CalibrationRow> read_calibration_rows(const std::vector<std::string>& files, const std::string& gpu,
                                                  std::vector<std::string>& skipped) {
    std::vector<CalibrationRow> rows;
    const std::string family = gpu_family(gpu);
    for (const auto& f : files) {
        const CsvTable t = read_csv(f);
        if (t.has_column("role") && t.has_column("category")) read_published(t, family, rows, skipped);
        else if (t.has_column("kind") && t.has_column("time_s")) read_script(t, family, rows, skipped);
        else throw InputError(f, "line 1", "expected the columns of data/measured.csv (id, role, category, ...) "
                                           "or of the measurement script (gpu, kind, ..., time_s)");
    }
    return rows;
}

double predict_row(const CalibrationRow& row, const compute::Calibration& c) { return predict(row, c); }

FitReport fit_calibration(const std::string& gpu, const std::vector<std::string>& files, const std::string& date) {
    (void)compute::find_gpu(gpu);
    FitReport rep;
    rep.rows = read_calibration_rows(files, gpu, rep.skipped);
    if (rep.rows.empty())
        throw InputError(files.empty() ? std::string() : files.front(), "",
                         "no calibrate rows for the " + gpu_family(gpu) + " family of GPU '" + gpu + "'");

    const Eigen::VectorXd prior = prior_vector();
    const auto n_rows = static_cast<Eigen::Index>(rep.rows.size());
    const fit::Residuals residuals = [&](const fit::Vector& values) {
        const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(values.data(), n_params);
        fit::Vector r(static_cast<std::size_t>(n_rows + n_params));
        const auto c = to_calibration(x, gpu);
        for (Eigen::Index i = 0; i < n_rows; ++i) {
            const auto& row = rep.rows[static_cast<std::size_t>(i)];
            r[static_cast<std::size_t>(i)] = std::log(predict(row, c) / row.measured_s);
        }
        for (int j = 0; j < n_params; ++j) r[static_cast<std::size_t>(n_rows + j)] = prior_weight * (x[j] - prior[j]);
        return r;
    };

    // Levenberg-Marquardt with Marquardt's diagonal scaling and forward differences.
    fit::Options options;
    options.differences = {.central = false, .step = 1e-6, .relative = true};
    options.max_iterations = 200;
    options.max_trials = 20;
    options.lambda = 1e-2;
    options.lambda_min = 1e-9;
    options.lambda_max = std::numeric_limits<double>::infinity();
    options.damping_floor = 1e-12;
    options.ridge = 0.0;
    options.tolerance = 1e-12;
    const fit::Result fitted = fit::levenberg_marquardt(residuals, fit::Vector(prior.data(), prior.data() + n_params), options);
    rep.iterations = fitted.iterations;
    const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(fitted.x.data(), n_params);
    rep.calibration = to_calibration(x, gpu);
    rep.calibration.date = date;
    std::string from;
    for (const auto& f : files) from += (from.empty() ? "" : ", ") + f;
    rep.calibration.fitted_from = from + " (" + std::to_string(rep.rows.size()) + " rows of the " + gpu_family(gpu) + " family)";
    double ss = 0;
    for (const auto& row : rep.rows) {
        const double p = predict(row, rep.calibration);
        rep.predicted_s.push_back(p);
        ss += std::pow(std::log(p / row.measured_s), 2);
    }
    rep.rms_log_error = std::sqrt(ss / static_cast<double>(rep.rows.size()));
    return rep;
}

}  // namespace rentsim::analysis
