#include "analysis/capacity/pools_file.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "analysis/capacity/policy.hpp"
#include "analysis/capacity/workload_class.hpp"
#include "analysis/scenario/json_reader.hpp"
#include "models/compute/gpu.hpp"
#include "models/names.hpp"
#include "models/pricing/catalog.hpp"
#include "models/pricing/spot_price.hpp"
#include "models/pricing/spot_trace.hpp"

namespace rentsim::capacity {
namespace {

using analysis::Object;
using analysis::Value;

// The accepted range of every number in a pools file.
constexpr analysis::NumberRange pools_ranges[] = {
    {"schema", 0, 1e9, ""},
    {"pools.nodes", 0, 100000, "nodes"},
    {"pools.max_nodes", 0, 100000, "nodes"},
    {"pools.startup_s", 0, 86400, "s"},
    {"pools.billing_increment_s", 1e-3, 31536000, "s"},
    {"pools.minimum_billed_s", 0, 31536000, "s"},
    {"pools.spot.mean_time_between_preemptions_h", 0.01, 1e6, "h"},
    {"pools.spot_price.offset_s", 0, 3153600000, "s"},
    {"autoscaler.queue_wait_s", 0, 31536000, "s"},
    {"autoscaler.queue_length", 0, 1e9, "jobs"},
    {"autoscaler.idle_timeout_s", 0, 31536000, "s"},
    {"preemption.checkpoint_interval_s", 1, 31536000, "s"},
    {"preemption.restart_s", 0, 86400, "s"},
    {"utilization_interval_s", 60, 31536000, "s"},
    {"seed", 0, 9007199254740992.0, ""},
    {"search.base_nodes", 0, 100000, "nodes"},
    {"search.max_nodes", 0, 100000, "nodes"},
    {"search.queue_wait_s", 0, 31536000, "s"},
};

// A `plan` search runs one replay per combination: bounded so that a typo cannot ask for days.
constexpr std::size_t max_search_points = 1000;

std::vector<std::string_view> views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

const Registry<DurationEstimate>& estimates() {
    static const Registry<DurationEstimate> r{
        "duration estimate",
        {{"user-mean", DurationEstimate::user_mean, "the mean recorded duration of the user's finished jobs"},
         {"recorded", DurationEstimate::recorded, "the recorded duration (an oracle)"}}};
    return r;
}

const Registry<Release>& releases() {
    static const Registry<Release> r{
        "release rule",
        {{"billing-aware", Release::billing_aware, "keep an idle node to the end of its paid increment"},
         {"timeout", Release::timeout, "release after the idle timeout"}}};
    return r;
}

// Fills the catalog part of `p` from (provider, instance, plan, region); `fail` reports at `at`.
void price_pool(Pool& p, bool allow_flagged, const Value& at) {
    const auto& cat = price::shipped_catalog();
    const price::CatalogRow* row = price::find_price(cat, p.provider, p.instance, p.plan, p.region);
    if (!row) at.fail("no catalog row for " + p.provider + " " + p.instance + " " + p.plan);
    if (!row->flag.empty() && !allow_flagged)
        at.fail("the catalog price of " + p.provider + " " + p.instance + " " + p.plan + " (" + row->region +
                ") is flagged: " + row->flag + "; set \"allow_flagged\": true to use it");
    p.region = row->region;
    p.gpu = row->gpu;
    p.gpus_per_node = row->gpus_per_instance;
    p.usd_per_node_hour = row->usd_per_instance_hour();
    p.price_source = row->source + " (" + row->as_of + ")";
}

// A spot price history file, relative to the pools file's folder.
std::shared_ptr<const price::SpotPriceHistory> load_history(const Value& at) {
    const std::string name = at.as_string();
    if (name.empty()) at.fail("expected the path of a spot price history (AWS DescribeSpotPriceHistory JSON)");
    std::filesystem::path path(name);
    if (path.is_relative()) path = (std::filesystem::path(at.source().file).parent_path() / path).lexically_normal();
    std::ifstream in(path, std::ios::binary);
    if (!in) at.fail("cannot open the spot price history " + path.generic_string());
    std::ostringstream ss;
    ss << in.rdbuf();
    try {
        return std::make_shared<const price::SpotPriceHistory>(price::parse_spot_price_history(ss.str(), path.generic_string()));
    } catch (const price::SpotPriceError& e) {
        throw analysis::InputError(path.generic_string(), e.pointer(), e.message());
    }
}

// The pool's `spot_price`: {"history", "zone", "offset_s", "relative"}.
void parse_spot_price(Pool& p, const Value& v) {
    if (p.kind != PoolKind::spot) v.fail("'spot_price' is a spot price history; plan '" + p.plan + "' is not spot");
    Object s(v, {"history", "zone", "offset_s", "relative"});
    SpotPrice& sp = p.spot_price;
    sp.history = load_history(s.at("history"));
    const price::SpotPriceHistory& h = *sp.history;
    if (auto z = s.get("zone")) {
        const auto names = h.zone_names();
        sp.series = h.find_zone(z->as_name("availability zone of " + h.name, names));
    } else {
        sp.series = &h.cheapest();
    }
    if (auto x = s.get("offset_s")) sp.offset_s = x->as_nonnegative_number();
    if (auto x = s.get("relative")) sp.relative = x->as_bool();
    sp.mean_usd_per_hour = sp.series->mean(h.span_s);
    if (!sp.relative && h.instance != p.instance)
        s.at("history").fail("the history prices " + h.instance + ", the pool rents " + p.instance +
                             "; set \"relative\": true to scale the pool's catalog price by the history's price over its mean");
}

Pool parse_pool(const Value& v) {
    Object o(v, {"name", "provider", "instance", "plan", "region", "allow_flagged", "nodes", "max_nodes", "startup_s",
                 "billing_increment_s", "minimum_billed_s", "spot", "spot_price"});
    Pool p;
    p.name = o.at("name").as_string();
    if (p.name.empty()) o.at("name").fail("expected a non-empty name");
    const auto& cat = price::shipped_catalog();
    p.provider = o.at("provider").as_name("provider", views(price::catalog_providers(cat)));
    p.instance = o.at("instance").as_name(p.provider + " instance", views(price::catalog_instances(cat, p.provider)));
    const Value plan_at = o.at("plan");
    p.plan = plan_at.as_name(p.instance + " plan", views(price::catalog_plans(cat, p.provider, p.instance)));
    const price::PlanKind kind = price::plan_kind(p.plan);
    if (kind == price::PlanKind::owned) plan_at.fail("'" + p.plan + "' is not rented; a pool rents its nodes");
    p.kind = kind == price::PlanKind::committed ? PoolKind::reserved
             : kind == price::PlanKind::spot    ? PoolKind::spot
                                                : PoolKind::on_demand;
    if (auto x = o.get("region"))
        p.region = x->as_name("region of '" + p.instance + "' " + p.plan,
                              views(price::catalog_regions(cat, p.provider, p.instance, p.plan)));
    const bool allow = o.has("allow_flagged") && o.at("allow_flagged").as_bool();
    price_pool(p, allow, plan_at);
    if (const auto* f = price::find_provider_facts(p.provider)) {
        p.billing_increment_s = f->billing_increment_s;
        p.minimum_billed_s = f->minimum_billed_s;
    }
    if (auto x = o.get("billing_increment_s")) p.billing_increment_s = x->as_positive_number();
    if (auto x = o.get("minimum_billed_s")) p.minimum_billed_s = x->as_nonnegative_number();
    if (auto x = o.get("startup_s")) {
        if (p.kind == PoolKind::reserved) x->fail("a reserved pool's nodes are always up; 'startup_s' is for on-demand and spot pools");
        p.startup_s = x->as_nonnegative_number();
    }
    if (auto x = o.get("nodes")) p.nodes = static_cast<int>(x->as_nonnegative_int());
    if (p.kind == PoolKind::reserved) {
        if (auto x = o.get("max_nodes"))
            x->fail("a reserved pool does not scale: its nodes are billed for the whole replay; put the burst in an "
                    "on-demand or spot pool");
        const Value n = o.at("nodes");
        if (p.nodes < 1) n.fail("expected a positive number of reserved nodes, got " + n.json().dump());
        p.max_nodes = p.nodes;
    } else {
        p.max_nodes = p.nodes;
        if (auto x = o.get("max_nodes")) {
            p.max_nodes = static_cast<int>(x->as_nonnegative_int());
            if (p.max_nodes < p.nodes)
                x->fail("expected max_nodes >= nodes (" + std::to_string(p.nodes) + "), got " + x->json().dump());
        }
        if (p.max_nodes == 0)
            o.value().fail("an empty pool: give 'nodes' (held from the start) or 'max_nodes' (added by the autoscaler)");
    }
    if (auto x = o.get("spot")) {
        if (p.kind != PoolKind::spot) x->fail("'spot' describes preemptions; plan '" + p.plan + "' is not spot");
        Object s(*x, {"mean_time_between_preemptions_h", "trace"});
        if (s.has("mean_time_between_preemptions_h") == s.has("trace"))
            s.value().fail("give one of 'mean_time_between_preemptions_h' (per node) or 'trace' (a shipped spot trace)");
        if (auto y = s.get("mean_time_between_preemptions_h")) p.preempt_mean_h = y->as_positive_number();
        if (auto y = s.get("trace")) {
            (void)y->as(price::spot_trace_registry());
            p.spot_trace = std::make_shared<const price::SpotTrace>(price::shipped_trace(y->as_string()));
        }
    } else if (p.kind == PoolKind::spot) {
        o.value().fail("a spot pool needs 'spot' {'mean_time_between_preemptions_h' or 'trace'} to model preemptions");
    }
    if (auto x = o.get("spot_price")) parse_spot_price(p, *x);
    return p;
}

// `workload_classes`: each class's workload keys, checked by compiling the class on one GPU of
// `probe_gpu` (the recorded GPU): the scenario loader's errors, at the class's pointer.
std::vector<WorkloadClass> parse_classes(const Value& v, const analysis::JsonSource& src, const std::string& probe_gpu) {
    if (!v.is_object() || v.json().empty())
        v.fail("expected an object of workload class names to {model, precision, batch_per_gpu or global_batch, ...}, got " +
               v.json().dump());
    // The class's numbers are checked by the scenario loader's ranges (workload.*), not the pools file's.
    const analysis::JsonSource unranged{src.file, {}, {}};
    std::vector<WorkloadClass> out;
    for (const auto& [name, body] : v.json().items()) {
        const std::string at = v.pointer() + "/" + analysis::json_pointer_escape(name);
        const Value cv(body, at, unranged);
        if (name.empty()) cv.fail("expected a non-empty workload class name");
        // The keys of workload_class_keys.
        Object o(cv, {"model", "precision", "framework", "attention", "batch_per_gpu", "global_batch", "micro_batch",
                      "seq_len", "parallelism"});
        WorkloadClass c;
        c.name = name;
        for (std::string_view key : workload_class_keys) {
            const auto x = o.get(key);
            if (!x) continue;
            if (x->json().is_string()) c.keys.emplace_back(std::string(key), x->as_string());
            else if (key == "model" || key == "precision" || key == "framework" || key == "attention" || key == "parallelism")
                x->fail("expected a string, got " + x->json().dump());
            else c.keys.emplace_back(std::string(key), x->as_int());
        }
        if (!o.has("model")) cv.fail("missing required key 'model' (a model of `rentsim list models`)");
        if (!o.has("batch_per_gpu") && !o.has("global_batch"))
            cv.fail("missing the batch: give 'batch_per_gpu' or 'global_batch'");
        try {
            (void)analysis::compile_scenario(class_draft_on_gpu(c, probe_gpu, 1, src.file));
        } catch (const analysis::InputError& e) {
            const std::string& where = e.where();
            if (where.starts_with("/workload/")) throw analysis::InputError(src.file, at + where.substr(9), e.message());
            if (where == "/workload") throw analysis::InputError(src.file, at, e.message());
            throw analysis::InputError(src.file, at, "on one " + probe_gpu + " (the recorded GPU): " + e.message());
        }
        out.push_back(std::move(c));
    }
    return out;
}

std::vector<WorkloadRule> parse_rules(const Value& v, std::span<const std::string_view> classes) {
    std::vector<WorkloadRule> out;
    for (const Value& item : v.as_array()) {
        Object o(item, {"workload", "user", "vc", "id", "class"});
        WorkloadRule r;
        if (auto x = o.get("workload")) r.workload = x->as_string();
        if (auto x = o.get("user")) r.user = x->as_string();
        if (auto x = o.get("vc")) r.vc = x->as_string();
        if (auto x = o.get("id")) r.id = x->as_string();
        if (r.workload.empty() && r.user.empty() && r.vc.empty() && r.id.empty())
            item.fail("a rule needs a pattern: 'workload', 'user', 'vc' or 'id' (a class for every job is "
                      "'default_workload_class')");
        r.workload_class = o.at("class").as_name("workload class", classes);
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace

std::span<const analysis::NumberRange> pools_number_ranges() { return pools_ranges; }

Pool with_instance(const Pool& pool, const std::string& instance) {
    Pool p = pool;
    p.instance = instance;
    p.region.clear();
    const price::CatalogRow* row = price::find_price(price::shipped_catalog(), p.provider, p.instance, p.plan);
    if (!row || !row->flag.empty())
        throw std::invalid_argument("no trusted catalog price for " + p.provider + " " + instance + " " + p.plan);
    if (p.spot_price.series && !p.spot_price.relative && p.spot_price.history->instance != instance)
        throw std::invalid_argument("the spot price history of pool '" + p.name + "' prices " +
                                    p.spot_price.history->instance + ", not " + instance +
                                    "; set \"relative\": true to search other instances");
    p.region = row->region;
    p.gpu = row->gpu;
    p.gpus_per_node = row->gpus_per_instance;
    p.usd_per_node_hour = row->usd_per_instance_hour();
    p.price_source = row->source + " (" + row->as_of + ")";
    return p;
}

PoolsFile parse_pools(const std::string& text, const std::string& file) {
    const analysis::Json root = analysis::parse_json_text(text, file);
    const analysis::JsonSource src{file, {}, pools_ranges};
    const Value top(root, "", src);
    if (!root.is_object()) top.fail("expected a pools object, got " + std::string(root.is_array() ? "an array" : root.dump()));
    Object o(top, {"schema", "name", "description", "pools", "scheduler", "duration_estimate", "autoscaler", "preemption",
                   "trace_gpu", "gpu_types", "workload_classes", "workload_rules", "default_workload_class",
                   "utilization_interval_s", "seed", "search"});
    const Value schema = o.at("schema");
    if (schema.as_int() != 1) schema.fail("unsupported schema " + schema.json().dump() + "; this rentsim reads schema 1");
    PoolsFile f;
    f.file = file;
    if (auto x = o.get("name")) f.name = x->as_string();
    if (auto x = o.get("description")) (void)x->as_string();
    ClusterConfig& c = f.config;

    const Value pools_at = o.at("pools");
    const std::vector<Value> pools = pools_at.as_array();
    if (pools.empty()) pools_at.fail("expected at least one pool");
    for (const Value& v : pools) {
        Pool p = parse_pool(v);
        for (const auto& other : c.pools)
            if (other.name == p.name)
                Value(v.json().at("name"), v.pointer() + "/name", src)
                    .fail("a pool named '" + p.name + "' comes earlier: names must differ");
        c.pools.push_back(std::move(p));
    }
    if (auto x = o.get("scheduler")) {
        (void)x->as(policy_registry());
        c.scheduler = x->as_string();
    }
    if (auto x = o.get("duration_estimate")) c.estimate = x->as(estimates());
    bool scalable = false;
    for (const auto& p : c.pools) scalable = scalable || p.scalable();
    if (auto x = o.get("autoscaler")) {
        if (!scalable)
            x->fail("the autoscaler has no pool to scale: give an on-demand or spot pool 'max_nodes' above its 'nodes'");
        Object a(*x, {"queue_wait_s", "queue_length", "idle_timeout_s", "release"});
        if (auto y = a.get("queue_wait_s")) c.autoscaler.queue_wait_s = y->as_nonnegative_number();
        if (auto y = a.get("queue_length")) c.autoscaler.queue_length = static_cast<int>(y->as_nonnegative_int());
        if (auto y = a.get("idle_timeout_s")) c.autoscaler.idle_timeout_s = y->as_nonnegative_number();
        if (auto y = a.get("release")) c.autoscaler.release = y->as(releases());
    }
    if (auto x = o.get("preemption")) {
        Object p(*x, {"checkpoint_interval_s", "restart_s", "priority"});
        if (auto y = p.get("checkpoint_interval_s")) c.checkpoint_interval_s = y->as_positive_number();
        if (auto y = p.get("restart_s")) c.restart_s = y->as_nonnegative_number();
        if (auto y = p.get("priority")) c.priority_preemption = y->as_bool();
    }
    const auto& gpus = compute::gpu_registry();
    if (auto x = o.get("trace_gpu")) {
        (void)x->as(gpus);
        c.trace_gpu = x->as_string();
    }
    if (auto x = o.get("gpu_types")) {
        Object g(*x, {"strict", "map", "allow"});
        if (auto y = g.get("strict")) c.gpu_type_strict = y->as_bool();
        if (auto y = g.get("allow")) {
            if (!y->is_object()) y->fail("expected an object of recorded GPU labels to lists of GPU names, got " + y->json().dump());
            for (const auto& [label, value] : y->json().items()) {
                const Value list(value, y->pointer() + "/" + analysis::json_pointer_escape(label), src);
                for (const Value& item : list.as_array()) {
                    (void)item.as(gpus);
                    c.gpu_type_allow[label].push_back(item.as_string());
                }
            }
        }
        if (auto y = g.get("map")) {
            if (!y->is_object()) y->fail("expected an object of recorded GPU labels to GPU names, got " + y->json().dump());
            for (const auto& [label, value] : y->json().items()) {
                const Value item(value, y->pointer() + "/" + analysis::json_pointer_escape(label), src);
                (void)item.as(gpus);
                c.gpu_type_map[label] = item.as_string();
            }
        }
    }
    if (!c.trace_gpu.empty() || !c.gpu_type_map.empty())
        for (std::size_t i = 0; i < c.pools.size(); ++i)
            if (c.pools[i].gpu.empty())
                pools[i].fail("durations are rescaled between GPUs, but the catalog names no GPU model for " +
                              c.pools[i].instance + "; drop 'trace_gpu' and 'gpu_types.map' to keep durations");
    if (auto x = o.get("workload_classes")) {
        // The recorded side of every factor is a GPU: the trace's, or a recorded label's.
        const std::string probe = !c.trace_gpu.empty()         ? c.trace_gpu
                                  : !c.gpu_type_map.empty()    ? c.gpu_type_map.begin()->second
                                                               : std::string();
        if (probe.empty())
            x->fail("workload classes rescale durations from the GPU they were recorded on: give 'trace_gpu' or "
                    "'gpu_types.map'");
        c.workload_classes = parse_classes(*x, src, probe);
    }
    std::vector<std::string> class_names;
    for (const auto& wc : c.workload_classes) class_names.push_back(wc.name);
    for (const char* key : {"workload_rules", "default_workload_class"})
        if (auto x = o.get(key); x && c.workload_classes.empty())
            x->fail(std::string("'") + key + "' names workload classes; the file has no 'workload_classes'");
    if (auto x = o.get("workload_rules")) c.workload_rules = parse_rules(*x, views(class_names));
    if (auto x = o.get("default_workload_class")) c.default_workload_class = x->as_name("workload class", views(class_names));
    if (auto x = o.get("utilization_interval_s")) c.utilization_interval_s = x->as_positive_number();
    if (auto x = o.get("seed")) c.seed = static_cast<std::uint64_t>(x->as_nonnegative_int());

    if (auto x = o.get("search")) {
        Object s(*x, {"base_nodes", "max_nodes", "queue_wait_s", "instances"});
        bool has_reserved = false;
        for (const auto& p : c.pools) has_reserved = has_reserved || p.kind == PoolKind::reserved;
        if (auto y = s.get("base_nodes")) {
            if (!has_reserved) y->fail("'base_nodes' sizes the first reserved pool; the file has none");
            for (const Value& v : y->as_array()) f.search.base_nodes.push_back(static_cast<int>(v.as_nonnegative_int()));
        }
        if (auto y = s.get("max_nodes")) {
            if (!scalable) y->fail("'max_nodes' sizes the first scaled pool; the file has none");
            for (const Value& v : y->as_array()) f.search.max_nodes.push_back(static_cast<int>(v.as_nonnegative_int()));
        }
        if (auto y = s.get("queue_wait_s")) {
            if (!scalable) y->fail("'queue_wait_s' sets the autoscaler; the file has no pool to scale");
            for (const Value& v : y->as_array()) f.search.queue_wait_s.push_back(v.as_nonnegative_number());
        }
        if (auto y = s.get("instances")) {
            for (const Value& v : y->as_array()) {
                const std::string provider = c.pools.front().provider;
                for (const auto& p : c.pools)
                    if (p.provider != provider)
                        v.fail("'instances' replaces every pool's instance, so the pools must share one provider");
                const std::string name = v.as_name(provider + " instance", views(price::catalog_instances(price::shipped_catalog(), provider)));
                for (const auto& p : c.pools) {
                    try {
                        const Pool q = with_instance(p, name);
                        if (!c.trace_gpu.empty() && q.gpu.empty())
                            v.fail("the catalog names no GPU model for " + name + "; durations cannot be rescaled to it");
                    } catch (const std::invalid_argument& e) {
                        if (p.spot_price.series && !p.spot_price.relative && p.spot_price.history->instance != name)
                            v.fail(e.what());
                        v.fail("no trusted catalog price for " + provider + " " + name + " " + p.plan + " (pool '" + p.name + "')");
                    }
                }
                f.search.instances.push_back(name);
            }
        }
        const std::size_t points = std::max<std::size_t>(1, f.search.base_nodes.size()) *
                                   std::max<std::size_t>(1, f.search.max_nodes.size()) *
                                   std::max<std::size_t>(1, f.search.queue_wait_s.size()) *
                                   (f.search.instances.size() + 1);
        if (points > max_search_points)
            s.value().fail("the search asks for " + std::to_string(points) + " plans; at most " +
                           std::to_string(max_search_points));
    }
    return f;
}

PoolsFile load_pools(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw analysis::InputError(path, "", "cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_pools(ss.str(), path);
}

}  // namespace rentsim::capacity
