#include "analysis/studies/breakdown.hpp"

#include <array>
#include <string_view>

#include <fmt/format.h>

#include "analysis/plan/plan.hpp"
#include "analysis/replay/load.hpp"
#include "analysis/run/run.hpp"
#include "analysis/scenario/csv.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/studies/measured_row.hpp"
#include "models/compute/step.hpp"

namespace rentsim::analysis {

namespace {

const CsvRow& row_of(const CsvTable& table, std::string_view id) {
    for (const auto& row : table.rows)
        if (row.at("id") == id) return row;
    throw InputError(table.file, "", fmt::format("no row with id '{}' (the breakdown comparison needs it)", id));
}

Scenario scenario_of(const CsvRow& row, const Overrides& what_if = {}) {
    try {
        return compile_scenario(training_draft(row, what_if));
    } catch (const RowSkip& k) {
        throw InputError(row.file, fmt::format("line {}", row.line), k.reason);
    }
}

// A step's kernel time in the four groups both a trace and the model can name.
struct Groups {
    double matmul = 0;       // convolutions, GEMMs, attention
    double norm = 0;         // batch, layer and RMS normalisation
    double elementwise = 0;  // activations, residual adds, pooling, softmax, copies, the rest
    double optimizer = 0;    // the parameter update
    double total() const { return matmul + norm + elementwise + optimizer; }
};

// cuDNN's batch-norm kernels (bn_fw_tr_*, bn_bw_*) and PyTorch's native ones (batch_norm_*,
// layer_norm_*, ...) by name: the importer files them with the elementwise kernels.
bool normalisation_kernel(std::string_view name) {
    for (std::string_view key : {"bn_fw", "bn_bw", "batch_norm", "layer_norm", "group_norm", "rms_norm"})
        if (name.find(key) != std::string_view::npos) return true;
    return false;
}

struct TraceStep {
    Groups ms;
    int step = -1;
    int kernels = 0;
};

// The kernels launched in the trace's last profiled step.
TraceStep trace_groups(const std::string& path) {
    const trace::Trace t = replay::load_trace({path});
    const trace::RankTrace& r = t.ranks.front();
    if (r.steps.empty()) throw InputError(r.file, "", "no ProfilerStep annotation: the step to break down is unknown");
    TraceStep out;
    out.step = r.steps.back().number;
    for (const auto& e : r.events) {
        if (e.kind != trace::EventKind::kernel || e.step != out.step) continue;
        const double ms = static_cast<double>(e.dur_ns) * 1e-6;
        ++out.kernels;
        switch (e.cls) {
            case trace::KernelClass::gemm:
            case trace::KernelClass::convolution:
            case trace::KernelClass::attention: out.ms.matmul += ms; break;
            case trace::KernelClass::optimizer: out.ms.optimizer += ms; break;
            default: (normalisation_kernel(e.name) ? out.ms.norm : out.ms.elementwise) += ms;
        }
    }
    return out;
}

Groups model_groups(const compute::StepCost& c) {
    using work::OpClass;
    Groups g;
    const auto ms = [&](OpClass k) { return c.by_class.of(k).value * 1e3; };
    g.matmul = ms(OpClass::conv) + ms(OpClass::matmul) + ms(OpClass::attention) + ms(OpClass::fused_attention);
    g.norm = ms(OpClass::normalization);
    g.elementwise = ms(OpClass::elementwise) + ms(OpClass::softmax) + ms(OpClass::embedding) + c.by_class.extra.value * 1e3;
    g.optimizer = c.optimizer.value * 1e3;
    return g;
}

std::string resnet_table(const CsvTable& table, const std::string& trace_path) {
    const TraceStep trace = trace_groups(trace_path);
    const Scenario s = scenario_of(row_of(table, "DLE-009"));
    const JobPlan plan = plan_job(s, cluster_network(s));
    const Groups model = model_groups(plan.step.step);
    std::string o = fmt::format(
        "ResNet-50 in fp32 on one V100 32 GB, PyTorch eager: the shipped trace's ProfilerStep#{} ({} kernels; its "
        "batch is not recorded) against the model's step per GPU for measured.csv's DLE-009 row ({}, batch {}{}):\n\n",
        trace.step, trace.kernels, plan.step.gpus == 1 ? std::string("one GPU") : fmt::format("{} GPUs", plan.step.gpus),
        plan.step.micro_batch, plan.step.gpus == 1 ? "" : " each");
    o += "| kernel time | trace (ms) | trace share | model (ms) | model share |\n|---|---:|---:|---:|---:|\n";
    const auto line = [&](std::string_view what, double t, double m) {
        o += fmt::format("| {} | {:.1f} | {:.1f}% | {:.1f} | {:.1f}% |\n", what, t, 100 * t / trace.ms.total(), m,
                         100 * m / model.total());
    };
    line("convolutions and GEMMs", trace.ms.matmul, model.matmul);
    line("batch norm", trace.ms.norm, model.norm);
    line("ReLU, residual adds, pooling, loss and other elementwise", trace.ms.elementwise, model.elementwise);
    line("optimizer (SGD with momentum)", trace.ms.optimizer, model.optimizer);
    line("all kernels", trace.ms.total(), model.total());
    return o;
}

// Korthikanti et al. 2022 (arXiv:2205.05198), Table 4: one transformer layer of their 22B
// model (Table 3: 48 layers, hidden 6144, 64 heads, s = 2048, tp 8, micro-batch 4) on eight
// A100 80 GB, forward and backward in ms.
struct PublishedLayer {
    std::string_view experiment;
    std::string_view recompute;
    bool sequence_parallel;
    double fwd_ms, bwd_ms;
};
constexpr std::array<PublishedLayer, 5> korthikanti_table4{{{"no recomputation", "none", false, 7.7, 11.9},
                                                            {"sequence parallelism", "none", true, 7.2, 11.8},
                                                            {"full recomputation", "full", false, 7.7, 19.5},
                                                            {"selective recomputation", "selective", false, 7.7, 13.2},
                                                            {"selective + sequence parallelism", "selective", true, 7.2, 13.1}}};

std::string layer_table(const CsvTable& table) {
    const CsvRow& row = row_of(table, "MEG-024");
    std::string o =
        "GPT 22B, tp 8 on eight A100 80 GB (measured.csv's MEG-024 row with each setting): one transformer layer, "
        "forward and backward of one micro-batch, against Korthikanti et al. 2022's Table 4 (overhead: the layer's "
        "time over the first row's):\n\n";
    o += "| setting | forward (paper / model, ms) | backward (paper / model, ms) | combined (paper / model, ms) | overhead "
         "(paper / model) |\n|---|---:|---:|---:|---:|\n";
    double paper_base = 0, model_base = 0;
    for (const auto& p : korthikanti_table4) {
        const Scenario s = scenario_of(row, {{"workload.parallelism.recompute", std::string(p.recompute)},
                                             {"workload.parallelism.sequence_parallel", p.sequence_parallel}});
        const StepPlan step = plan_job(s, cluster_network(s)).step;
        std::size_t i = 0;
        while (i < step.step.layers.size() && step.step.layers[i].name != "block") ++i;
        if (i == step.step.layers.size()) throw InputError(row.file, fmt::format("line {}", row.line), "no transformer block");
        const double f = step.layer_fwd[i].value * 1e3, b = step.layer_bwd[i].value * 1e3;
        const double paper = p.fwd_ms + p.bwd_ms;
        if (paper_base == 0) {
            paper_base = paper;
            model_base = f + b;
        }
        o += fmt::format("| {} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {:+.0f}% / {:+.0f}% |\n",
                         p.experiment, p.fwd_ms, f, p.bwd_ms, b, paper, f + b, 100 * (paper / paper_base - 1),
                         100 * ((f + b) / model_base - 1));
    }
    return o;
}

std::string pipeline_table(const CsvTable& table) {
    const CsvRow& row = row_of(table, "MEG-022");
    const Scenario s = scenario_of(row);
    const Result r = run_scenario(s);
    const double pp = r.pp, m = r.micro_steps;
    std::string o = fmt::format(
        "GPT-3 175B, tp {} pp {} dp {} on {} A100 80 GB, {} micro-batches per step (measured.csv's MEG-022 row: "
        "Megatron-LM's GPT-3 example, {} s per step measured, {:.2f} s predicted):\n\n",
        r.tp, r.pp, r.dp, r.gpus, r.micro_steps, row.at("value"), r.iteration_s);
    o += "| part of the step | model (s) | model share | the source states |\n|---|---:|---:|---|\n";
    const auto line = [&](std::string_view what, double v, const std::string& stated) {
        o += fmt::format("| {} | {:.2f} | {:.1f}% | {} |\n", what, v, 100 * v / r.iteration_s, stated);
    };
    line("compute", r.breakdown.compute_s, "not stated");
    line("exposed communication", r.breakdown.exposed_comm_s, "not stated");
    line("pipeline bubble", r.breakdown.pipeline_bubble_s,
         fmt::format("(p - 1) / (m + p - 1) = {:.1f}% (Narayanan et al. 2021, Sec. 2.2)", 100 * (pp - 1) / (m + pp - 1)));
    line("input stall", r.breakdown.input_stall_s, "not stated");
    return o;
}

}  // namespace

std::string breakdown_markdown(const std::string& measured, const std::string& resnet_trace) {
    const CsvTable table = read_csv(measured);
    // One table after the other, so that a missing row is always reported in the same order.
    std::string o = resnet_table(table, resnet_trace);
    o += "\n" + layer_table(table);
    o += "\n" + pipeline_table(table);
    return o;
}

}  // namespace rentsim::analysis
