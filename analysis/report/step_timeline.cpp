#include "analysis/report/step_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <string>

#include <fmt/format.h>

#include "analysis/plan/plan.hpp"
#include "analysis/run/run.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/simulate/trainer.hpp"

namespace rentsim::report {

namespace {

using analysis::StepActivity;
using analysis::StepSpan;

bool on_loader(StepActivity k) {
    return k == StepActivity::batch || k == StepActivity::fetch || k == StepActivity::decode || k == StepActivity::copy;
}

std::string span_name(const StepSpan& s, int micro_steps, int buckets, bool param_gather) {
    const auto micro = [&](int i) { return micro_steps > 1 ? fmt::format(" (micro-batch {})", i + 1) : std::string(); };
    switch (s.kind) {
        case StepActivity::micro_batch: return fmt::format("forward + backward{}", micro(s.index));
        case StepActivity::input_wait: return "input wait";
        case StepActivity::pipeline_bubble: return "pipeline bubble";
        case StepActivity::forward: return "forward" + micro(s.index);
        case StepActivity::backward:
            return param_gather && s.index == buckets - 1 ? "after backward" : fmt::format("backward: bucket {}", s.index);
        case StepActivity::gradient_comm:
            return param_gather && s.index == buckets - 1 ? "parameter all-gather" : fmt::format("bucket {} reduction", s.index);
        case StepActivity::optimizer: return "optimizer";
        case StepActivity::step_overhead: return "step overhead";
        case StepActivity::rollout: return "rollout (generate and score)";
        case StepActivity::batch: return fmt::format("batch {}", s.batch);
        case StepActivity::fetch: return "fetch";
        case StepActivity::decode: return "decode";
        case StepActivity::copy: return "copy to GPU";
    }
    return "?";
}

std::string category(StepActivity k) {
    if (on_loader(k)) return "input";
    if (k == StepActivity::gradient_comm) return "communication";
    if (k == StepActivity::input_wait || k == StepActivity::pipeline_bubble) return "idle";
    if (k == StepActivity::rollout) return "rollout";
    return "compute";
}

// The "layers" track, with one pipeline stage: each layer's forward and backward as the
// compute model times them (StepCost::layers), laid end to end from the start of the phase
// that runs them; what the phase holds beyond them (tensor-parallel collectives, a ZeRO-3
// gather not hidden) follows at its end. Several stages hold parts of layers' time in
// slots and are not detailed.
void add_layers(Timeline& t, const analysis::StepPlan& p, const analysis::StepRecording& rec, sim::Time origin) {
    const auto& layers = p.step.layers;
    if (p.pp != 1 || layers.empty()) return;
    std::vector<std::string> names;
    std::map<std::string_view, int> count, seen;
    for (const auto& l : layers) ++count[l.name];
    for (const auto& l : layers)
        names.push_back(count[l.name] > 1 ? fmt::format("{} {}", l.name, seen[l.name]++) : std::string(l.name));
    // Lays the layers (backward: in reverse) from `start` until `end`; returns where it stopped.
    // Boundaries are the running sum of layer seconds rounded to ns, as the phase was, times
    // `stretch`: the backward runs slower while reductions overlap it (overlap contention).
    const auto lay = [&](sim::Time start, sim::Time end, bool backward, double stretch = 1.0) {
        sim::Time at = start;
        double sum = 0;
        for (std::size_t k = 0; k < layers.size() && at < end; ++k) {
            const std::size_t i = backward ? layers.size() - 1 - k : k;
            sum += (backward ? layers[i].bwd : layers[i].fwd).value * stretch;
            const sim::Time next = std::min(end, start + static_cast<sim::Time>(std::llround(sum * 1e9)));
            if (next > at)
                t.spans.push_back({0, "layers", names[i] + (backward ? " backward" : " forward"), "layer", at - origin, next - at, 0, {}});
            at = std::max(at, next);
        }
        return at;
    };
    sim::Time bwd_start = -1, bwd_end = -1;
    for (const auto& sp : rec.spans) {
        if (sp.kind == StepActivity::micro_batch) lay(lay(sp.start, sp.end, false), sp.end, true);
        if (sp.kind == StepActivity::forward) lay(sp.start, sp.end, false);
        if (sp.kind == StepActivity::backward) {
            if (bwd_start < 0) bwd_start = sp.start;
            bwd_end = std::max(bwd_end, sp.end);
        }
    }
    if (bwd_start >= 0) {
        double layers_bwd = 0;
        for (const auto& l : layers) layers_bwd += l.bwd.value;
        const double span = static_cast<double>(bwd_end - bwd_start) * 1e-9;
        lay(bwd_start, bwd_end, true, layers_bwd > 0 && span > layers_bwd ? span / layers_bwd : 1.0);
    }
}

}  // namespace

StepTimeline step_timeline(const analysis::Scenario& s) {
    const net::Network network = analysis::cluster_network(s);
    std::optional<analysis::Layout> searched;
    if (s.workload.parallelism.search) {
        const auto search = analysis::search_scenario_layout(s, network);
        if (!search.best)
            throw analysis::InputError(s.file, s.point, "no layout fits, so there is no step to show: " + search.smallest_change);
        searched = search.best->layout;
    }
    const analysis::JobPlan job = analysis::plan_job(s, network, searched ? &*searched : nullptr);
    const analysis::StepPlan& p = job.step;
    const analysis::TrainingPlan& plan = p.training;
    analysis::StepRecording rec;
    const analysis::Timeline tl = analysis::simulate_training(plan, s.seed, nullptr, &rec);

    StepTimeline out;
    out.step = rec.step;
    out.step_ns = rec.end - rec.start;
    out.iteration_s = static_cast<double>(tl.period_time) / static_cast<double>(tl.period ? tl.period : 1) * 1e-9;
    // The step fills the file: 0 is its start, and loader spans reaching outside it are clipped.
    const sim::Time origin = rec.start;
    out.offset_ns = origin;

    const int zero = searched ? searched->zero : s.workload.parallelism.zero;
    // ZeRO-1/2 all-gathers the updated parameters as one more "bucket" after backward (plan.hpp).
    const bool param_gather = (zero == 1 || zero == 2) && p.dp * p.cp > 1;
    const int buckets = static_cast<int>(plan.bucket_bwd.size());

    Timeline& t = out.timeline;
    const std::string who = s.point.empty() ? s.name : s.name + ", " + s.point;
    t.process_names.push_back(
        p.pp > 1 ? fmt::format("a rank of the slowest of {} pipeline stages, {} GPUs ({})", p.pp, p.gpus, who)
                 : fmt::format("rank 0 of {} GPUs, all alike ({})", p.gpus, who));

    // Spans grouped by track, so that the tracks come in this order: step, compute,
    // communication, loader workers.
    std::uint64_t next_id = 1;
    std::vector<std::uint64_t> ids(rec.spans.size(), 0);
    t.spans.push_back({0, "step", fmt::format("step {}", rec.step + 1), "step", rec.start - origin, out.step_ns, next_id++,
                       {{"step_ms", fmt::format("{:.6f}", static_cast<double>(out.step_ns) * 1e-6)},
                        {"mean_step_ms", fmt::format("{:.6f}", out.iteration_s * 1e3)},
                        {"micro_batches", std::to_string(plan.micro_steps)}}});
    const auto add = [&](std::size_t i, std::string thread) {
        const StepSpan& sp = rec.spans[i];
        const sim::Time from = std::max(sp.start, rec.start), to = std::min(sp.end, rec.end);
        if (to <= from) return;  // nothing to see: outside the step, or empty (a reduction on one GPU)
        ids[i] = next_id++;
        TimelineSpan span{0, std::move(thread), span_name(sp, plan.micro_steps, buckets, param_gather), category(sp.kind),
                          from - origin, to - from, ids[i], {}};
        if (sp.batch >= 0) span.args.push_back({"batch", std::to_string(sp.batch)});
        if (from != sp.start || to != sp.end)
            span.args.push_back({"whole_span_ms", fmt::format("{:.6f} to {:.6f}", static_cast<double>(sp.start - origin) * 1e-6,
                                                              static_cast<double>(sp.end - origin) * 1e-6)});
        if (sp.kind == StepActivity::micro_batch || sp.kind == StepActivity::forward || sp.kind == StepActivity::backward)
            if (plan.micro_comm > 0)
                span.args.push_back({"blocking_comm_per_micro_batch_ms", fmt::format("{:.6f}", static_cast<double>(plan.micro_comm) * 1e-6)});
        t.spans.push_back(std::move(span));
    };
    for (std::size_t i = 0; i < rec.spans.size(); ++i)
        if (!on_loader(rec.spans[i].kind) && rec.spans[i].kind != StepActivity::gradient_comm) add(i, "compute");
    add_layers(t, p, rec, origin);
    for (std::size_t i = 0; i < rec.spans.size(); ++i)
        if (rec.spans[i].kind == StepActivity::gradient_comm) add(i, "communication");
    for (int w = 0; w < plan.workers; ++w)
        for (std::size_t i = 0; i < rec.spans.size(); ++i)
            if (on_loader(rec.spans[i].kind) && rec.spans[i].worker == w) add(i, fmt::format("loader worker {}", w));

    // Arrows: built batch -> its consumer; backward -> its bucket's reduction; the last
    // reduction -> the optimizer.
    const auto find = [&](auto pred) -> std::uint64_t {
        for (std::size_t i = 0; i < rec.spans.size(); ++i)
            if (ids[i] != 0 && pred(rec.spans[i])) return ids[i];
        return 0;
    };
    std::uint64_t last_comm = 0, optimizer = find([](const StepSpan& x) { return x.kind == StepActivity::optimizer; });
    sim::Time last_comm_end = -1;
    for (std::size_t i = 0; i < rec.spans.size(); ++i) {
        const StepSpan& sp = rec.spans[i];
        if (ids[i] == 0) continue;
        if ((sp.kind == StepActivity::micro_batch || sp.kind == StepActivity::forward) && sp.batch >= 0) {
            // From the batch's last stage (the hand-over), else the batch: a flow binds to the
            // innermost slice at its timestamp, and a batch's first stage starts with it.
            std::uint64_t from = 0;
            sim::Time last_end = -1;
            for (std::size_t k = 0; k < rec.spans.size(); ++k) {
                const StepSpan& x = rec.spans[k];
                if (ids[k] != 0 && on_loader(x.kind) && x.kind != StepActivity::batch && x.batch == sp.batch && x.end > last_end) {
                    last_end = x.end;
                    from = ids[k];
                }
            }
            if (!from) from = find([&](const StepSpan& x) { return x.kind == StepActivity::batch && x.batch == sp.batch; });
            if (from) t.flows.push_back({from, ids[i]});
        }
        if (sp.kind == StepActivity::gradient_comm) {
            if (auto from = find([&](const StepSpan& x) { return x.kind == StepActivity::backward && x.index == sp.index; }))
                t.flows.push_back({from, ids[i]});
            if (sp.end > last_comm_end) {
                last_comm_end = sp.end;
                last_comm = ids[i];
            }
        }
    }
    if (last_comm != 0 && optimizer != 0) t.flows.push_back({last_comm, optimizer});

    // The communication stream's occupancy: 1 from a reduction's grant to its end (reductions
    // run one at a time, back to back where they queue).
    std::vector<std::pair<sim::Time, sim::Time>> busy;
    for (const auto& sp : rec.spans)
        if (sp.kind == StepActivity::gradient_comm && sp.end > sp.start) busy.push_back({sp.start - origin, sp.end - origin});
    std::sort(busy.begin(), busy.end());
    const std::string counter = "communication stream busy";
    t.counters.push_back({0, counter, 0, 0.0});
    for (std::size_t i = 0; i < busy.size();) {
        const sim::Time from = busy[i].first;
        sim::Time to = busy[i].second;
        for (++i; i < busy.size() && busy[i].first <= to; ++i) to = std::max(to, busy[i].second);
        if (from == 0) t.counters.front().value = 1.0;
        else t.counters.push_back({0, counter, from, 1.0});
        t.counters.push_back({0, counter, to, 0.0});
    }
    return out;
}

}  // namespace rentsim::report
