#include "analysis/scenario/scenario.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "analysis/scenario/json_reader.hpp"
#include "models/data/pipeline.hpp"
#include "models/network/network.hpp"
#include "models/pricing/catalog.hpp"
#include "models/pricing/spot_trace.hpp"
#include "models/workloads/zoo.hpp"

namespace rentsim::analysis {

namespace {

constexpr std::string_view precisions[] = {"fp32", "tf32", "fp16", "bf16", "fp8"};
constexpr std::string_view recompute_modes[] = {"none", "selective", "full"};
constexpr std::string_view schedules[] = {"1f1b", "gpipe"};
constexpr std::string_view bert_tasks[] = {"pretraining", "squad"};
constexpr std::string_view intra_kinds[] = {"nvlink", "pcie"};
constexpr std::string_view fabrics[] = {"infiniband", "roce", "efa", "tcp"};
constexpr std::string_view explicit_plans[] = {"on-demand", "spot", "reserved", "committed", "monthly", "self-owned"};
constexpr std::string_view algorithms[] = {"auto", "ring", "tree", "hierarchical"};

std::vector<std::string_view> topology_names() {
    std::vector<std::string_view> out;
    for (const auto& t : net::topology_presets()) out.push_back(t.name);
    return out;
}

// A number as JSON writes it, for messages: 2.4655, 8.0.
std::string json_number(double x) { return Json(x).dump(); }

int to_int(const Value& v, std::int64_t x) {
    if (x > 1'000'000'000) v.fail("expected an integer up to 1000000000, got " + std::to_string(x));
    return static_cast<int>(x);
}
int positive_int(const Value& v) { return to_int(v, v.as_positive_int()); }

std::vector<std::string_view> gpu_names() {
    std::vector<std::string_view> out;
    for (const auto& g : compute::gpu_catalog()) out.push_back(g.name);
    return out;
}

std::vector<std::string_view> model_names() {
    std::vector<std::string_view> out;
    for (const auto& m : work::model_names()) out.push_back(m.name);
    return out;
}

Parallelism parse_parallelism(const Value& v) {
    Object o(v, {"tp", "pp", "dp", "sequence_parallel", "recompute", "zero", "virtual_stages", "schedule"});
    Parallelism p;
    if (auto x = o.get("tp")) p.tp = positive_int(*x);
    if (auto x = o.get("pp")) p.pp = positive_int(*x);
    if (auto x = o.get("dp")) p.dp = positive_int(*x);
    if (auto x = o.get("sequence_parallel")) p.sequence_parallel = x->as_bool();
    if (auto x = o.get("recompute")) p.recompute = x->as_name("recompute mode", recompute_modes);
    if (auto x = o.get("zero")) {
        const auto z = x->as_nonnegative_int();
        if (z > 3) x->fail("expected a ZeRO stage 0, 1, 2 or 3, got " + std::to_string(z));
        p.zero = static_cast<int>(z);
    }
    if (auto x = o.get("virtual_stages")) p.virtual_stages = positive_int(*x);
    if (auto x = o.get("schedule")) p.schedule = x->as_name("pipeline schedule", schedules);
    if (p.virtual_stages > 1 && p.pp < 2)
        o.at("virtual_stages").fail("interleaved stages need a pipeline (pp of 2 or more), got pp = " +
                                    std::to_string(p.pp));
    if (p.virtual_stages > 1 && p.schedule != "1f1b")
        o.at("virtual_stages").fail("interleaved stages need the 1f1b schedule, not '" + p.schedule + "'");
    return p;
}

WorkloadSpec parse_workload(const Value& v) {
    Object o(v, {"model", "task", "precision", "batch_per_gpu", "global_batch", "micro_batch", "bucket_mb", "fused_elementwise", "seq_len", "layers",
                 "hidden", "heads", "vocab", "ffn_hidden", "kv_heads", "parallelism", "dataset_samples", "epochs",
                 "samples", "tokens"});
    WorkloadSpec w;
    const auto names = model_names();
    w.model = o.at("model").as_name("model", names);
    const bool is_bert = w.model == "bert-base" || w.model == "bert-large";
    const bool is_gpt = w.model == "gpt";
    const bool is_preset = work::find_gpt_preset(w.model) != nullptr;
    const bool is_vision = w.model == "resnet50";

    if (auto x = o.get("precision")) w.precision = *compute::parse_precision(x->as_name("precision", precisions));
    else o.value().fail("missing required key 'precision' (one of fp32, tf32, fp16, bf16, fp8)");

    // Shape keys belong to the GPT family; BERT takes seq_len (and task); ResNet-50 none.
    for (std::string_view key : {"layers", "hidden", "heads", "vocab", "ffn_hidden", "kv_heads"}) {
        if (o.has(key) && !is_gpt)
            o.at(key).fail("'" + std::string(key) + "' applies to model 'gpt' only, not '" + w.model + "'");
    }
    if (is_gpt) {
        w.layers = positive_int(o.at("layers"));
        w.hidden = positive_int(o.at("hidden"));
        w.heads = positive_int(o.at("heads"));
        w.vocab = positive_int(o.at("vocab"));
        if (auto x = o.get("ffn_hidden")) w.ffn_hidden = positive_int(*x);
        if (auto x = o.get("kv_heads")) w.kv_heads = positive_int(*x);
        if (w.hidden % w.heads != 0)
            o.at("heads").fail("expected a divisor of hidden (" + std::to_string(w.hidden) + "), got " +
                               std::to_string(w.heads));
        if (w.kv_heads && w.heads % w.kv_heads != 0)
            o.at("kv_heads").fail("expected a divisor of heads (" + std::to_string(w.heads) + "), got " +
                                  std::to_string(w.kv_heads));
    }
    if (auto x = o.get("seq_len")) {
        if (is_vision) x->fail("'seq_len' does not apply to model '" + w.model + "'");
        w.seq_len = positive_int(*x);
        if (is_bert && w.seq_len > 512) x->fail("expected a BERT sequence length up to 512, got " + std::to_string(w.seq_len));
    } else if (is_bert || is_gpt) {
        o.value().fail("missing required key 'seq_len' (tokens per sample)");
    } else if (is_preset) {
        w.seq_len = work::find_gpt_preset(w.model)->shape.seq_len;
    }
    if (auto x = o.get("task")) {
        if (!is_bert) x->fail("'task' applies to BERT models only");
        w.task = x->as_name("BERT task", bert_tasks);
    } else if (is_bert) {
        w.task = "pretraining";
    }

    // Batch: batch_per_gpu (data parallel), or global_batch with micro_batch.
    const bool per_gpu = o.has("batch_per_gpu");
    const bool global = o.has("global_batch");
    if (per_gpu && global) o.at("global_batch").fail("give either 'batch_per_gpu' or 'global_batch', not both");
    if (!per_gpu && !global) o.value().fail("missing batch size: give 'batch_per_gpu', or 'global_batch' with 'micro_batch'");
    if (per_gpu) {
        w.batch_per_gpu = positive_int(o.at("batch_per_gpu"));
        if (auto x = o.get("micro_batch")) {
            w.micro_batch = positive_int(*x);
            if (w.batch_per_gpu % w.micro_batch != 0)
                x->fail("expected a divisor of batch_per_gpu (" + std::to_string(w.batch_per_gpu) + "), got " +
                        std::to_string(w.micro_batch));
        }
    } else {
        w.global_batch = positive_int(o.at("global_batch"));
        w.micro_batch = positive_int(o.at("micro_batch"));
    }
    if (auto x = o.get("parallelism")) w.parallelism = parse_parallelism(*x);
    if (auto x = o.get("bucket_mb")) w.bucket_mb = x->as_positive_number();
    if (auto x = o.get("fused_elementwise")) w.fused_elementwise = x->as_bool();

    // Amount of training: exactly one of dataset_samples (+ epochs), samples, tokens.
    const int forms = int(o.has("dataset_samples")) + int(o.has("samples")) + int(o.has("tokens"));
    if (forms == 0) o.value().fail("missing amount of training: give 'dataset_samples' with 'epochs', 'samples', or 'tokens'");
    if (forms > 1) {
        for (std::string_view key : {"samples", "tokens"})
            if (o.has(key)) o.at(key).fail("give one of 'dataset_samples' (with 'epochs'), 'samples' or 'tokens', not several");
    }
    if (o.has("epochs") && !o.has("dataset_samples")) o.at("epochs").fail("'epochs' needs 'dataset_samples'");
    if (auto x = o.get("dataset_samples")) {
        w.dataset_samples = x->as_positive_number();
        w.epochs = o.at("epochs").as_positive_number();
        w.samples = w.dataset_samples * w.epochs;
    } else if (auto s = o.get("samples")) {
        w.samples = s->as_positive_number();
    } else {
        const Value t = o.at("tokens");
        if (is_vision) t.fail("'tokens' needs a language model; give 'samples' for '" + w.model + "'");
        w.samples = t.as_positive_number() / w.seq_len;
    }
    return w;
}

InterNode parse_inter_node(const Value& v) {
    Object o(v, {"fabric", "gbps_per_gpu", "latency_us"});
    InterNode n;
    n.fabric = o.at("fabric").as_name("fabric", fabrics);
    n.gbps_per_gpu = o.at("gbps_per_gpu").as_positive_number();
    n.latency_us = o.at("latency_us").as_nonnegative_number();
    return n;
}

ClusterSpec parse_cluster(const Value& v) {
    Object o(v, {"gpu", "gpus", "gpus_per_node", "intra_node", "inter_node", "topology", "calibration",
                 "oversubscription", "nodes_per_leaf", "collective_algorithm"});
    ClusterSpec c;
    const auto names = gpu_names();
    c.gpu = o.at("gpu").as_name("GPU", names);
    c.gpus = positive_int(o.at("gpus"));
    if (auto x = o.get("gpus_per_node")) c.gpus_per_node = positive_int(*x);
    if (c.gpus_per_node > 16) o.at("gpus_per_node").fail("expected at most 16 GPUs per node, got " + std::to_string(c.gpus_per_node));
    if (auto x = o.get("intra_node")) c.intra_node = x->as_name("intra-node link", intra_kinds);
    if (auto x = o.get("inter_node")) c.inter_node = parse_inter_node(*x);
    if (auto x = o.get("calibration")) c.calibration = x->as_string();
    if (auto x = o.get("oversubscription")) {
        c.oversubscription = x->as_positive_number();
        if (c.oversubscription < 1.0) x->fail("expected an oversubscription ratio >= 1, got " + x->json().dump());
    }
    if (auto x = o.get("nodes_per_leaf")) c.nodes_per_leaf = positive_int(*x);
    if (auto x = o.get("collective_algorithm")) c.collective_algorithm = x->as_name("collective algorithm", algorithms);
    if (auto x = o.get("topology")) {
        const auto presets = topology_names();
        c.topology = x->as_name("topology preset", presets);
        if (o.has("intra_node") || o.has("inter_node"))
            x->fail("a topology preset fixes the node and the fabric: drop 'intra_node' and 'inter_node'");
        net::TopologySpec spec;
        spec.preset = c.topology;
        spec.gpu = c.gpu;
        try {
            const auto t = net::build_topology(spec);
            if (o.has("gpus_per_node") && c.gpus_per_node != t.gpus_per_node())
                o.at("gpus_per_node").fail("preset '" + c.topology + "' has " + std::to_string(t.gpus_per_node()) +
                                           " GPUs per node, not " + std::to_string(c.gpus_per_node));
            c.gpus_per_node = t.gpus_per_node();
        } catch (const std::invalid_argument& e) {
            x->fail(e.what());
        }
    }
    const bool multi_node = c.gpus > c.gpus_per_node;
    if (multi_node && !c.inter_node && c.topology.empty())
        o.value().fail("a cluster of " + std::to_string(c.gpus) + " GPUs spans several nodes of " +
                       std::to_string(c.gpus_per_node) + ": give 'inter_node' {fabric, gbps_per_gpu, latency_us}");
    if (multi_node && c.gpus % c.gpus_per_node != 0)
        o.at("gpus").fail("expected a multiple of gpus_per_node (" + std::to_string(c.gpus_per_node) +
                          ") for a multi-node cluster, got " + std::to_string(c.gpus));
    return c;
}

constexpr std::string_view source_kinds[] = {"local-nvme", "nfs", "object-storage"};
constexpr std::string_view staging_modes[] = {"none", "copy-to-nvme"};

std::vector<std::string_view> sample_kind_names() {
    std::vector<std::string_view> out;
    for (const auto& k : data::sample_kinds()) out.push_back(k.name);
    return out;
}

std::vector<std::string_view> instance_names() {
    std::vector<std::string_view> out;
    for (const auto& i : data::instances()) out.push_back(i.name);
    return out;
}

SourceSpec parse_source(const Value& v) {
    Object o(v, {"kind", "gbps", "latency_ms", "max_concurrency", "request_bytes"});
    SourceSpec s;
    s.kind = o.at("kind").as_name("source kind", source_kinds);
    if (auto x = o.get("gbps")) s.gbps = x->as_positive_number();
    if (auto x = o.get("latency_ms")) s.latency_ms = x->as_nonnegative_number();
    if (auto x = o.get("max_concurrency")) s.max_concurrency = positive_int(*x);
    if (auto x = o.get("request_bytes")) s.request_bytes = x->as_positive_number();
    return s;
}

DataSpec parse_data(const Value& v) {
    Object o(v, {"workers_per_gpu", "samples_per_s_per_worker", "prefetch_factor", "sample_kind", "instance",
                 "sample_bytes", "dataset_bytes", "source", "staging", "host_ram_gib", "vcpus", "gpu_decode",
                 "ingress_gbps"});
    DataSpec d;
    d.workers_per_gpu = positive_int(o.at("workers_per_gpu"));
    if (auto x = o.get("sample_kind")) {
        const auto names = sample_kind_names();
        d.sample_kind = x->as_name("sample kind", names);
    }
    const bool pipeline = !d.sample_kind.empty();
    // The storage keys describe the storage-backed pipeline, which needs to know what a sample is.
    for (std::string_view key : {"instance", "sample_bytes", "dataset_bytes", "source", "staging", "host_ram_gib",
                                 "vcpus", "gpu_decode", "ingress_gbps"})
        if (o.has(key) && !pipeline)
            o.at(key).fail("'" + std::string(key) + "' needs 'sample_kind' (one of imagenet-jpeg, pretokenized-text, "
                           "point-cloud)");
    if (pipeline) {
        if (auto x = o.get("samples_per_s_per_worker")) d.samples_per_s_per_worker = x->as_positive_number();
    } else {
        d.samples_per_s_per_worker = o.at("samples_per_s_per_worker").as_positive_number();
    }
    if (auto x = o.get("prefetch_factor")) d.prefetch_factor = positive_int(*x);
    if (auto x = o.get("instance")) {
        const auto names = instance_names();
        d.instance = x->as_name("instance", names);
    }
    if (auto x = o.get("sample_bytes")) d.sample_bytes = x->as_positive_number();
    if (auto x = o.get("dataset_bytes")) d.dataset_bytes = x->as_positive_number();
    if (auto x = o.get("source")) d.source = parse_source(*x);
    if (auto x = o.get("staging")) d.staging = x->as_name("staging mode", staging_modes);
    if (auto x = o.get("host_ram_gib")) d.host_ram_gib = x->as_positive_number();
    if (auto x = o.get("vcpus")) d.vcpus = positive_int(*x);
    if (auto x = o.get("gpu_decode")) {
        d.gpu_decode = x->as_bool();
        if (d.gpu_decode && !data::find_sample_kind(d.sample_kind)->has_gpu_decode())
            x->fail("sample kind '" + d.sample_kind + "' has no GPU decoder; GPU decode is modelled for imagenet-jpeg");
    }
    if (auto x = o.get("ingress_gbps")) d.ingress_gbps = x->as_positive_number();
    const data::Instance* inst = d.instance.empty() ? nullptr : data::find_instance(d.instance);
    if (d.staging == "copy-to-nvme") {
        const Value at = o.at("staging");
        if (!d.source) at.fail("staging 'copy-to-nvme' needs a 'source' to copy from");
        if (d.source->kind == "local-nvme") at.fail("staging 'copy-to-nvme' copies from a remote source; 'source' is already local-nvme");
        if (!inst || inst->nvme_drives == 0)
            at.fail("staging 'copy-to-nvme' needs an 'instance' with local NVMe" +
                    (inst ? "; '" + d.instance + "' has none (EBS only)" : std::string()));
    }
    if (d.source && d.source->kind == "local-nvme" && !d.source->gbps && (!inst || inst->nvme_drives == 0))
        o.at("source").fail("source 'local-nvme' needs 'gbps', or an 'instance' with local NVMe");
    return d;
}

std::vector<std::string_view> views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

OwnershipSpec parse_ownership(const Value& v) {
    Object o(v, {"purchase_usd", "depreciation_years", "power_kw", "pue", "usd_per_kwh", "operations_usd_per_year"});
    OwnershipSpec w;
    w.purchase_usd = o.at("purchase_usd").as_nonnegative_number();
    w.depreciation_years = o.at("depreciation_years").as_positive_number();
    w.power_kw = o.at("power_kw").as_nonnegative_number();
    if (auto x = o.get("pue")) {
        w.pue = x->as_positive_number();
        if (w.pue < 1.0) x->fail("expected a PUE >= 1, got " + x->json().dump());
    }
    w.usd_per_kwh = o.at("usd_per_kwh").as_nonnegative_number();
    if (auto x = o.get("operations_usd_per_year")) w.operations_usd_per_year = x->as_nonnegative_number();
    return w;
}

PricingSpec parse_pricing(const Value& v) {
    Object o(v, {"plan", "provider", "instance", "region", "allow_flagged", "usd_per_gpu_hour", "usd_per_instance_hour",
                 "price_per_gpu_hour", "currency", "usd_per_unit", "gpus_per_instance", "billing_increment_s",
                 "minimum_billed_s", "storage_usd_per_gb_month", "dataset_gb", "egress_gb", "egress_usd_per_gb",
                 "ownership"});
    PricingSpec p;
    if (auto x = o.get("ownership")) p.ownership = parse_ownership(*x);
    const bool from_catalog = o.has("provider") || o.has("instance");
    if (from_catalog) {
        for (std::string_view key : {"usd_per_gpu_hour", "usd_per_instance_hour", "price_per_gpu_hour", "currency",
                                     "usd_per_unit", "gpus_per_instance"})
            if (o.has(key))
                o.at(key).fail("'" + std::string(key) + "' comes from the catalog row; drop it, or drop 'provider' and 'instance'");
        const auto& cat = price::shipped_catalog();
        const auto providers = price::catalog_providers(cat);
        p.provider = o.at("provider").as_name("provider", views(providers));
        const auto instances = price::catalog_instances(cat, p.provider);
        p.instance = o.at("instance").as_name(p.provider + " instance", views(instances));
        auto plans = price::catalog_plans(cat, p.provider, p.instance);
        plans.push_back("self-owned");
        if (auto x = o.get("plan")) p.plan = x->as_name(p.instance + " plan", views(plans));
        const std::string catalog_plan = p.is_owned() ? "on-demand" : p.plan;
        if (auto x = o.get("region")) {
            const auto regions = price::catalog_regions(cat, p.provider, p.instance, catalog_plan);
            p.region = x->as_name("region of '" + p.instance + "' " + catalog_plan, views(regions));
        }
        const price::CatalogRow* row = price::find_price(cat, p.provider, p.instance, catalog_plan, p.region);
        if (!row) o.value().fail("no catalog row for " + p.provider + " " + p.instance + " " + catalog_plan);
        const bool allow = o.has("allow_flagged") && o.at("allow_flagged").as_bool();
        if (!row->flag.empty() && !allow && !p.is_owned())
            (o.has("plan") ? o.at("plan") : o.at("instance"))
                .fail("the catalog price of " + p.provider + " " + p.instance + " " + catalog_plan + " (" + row->region +
                      ", " + json_number(row->price_per_hour) + " " + row->currency + "/h) is flagged: " + row->flag +
                      "; set \"allow_flagged\": true to use it");
        p.region = row->region;
        p.gpus_per_instance = row->gpus_per_instance;
        p.currency = row->currency;
        p.usd_per_unit = row->usd_per_unit;
        p.usd_per_gpu_hour = row->usd_per_instance_hour() / row->gpus_per_instance;
        p.source = row->source + " (" + row->as_of + ")";
        if (const auto* f = price::find_provider_facts(p.provider)) {
            p.billing_increment_s = f->billing_increment_s;
            p.minimum_billed_s = f->minimum_billed_s;
            p.spot_notice_s = f->spot_notice_s;
            p.egress_usd_per_gb = f->egress_usd_per_gb;
        }
    } else {
        if (auto x = o.get("plan")) p.plan = x->as_name("pricing plan", explicit_plans);
        if (auto x = o.get("allow_flagged")) (void)x->as_bool();
        if (auto x = o.get("region")) x->fail("'region' needs 'provider' and 'instance'");
        if (auto x = o.get("gpus_per_instance")) p.gpus_per_instance = positive_int(*x);
        const int forms = int(o.has("usd_per_gpu_hour")) + int(o.has("usd_per_instance_hour")) + int(o.has("price_per_gpu_hour"));
        if (forms > 1)
            o.value().fail("give one of 'usd_per_gpu_hour', 'usd_per_instance_hour' or 'price_per_gpu_hour' (with 'currency'), not several");
        if (auto x = o.get("currency")) {
            p.currency = x->as_string();
            if (!o.has("usd_per_unit")) x->fail("'currency' needs 'usd_per_unit' (US dollars per unit of " + p.currency + ")");
            p.usd_per_unit = o.at("usd_per_unit").as_positive_number();
            if (!o.has("price_per_gpu_hour")) x->fail("'currency' goes with 'price_per_gpu_hour'");
        } else if (auto u = o.get("usd_per_unit")) {
            u->fail("'usd_per_unit' needs 'currency'");
        }
        if (auto x = o.get("price_per_gpu_hour")) {
            if (!o.has("currency")) x->fail("'price_per_gpu_hour' needs 'currency' and 'usd_per_unit'");
            p.usd_per_gpu_hour = x->as_nonnegative_number() * p.usd_per_unit;
        } else if (auto y = o.get("usd_per_instance_hour")) {
            p.usd_per_gpu_hour = y->as_nonnegative_number() / p.gpus_per_instance;
        } else if (!p.is_owned()) {
            p.usd_per_gpu_hour = o.at("usd_per_gpu_hour").as_nonnegative_number();
        }
    }
    if (auto x = o.get("billing_increment_s")) p.billing_increment_s = x->as_positive_number();
    if (auto x = o.get("minimum_billed_s")) p.minimum_billed_s = x->as_nonnegative_number();
    if (auto x = o.get("storage_usd_per_gb_month")) p.storage_usd_per_gb_month = x->as_nonnegative_number();
    if (auto x = o.get("dataset_gb")) p.dataset_gb = x->as_nonnegative_number();
    if (auto x = o.get("egress_gb")) p.egress_gb = x->as_nonnegative_number();
    if (auto x = o.get("egress_usd_per_gb")) p.egress_usd_per_gb = x->as_nonnegative_number();
    if (p.is_owned() && !p.ownership)
        (o.has("plan") ? o.at("plan") : o.value())
            .fail("plan 'self-owned' needs 'ownership' {purchase_usd, depreciation_years, power_kw, pue, usd_per_kwh, operations_usd_per_year}");
    return p;
}

LifecycleSpec parse_lifecycle(const Value& v) {
    Object o(v, {"provisioning_s", "staging_s", "restart", "resize_s", "checkpoint", "spot", "failures", "budget_usd",
                 "budget_alert_fraction", "deadline_h"});
    LifecycleSpec l;
    if (auto x = o.get("provisioning_s")) l.provisioning_s = x->as_nonnegative_number();
    if (auto x = o.get("staging_s")) l.staging_s = x->as_nonnegative_number();
    if (auto x = o.get("resize_s")) l.resize_s = x->as_nonnegative_number();
    if (auto x = o.get("restart")) {
        Object r(*x, {"boot_s", "container_s", "nccl_init_s"});
        if (auto y = r.get("boot_s")) l.boot_s = y->as_nonnegative_number();
        if (auto y = r.get("container_s")) l.container_s = y->as_nonnegative_number();
        if (auto y = r.get("nccl_init_s")) l.nccl_init_s = y->as_nonnegative_number();
    }
    if (auto x = o.get("checkpoint")) {
        Object c(*x, {"interval_s", "optimal_interval", "write_gb_per_s", "read_gb_per_s", "size_gb", "kept"});
        if (c.has("interval_s") && c.has("optimal_interval"))
            c.at("optimal_interval").fail("give either 'interval_s' or 'optimal_interval', not both");
        if (auto y = c.get("interval_s")) l.checkpoint_interval_s = y->as_positive_number();
        if (auto y = c.get("optimal_interval")) l.checkpoint_optimal = y->as_bool();
        if (!c.has("interval_s") && !l.checkpoint_optimal)
            c.value().fail("missing checkpoint interval: give 'interval_s' or \"optimal_interval\": true");
        l.checkpoint_write_gb_per_s = c.at("write_gb_per_s").as_positive_number();
        if (auto y = c.get("read_gb_per_s")) l.checkpoint_read_gb_per_s = y->as_positive_number();
        if (auto y = c.get("size_gb")) l.checkpoint_gb = y->as_positive_number();
        if (auto y = c.get("kept")) l.checkpoints_kept = positive_int(*y);
    }
    if (auto x = o.get("spot")) {
        Object sp(*x, {"mean_time_between_preemptions_h", "trace", "notice_s", "capacity_wait_s", "checkpoint_on_notice"});
        l.spot = true;
        const bool rate = sp.has("mean_time_between_preemptions_h");
        if (rate == sp.has("trace"))
            sp.value().fail("give one of 'mean_time_between_preemptions_h' (per instance) or 'trace' (" +
                            std::string(price::shipped_trace_names().front()) + ")");
        if (rate) l.preempt_mean_h = sp.at("mean_time_between_preemptions_h").as_positive_number();
        else {
            const auto names = price::shipped_trace_names();
            l.spot_trace = sp.at("trace").as_name("spot trace", names);
        }
        if (auto y = sp.get("notice_s")) l.notice_s = y->as_nonnegative_number();
        if (auto y = sp.get("capacity_wait_s")) l.capacity_wait_s = y->as_nonnegative_number();
        if (auto y = sp.get("checkpoint_on_notice")) l.checkpoint_on_notice = y->as_bool();
    }
    if (auto x = o.get("failures")) {
        Object f(*x, {"gpu_mtbf_h"});
        l.gpu_mtbf_h = f.at("gpu_mtbf_h").as_positive_number();
    }
    if (auto x = o.get("budget_usd")) l.budget_usd = x->as_positive_number();
    if (auto x = o.get("budget_alert_fraction")) {
        if (!o.has("budget_usd")) x->fail("'budget_alert_fraction' needs 'budget_usd'");
        l.budget_alert_fraction = x->as_fraction();
    }
    if (auto x = o.get("deadline_h")) l.deadline_h = x->as_positive_number();
    return l;
}

ElasticSpec parse_elastic(const Value& v) {
    Object o(v, {"schedule", "repeat_h"});
    ElasticSpec e;
    const auto steps = o.at("schedule").as_array();
    if (steps.empty()) o.at("schedule").fail("expected at least one {\"from_h\", \"gpus\"} step");
    for (std::size_t i = 0; i < steps.size(); ++i) {
        Object st(steps[i], {"from_h", "gpus"});
        ElasticStep s{st.at("from_h").as_nonnegative_number(), positive_int(st.at("gpus"))};
        if (i == 0 && s.from_h != 0) st.at("from_h").fail("the first step must start at from_h 0");
        if (i > 0 && s.from_h <= e.schedule.back().from_h)
            st.at("from_h").fail("expected steps in increasing from_h, got " + st.at("from_h").json().dump() + " after " +
                                 json_number(e.schedule.back().from_h));
        e.schedule.push_back(s);
    }
    if (auto x = o.get("repeat_h")) {
        e.repeat_h = x->as_positive_number();
        if (e.repeat_h <= e.schedule.back().from_h)
            x->fail("expected repeat_h after the last step (" + json_number(e.schedule.back().from_h) + " h), got " + x->json().dump());
    }
    return e;
}

Scenario parse_one(const Json& j, const JsonSource& src) {
    Value root(j, "", src);
    Object o(root, {"schema", "name", "description", "seed", "workload", "cluster", "data", "pricing", "lifecycle",
                    "elastic", "sweep"});
    const Value schema = o.at("schema");
    if (schema.as_int() != 1) schema.fail("unsupported schema " + schema.json().dump() + "; this rentsim reads schema 1");
    Scenario s;
    s.file = src.file;
    s.name = o.at("name").as_string();
    if (auto x = o.get("description")) (void)x->as_string();
    if (auto x = o.get("seed")) s.seed = static_cast<std::uint64_t>(x->as_nonnegative_int());
    s.workload = parse_workload(o.at("workload"));
    s.cluster = parse_cluster(o.at("cluster"));
    if (auto x = o.get("data")) s.data = parse_data(*x);
    s.pricing = parse_pricing(o.at("pricing"));
    if (auto x = o.get("lifecycle")) s.lifecycle = parse_lifecycle(*x);
    if (auto x = o.get("elastic")) s.elastic = parse_elastic(*x);
    if (s.pricing.is_spot() && !s.lifecycle.spot)
        o.at("pricing").fail("plan '" + s.pricing.plan +
                             "' needs 'lifecycle' {'spot': {mean_time_between_preemptions_h or trace}} to model preemptions");
    if (s.lifecycle.spot && s.lifecycle.notice_s < 0) s.lifecycle.notice_s = s.pricing.spot_notice_s;
    if (!s.pricing.instance.empty()) {
        // The instance is the node: its GPU and GPU count must be the cluster's.
        const auto* row = price::find_price(price::shipped_catalog(), s.pricing.provider, s.pricing.instance,
                                            s.pricing.is_owned() ? "on-demand" : s.pricing.plan, s.pricing.region);
        if (row && row->gpu != s.cluster.gpu)
            Value(j["pricing"]["instance"], "/pricing/instance", src)
                .fail("instance '" + s.pricing.instance + "' has " + (row->gpu.empty() ? row->gpu_label : row->gpu) +
                      " GPUs, not the cluster's '" + s.cluster.gpu + "'");
        if (row && row->gpus_per_instance != s.cluster.gpus_per_node)
            Value(j["pricing"]["instance"], "/pricing/instance", src)
                .fail("instance '" + s.pricing.instance + "' has " + std::to_string(row->gpus_per_instance) +
                      " GPUs; set cluster 'gpus_per_node' to " + std::to_string(row->gpus_per_instance) + ", not " +
                      std::to_string(s.cluster.gpus_per_node));
    }

    // Cross-section checks.
    const auto& w = s.workload;
    const auto& gpu = compute::find_gpu(s.cluster.gpu);
    if (gpu.peak_tflops[static_cast<std::size_t>(w.precision)] <= 0.0) {
        std::string valid;
        for (auto p : precisions)
            if (gpu.peak_tflops[static_cast<std::size_t>(*compute::parse_precision(p))] > 0.0)
                valid += (valid.empty() ? "" : ", ") + std::string(p);
        Value(j["workload"]["precision"], "/workload/precision", src)
            .fail("GPU '" + s.cluster.gpu + "' has no " + std::string(compute::to_string(w.precision)) +
                  " support; valid: " + valid);
    }
    const auto& par = w.parallelism;
    const int model_parallel = par.tp * par.pp;
    if (s.cluster.gpus % model_parallel != 0)
        Value(j["cluster"]["gpus"], "/cluster/gpus", src)
            .fail("expected a multiple of tp x pp (" + std::to_string(model_parallel) + "), got " +
                  std::to_string(s.cluster.gpus));
    const auto& d = s.data;
    if (!d.instance.empty()) {
        const data::Instance& inst = *data::find_instance(d.instance);
        if (inst.gpu != s.cluster.gpu || inst.gpus != s.cluster.gpus_per_node)
            Value(j["data"]["instance"], "/data/instance", src)
                .fail("instance '" + d.instance + "' has " + std::to_string(inst.gpus) + " x " + std::string(inst.gpu) +
                      " per node; the cluster has " + std::to_string(s.cluster.gpus_per_node) + " x " + s.cluster.gpu);
    }
    if (d.source || d.staging != "none") {
        const double sample_bytes = d.sample_bytes ? d.sample_bytes : data::find_sample_kind(d.sample_kind)->stored_bytes.value;
        const double dataset = d.dataset_bytes ? d.dataset_bytes : w.dataset_samples * sample_bytes;
        if (dataset <= 0)
            Value(j["data"], "/data", src)
                .fail("a 'source' needs the dataset size: give 'dataset_bytes', or 'dataset_samples' with 'epochs' in "
                      "'workload'");
        if (d.staging == "copy-to-nvme") {
            const data::Instance& inst = *data::find_instance(d.instance);
            if (dataset > inst.nvme_bytes().value)
                Value(j["data"]["staging"], "/data/staging", src)
                    .fail("the dataset (" + std::to_string(static_cast<long long>(dataset / 1e9)) +
                          " GB) does not fit the local NVMe of '" + d.instance + "' (" +
                          std::to_string(static_cast<long long>(inst.nvme_bytes().value / 1e9)) + " GB)");
        }
    }
    if (par.dp && par.dp * model_parallel != s.cluster.gpus)
        Value(j["workload"]["parallelism"]["dp"], "/workload/parallelism/dp", src)
            .fail("expected tp x pp x dp = gpus (" + std::to_string(s.cluster.gpus) + "), got " +
                  std::to_string(par.dp * model_parallel));
    return s;
}

// Sets `value` at a dotted path ("cluster.gpus") inside `j`, creating objects on the way.
// Returns the JSON pointer of the value set.
std::string set_dotted(Json& j, const std::string& dotted, const Json& value) {
    Json* cur = &j;
    std::string pointer;
    std::size_t start = 0;
    while (true) {
        const auto dot = dotted.find('.', start);
        const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        pointer += "/" + json_pointer_escape(part);
        if (dot == std::string::npos) {
            (*cur)[part] = value;
            return pointer;
        }
        if (!cur->contains(part) || !(*cur)[part].is_object()) (*cur)[part] = Json::object();
        cur = &(*cur)[part];
        start = dot + 1;
    }
}

}  // namespace

ScenarioSet parse_scenarios(const std::string& text, const std::string& file) {
    const Json root = parse_json_text(text, file);
    JsonSource src{file, {}};
    if (!root.is_object()) Value(root, "", src).fail("expected a scenario object, got " + std::string(root.is_array() ? "an array" : root.dump()));

    ScenarioSet set;
    if (!root.contains("sweep")) {
        set.points.push_back(parse_one(root, src));
        return set;
    }
    const Value sweep(root["sweep"], "/sweep", src);
    if (!sweep.is_object()) sweep.fail("expected an object of \"dotted.key\": [values], got " + sweep.json().dump());
    if (sweep.json().empty()) sweep.fail("expected at least one swept key");
    std::vector<std::pair<std::string, std::vector<Value>>> axes;
    for (const auto& [key, values] : sweep.json().items()) {
        const Value v(values, "/sweep/" + json_pointer_escape(key), src);
        if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
            v.fail("expected a dotted key such as \"cluster.gpus\", got \"" + key + "\"");
        if (key.starts_with("sweep") || key == "schema") v.fail("'" + key + "' cannot be swept");
        auto list = v.as_array();
        if (list.empty()) v.fail("expected a non-empty array of values");
        axes.emplace_back(key, std::move(list));
        SweepAxis axis{key, {}};
        for (const auto& x : axes.back().second) axis.labels.push_back(x.json().is_string() ? x.json().get<std::string>() : x.json().dump());
        set.axes.push_back(std::move(axis));
    }
    // Cartesian product, first axis slowest, in file order.
    std::vector<std::size_t> idx(axes.size(), 0);
    while (true) {
        Json j = root;
        j.erase("sweep");
        JsonSource point_src{file, {}};
        std::string label;
        for (std::size_t a = 0; a < axes.size(); ++a) {
            const auto& [key, list] = axes[a];
            const std::string ptr = set_dotted(j, key, list[idx[a]].json());
            point_src.remap[ptr] = list[idx[a]].pointer();
            label += (a ? " " : "") + key + "=" + set.axes[a].labels[idx[a]];
        }
        Scenario s = parse_one(j, point_src);
        s.point = label;
        set.points.push_back(std::move(s));
        std::size_t a = axes.size();
        while (a > 0) {
            --a;
            if (++idx[a] < axes[a].second.size()) break;
            idx[a] = 0;
            if (a == 0) return set;
        }
        if (axes.empty()) return set;
    }
}

ScenarioSet load_scenarios(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_scenarios(ss.str(), path);
}

}  // namespace rentsim::analysis
