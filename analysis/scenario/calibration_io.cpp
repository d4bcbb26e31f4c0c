#include "analysis/scenario/calibration_io.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "analysis/scenario/json_reader.hpp"
#include "analysis/scenario/shipped_calibrations.hpp"

namespace rentsim::analysis {

namespace {
// Accepted ranges of a calibration file's numbers: efficiencies are fractions of a peak;
// conv_eff may exceed 1 slightly (Winograd and FFT kernels beat the implicit GEMM); the
// overheads are those of a kernel launch and a training step's host work.
constexpr NumberRange calibration_ranges_table[] = {
    {"schema", 0, 1e9, ""},
    {"matmul_eff.fp32", 0, 1, ""},
    {"matmul_eff.tf32", 0, 1, ""},
    {"matmul_eff.fp16", 0, 1, ""},
    {"matmul_eff.bf16", 0, 1, ""},
    {"matmul_eff.fp8", 0, 1, ""},
    {"matmul_eff.fp4", 0, 1, ""},
    {"conv_eff", 1e-3, 4, ""},
    {"conv_eff_tf32", 1e-3, 4, ""},
    {"k_fill", 0, 1e6, "elements"},
    {"mem_eff", 1e-3, 1, ""},
    {"attention_eff", 0, 1, ""},
    {"tensor_energy_pj", 0, 100, "pJ"},
    {"kernel_overhead_us", 0, 1e4, "us"},
    {"step_overhead_us", 0, 1e8, "us"},
};

// The "matmul_eff" key of the i-th Precision.
std::string_view precision_key(std::size_t i) { return compute::to_string(static_cast<compute::Precision>(i)); }
}  // namespace

std::span<const NumberRange> calibration_number_ranges() { return calibration_ranges_table; }

compute::Calibration parse_calibration(const std::string& text, const std::string& file) {
    const Json j = parse_json_text(text, file);
    JsonSource src{file, {}, calibration_ranges_table};
    Object o(Value(j, "", src), {"schema", "gpu", "matmul_eff", "conv_eff", "conv_eff_tf32", "k_fill", "mem_eff", "attention_eff",
                                 "tensor_energy_pj", "kernel_overhead_us", "step_overhead_us", "fitted_from", "date", "fit"});
    if (o.at("schema").as_int() != 1) o.at("schema").fail("unsupported schema; this rentsim reads schema 1");
    compute::Calibration c;
    c.gpu = o.at("gpu").as_string();
    Object eff(o.at("matmul_eff"), {"fp32", "tf32", "fp16", "bf16", "fp8", "fp4"});
    for (std::size_t i = 0; i < compute::precision_count; ++i) {
        if (auto v = eff.get(precision_key(i))) c.matmul_eff[i] = v->json().is_null() ? 0.0 : v->as_fraction();
    }
    // Files written before fp4 existed: fp4 GEMMs take the fp8 efficiency, as the fit sets it.
    constexpr auto fp8 = static_cast<std::size_t>(compute::Precision::fp8), fp4 = static_cast<std::size_t>(compute::Precision::fp4);
    if (!eff.has("fp4")) c.matmul_eff[fp4] = c.matmul_eff[fp8];
    c.conv_eff = o.at("conv_eff").as_positive_number();
    // Optional: null on parts without TF32; files fitted before it existed run TF32
    // convolutions at conv_eff.
    c.conv_eff_tf32 = c.conv_eff;
    if (auto t = o.get("conv_eff_tf32")) c.conv_eff_tf32 = t->json().is_null() ? 0.0 : t->as_positive_number();
    c.k_fill = o.at("k_fill").as_nonnegative_number();
    c.mem_eff = o.at("mem_eff").as_fraction();
    if (c.mem_eff <= 0) o.at("mem_eff").fail("expected a positive fraction");
    // Optional: files fitted before FlashAttention was modelled keep the prior.
    if (auto a = o.get("attention_eff")) {
        c.attention_eff = a->as_fraction();
        if (c.attention_eff <= 0) a->fail("expected a positive fraction");
    }
    if (auto e = o.get("tensor_energy_pj")) c.tensor_energy_pj = e->as_nonnegative_number();
    c.kernel_overhead_s = o.at("kernel_overhead_us").as_nonnegative_number() * 1e-6;
    c.step_overhead_s = o.at("step_overhead_us").as_nonnegative_number() * 1e-6;
    c.fitted_from = o.at("fitted_from").as_string();
    c.date = o.at("date").as_string();
    if (auto f = o.get("fit")) (void)f->is_object();  // fit statistics: informative only
    return c;
}

compute::Calibration load_calibration(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open calibration file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_calibration(ss.str(), path);
}

std::string calibration_to_json(const compute::Calibration& c, const std::optional<CalibrationFit>& fit) {
    Json j;
    j["schema"] = 1;
    j["gpu"] = c.gpu;
    Json eff = Json::object();
    for (std::size_t i = 0; i < compute::precision_count; ++i) {
        if (c.matmul_eff[i] > 0) eff[std::string(precision_key(i))] = c.matmul_eff[i];
        else eff[std::string(precision_key(i))] = nullptr;
    }
    j["matmul_eff"] = eff;
    j["conv_eff"] = c.conv_eff;
    if (c.conv_eff_tf32 > 0) j["conv_eff_tf32"] = c.conv_eff_tf32;
    else j["conv_eff_tf32"] = nullptr;
    j["k_fill"] = c.k_fill;
    j["mem_eff"] = c.mem_eff;
    j["attention_eff"] = c.attention_eff;
    j["tensor_energy_pj"] = c.tensor_energy_pj;
    j["kernel_overhead_us"] = c.kernel_overhead_s * 1e6;
    j["step_overhead_us"] = c.step_overhead_s * 1e6;
    j["fitted_from"] = c.fitted_from;
    j["date"] = c.date;
    std::string out = j.dump(2);
    if (!fit) return out + "\n";
    // The fit's rows, one per line with six significant digits: a family fitted to hundreds of
    // microbenchmark rows stays a small file (the calibrations are compiled in, and a string
    // literal beyond 64 KiB is past what C++ compilers must accept).
    out.pop_back();  // the closing brace
    while (!out.empty() && out.back() == '\n') out.pop_back();
    out += fmt::format(",\n  \"fit\": {{\n    \"rms_log_error\": {},\n    \"rows\": [", Json(fit->rms_log_error).dump());
    for (std::size_t i = 0; i < fit->rows.size(); ++i) {
        const auto& r = fit->rows[i];
        out += fmt::format("{}\n      {{\"id\": {}, \"measured_s\": {:.6g}, \"predicted_s\": {:.6g}}}", i ? "," : "",
                           Json(r.id).dump(), r.measured_s, r.predicted_s);
    }
    out += fit->rows.empty() ? "]\n  }\n}\n" : "\n    ]\n  }\n}\n";
    return out;
}

compute::Calibration shipped_calibration(std::string_view gpu) {
    for (const auto& f : shipped_calibration_files())
        if (f.name == gpu) return parse_calibration(std::string(f.text), "models/compute/calibration/" + std::string(f.name) + ".json");
    // No file: the fit's priors (an uncalibrated part; `fitted_from` stays empty), so that a
    // catalog GPU always runs and its first calibration can be fitted.
    return compute::prior_calibration(compute::find_gpu(gpu));
}

std::vector<std::string_view> shipped_calibration_gpus() {
    std::vector<std::string_view> out;
    for (const auto& f : shipped_calibration_files()) out.push_back(f.name);
    return out;
}

}  // namespace rentsim::analysis
