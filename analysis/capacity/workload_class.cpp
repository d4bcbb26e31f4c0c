#include "analysis/capacity/workload_class.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "analysis/run/run.hpp"
#include "models/network/spec.hpp"
#include "models/network/topology.hpp"

namespace rentsim::capacity {
namespace {

// The nodes a reference GPU without a topology preset is put on: one node, as most GPU servers
// hold 8 (DGX-1, DGX A100, DGX H100, HGX H200 and the catalog's 8-GPU instances).
constexpr int reference_node_gpus = 8;

// The first topology preset built of `gpu` and its GPUs per node; empty when none is.
std::pair<std::string, int> preset_of_gpu(const std::string& gpu) {
    for (const auto& info : net::topology_presets()) {
        net::TopologySpec t;
        t.preset = std::string(info.name);
        try {
            const net::NodeDesign d = net::resolve_node_design(t);
            if (d.gpu == gpu) return {t.preset, d.gpus_per_node};
        } catch (const std::invalid_argument&) {
        }
    }
    return {};
}

// A job larger than a node holds whole nodes (the scheduler's gang placement): its step is
// modelled on all their GPUs, as the step model's multi-node clusters are whole nodes.
int whole_nodes(int gpus, int per_node) {
    return per_node > 0 && gpus > per_node ? (gpus + per_node - 1) / per_node * per_node : gpus;
}

// The class's workload keys, the amount of training (class_steps steps) and no price.
void workload_keys(const WorkloadClass& cls, int gpus, analysis::ScenarioDraft& d) {
    d.set("schema", std::int64_t{1}).set("name", cls.name);
    d.set("pricing.usd_per_gpu_hour", std::int64_t{0});
    std::int64_t per_step = 0;
    for (const auto& [key, value] : cls.keys) {
        d.set("workload." + key, value);
        if (key == "batch_per_gpu" && std::holds_alternative<std::int64_t>(value))
            per_step = std::get<std::int64_t>(value) * gpus;
        if (key == "global_batch" && std::holds_alternative<std::int64_t>(value)) per_step = std::get<std::int64_t>(value);
    }
    // Without a batch the loader says what is missing.
    if (per_step > 0) d.set("workload.samples", static_cast<double>(per_step * class_steps));
}

}  // namespace

analysis::ScenarioDraft class_draft_on_gpu(const WorkloadClass& cls, const std::string& gpu, int gpus,
                                           const std::string& file) {
    analysis::ScenarioDraft d;
    d.file = file;
    const auto [preset, per_node] = preset_of_gpu(gpu);
    const int n = preset.empty() ? gpus : whole_nodes(gpus, per_node);
    workload_keys(cls, n, d);
    d.set("cluster.gpu", gpu).set("cluster.gpus", std::int64_t{n});
    if (!preset.empty()) d.set("cluster.topology", preset);
    else d.set("cluster.gpus_per_node", std::int64_t{std::min(gpus, reference_node_gpus)});
    return d;
}

analysis::ScenarioDraft class_draft_on_pool(const WorkloadClass& cls, const Pool& pool, int gpus,
                                            const std::string& file) {
    analysis::ScenarioDraft d;
    d.file = file;
    const int n = whole_nodes(gpus, pool.gpus_per_node);
    workload_keys(cls, n, d);
    d.set("cluster.instance", pool.provider + "/" + pool.instance).set("cluster.gpus", std::int64_t{n});
    return d;
}

namespace {

// The text of a draft's keys: the memo's key (the file name only names messages).
std::string draft_key(const analysis::ScenarioDraft& d) {
    std::string k;
    for (const auto& [key, value] : d.keys) {
        k += key + "=";
        std::visit([&k](const auto& v) {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) k += "\"" + v + "\"";
            else k += fmt::format("{}", v);
        }, value);
        k += ";";
    }
    return k;
}

StepTime run_step(const analysis::ScenarioDraft& draft) {
    StepTime t;
    try {
        const analysis::Scenario s = analysis::compile_scenario(draft);
        // The step time alone is read: a misfit's note is the search's when the class searched.
        const analysis::Result r = analysis::run_scenario(s, analysis::figures_only());
        if (!r.fits) {
            t.problem = r.note.empty() ? fmt::format("does not fit: {:.1f} GiB per GPU of {:.1f}", r.memory_per_gpu_gib,
                                                     r.memory_available_gib)
                                       : "does not fit: " + r.note;
        } else if (!(r.iteration_s > 0)) {
            t.problem = "no step time";
        } else {
            t.step_s = r.iteration_s;
        }
    } catch (const analysis::InputError& e) {
        t.problem = e.message();
    } catch (const analysis::BudgetError& e) {
        t.problem = e.what();
    }
    return t;
}

}  // namespace

