#include "analysis/scenario/measurements.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "analysis/scenario/csv.hpp"
#include "analysis/scenario/input_error.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/workloads/zoo.hpp"

namespace rentsim::analysis {

namespace {

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
        const auto prec = compute::parse_precision(r.at("precision"));
        CalibrationRow row;
        row.id = id;
        row.gpu = gpu;
        // Training rows are read by the calibration study, which builds their scenarios.
        if (r.at("metric") == "gemm_tflops") {
            if (!prec) { skipped.push_back(id + ": no precision"); continue; }
            if (!parse_gemm_shape(r.at("notes"), row.m, row.n, row.k)) { skipped.push_back(id + ": GEMM shape not stated"); continue; }
            row.kind = RowKind::gemm;
            row.precision = *prec;
            row.measured_s = 2.0 * row.m * row.n * row.k / (need(r, "value", 1e-6, 1e6) * 1e12);
        } else {
            continue;  // training rows (analysis/studies), spec sheets, collectives and decode rates
        }
        rows.push_back(row);
    }
}

void read_script(const CsvTable& t, const std::string& family, std::vector<CalibrationRow>& rows,
                 std::vector<std::string>& skipped) {
    for (const auto& r : t.rows) {
        const std::string& gpu = r.at("gpu");
        if (gpu_family(gpu) != family) continue;
        // The file's name without its folders: ids stay short in the calibration file.
        const std::string id = std::filesystem::path(t.file).filename().string() + ":" + std::to_string(r.line);
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
        } else if (row.kind == RowKind::attention) {
            // One FlashAttention kernel (or a forward and its backward, "fwdbwd", timed
            // together): the script's FLOPs (4 b h s^2 d, halved when causal, x3.5 with the
            // backward) and minimum traffic; `batch` is b x heads, one block per 128 queries.
            const double heads_batch = optional_cell(r, "batch", 1, 1e7, 1);
            const double seq = need(r, "seq_len", 1, 4194304);
            row.flops = need(r, "flops", 1, 1e18);
            row.bytes = need(r, "bytes", 1, 1e13);
            row.query_blocks = heads_batch * std::ceil(seq / compute::tile_edge);
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
                                      {"attention", RowKind::attention, "a FlashAttention kernel (forward, or forward and backward)"},
                                      {"launch", RowKind::launch, "an empty kernel's GPU time"},
                                      {"step", RowKind::step, "seconds per sample of a training step"}}};
    return r;
}

std::string gpu_family(const std::string& gpu) {
    const compute::GpuSpec* g = compute::lookup_gpu(gpu);
    return g ? std::string(g->family) : gpu;
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

}  // namespace rentsim::analysis
