#include "analysis/studies/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <Eigen/Dense>

#include "analysis/run/run.hpp"
#include "analysis/scenario/csv.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/studies/measured_row.hpp"
#include "models/compute/step.hpp"
#include "models/fit/levenberg_marquardt.hpp"
#include "models/workloads/zoo.hpp"

namespace rentsim::analysis {

namespace {

using compute::Precision;

// Parameter vector, in a transformed space where any real value is valid:
// efficiencies through a logistic, positive quantities through exp.
enum Param : int { p_fp32, p_tf32, p_half, p_fp8, p_conv, p_conv_tf32, p_kfill, p_mem, p_kernel, p_step, p_attn, p_power, n_params };

// Weak priors (compute::prior_*, gpu_model.hpp): their spread (one unit in the transformed
// space) is wide enough that a handful of rows overrides them.
constexpr double prior_weight = 0.1;
// The host's time per step outside kernels (the optimizer's launches, the batch hand-off,
// the Python loop) is a few milliseconds in PyTorch training loops; held close to its prior
// so that it cannot absorb what the step model misses on large steps (a 100 ms "overhead"
// would then slow every small step).
constexpr double step_prior_weight = 2.0;

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double logit(double p) { return std::log(p / (1.0 - p)); }

// The tensor energy's prior (GpuModel::power_clock): half the least board power per 16-bit
// tensor TFLOP/s among the family's parts, pJ, so that at the prior every part has at least
// twice the power its tensor cores draw at the boost clock (x <= 0.5, clock >= 0.99) and
// only rows of parts that run slower than their peak says pull it up. The fitted parameter is
// the log of the energy over this scale.
double family_energy_scale(std::string_view family) {
    double m = 1e9;
    for (const auto& g : compute::gpu_catalog()) {
        const double half = compute::half_peak(g) / units::tflops_per_s(1.0);
        if (g.family == family && half > 0 && g.tdp_w > 0) m = std::min(m, g.tdp_w / half);
    }
    return 0.5 * m;
}

compute::Calibration to_calibration(const Eigen::VectorXd& x, const std::string& gpu) {
    compute::Calibration c;
    c.gpu = gpu;
    const auto& spec = compute::find_gpu(gpu);
    auto eff = [&](Precision p, int i) {
        return spec.has(p) ? logistic(x[i]) : 0.0;
    };
    c.matmul_eff[0] = eff(Precision::fp32, p_fp32);
    c.matmul_eff[1] = eff(Precision::tf32, p_tf32);
    c.matmul_eff[2] = eff(Precision::fp16, p_half);
    c.matmul_eff[3] = eff(Precision::bf16, p_half);
    c.matmul_eff[4] = eff(Precision::fp8, p_fp8);
    // No measurement trains in fp4: its block-scaled GEMMs take the fitted fp8 efficiency (the
    // same tensor-core pipeline at twice the rate), stated as borrowed in the README.
    c.matmul_eff[5] = eff(Precision::fp4, p_fp8);
    c.conv_eff = logistic(x[p_conv]);
    c.conv_eff_tf32 = spec.has(Precision::tf32) ? logistic(x[p_conv_tf32]) : 0.0;
    c.k_fill = std::exp(x[p_kfill]);
    c.mem_eff = logistic(x[p_mem]);
    c.kernel_overhead_s = std::exp(x[p_kernel]);
    c.step_overhead_s = std::exp(x[p_step]);
    c.attention_eff = logistic(x[p_attn]);
    c.tensor_energy_pj = std::exp(x[p_power]) * family_energy_scale(spec.family);  // > 0
    return c;
}

Eigen::VectorXd prior_vector() {
    Eigen::VectorXd x(n_params);
    x[p_fp32] = x[p_tf32] = x[p_half] = x[p_fp8] = logit(compute::prior_matmul_eff);
    x[p_conv] = x[p_conv_tf32] = logit(compute::prior_conv_eff);
    x[p_kfill] = std::log(compute::prior_k_fill);
    x[p_mem] = logit(compute::prior_mem_eff);
    x[p_kernel] = std::log(compute::prior_kernel_overhead_s);
    x[p_step] = std::log(compute::prior_step_overhead_s);
    x[p_attn] = logit(compute::Calibration{}.attention_eff);
    x[p_power] = 0.0;  // family_energy_scale
    return x;
}

// The nearest fitted family of a family without calibrate rows: the same vendor's closest
// architecture (Turing's tensor cores are Volta's; CDNA3 is priced as Hopper, its peer part).
const std::map<std::string, std::string, std::less<>> borrow_from{{"turing", "volta"}, {"cdna3", "hopper"}};

std::string gpu_of_family(const std::string& family) {
    for (const auto& g : compute::gpu_catalog())
        if (g.family == family) return std::string(g.name);
    return family;
}

// Rows of one family come from different software stacks; a group that the model does not
// describe (a slower fork, an unusual batch) must not pull every efficiency with it. The fit
// minimises the Cauchy loss c^2 log(1 + (r / c)^2) of each log residual r, written as a
// residual for least squares (Black and Rangarajan 1996; Triggs et al. 2000, Sec. 6.8): it is
// r for small r and grows only logarithmically beyond c.
constexpr double robust_scale = 0.15;  // log residual at which a row starts to count less (about 15%)

double robust(double r) {
    const double c = robust_scale;
    return std::copysign(c * std::sqrt(std::log1p((r / c) * (r / c))), r);
}

// A training metric as seconds per unit, so that every row's residual is a log ratio of times.
double seconds_per_unit(const std::string& metric, double value) {
    return metric == "iteration_s" || metric == "time_to_train_s" ? value : 1.0 / value;
}


// Calibrate training rows of the family (trust high and medium: low rows are not fitted),
// each as the scenario it describes.
void add_training_rows(const std::vector<std::string>& files, const std::string& family,
                       std::vector<CalibrationRow>& rows, std::vector<std::string>& skipped) {
    for (const auto& f : files) {
        const CsvTable t = read_csv(f);
        if (!t.has_column("role") || !t.has_column("metric")) continue;  // the measurement script's CSV
        for (const CsvRow& r : t.rows) {
            if (r.at("role") != "calibrate" || !is_training_row(r) || r.at("trust") == "low") continue;
            const std::string& gpu = r.at("gpu");
            if (gpu.empty() || gpu_family(gpu) != family) continue;
            const std::string id = r.at("id");
            // A value that is not a positive number is an error in the file, never a row to skip.
            const auto value = r.number("value");
            if (!value || !(*value > 0) || !std::isfinite(*value))
                throw InputError(f, "line " + std::to_string(r.line),
                                 "column 'value': expected a positive number, got '" + r.at("value").substr(0, 32) + "'");
            try {
                CalibrationRow row;
                row.id = id;
                row.gpu = gpu;
                row.kind = RowKind::step;
                row.metric = r.at("metric");
                row.scenario = std::make_shared<const Scenario>(compile_scenario(training_draft(r)));
                row.harness = harness_of_row(r);
                row.measured_s = seconds_per_unit(row.metric, *value);
                rows.push_back(std::move(row));
            } catch (const RowSkip& k) {
                skipped.push_back(id + ": " + k.reason);
            } catch (const InputError& e) {
                skipped.push_back(id + ": " + e.message());
            }
        }
    }
}

// Per-row predicted time, for the row's own GPU part with the shared efficiencies.
double predict(const CalibrationRow& row, compute::Calibration c) {
    const auto& spec = compute::find_gpu(row.gpu);
    c.gpu = row.gpu;
    const compute::GpuModel gpu(spec, c);
    if (row.scenario) {
        // The row's scenario under the trial calibration: a copy differing only there.
        Scenario s = *row.scenario;
        s.cluster.calibration = c;
        return seconds_per_unit(row.metric, training_metric(row.metric, s, run_scenario(s, figures_only()), row.harness));
    }
    switch (row.kind) {
        case RowKind::gemm: return gpu.gemm_time(row.m, row.n, row.k, row.batch, row.precision).value;
        case RowKind::copy:
        case RowKind::elementwise: return gpu.stream_time(units::Bytes{row.bytes}).value;
        case RowKind::attention: return gpu.attention_time(row.flops, row.query_blocks, row.bytes, row.precision).value;
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

}  // namespace

double predict_row(const CalibrationRow& row, const compute::Calibration& c) { return predict(row, c); }

FitReport fit_calibration(const std::string& gpu, const std::vector<std::string>& files, const std::string& date) {
    (void)compute::find_gpu(gpu);
    FitReport rep;
    rep.rows = read_calibration_rows(files, gpu, rep.skipped);
    add_training_rows(files, gpu_family(gpu), rep.rows, rep.skipped);
    std::string borrowed;
    if (rep.rows.empty()) {
        // A family without calibrate rows takes the fit of its nearest fitted family: the
        // rows of that family, each predicted on its own part.
        if (const auto it = borrow_from.find(gpu_family(gpu)); it != borrow_from.end()) {
            const std::string donor = gpu_of_family(it->second);
            rep.rows = read_calibration_rows(files, donor, rep.skipped);
            add_training_rows(files, it->second, rep.rows, rep.skipped);
            borrowed = it->second;
        }
    }
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
            r[static_cast<std::size_t>(i)] = robust(std::log(predict(row, c) / row.measured_s));
        }
        for (int j = 0; j < n_params; ++j)
            r[static_cast<std::size_t>(n_rows + j)] = (j == p_step ? step_prior_weight : prior_weight) * (x[j] - prior[j]);
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
    // Near the prior the power limit binds on no part, so the fit barely feels the tensor
    // energy and can stop there with a family whose low-power parts run slow (Ada's RTX 6000
    // against its RTX 4090). It is started from 1, 2, 4 and 8 times the prior's energy, and
    // the fit of least cost is kept.
    fit::Result fitted;
    double best = std::numeric_limits<double>::infinity();
    for (const double start : {0.0, std::log(2.0), std::log(4.0), std::log(8.0)}) {
        Eigen::VectorXd x0 = prior;
        x0[p_power] = start;
        fit::Result r = fit::levenberg_marquardt(residuals, fit::Vector(x0.data(), x0.data() + n_params), options);
        if (r.cost < best) {
            best = r.cost;
            fitted = std::move(r);
        }
    }
    rep.iterations = fitted.iterations;
    const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(fitted.x.data(), n_params);
    rep.calibration = to_calibration(x, gpu);
    rep.calibration.date = date;
    std::string from;
    for (const auto& f : files) from += (from.empty() ? "" : ", ") + f;
    rep.calibration.fitted_from =
        borrowed.empty() ? from + " (" + std::to_string(rep.rows.size()) + " rows of the " + gpu_family(gpu) + " family)"
                         : from + " (" + std::to_string(rep.rows.size()) + " rows of the " + borrowed + " family, borrowed: no calibrate rows of the " +
                               gpu_family(gpu) + " family)";
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