StepTime class_step_time(const analysis::ScenarioDraft& draft) {
    // Memoised for the process: `rentsim plan` replays the same trace once per plan, each replay
    // asking for the same few step times. The step model is a pure function of the draft.
    static std::mutex mutex;
    static std::map<std::string, StepTime> memo;
    const std::string key = draft_key(draft);
    {
        const std::lock_guard lock(mutex);
        if (auto it = memo.find(key); it != memo.end()) return it->second;
    }
    StepTime t = run_step(draft);
    const std::lock_guard lock(mutex);
    return memo.try_emplace(key, std::move(t)).first->second;
}

std::string_view to_string(ClassSource s) {
    switch (s) {
    case ClassSource::trace: return "the trace's workload";
    case ClassSource::rule: return "workload_rules";
    case ClassSource::default_class: return "default_workload_class";
    case ClassSource::none: break;
    }
    return "none";
}

bool glob_match(std::string_view pattern, std::string_view text) {
    // Iterative matching with one backtrack point (the last '*'): linear in practice, never
    // exponential.
    std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

std::pair<int, ClassSource> ClassDurations::class_of(const jobs::Job& job) const {
    const auto& classes = c_.workload_classes;
    const auto index = [&](const std::string& name) {
        for (std::size_t i = 0; i < classes.size(); ++i)
            if (classes[i].name == name) return static_cast<int>(i);
        return -1;
    };
    if (!job.workload.empty())
        if (const int i = index(job.workload); i >= 0) return {i, ClassSource::trace};
    for (const WorkloadRule& r : c_.workload_rules) {
        const auto ok = [](const std::string& pattern, const std::string& value) {
            return pattern.empty() || glob_match(pattern, value);
        };
        if (ok(r.workload, job.workload) && ok(r.user, job.user) && ok(r.vc, job.vc) && ok(r.id, job.id))
            return {index(r.workload_class), ClassSource::rule};
    }
    if (!c_.default_workload_class.empty()) return {index(c_.default_workload_class), ClassSource::default_class};
    return {-1, ClassSource::none};
}

const StepTime& ClassDurations::step_on_gpu(int cls, const std::string& gpu, int gpus) {
    auto [it, fresh] = on_gpu_.try_emplace({cls, gpu, gpus});
    if (fresh) it->second = class_step_time(class_draft_on_gpu(c_.workload_classes[static_cast<std::size_t>(cls)], gpu, gpus));
    return it->second;
}

const ClassFactor& ClassDurations::factor(int cls, const std::string& recorded_gpu, const Pool& pool, int gpus) {
    auto [it, fresh] = factors_.try_emplace({cls, recorded_gpu, pool.provider, pool.instance, gpus});
    if (!fresh) return it->second;
    const WorkloadClass& c = c_.workload_classes[static_cast<std::size_t>(cls)];
    ClassFactor& f = it->second;
    const StepTime& from = step_on_gpu(cls, recorded_gpu, gpus);
    auto [pt, pool_fresh] = on_pool_.try_emplace({cls, pool.provider, pool.instance, gpus});
    if (pool_fresh) pt->second = class_step_time(class_draft_on_pool(c, pool, gpus));
    const StepTime& to = pt->second;
    if (from.step_s <= 0)
        f.problem = fmt::format("workload class {} on {} GPU{} of the recorded {}: {}", c.name, gpus,
                                gpus == 1 ? "" : "s", recorded_gpu, from.problem);
    else if (to.step_s <= 0)
        f.problem = fmt::format("workload class {} on {} GPU{} of {}: {}", c.name, gpus, gpus == 1 ? "" : "s",
                                pool.instance, to.problem);
    else
        f.factor = to.step_s / from.step_s;
    return f;
}

}  // namespace rentsim::capacity
