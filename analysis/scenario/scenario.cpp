#include "analysis/scenario/scenario.hpp"

#include <cmath>
#include <filesystem>
#include <system_error>
#include <set>
#include <fstream>
#include <sstream>

#include "analysis/scenario/calibration_io.hpp"
#include "analysis/scenario/json_reader.hpp"
#include "models/data/pipeline.hpp"
#include "models/network/network.hpp"
#include "models/pricing/catalog.hpp"
#include "models/pricing/spot_trace.hpp"
#include "models/registry.hpp"
#include "models/workloads/zoo.hpp"

namespace rentsim::analysis {

namespace {

// Enumerated scenario values: one registry each, the loader's only way to read them.
const Registry<compute::Recompute>& recompute_modes() {
    static const Registry<compute::Recompute> r{"recompute mode",
                                                {{"none", compute::Recompute::none, "stash every activation"},
                                                 {"selective", compute::Recompute::selective,
                                                  "replay the attention core (Korthikanti et al. 2022)"},
                                                 {"full", compute::Recompute::full, "replay each layer's forward"},
                                                 {"op", compute::Recompute::op,
                                                  "torchtitan's op-level policy: save matmul and attention outputs, "
                                                  "replay every second matmul and every other op"}}};
    return r;
}
const Registry<bool>& stage_splits() {
    static const Registry<bool> r{"stage split",
                                  {{"even", true, "transformer layers evenly per stage, embedding first, output layer last (Megatron-LM)"},
                                   {"balanced", false, "contiguous stages balanced by time (the smallest largest stage)"}}};
    return r;
}
const Registry<bool>& backward_prefetches() {
    static const Registry<bool> r{"backward prefetch",
                                  {{"pre", false, "each layer's backward all-gather overlaps the gradient computation of the layer above it (FSDP's BACKWARD_PRE, FSDP2)"},
                                   {"post", true, "each layer's backward all-gather starts once the layer above it has its gradients (FSDP's BACKWARD_POST)"}}};
    return r;
}
const Registry<Schedule>& schedules() {
    static const Registry<Schedule> r{"pipeline schedule",
                                      {{"1f1b", Schedule::one_f_one_b, "one forward, one backward (PipeDream-Flush)"},
                                       {"gpipe", Schedule::gpipe, "all forwards, then all backwards"}}};
    return r;
}
enum class BertTask { pretraining, squad };
const Registry<BertTask>& bert_tasks() {
    static const Registry<BertTask> r{"BERT task",
                                      {{"pretraining", BertTask::pretraining, "masked LM and next-sentence heads"},
                                       {"squad", BertTask::squad, "SQuAD fine-tuning head"}}};
    return r;
}
const Registry<std::string_view>& intra_kinds() {
    static const Registry<std::string_view> r{"intra-node link",
                                              {{"nvlink", "nvlink", "NVLink (NVSwitch or mesh, by the GPU)"},
                                               {"pcie", "pcie", "PCIe switches only"}}};
    return r;
}
const Registry<PlanKind>& explicit_plans() {
    static const Registry<PlanKind> r{"pricing plan",
                                      {{"on-demand", PlanKind::on_demand, "billed per use"},
                                       {"spot", PlanKind::spot, "billed per use, preemptible"},
                                       {"reserved", PlanKind::committed, "billed every hour of the term"},
                                       {"committed", PlanKind::committed, "billed every hour of the term"},
                                       {"monthly", PlanKind::committed, "billed every hour of the month"},
                                       {"self-owned", PlanKind::owned, "bought: depreciation, power, operations"}}};
    return r;
}
const Registry<Staging>& staging_modes() {
    static const Registry<Staging> r{"staging mode",
                                     {{"none", Staging::none, "stream from the source every epoch"},
                                      {"copy-to-nvme", Staging::copy_to_nvme, "copy the dataset to local NVMe first"}}};
    return r;
}

std::vector<std::string_view> views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

// The accepted range of every numeric key (README, "Accepted ranges"). Bounds come from
// physics and from what the simulator represents: the int64 nanosecond clock spans 292
// years, GPU counts and loader workers are simulated as objects in memory, and rates and
// sizes beyond any real system are typing mistakes, not plans.
constexpr NumberRange scenario_ranges_table[] = {
    {"schema", 0, 1e9, ""},
    {"seed", 0, 9.2e18, ""},
    // Model shape: beyond the largest published dense models by an order of magnitude.
    {"workload.layers", 1, 4096, "layers"},
    {"workload.hidden", 1, 262144, ""},
    {"workload.heads", 1, 4096, "heads"},
    {"workload.vocab", 1, 16777216, "tokens"},
    {"workload.ffn_hidden", 1, 1048576, ""},
    {"workload.kv_heads", 1, 4096, "heads"},
    // LoRA ranks in use run 4 to 256 (Hu et al. 2021; QLoRA 64); 65536 bounds any hidden size.
    {"workload.lora.rank", 0, 65536, ""},
    {"workload.seq_len", 1, 4194304, "tokens"},
    // RL: a rollout's prompt and response, each up to half the longest sequence; PPO runs 1 to
    // 15 epochs per rollout (Schulman et al. 2017, Table 3 to 5: 3 to 15; OpenRLHF 1).
    {"workload.rl.prompt_tokens", 1, 2097152, "tokens"},
    {"workload.rl.response_tokens", 1, 2097152, "tokens"},
    {"workload.rl.ppo_epochs", 1, 1000, "epochs"},
    {"workload.padding_fraction", 0, 0.95, "fraction"},
    // LDDL bins of 32 to 512 tokens (DeepLearningExamples BERT run_pretraining.sh); at most seq_len.
    {"workload.length_bin", 1, 4194304, "tokens"},
    // Batch: a global batch beyond 2^24 samples has no published training recipe.
    {"workload.batch_per_gpu", 1, 1048576, "samples"},
    {"workload.global_batch", 1, 16777216, "samples"},
    {"workload.micro_batch", 1, 1048576, "samples"},
    {"workload.bucket_mb", 1e-3, 1048576, "MiB"},
    // Amount of training: 1e15 samples or 1e17 tokens (50x the largest published runs).
    {"workload.dataset_samples", 1, 1e13, "samples"},
    {"workload.epochs", 1e-6, 1e5, "epochs"},
    {"workload.samples", 1, 1e15, "samples"},
    {"workload.tokens", 1, 1e17, "tokens"},
    // Evaluation: ImageNet's 50,000 validation images and MLPerf BERT's 10,000 held-out samples
    // are typical; the bounds are those of the amount of training.
    {"workload.evaluation.every_samples", 1, 1e15, "samples"},
    {"workload.evaluation.every_epochs", 1e-6, 1e5, "epochs"},
    {"workload.evaluation.samples", 1, 1e13, "samples"},
    {"workload.parallelism.tp", 1, 1024, ""},
    {"workload.parallelism.pp", 1, 1024, ""},
    {"workload.parallelism.cp", 1, 1024, ""},
    {"workload.parallelism.dp", 1, 65536, ""},
    {"workload.parallelism.zero", 0, 1e9, ""},  // 0..3, with its own message
    {"workload.parallelism.virtual_stages", 1, 128, ""},
    {"workload.parallelism.recompute_every", 1, 4096, "blocks"},
    // Cluster: 65,536 GPUs (the largest published training clusters hold about 100,000).
    {"cluster.gpus", 1, net::max_gpus, "GPUs"},
    {"cluster.nodes", 1, 8192, "nodes"},
    {"cluster.gpus_per_node", 1, 16, "GPUs"},
    {"cluster.inter_node.gbps_per_gpu", 1e-3, 1e5, "Gb/s"},
    {"cluster.inter_node.latency_us", 0, 1e6, "us"},
    {"cluster.oversubscription", 1, 64, ""},
    {"cluster.nodes_per_leaf", 1, 8192, "nodes"},
    // Input pipeline.
    {"data.workers_per_gpu", 1, 256, "workers"},
    {"data.samples_per_s_per_worker", 1e-3, 1e7, "samples/s"},
    {"data.prefetch_factor", 1, 64, "batches"},
    {"data.sample_bytes", 1, 1e10, "bytes"},
    {"data.dataset_bytes", 1, 1e17, "bytes"},
    {"data.host_ram_gib", 1e-3, 1e5, "GiB"},
    {"data.vcpus", 1, 4096, "threads"},
    {"data.ingress_gbps", 1e-3, 1e5, "Gb/s"},
    {"data.source.gbps", 1e-3, 1e5, "Gb/s"},
    {"data.source.latency_ms", 0, 1e5, "ms"},
    {"data.source.max_concurrency", 1, 1000000, "requests"},
    {"data.source.request_bytes", 1, 1e12, "bytes"},
    // Prices: beyond any catalog by two orders of magnitude.
    {"pricing.usd_per_gpu_hour", 0, 1e4, "USD"},
    {"pricing.usd_per_instance_hour", 0, 1e5, "USD"},
    {"pricing.price_per_gpu_hour", 0, 1e9, ""},
    {"pricing.usd_per_unit", 1e-9, 1e6, "USD"},
    {"pricing.gpus_per_instance", 1, 72, "GPUs"},
    {"pricing.billing_increment_s", 1e-3, 31536000, "s"},
    {"pricing.minimum_billed_s", 0, 31536000, "s"},
    {"pricing.storage_usd_per_gb_month", 0, 100, "USD"},
    {"pricing.dataset_gb", 0, 1e9, "GB"},
    {"pricing.egress_gb", 0, 1e9, "GB"},
    {"pricing.egress_usd_per_gb", 0, 100, "USD"},
    {"pricing.ownership.purchase_usd", 0, 1e9, "USD"},
    {"pricing.ownership.depreciation_years", 0.1, 30, "years"},
    {"pricing.ownership.power_kw", 0, 1000, "kW"},
    {"pricing.ownership.pue", 1, 3, ""},
    {"pricing.ownership.usd_per_kwh", 0, 10, "USD"},
    {"pricing.ownership.operations_usd_per_year", 0, 1e9, "USD"},
    // Lifecycle: times up to a year; rates of interruption the event loop can afford (a
    // GPU failing more often than hourly is a broken machine, not a plan).
    {"lifecycle.provisioning_s", 0, 31536000, "s"},
    {"lifecycle.staging_s", 0, 31536000, "s"},
    {"lifecycle.resize_s", 0, 31536000, "s"},
    {"lifecycle.restart.boot_s", 0, 31536000, "s"},
    {"lifecycle.restart.container_s", 0, 31536000, "s"},
    {"lifecycle.restart.nccl_init_s", 0, 31536000, "s"},
    {"lifecycle.checkpoint.interval_s", 1, 31536000, "s"},
    {"lifecycle.checkpoint.write_gb_per_s", 1e-3, 1e5, "GB/s"},
    {"lifecycle.checkpoint.read_gb_per_s", 1e-3, 1e5, "GB/s"},
    {"lifecycle.checkpoint.size_gb", 1e-6, 1e7, "GB"},
    {"lifecycle.checkpoint.kept", 1, 1000, "copies"},
    {"lifecycle.spot.mean_time_between_preemptions_h", 0.01, 1e6, "h"},
    {"lifecycle.spot.notice_s", 0, 86400, "s"},
    {"lifecycle.spot.capacity_wait_s", 0, 31536000, "s"},
    {"lifecycle.failures.gpu_mtbf_h", 1, 1e8, "h"},
    {"lifecycle.budget_usd", 1e-2, 1e12, "USD"},
    {"lifecycle.budget_alert_fraction", 0, 1, ""},
    {"lifecycle.deadline_h", 1e-3, 1e6, "h"},
    // A calendar window: up to ten years (0: none).
    {"lifecycle.window_h", 0, 87600, "h"},
    {"elastic.schedule.from_h", 0, 1e6, "h"},
    {"elastic.schedule.gpus", 1, net::max_gpus, "GPUs"},
    {"elastic.repeat_h", 1e-3, 1e6, "h"},
};

// A sweep expands into this many points at most: each is a resolved scenario in memory.
constexpr int max_sweep_points = 100000;
// An elastic schedule has at most this many steps, each planned at its own GPU count.
constexpr std::size_t max_elastic_steps = 1000;

// A number as JSON writes it, for messages: 2.4655, 8.0.
std::string json_number(double x) { return Json(x).dump(); }
std::string str(int x) { return std::to_string(x); }

// Every integer key's range fits an int (scenario_ranges).
int positive_int(const Value& v) { return static_cast<int>(v.as_positive_int()); }

// A value at `pointer` of the scenario (null when absent), for checks that span sections.
Value at_pointer(const Json& root, const std::string& pointer, const JsonSource& src) {
    static const Json null_json;
    const Json::json_pointer p(pointer);
    return Value(root.contains(p) ? root.at(p) : null_json, pointer, src);
}

// What the graph is built from, kept until the cluster is known (the attention kernel
// depends on the GPU).
struct GptShapeKeys {
    int layers = 0, hidden = 0, heads = 0, seq_len = 0, vocab = 0, ffn_hidden = 0, kv_heads = 0;
    bool swiglu = false;                              // custom gpt: `activation` "swiglu"
    bool full_softmax = false;                        // Transformer-XL: `softmax` "full"
    BertTask task = BertTask::pretraining;
    std::optional<work::AttentionKind> attention;     // `attention` as written
    std::optional<Value> attention_at;
};

}  // namespace

const Registry<work::AttentionKind>& attention_kind_registry() {
    static const Registry<work::AttentionKind> r{
        "attention kernel",
        {{"flash", work::AttentionKind::flash, "one fused, tiled kernel (FlashAttention-2, cuDNN/TE fused attention): no s^2 stash"},
         {"unfused", work::AttentionKind::unfused, "scores, softmax, dropout and context as separate kernels, stashing the s^2 probabilities"},
         {"fmha", work::AttentionKind::fmha, "NVIDIA's fused BERT kernel (apex fmha, MLPerf): one kernel, but it stores the s^2 probabilities for backward"}}};
    return r;
}

namespace {

// Transformer-XL's output layer. DeepLearningExamples' train.py takes `--adaptive` for the
// adaptive softmax; without it (`adaptive=False` in its logged arguments) the model scores
// every token over the whole vocabulary with one embedding table (div_val 1).
const Registry<bool>& softmax_kinds() {
    static const Registry<bool> r{
        "output softmax",
        {{"adaptive", false, "adaptive input and softmax with the preset's cutoffs and div_val"},
         {"full", true, "one softmax over the whole vocabulary, one embedding table (no --adaptive)"}}};
    return r;
}

const Registry<bool>& activations() {
    static const Registry<bool> r{"activation", {{"gelu", false, "GeLU feed-forward: two matrices"},
                                                 {"swiglu", true, "SwiGLU feed-forward: gate, up and down matrices"}}};
    return r;
}

// RL algorithms `workload.rl.algorithm` names (RlSpec). GRPO and the other critic-free
// variants differ in their passes and group sampling; only PPO is modelled.
const Registry<bool>& rl_algorithms() {
    static const Registry<bool> r{"RL algorithm", {{"ppo", true, "proximal policy optimisation with a critic (Schulman et al. 2017; RLHF: Ouyang et al. 2022)"}}};
    return r;
}

// `parallelism`: "auto", an object {"auto": true, "objective", overlap switches}, or a layout
// object. With auto, every key the search chooses is refused: a search that must respect a
// fixed tp is a different question, and the user would not see which keys it kept.
Parallelism parse_parallelism(const Value& v, int& dp_given, const compute::Framework& fw) {
    Parallelism p;
    p.zero = fw.zero;
    p.overlap_grad_reduce = fw.overlap_grad_reduce;
    p.overlap_param_gather = fw.overlap_param_gather;
    p.tp_comm_overlap = fw.tp_comm_overlap;
    p.gather_copy_out = fw.gather_copy_out;
    p.even_stages = fw.even_stages;
    p.gather_after_grads = fw.gather_after_grads;
    if (!v.is_object()) {
        constexpr std::string_view forms[] = {"auto"};
        const std::string objects = "an object {tp, pp, cp, dp, ...} giving the layout, or {\"auto\": true, \"objective\": "
                                    "\"time\" or \"cost\"}";
        if (!v.is_string()) v.fail("expected \"auto\" or " + objects + ", got " + v.json().dump());
        const std::string text = v.as_string();
        const std::string shown = text.size() > max_quoted_value ? text.substr(0, max_quoted_value) + "..." : text;
        if (text != "auto") v.fail(unknown_name_message("parallelism", shown, forms) + " (or " + objects + ")");
        p.search = true;
        return p;
    }
    Object o(v, {"auto", "objective", "tp", "pp", "cp", "dp", "sequence_parallel", "recompute", "recompute_every", "zero", "virtual_stages",
                 "schedule", "stage_split", "overlap_grad_reduce", "overlap_param_gather", "tp_comm_overlap",
                 "overlap_contention", "gather_copy_out", "fp8_all_gather", "backward_prefetch"});
    if (auto x = o.get("auto")) p.search = x->as_bool();
    if (auto x = o.get("overlap_grad_reduce")) p.overlap_grad_reduce = x->as_bool();
    if (auto x = o.get("overlap_param_gather")) p.overlap_param_gather = x->as_bool();
    if (auto x = o.get("tp_comm_overlap")) p.tp_comm_overlap = x->as_bool();
    if (auto x = o.get("overlap_contention")) p.overlap_contention = x->as_bool();
    if (auto x = o.get("gather_copy_out")) p.gather_copy_out = x->as_bool();
    if (auto x = o.get("fp8_all_gather")) p.fp8_all_gather = x->as_bool();
    if (auto x = o.get("stage_split")) p.even_stages = x->as(stage_splits());
    if (auto x = o.get("backward_prefetch")) p.gather_after_grads = x->as(backward_prefetches());
    if (p.search) {
        for (std::string_view key : {"tp", "pp", "cp", "dp", "sequence_parallel", "recompute", "recompute_every", "zero", "virtual_stages", "schedule"})
            if (o.has(key))
                o.at(key).fail("'" + std::string(key) + "' is chosen by the layout search (\"auto\": true); drop it, or drop "
                               "'auto' and give the whole layout");
        if (auto x = o.get("objective")) p.objective = x->as(layout_objective_registry());
        return p;
    }
    if (auto x = o.get("objective")) x->fail("'objective' steers the layout search: it needs \"auto\": true");
    if (auto x = o.get("tp")) p.tp = positive_int(*x);
    if (auto x = o.get("pp")) p.pp = positive_int(*x);
    if (auto x = o.get("cp")) p.cp = positive_int(*x);
    if (auto x = o.get("dp")) dp_given = positive_int(*x);
    if (auto x = o.get("sequence_parallel")) p.sequence_parallel = x->as_bool();
    if (auto x = o.get("recompute")) p.recompute = x->as(recompute_modes());
    if (auto x = o.get("recompute_every")) {
        if (p.recompute != compute::Recompute::full)
            x->fail("'recompute_every' picks the blocks that replay their forward: it needs \"recompute\": \"full\"");
        p.recompute_every = positive_int(*x);
    }
    if (auto x = o.get("zero")) {
        const auto z = x->as_nonnegative_int();
        if (z > 3) x->fail("expected a ZeRO stage 0, 1, 2 or 3, got " + std::to_string(z));
        p.zero = static_cast<int>(z);
    }
    if (auto x = o.get("virtual_stages")) p.virtual_stages = positive_int(*x);
    if (auto x = o.get("schedule")) p.schedule = x->as(schedules());
    if (p.virtual_stages > 1 && p.pp < 2)
        o.at("virtual_stages").fail("interleaved stages need a pipeline (pp of 2 or more), got pp = " + str(p.pp));
    if (p.virtual_stages > 1 && p.schedule != Schedule::one_f_one_b)
        o.at("virtual_stages").fail("interleaved stages need the 1f1b schedule, not '" +
                                    std::string(schedules().name_of(p.schedule)) + "'");
    p.sequence_parallel = p.sequence_parallel && p.tp > 1;
    return p;
}

work::Workload build_workload(const std::string& model, const GptShapeKeys& k, work::AttentionKind attention) {
    if (model == "resnet50") return work::resnet50();
    if (model == "pointnet2-ssg-scannet") return work::pointnet2_semseg();
    if (model == "bert-base" || model == "bert-large") {
        const std::string_view size = model == "bert-base" ? "base" : "large";
        return k.task == BertTask::squad ? work::bert_squad(size, k.seq_len, attention)
                                         : work::bert(size, k.seq_len, attention);
    }
    if (const work::TxlPreset* t = work::find_txl_preset(model)) {
        work::TxlShape s = t->shape;
        if (k.seq_len) s.tgt_len = s.mem_len = k.seq_len;
        if (k.full_softmax) {
            s.cutoffs = {};
            s.div_val = 1;
        }
        return work::transformer_xl(s, model);
    }
    if (model == "gpt") {
        work::GptShape s{.layers = k.layers, .hidden = k.hidden, .heads = k.heads, .seq_len = k.seq_len,
                         .vocab = k.vocab, .ffn_hidden = k.ffn_hidden, .kv_heads = k.kv_heads, .gated_mlp = k.swiglu};
        s.attention = attention;
        return work::gpt(s, "gpt");
    }
    const work::Preset* p = work::find_gpt_preset(model);
    work::GptShape s = p->shape;
    if (k.seq_len) s.seq_len = k.seq_len;
    if (k.layers) s.layers = k.layers;
    if (k.hidden) s.hidden = k.hidden;
    if (k.heads) s.heads = k.heads;
    if (k.vocab) s.vocab = k.vocab;
    if (k.ffn_hidden) s.ffn_hidden = k.ffn_hidden;
    if (k.kv_heads) s.kv_heads = k.kv_heads;
    s.attention = attention;
    return work::gpt(s, std::string(p->name));
}

// `elastic_given`: the scenario has an elastic schedule, which keeps an omitted `parallelism`
// data parallel (the layout search plans one cluster size).
WorkloadSpec parse_workload(const Value& v, int& dp_given, GptShapeKeys& k, bool elastic_given) {
    Object o(v, {"model", "task", "precision", "framework", "attention", "activation", "batch_per_gpu", "global_batch",
                 "micro_batch", "bucket_mb", "fused_elementwise", "gemm_epilogue", "tf32", "conv_layout", "optimizer_kernel", "grad_clip", "loss_kernel", "grad_reduce", "main_grads", "padding_fraction", "seq_len", "layers", "hidden", "heads", "vocab", "ffn_hidden", "kv_heads",
                 "softmax", "length_bin", "parallelism", "dataset_samples", "epochs", "samples", "tokens", "lora", "trace", "rl", "evaluation"});
    WorkloadSpec w;
    const auto& models = work::model_registry();
    w.model = o.at("model").as_name(models.what(), models.names());
    const bool is_bert = w.model == "bert-base" || w.model == "bert-large";
    const bool is_gpt = w.model == "gpt";
    const bool is_preset = work::find_gpt_preset(w.model) != nullptr;
    const bool is_vision = w.model == "resnet50" || w.model == "pointnet2-ssg-scannet";
    const bool is_txl = work::find_txl_preset(w.model) != nullptr;

    if (auto x = o.get("precision")) w.precision = x->as(compute::precision_registry());
    else o.value().fail("missing required key 'precision' (one of fp32, tf32, fp16, bf16, fp8, fp4)");

    // Shape keys belong to the GPT family (a preset takes them as changes to its shape, e.g.
    // a 12-layer cut of Llama 3 70B); BERT takes seq_len (and task); ResNet-50 none.
    for (std::string_view key : {"layers", "hidden", "heads", "vocab", "ffn_hidden", "kv_heads"}) {
        if (o.has(key) && !is_gpt && !is_preset)
            o.at(key).fail("'" + std::string(key) + "' applies to model 'gpt' and the GPT presets only, not '" + w.model + "'");
    }
    if (is_preset) {
        const work::GptShape& base = work::find_gpt_preset(w.model)->shape;
        for (const auto& [key, field] : {std::pair{"layers", &GptShapeKeys::layers}, std::pair{"hidden", &GptShapeKeys::hidden},
                                         std::pair{"heads", &GptShapeKeys::heads}, std::pair{"vocab", &GptShapeKeys::vocab},
                                         std::pair{"ffn_hidden", &GptShapeKeys::ffn_hidden},
                                         std::pair{"kv_heads", &GptShapeKeys::kv_heads}})
            if (auto x = o.get(key)) k.*field = positive_int(*x);
        const int hidden = k.hidden ? k.hidden : base.hidden, heads = k.heads ? k.heads : base.heads;
        const int kv = k.kv_heads ? k.kv_heads : base.kv_heads ? base.kv_heads : heads;
        if (hidden % heads != 0)
            o.at(k.heads ? "heads" : "hidden").fail("expected hidden (" + str(hidden) + ") to be a multiple of heads (" + str(heads) + ")");
        if (heads % kv != 0)
            o.at(k.kv_heads ? "kv_heads" : "heads").fail("expected heads (" + str(heads) + ") to be a multiple of kv_heads (" + str(kv) + ")");
    }
    if (is_gpt) {
        k.layers = positive_int(o.at("layers"));
        k.hidden = positive_int(o.at("hidden"));
        k.heads = positive_int(o.at("heads"));
        k.vocab = positive_int(o.at("vocab"));
        if (auto x = o.get("ffn_hidden")) k.ffn_hidden = positive_int(*x);
        if (auto x = o.get("kv_heads")) k.kv_heads = positive_int(*x);
        if (k.hidden % k.heads != 0)
            o.at("heads").fail("expected a divisor of hidden (" + str(k.hidden) + "), got " + str(k.heads));
        if (k.kv_heads && k.heads % k.kv_heads != 0)
            o.at("kv_heads").fail("expected a divisor of heads (" + str(k.heads) + "), got " + str(k.kv_heads));
    }
    if (auto x = o.get("seq_len")) {
        if (is_vision) x->fail("'seq_len' does not apply to model '" + w.model + "'");
        k.seq_len = positive_int(*x);
        if (is_bert && k.seq_len > 512) x->fail("expected a BERT sequence length up to 512, got " + str(k.seq_len));
    } else if (is_bert || is_gpt) {
        o.value().fail("missing required key 'seq_len' (tokens per sample)");
    } else if (is_preset) {
        k.seq_len = work::find_gpt_preset(w.model)->shape.seq_len;
    } else if (is_txl) {
        k.seq_len = work::find_txl_preset(w.model)->shape.tgt_len;
    }
    if (auto x = o.get("rl")) {
        if (!is_gpt && !is_preset) x->fail("'rl' fine-tunes a GPT-family model ('gpt' or a preset), not '" + w.model + "'");
        Object rl(*x, {"algorithm", "prompt_tokens", "response_tokens", "ppo_epochs", "critic", "reference", "reward_model"});
        rl.at("algorithm").as(rl_algorithms());
        w.rl.enabled = true;
        w.rl.prompt_tokens = positive_int(rl.at("prompt_tokens"));
        w.rl.response_tokens = positive_int(rl.at("response_tokens"));
        if (auto e = rl.get("ppo_epochs")) w.rl.ppo_epochs = positive_int(*e);
        if (auto c = rl.get("critic")) w.rl.critic = c->as_bool();
        if (auto c = rl.get("reference")) w.rl.reference = c->as_bool();
        if (auto c = rl.get("reward_model")) w.rl.reward_model = c->as_bool();
        const int total = w.rl.prompt_tokens + w.rl.response_tokens;
        if (auto sl = o.get("seq_len"); sl && k.seq_len != total)
            sl->fail("expected prompt_tokens + response_tokens (" + str(total) + ") with 'rl', got " + str(k.seq_len) +
                     "; or leave 'seq_len' out");
        k.seq_len = static_cast<int>(total);
    }
    if (auto x = o.get("task")) {
        if (!is_bert) x->fail("'task' applies to BERT models only");
        k.task = x->as(bert_tasks());
    }
    if (auto x = o.get("lora")) {
        if (!is_gpt && !is_preset) x->fail("'lora' applies to GPT-family models ('gpt' or a preset), not '" + w.model + "'");
        Object lora(*x, {"rank"});
        w.lora_rank = static_cast<int>(lora.at("rank").as_nonnegative_int());  // 0: every weight trains
    }
    if (auto x = o.get("softmax")) {
        if (!is_txl) x->fail("'softmax' applies to Transformer-XL models only, not '" + w.model + "'");
        k.full_softmax = x->as(softmax_kinds());
    }
    if (auto x = o.get("activation")) {
        if (!is_gpt) x->fail("'activation' applies to model 'gpt' only (a preset has its own)");
        k.swiglu = x->as(activations());
    }
    if (auto x = o.get("attention")) {
        if (is_vision || is_txl) x->fail("'attention' applies to GPT and BERT models, not '" + w.model + "'");
        k.attention = x->as(attention_kind_registry());
        k.attention_at = *x;
    }

    // Batch: batch_per_gpu (data parallel), or global_batch with micro_batch.
    const bool per_gpu = o.has("batch_per_gpu");
    const bool global = o.has("global_batch");
    if (per_gpu && global) o.at("global_batch").fail("give either 'batch_per_gpu' or 'global_batch', not both");
    if (!per_gpu && !global) o.value().fail("missing batch size: give 'batch_per_gpu', or 'global_batch' with 'micro_batch'");
    const auto& frameworks = compute::framework_registry();
    if (auto x = o.get("framework")) w.framework = x->as_name(frameworks.what(), frameworks.names());
    const compute::Framework& fw = frameworks.get(w.framework);
    w.fused_elementwise = fw.fused_elementwise;
    w.tf32_matmul = fw.tf32_matmul;
    w.tf32_conv = fw.tf32_conv;
    w.conv_layout = fw.conv_layout;
    w.optimizer_kernel = fw.optimizer_kernel;
    w.grad_clip = fw.grad_clip;
    w.loss_kernel = fw.loss_kernel;
    w.grad_reduce = w.precision == compute::Precision::fp16 ? fw.grad_reduce_fp16 : fw.grad_reduce_bf16;
    w.main_grads = fw.main_grads;
    if (auto x = o.get("parallelism")) w.parallelism = parse_parallelism(*x, dp_given, fw);
    else {
        const Json none = Json::object();  // the profile's defaults
        w.parallelism = parse_parallelism(Value(none, "/parallelism", v.source()), dp_given, fw);
        // A GPT-family model given by its global batch, without a layout: the layout search
        // chooses one (a 70B model has no data-parallel layout that fits).
        w.parallelism.search = (is_gpt || is_preset) && global && !elastic_given;
    }
    if (w.rl.enabled) {
        // Generation is priced on one GPU holding the whole policy, and the critic trains as
        // a copy of the policy's data-parallel step (analysis/plan).
        const Value rl = o.at("rl");
        const auto& par = w.parallelism;
        if (par.search) {
            if (o.has("parallelism")) o.at("parallelism").fail("'rl' runs data parallel (ZeRO 0 to 2): give a layout, not \"auto\"");
            w.parallelism.search = false;
        }
        if (par.model_parallel() > 1)
            (o.has("parallelism") ? o.at("parallelism") : rl)
                .fail("'rl' runs data parallel: generation with tensor, pipeline or context parallelism is not modelled; "
                      "expected tp, pp and cp of 1");
        if (par.zero > 2)
            o.at("parallelism").fail("'rl' runs data parallel with ZeRO 0 to 2: generation from ZeRO-3 shards (a parameter "
                                     "gather per token) is not modelled");
        if (w.lora_rank > 0) rl.fail("'rl' with 'lora' is not modelled: the critic and policy train every weight");
    }
    const bool search = w.parallelism.search;
    if (per_gpu) {
        // The search keeps the samples per step fixed while dp varies: only models without
        // model parallelism (dp = GPUs) keep batch_per_gpu fixed too.
        if (search && !is_vision)
            o.at("batch_per_gpu").fail("the layout search (\"parallelism\": \"auto\") varies dp: give 'global_batch' "
                                       "(samples per optimizer step) instead of 'batch_per_gpu'");
        w.batch_per_gpu = positive_int(o.at("batch_per_gpu"));
        if (auto x = o.get("micro_batch")) {
            w.micro_batch = positive_int(*x);
            if (w.batch_per_gpu % w.micro_batch != 0)
                x->fail("expected a divisor of batch_per_gpu (" + str(w.batch_per_gpu) + "), got " + str(w.micro_batch));
        }
    } else {
        w.global_batch = positive_int(o.at("global_batch"));
        // With the search the micro-batch is one of its variables, fixed only when given.
        if (auto x = o.get("micro_batch"); x || !search) w.micro_batch = positive_int(o.at("micro_batch"));
    }
    if (auto x = o.get("bucket_mb")) w.bucket = units::bytes(x->as_positive_number() * 1024 * 1024);
    if (auto x = o.get("fused_elementwise")) w.fused_elementwise = x->as_bool();
    if (auto x = o.get("gemm_epilogue")) w.gemm_epilogue = x->as_bool();
    if (auto x = o.get("tf32")) w.tf32_matmul = w.tf32_conv = x->as_bool();
    if (auto x = o.get("conv_layout")) w.conv_layout = x->as(compute::conv_layout_registry());
    if (auto x = o.get("optimizer_kernel")) w.optimizer_kernel = x->as(compute::optimizer_kernel_registry());
    if (auto x = o.get("grad_clip")) w.grad_clip = x->as(compute::grad_clip_registry());
    if (auto x = o.get("loss_kernel")) w.loss_kernel = x->as(compute::loss_kernel_registry());
    if (auto x = o.get("grad_reduce")) w.grad_reduce = x->as(compute::grad_reduce_registry());
    if (auto x = o.get("main_grads")) w.main_grads = x->as_bool();
    if (auto x = o.get("padding_fraction")) {
        if (!is_bert) x->fail("'padding_fraction' applies to BERT models (padded to seq_len), not '" + w.model + "'");
        w.padding_fraction = x->as_number();
    }
    if (auto x = o.get("length_bin")) {
        if (!is_bert) x->fail("'length_bin' applies to BERT models (padded to seq_len), not '" + w.model + "'");
        if (!o.has("padding_fraction")) x->fail("'length_bin' needs 'padding_fraction' (how much of a sample is padding)");
        w.length_bin = positive_int(*x);
        if (k.seq_len && w.length_bin > k.seq_len)
            x->fail("expected at most seq_len (" + str(k.seq_len) + "), got " + str(w.length_bin));
    }

    // A recorded trace as the step: it replays one data-parallel step of batch_per_gpu samples
    // per GPU, on a cluster of fixed size.
    if (auto x = o.get("trace")) {
        const std::filesystem::path given_path = x->as_string();
        if (given_path.empty()) x->fail("expected the path of a trace file or folder, got an empty string");
        const std::filesystem::path resolved =
            given_path.is_absolute() ? given_path : std::filesystem::path(x->source().file).parent_path() / given_path;
        w.trace = resolved.lexically_normal().string();
        std::error_code ec;
        if (!std::filesystem::is_regular_file(resolved, ec) && !std::filesystem::is_directory(resolved, ec))
            x->fail("no trace file or folder '" + w.trace + "' (relative paths start at the scenario's folder)");
        if (!per_gpu)
            o.at("global_batch").fail("a trace replays data-parallel steps: give 'batch_per_gpu' (the samples per GPU of the "
                                      "recorded step), not 'global_batch'");
        if (o.has("parallelism"))
            o.at("parallelism").fail("a trace replays the layout it recorded (data parallel): leave out 'parallelism'");
        if (elastic_given) x->fail("a trace replays a cluster of fixed size: it cannot be used with an 'elastic' schedule");
    }

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
        w.samples = t.as_positive_number() / k.seq_len;
    }
    if (auto x = o.get("evaluation")) {
        Object e(*x, {"every_samples", "every_epochs", "samples"});
        const int given = int(e.has("every_samples")) + int(e.has("every_epochs"));
        if (given != 1) x->fail("expected one of 'every_samples' or 'every_epochs' (how often the held-out samples are evaluated)");
        if (auto every = e.get("every_samples")) {
            w.evaluation.every_samples = every->as_positive_number();
        } else {
            const Value epochs = e.at("every_epochs");
            if (w.dataset_samples <= 0) epochs.fail("'every_epochs' needs the workload's 'dataset_samples'; give 'every_samples'");
            w.evaluation.every_samples = epochs.as_positive_number() * w.dataset_samples;
        }
        w.evaluation.samples = e.at("samples").as_positive_number();
    }
    return w;
}

// What a catalog instance says about the hardware, for clusters that name one.
struct InstanceHardware {
    std::string provider, instance;
    const compute::GpuSpec* gpu = nullptr;
    int gpus_per_node = 0;
    std::string_view topology;  // network preset, or empty
};

InstanceHardware instance_hardware(const Value& where, const std::string& provider, const std::string& instance) {
    const auto& cat = price::shipped_catalog();
    const price::CatalogRow* row = nullptr;
    for (const auto& r : cat)
        if (r.provider == provider && r.instance == instance) {
            row = &r;
            break;
        }
    if (!row) where.fail("no catalog row for " + provider + " " + instance);
    const compute::GpuSpec* const* gpu = compute::gpu_registry().find(row->gpu);
    if (!gpu)
        where.fail("instance '" + instance + "' has " + row->gpu_label +
                   " GPUs, which the GPU catalog does not hold; give cluster 'gpu' and price it explicitly");
    return {provider, instance, *gpu, row->gpus_per_instance,
            net::preset_for_instance(provider, instance)};
}

// "aws/p4de.24xlarge" -> provider and instance, each checked against the catalog.
InstanceHardware parse_cluster_instance(const Value& v) {
    const std::string text = v.as_string();
    const auto slash = text.find('/');
    if (slash == std::string::npos)
        v.fail("expected \"provider/instance\" such as \"aws/p4de.24xlarge\", got \"" + text + "\"");
    const auto& cat = price::shipped_catalog();
    const std::string provider = text.substr(0, slash), instance = text.substr(slash + 1);
    const auto providers = price::catalog_providers(cat);
    if (std::find(providers.begin(), providers.end(), provider) == providers.end())
        v.fail(unknown_name_message("provider", provider, views(providers)));
    const auto instances = price::catalog_instances(cat, provider);
    if (std::find(instances.begin(), instances.end(), instance) == instances.end())
        v.fail(unknown_name_message(provider + " instance", instance, views(instances)));
    return instance_hardware(v, provider, instance);
}

struct ClusterKeys {
    bool gpu = false, gpus = false, gpus_per_node = false, intra_node = false, inter_node = false, topology = false;
};

std::filesystem::path scenario_folder(const std::string& file) {
    return std::filesystem::path(file).parent_path();
}

ClusterSpec parse_cluster(const Value& v, const std::optional<InstanceHardware>& priced, ClusterKeys& given) {
    Object o(v, {"gpu", "gpus", "nodes", "instance", "gpus_per_node", "intra_node", "inter_node", "topology",
                 "calibration", "oversubscription", "nodes_per_leaf", "collective_algorithm", "network_model",
                 "peer_to_peer"});
    ClusterSpec c;
    given = {o.has("gpu"), o.has("gpus"), o.has("gpus_per_node"), o.has("intra_node"), o.has("inter_node"),
             o.has("topology")};
    std::optional<InstanceHardware> inst;
    if (auto x = o.get("instance")) inst = parse_cluster_instance(*x);
    else if (!given.gpu && priced) inst = priced;  // the pricing instance is the node
    std::vector<std::string> implied;

    if (auto x = o.get("gpu")) {
        c.gpu = x->as(compute::gpu_registry());
        if (inst && o.has("instance") && c.gpu != inst->gpu)
            x->fail("'" + std::string(c.gpu->name) + "' conflicts with cluster 'instance' (" + inst->provider + "/" +
                    inst->instance + " has " + std::string(inst->gpu->name) + ")");
    } else if (inst) {
        c.gpu = inst->gpu;
        implied.push_back("gpu " + std::string(c.gpu->name));
    } else {
        o.value().fail("missing required key 'gpu' (or 'instance', or a pricing 'instance')");
    }
    if (auto x = o.get("gpus_per_node")) {
        c.gpus_per_node = positive_int(*x);
        if (inst && o.has("instance") && c.gpus_per_node != inst->gpus_per_node)
            x->fail(str(c.gpus_per_node) + " conflicts with cluster 'instance' (" + inst->instance + " has " +
                    str(inst->gpus_per_node) + " GPUs)");
    } else if (inst && !given.gpu) {
        c.gpus_per_node = inst->gpus_per_node;
        implied.push_back(str(c.gpus_per_node) + " GPUs per node");
    }
    if (c.gpus_per_node > 16) o.at("gpus_per_node").fail("expected at most 16 GPUs per node, got " + str(c.gpus_per_node));
    if (o.has("nodes") && o.has("gpus")) o.at("nodes").fail("give either 'gpus' or 'nodes', not both");
    if (auto x = o.get("nodes")) {
        c.gpus = positive_int(*x) * c.gpus_per_node;
        if (c.gpus > net::max_gpus) x->fail("expected at most " + str(net::max_gpus) + " GPUs in all, got " + str(c.gpus) + " (" + str(c.gpus_per_node) + " per node)");
    } else if (auto y = o.get("gpus")) {
        c.gpus = positive_int(*y);
    } else {
        o.value().fail("missing cluster size: give 'gpus' (or 'nodes' of gpus_per_node)");
    }

    net::TopologySpec& t = c.topology;
    t.gpus = c.gpus;
    t.gpu = std::string(c.gpu->name);
    if (auto x = o.get("intra_node")) t.intra_node = std::string(x->as(intra_kinds()));
    if (auto x = o.get("inter_node")) {
        Object n(*x, {"fabric", "gbps_per_gpu", "latency_us"});
        const net::Fabric fabric = n.at("fabric").as(net::fabric_registry());
        const double gbps = n.at("gbps_per_gpu").as_positive_number();
        t.inter_node = net::FabricSpec{fabric, gbps, n.at("latency_us").as_nonnegative_number()};
    }
    if (auto x = o.get("peer_to_peer")) {
        t.peer_to_peer = x->as_bool();
        if (t.peer_to_peer && !c.gpu->pcie_p2p)
            x->fail("GPU '" + std::string(c.gpu->name) + "' has no peer-to-peer (its driver disables it); expected false");
    }
    if (auto x = o.get("calibration")) {
        const std::filesystem::path given_path = x->as_string();
        const std::filesystem::path resolved =
            given_path.is_absolute() ? given_path : scenario_folder(x->source().file) / given_path;
        c.calibration_file = resolved.lexically_normal().string();
        if (!std::filesystem::is_regular_file(resolved))
            x->fail("cannot open calibration file '" + c.calibration_file + "' (relative paths start at the scenario's folder)");
        c.calibration = load_calibration(c.calibration_file);
        if (c.calibration.gpu != c.gpu->name)
            x->fail("calibration file '" + c.calibration_file + "' is for GPU '" + c.calibration.gpu + "', not '" +
                    std::string(c.gpu->name) + "'");
    } else {
        try {
            c.calibration = shipped_calibration(c.gpu->name);
        } catch (const InputError& e) {
            (o.has("gpu") ? o.at("gpu") : o.value()).fail(e.message());
        }
    }
    if (auto x = o.get("oversubscription")) {
        t.oversubscription = x->as_positive_number();
        if (t.oversubscription < 1.0) x->fail("expected an oversubscription ratio >= 1, got " + x->json().dump());
    }
    if (auto x = o.get("nodes_per_leaf")) t.nodes_per_leaf = positive_int(*x);
    if (auto x = o.get("collective_algorithm")) c.collective_algorithm = x->as(net::algorithm_registry());
    if (auto x = o.get("network_model")) c.network_model = x->as(network_model_registry());
    // The flow level moves rings (the planner asks for no all-to-all): tree, hierarchical,
    // direct and NVLS have no flow-level form, and pricing them as rings would hide the swap.
    if (c.network_model == NetworkModel::flow && c.collective_algorithm != net::Algorithm::automatic &&
        c.collective_algorithm != net::Algorithm::ring)
        o.at("collective_algorithm")
            .fail("network_model 'flow' simulates rings: expected 'auto' or 'ring', got '" +
                  std::string(net::to_string(c.collective_algorithm)) + "'");
    std::optional<Value> preset_at = o.get("topology");
    if (preset_at) {
        t.preset = std::string(preset_at->as(net::topology_registry())->name);
        if (o.has("intra_node") || o.has("inter_node"))
            preset_at->fail("a topology preset fixes the node and the fabric: drop 'intra_node' and 'inter_node'");
    } else if (inst && !inst->topology.empty() && !given.gpu && !given.intra_node && !given.inter_node) {
        t.preset = std::string(inst->topology);
        implied.push_back("topology " + t.preset);
    }
    if (t.preset.empty()) {
        // A GPU without NVLink (PCIe cards: L40S, L4, RTX) sits on PCIe unless told otherwise.
        const bool has_nvlink = c.gpu->nvlink_gbps > 0.0;
        if (!o.has("intra_node") && !has_nvlink) t.intra_node = "pcie";
        if (t.intra_node == "nvlink" && !has_nvlink)
            o.at("intra_node").fail("GPU '" + std::string(c.gpu->name) + "' has no NVLink; expected \"pcie\"");
    }
    if (!t.preset.empty()) {
        try {
            const auto design = net::resolve_node_design(t);
            if (o.has("gpus_per_node") && c.gpus_per_node != design.gpus_per_node)
                o.at("gpus_per_node").fail("preset '" + t.preset + "' has " + str(design.gpus_per_node) +
                                           " GPUs per node, not " + str(c.gpus_per_node));
            c.gpus_per_node = design.gpus_per_node;
        } catch (const std::invalid_argument& e) {
            (preset_at ? *preset_at : o.at("instance")).fail(e.what());
        }
    }
    t.gpus_per_node = c.gpus_per_node;
    const bool multi_node = c.gpus > c.gpus_per_node;
    if (multi_node && !t.inter_node && t.preset.empty())
        o.value().fail("a cluster of " + str(c.gpus) + " GPUs spans several nodes of " + str(c.gpus_per_node) +
                       ": give 'inter_node' {fabric, gbps_per_gpu, latency_us}");
    if (multi_node && c.gpus % c.gpus_per_node != 0)
        (o.has("gpus") ? o.at("gpus") : o.value())
            .fail("expected a multiple of gpus_per_node (" + str(c.gpus_per_node) + ") for a multi-node cluster, got " +
                  str(c.gpus));
    if (inst && !implied.empty()) {
        c.from_instance = inst->provider + "/" + inst->instance + ":";
        for (std::size_t i = 0; i < implied.size(); ++i) c.from_instance += (i ? ", " : " ") + implied[i];
    }
    return c;
}

SourceSpec parse_source(const Value& v) {
    Object o(v, {"kind", "gbps", "latency_ms", "max_concurrency", "request_bytes"});
    SourceSpec s;
    s.kind = o.at("kind").as(data::source_kind_registry());
    if (auto x = o.get("gbps")) s.gbps = x->as_positive_number();
    if (auto x = o.get("latency_ms")) s.latency_ms = x->as_nonnegative_number();
    if (auto x = o.get("max_concurrency")) s.max_concurrency = positive_int(*x);
    if (auto x = o.get("request_bytes")) s.request_bytes = x->as_positive_number();
    return s;
}

DataSpec parse_data(const Value& v, const data::Instance* implied_instance) {
    Object o(v, {"workers_per_gpu", "samples_per_s_per_worker", "prefetch_factor", "sample_kind", "instance",
                 "sample_bytes", "dataset_bytes", "source", "staging", "host_ram_gib", "vcpus", "gpu_decode",
                 "ingress_gbps"});
    DataSpec d;
    d.workers_per_gpu = positive_int(o.at("workers_per_gpu"));
    if (auto x = o.get("sample_kind")) {
        d.sample_kind = x->as(data::sample_kind_registry());
    }
    const bool pipeline = d.sample_kind != nullptr;
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
        d.instance = x->as(data::instance_registry());
    } else if (pipeline) {
        d.instance = implied_instance;
    }
    if (auto x = o.get("sample_bytes")) d.sample_bytes = x->as_positive_number();
    if (auto x = o.get("dataset_bytes")) d.dataset_bytes = x->as_positive_number();
    if (auto x = o.get("source")) d.source = parse_source(*x);
    if (auto x = o.get("staging")) d.staging = x->as(staging_modes());
    if (auto x = o.get("host_ram_gib")) d.host_ram_gib = x->as_positive_number();
    if (auto x = o.get("vcpus")) d.vcpus = positive_int(*x);
    if (auto x = o.get("gpu_decode")) {
        d.gpu_decode = x->as_bool();
        if (d.gpu_decode && !d.sample_kind->has_gpu_decode())
            x->fail("sample kind '" + std::string(d.sample_kind->name) +
                    "' has no GPU decoder; GPU decode is modelled for imagenet-jpeg");
    }
    if (auto x = o.get("ingress_gbps")) d.ingress_gbps = x->as_positive_number();
    const data::Instance* inst = d.instance;
    if (d.staging == Staging::copy_to_nvme) {
        const Value at = o.at("staging");
        if (!d.source) at.fail("staging 'copy-to-nvme' needs a 'source' to copy from");
        if (d.source->kind == data::SourceKind::local_nvme)
            at.fail("staging 'copy-to-nvme' copies from a remote source; 'source' is already local-nvme");
        if (!inst || inst->nvme_drives == 0)
            at.fail("staging 'copy-to-nvme' needs an 'instance' with local NVMe" +
                    (inst ? "; '" + std::string(inst->name) + "' has none (EBS only)" : std::string()));
    }
    if (d.source && d.source->kind == data::SourceKind::local_nvme && d.source->gbps == 0 && (!inst || inst->nvme_drives == 0))
        o.at("source").fail("source 'local-nvme' needs 'gbps', or an 'instance' with local NVMe");
    return d;
}

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
        p.kind = price::plan_kind(p.plan);
        const std::string catalog_plan = p.kind == PlanKind::owned ? "on-demand" : p.plan;
        if (auto x = o.get("region")) {
            const auto regions = price::catalog_regions(cat, p.provider, p.instance, catalog_plan);
            p.region = x->as_name("region of '" + p.instance + "' " + catalog_plan, views(regions));
        }
        const price::CatalogRow* row = price::find_price(cat, p.provider, p.instance, catalog_plan, p.region);
        if (!row) o.value().fail("no catalog row for " + p.provider + " " + p.instance + " " + catalog_plan);
        const bool allow = o.has("allow_flagged") && o.at("allow_flagged").as_bool();
        if (!row->flag.empty() && !allow && p.kind != PlanKind::owned)
            (o.has("plan") ? o.at("plan") : o.at("instance"))
                .fail("the catalog price of " + p.provider + " " + p.instance + " " + catalog_plan + " (" + row->region +
                      ", " + json_number(row->price_per_hour) + " " + row->currency + "/h) is flagged: " + row->flag +
                      "; set \"allow_flagged\": true to use it");
        p.region = row->region;
        p.gpus_per_instance = row->gpus_per_instance;
        p.currency = row->currency;
        p.usd_per_gpu_hour = row->usd_per_instance_hour() / row->gpus_per_instance;
        p.source = row->source + " (" + row->as_of + ")";
        if (const auto* f = price::find_provider_facts(p.provider)) {
            p.billing_increment = units::seconds(f->billing_increment_s);
            p.minimum_billed = units::seconds(f->minimum_billed_s);
            p.spot_notice = units::seconds(f->spot_notice_s);
            p.egress_usd_per_gb = f->egress_usd_per_gb;
        }
    } else {
        if (auto x = o.get("plan")) {
            p.kind = x->as(explicit_plans());
            p.plan = x->as_string();
        }
        if (auto x = o.get("allow_flagged")) (void)x->as_bool();
        if (auto x = o.get("region")) x->fail("'region' needs 'provider' and 'instance'");
        if (auto x = o.get("gpus_per_instance")) p.gpus_per_instance = positive_int(*x);
        const int forms = int(o.has("usd_per_gpu_hour")) + int(o.has("usd_per_instance_hour")) + int(o.has("price_per_gpu_hour"));
        if (forms > 1)
            o.value().fail("give one of 'usd_per_gpu_hour', 'usd_per_instance_hour' or 'price_per_gpu_hour' (with 'currency'), not several");
        double usd_per_unit = 1;
        if (auto x = o.get("currency")) {
            p.currency = x->as_string();
            if (!o.has("usd_per_unit")) x->fail("'currency' needs 'usd_per_unit' (US dollars per unit of " + p.currency + ")");
            usd_per_unit = o.at("usd_per_unit").as_positive_number();
            if (!o.has("price_per_gpu_hour")) x->fail("'currency' goes with 'price_per_gpu_hour'");
        } else if (auto u = o.get("usd_per_unit")) {
            u->fail("'usd_per_unit' needs 'currency'");
        }
        if (auto x = o.get("price_per_gpu_hour")) {
            if (!o.has("currency")) x->fail("'price_per_gpu_hour' needs 'currency' and 'usd_per_unit'");
            p.usd_per_gpu_hour = x->as_nonnegative_number() * usd_per_unit;
        } else if (auto y = o.get("usd_per_instance_hour")) {
            p.usd_per_gpu_hour = y->as_nonnegative_number() / p.gpus_per_instance;
        } else if (p.kind != PlanKind::owned) {
            p.usd_per_gpu_hour = o.at("usd_per_gpu_hour").as_nonnegative_number();
        }
    }
    if (auto x = o.get("billing_increment_s")) p.billing_increment = units::seconds(x->as_positive_number());
    if (auto x = o.get("minimum_billed_s")) p.minimum_billed = units::seconds(x->as_nonnegative_number());
    if (auto x = o.get("storage_usd_per_gb_month")) p.storage_usd_per_gb_month = x->as_nonnegative_number();
    if (auto x = o.get("dataset_gb")) p.dataset_gb = x->as_nonnegative_number();
    if (auto x = o.get("egress_gb")) p.egress_gb = x->as_nonnegative_number();
    if (auto x = o.get("egress_usd_per_gb")) p.egress_usd_per_gb = x->as_nonnegative_number();
    if (p.kind == PlanKind::owned && !p.ownership)
        (o.has("plan") ? o.at("plan") : o.value())
            .fail("plan 'self-owned' needs 'ownership' {purchase_usd, depreciation_years, power_kw, pue, usd_per_kwh, operations_usd_per_year}");
    return p;
}

units::Seconds seconds_of(const Value& v) { return units::seconds(v.as_nonnegative_number()); }

LifecycleSpec parse_lifecycle(const Value& v) {
    Object o(v, {"provisioning_s", "staging_s", "restart", "resize_s", "checkpoint", "spot", "failures", "budget_usd",
                 "budget_alert_fraction", "deadline_h", "window_h"});
    LifecycleSpec l;
    l.notice = units::seconds(-1);
    if (auto x = o.get("provisioning_s")) l.provisioning = seconds_of(*x);
    if (auto x = o.get("staging_s")) l.staging = seconds_of(*x);
    if (auto x = o.get("resize_s")) l.resize = seconds_of(*x);
    if (auto x = o.get("restart")) {
        Object r(*x, {"boot_s", "container_s", "nccl_init_s"});
        if (auto y = r.get("boot_s")) l.boot = seconds_of(*y);
        if (auto y = r.get("container_s")) l.container = seconds_of(*y);
        if (auto y = r.get("nccl_init_s")) l.nccl_init = seconds_of(*y);
    }
    if (auto x = o.get("checkpoint")) {
        Object c(*x, {"interval_s", "optimal_interval", "write_gb_per_s", "read_gb_per_s", "size_gb", "kept"});
        if (c.has("interval_s") && c.has("optimal_interval"))
            c.at("optimal_interval").fail("give either 'interval_s' or 'optimal_interval', not both");
        if (auto y = c.get("interval_s")) l.checkpoint_interval = units::seconds(y->as_positive_number());
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
                            std::string(price::spot_trace_registry().names().front()) + ")");
        if (rate) {
            l.preempt_mean_h = sp.at("mean_time_between_preemptions_h").as_positive_number();
        } else {
            l.spot_trace = std::make_shared<const price::SpotTrace>(
                price::shipped_trace(sp.at("trace").as_name(price::spot_trace_registry().what(), price::spot_trace_registry().names())));
        }
        if (auto y = sp.get("notice_s")) l.notice = seconds_of(*y);
        if (auto y = sp.get("capacity_wait_s")) l.capacity_wait = seconds_of(*y);
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
    if (auto x = o.get("window_h")) {
        l.window_h = x->as_nonnegative_number();  // 0: none, so that a sweep can compare both readings
        if (l.window_h > 0 && o.has("deadline_h")) x->fail("a calendar window has no deadline: drop 'deadline_h' or 'window_h'");
    }
    return l;
}

ElasticSpec parse_elastic(const Value& v) {
    Object o(v, {"schedule", "repeat_h"});
    ElasticSpec e;
    const auto steps = o.at("schedule").as_array();
    if (steps.empty()) o.at("schedule").fail("expected at least one {\"from_h\", \"gpus\"} step");
    if (steps.size() > max_elastic_steps)
        o.at("schedule").fail("expected at most " + std::to_string(max_elastic_steps) + " steps, got " + std::to_string(steps.size()));
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

// Where to report a rule that spans several keys: the first of `pointers` that a sweep or
// an override set (the user changed it there), else the first.
Value blame(const Json& root, const JsonSource& src, std::initializer_list<const char*> pointers) {
    for (const char* p : pointers)
        if (src.locate(p) != p) return at_pointer(root, p, src);
    return at_pointer(root, *pointers.begin(), src);
}

// The parallel layout at a GPU count: tp x pp must divide it, the batch must split into
// whole micro-batches per data-parallel rank, tensor parallelism needs attention heads, and
// a pipeline needs a layer per stage. `gpus_at` locates the GPU count (the cluster's, or an
// elastic step's); messages from a step name that step.
void check_layout(const Scenario& s, int gpus, const Value& gpus_at, const Json& root, const JsonSource& src,
                  bool elastic_step) {
    const auto& w = s.workload;
    const auto& par = w.parallelism;
    const auto at = [&](std::initializer_list<const char*> pointers) {
        return elastic_step ? gpus_at : blame(root, src, pointers);
    };
    const int model_parallel = par.model_parallel();
    if (gpus % model_parallel != 0)
        at({"/cluster/gpus", "/workload/parallelism/tp", "/workload/parallelism/pp", "/workload/parallelism/cp"})
            .fail("expected a multiple of tp x pp x cp (" + str(model_parallel) + "), got " + str(gpus));
    const int dp = gpus / model_parallel;
    if (w.global_batch && w.global_batch % (dp * w.micro_batch) != 0)
        at({"/workload/global_batch", "/workload/micro_batch", "/cluster/gpus", "/workload/parallelism/tp",
            "/workload/parallelism/pp"})
            .fail("expected a multiple of dp x micro_batch (" + str(dp * w.micro_batch) + "), got " + str(w.global_batch));
    const work::Workload& model = w.graph;
    if (model.heads > 0 && par.tp > 1 && model.heads % par.tp != 0)
        at({"/workload/parallelism/tp", "/workload/model"})
            .fail("expected a divisor of the model's " + str(model.heads) + " attention heads, got tp = " + str(par.tp));
    if (par.tp > 1 && model.domain == work::Domain::vision)
        at({"/workload/parallelism/tp", "/workload/model"})
            .fail("tensor parallelism splits transformer layers; model '" + w.model + "' has none");
    if (par.cp > 1 && model.domain == work::Domain::vision)
        at({"/workload/parallelism/cp", "/workload/model"})
            .fail("context parallelism splits sequences; model '" + w.model + "' has none");
    if (par.cp > 1 && std::fmod(model.seq_len, 2.0 * par.cp) != 0)
        at({"/workload/parallelism/cp", "/workload/seq_len"})
            .fail("expected cp to divide half the sequence length (" + str(static_cast<int>(model.seq_len)) +
                  " tokens in 2 x cp load-balanced chunks), got cp = " + str(par.cp));
    int layers = 0;
    for (const auto& l : model.layers) layers += l.repeat;
    const int stages = par.pp * par.virtual_stages;
    if (stages > layers)
        at({"/workload/parallelism/pp", "/workload/parallelism/virtual_stages", "/workload/model"})
            .fail("expected at most " + str(layers) +
                  " pipeline stages (pp x virtual_stages), one per layer of the model (blocks, embedding and head), got " +
                  str(stages));
}

Scenario parse_one(const Json& j, const JsonSource& src) {
    Value root(j, "", src);
    Object o(root, {"schema", "name", "description", "seed", "workload", "cluster", "data", "pricing", "lifecycle",
                    "elastic", "sweep", "expect"});
    const Value schema = o.at("schema");
    if (schema.as_int() != 1) schema.fail("unsupported schema " + schema.json().dump() + "; this rentsim reads schema 1");
    Scenario s;
    s.file = src.file;
    s.name = o.at("name").as_string();
    if (auto x = o.get("description")) (void)x->as_string();
    if (auto x = o.get("seed")) s.seed = static_cast<std::uint64_t>(x->as_nonnegative_int());
    int dp_given = 0;
    GptShapeKeys shape;
    s.workload = parse_workload(o.at("workload"), dp_given, shape, o.has("elastic"));
    s.pricing = parse_pricing(o.at("pricing"));
    std::optional<InstanceHardware> priced;
    if (!s.pricing.instance.empty())
        priced = instance_hardware(at_pointer(j, "/pricing/instance", src), s.pricing.provider, s.pricing.instance);
    ClusterKeys given;
    s.cluster = parse_cluster(o.at("cluster"), priced, given);
    // A data block without an instance takes the node's, when the cluster came from one.
    const data::Instance* implied_data_instance = nullptr;
    if (!given.gpu && !s.cluster.from_instance.empty()) {
        const std::string node = s.cluster.from_instance.substr(0, s.cluster.from_instance.find(':'));
        const std::string name = node.substr(0, node.find('/')) + "-" + node.substr(node.find('/') + 1);
        implied_data_instance = data::find_instance(name);
    }
    if (auto x = o.get("data")) s.data = parse_data(*x, implied_data_instance);
    if (auto x = o.get("lifecycle")) s.lifecycle = parse_lifecycle(*x);
    if (auto x = o.get("elastic")) s.elastic = parse_elastic(*x);
    if (s.pricing.kind == PlanKind::spot && !s.lifecycle.spot)
        o.at("pricing").fail("plan '" + s.pricing.plan +
                             "' needs 'lifecycle' {'spot': {mean_time_between_preemptions_h or trace}} to model preemptions");
    if (s.lifecycle.notice.value < 0) s.lifecycle.notice = s.lifecycle.spot ? s.pricing.spot_notice : units::Seconds{};
    if (priced && given.gpu) {
        // The instance is the node: its GPU and GPU count must be the cluster's.
        const Value where = at_pointer(j, "/pricing/instance", src);
        if (priced->gpu != s.cluster.gpu)
            where.fail("instance '" + s.pricing.instance + "' has " + std::string(priced->gpu->name) +
                       " GPUs, not the cluster's '" + std::string(s.cluster.gpu->name) + "'");
        if (priced->gpus_per_node != s.cluster.gpus_per_node)
            where.fail("instance '" + s.pricing.instance + "' has " + str(priced->gpus_per_node) +
                       " GPUs; set cluster 'gpus_per_node' to " + str(priced->gpus_per_node) + ", not " +
                       str(s.cluster.gpus_per_node));
    }

    // Cross-section checks.
    auto& w = s.workload;
    const compute::GpuSpec& gpu = *s.cluster.gpu;
    // The attention kernel: as written, else the framework's for this model on this GPU.
    // FlashAttention needs sm80 or newer (FlashAttention-2 README: Ampere, Ada, Hopper; ROCm
    // builds on CDNA) and 16-bit inputs (fp16/bf16; fp8 training keeps attention in bf16).
    const bool flash_gpu = gpu.family != "volta" && gpu.family != "turing";
    const bool flash_precision = w.precision != compute::Precision::fp32 && w.precision != compute::Precision::tf32;
    const bool decoder = w.model == "gpt" || work::find_gpt_preset(w.model);
    const compute::Framework& fw = compute::framework_registry().get(w.framework);
    // apex fmha (work::AttentionKind::fmha) runs on sm80 and sm90 only, in fp16 (fmha_api.cpp's
    // checks; BERT's head size is 64 and its sequences at most 512, the kernel's other limits).
    const bool fmha_gpu = gpu.family == "ampere" || gpu.family == "hopper";
    const bool fmha_precision = w.precision == compute::Precision::fp16;
    w.attention = (decoder ? fw.flash_attention : fw.flash_encoders) && flash_gpu && flash_precision
                      ? work::AttentionKind::flash
                  : !decoder && fw.fmha_encoders && fmha_gpu && fmha_precision ? work::AttentionKind::fmha
                                                                               : work::AttentionKind::unfused;
    if (shape.attention) {
        if (*shape.attention == work::AttentionKind::fmha && decoder)
            shape.attention_at->fail("'fmha' is BERT's encoder kernel (no causal mask); GPT models take 'flash' or 'unfused'");
        if (*shape.attention == work::AttentionKind::fmha && !fmha_gpu)
            shape.attention_at->fail("'fmha' runs on sm80 and sm90 GPUs (A100, A30, H100, H200); '" + std::string(gpu.name) +
                                     "' is " + std::string(gpu.family));
        if (*shape.attention == work::AttentionKind::fmha && !fmha_precision)
            shape.attention_at->fail("'fmha' runs in fp16 only, not " +
                                     std::string(compute::precision_registry().name_of(w.precision)));
        if (*shape.attention == work::AttentionKind::flash && !flash_gpu)
            shape.attention_at->fail("FlashAttention needs an Ampere or newer GPU; '" + std::string(gpu.name) + "' is " +
                                     std::string(gpu.family));
        if (*shape.attention == work::AttentionKind::flash && !flash_precision)
            shape.attention_at->fail("FlashAttention runs in fp16 or bf16 (or under fp8 training), not " +
                                     std::string(compute::precision_registry().name_of(w.precision)));
        w.attention = *shape.attention;
    }
    if (work::find_txl_preset(w.model) || w.model == "resnet50" || w.model == "pointnet2-ssg-scannet") w.attention = work::AttentionKind::unfused;
    // A framework that removes padding runs each sample at its real length: the encoder is
    // built for the mean unpadded length (the attention's s^2 is then a mean-length figure,
    // a little below the mean of s^2).
    // Binned batches (LDDL's --bin-size: a batch holds samples of one length bin, padded to
    // the bin's top) carry the real tokens plus half a bin of padding per sample on average,
    // taking the lengths as spread evenly within a bin (an assumption: the length
    // distribution is not published with the bins).
    if (w.padding_fraction > 0 && (fw.removes_padding || w.length_bin > 0)) {
        GptShapeKeys packed = shape;
        const double real = shape.seq_len * (1.0 - w.padding_fraction);
        const double padded = fw.removes_padding ? real : std::min<double>(shape.seq_len, real + 0.5 * w.length_bin);
        packed.seq_len = std::max(1, static_cast<int>(std::lround(padded)));
        w.graph = build_workload(w.model, packed, w.attention);
    } else {
        w.graph = build_workload(w.model, shape, w.attention);
    }
    if (!gpu.has(w.precision)) {
        std::string valid;
        for (const auto& e : compute::precision_registry().entries())
            if (gpu.has(e.value)) valid += (valid.empty() ? "" : ", ") + std::string(e.name);
        at_pointer(j, "/workload/precision", src)
            .fail("GPU '" + std::string(gpu.name) + "' has no " + std::string(compute::precision_registry().name_of(w.precision)) +
                  " support; valid: " + valid);
    }
    auto& par = w.parallelism;
    const int model_parallel = par.model_parallel();
    if (s.cluster.gpus % model_parallel != 0)
        blame(j, src, {"/cluster/gpus", "/workload/parallelism/tp", "/workload/parallelism/pp", "/workload/parallelism/cp"})
            .fail("expected a multiple of tp x pp x cp (" + str(model_parallel) + "), got " + str(s.cluster.gpus));
    const auto& d = s.data;
    if (d.instance && j.contains(Json::json_pointer("/data/instance"))) {
        const data::Instance& inst = *d.instance;
        if (inst.gpu != gpu.name || inst.gpus != s.cluster.gpus_per_node)
            at_pointer(j, "/data/instance", src)
                .fail("instance '" + std::string(inst.name) + "' has " + str(inst.gpus) + " x " + std::string(inst.gpu) +
                      " per node; the cluster has " + str(s.cluster.gpus_per_node) + " x " + std::string(gpu.name));
    }
    if (d.source || d.staging != Staging::none) {
        const double sample_bytes = d.sample_bytes > 0 ? d.sample_bytes : d.sample_kind->stored_bytes.value;
        const double dataset = d.dataset_bytes > 0 ? d.dataset_bytes : w.dataset_samples * sample_bytes;
        if (dataset <= 0)
            at_pointer(j, "/data", src)
                .fail("a 'source' needs the dataset size: give 'dataset_bytes', or 'dataset_samples' with 'epochs' in "
                      "'workload'");
        if (d.staging == Staging::copy_to_nvme && dataset > d.instance->nvme_bytes().value)
            at_pointer(j, "/data/staging", src)
                .fail("the dataset (" + std::to_string(static_cast<long long>(dataset / 1e9)) +
                      " GB) does not fit the local NVMe of '" + std::string(d.instance->name) + "' (" +
                      std::to_string(static_cast<long long>(d.instance->nvme_bytes().value / 1e9)) + " GB)");
    }
    if (dp_given && dp_given * model_parallel != s.cluster.gpus)
        at_pointer(j, "/workload/parallelism/dp", src)
            .fail("expected tp x pp x cp x dp = gpus (" + str(s.cluster.gpus) + "), got " + str(dp_given * model_parallel));
    par.dp = s.cluster.gpus / model_parallel;
    // The search checks its candidates' layouts itself (analysis/plan/layout.hpp).
    if (par.search && !s.elastic.schedule.empty())
        at_pointer(j, "/workload/parallelism", src)
            .fail("the layout search plans one cluster size: give the layout (tp, pp, ...) for an elastic schedule");
    if (!par.search) check_layout(s, s.cluster.gpus, at_pointer(j, "/cluster/gpus", src), j, src, false);

    // Each elastic step is a cluster of its own size: whole nodes, a fabric across nodes,
    // and a parallel layout that holds.
    for (std::size_t i = 0; i < s.elastic.schedule.size(); ++i) {
        const int n = s.elastic.schedule[i].gpus;
        const Value where = at_pointer(j, "/elastic/schedule/" + std::to_string(i) + "/gpus", src);
        const auto& t = s.cluster.topology;
        if (n > s.cluster.gpus_per_node && !t.inter_node && t.preset.empty())
            where.fail("a step of " + str(n) + " GPUs spans several nodes: give cluster 'inter_node'");
        if (n > s.cluster.gpus_per_node && n % s.cluster.gpus_per_node != 0)
            where.fail("expected a multiple of gpus_per_node (" + str(s.cluster.gpus_per_node) + "), got " + str(n));
        check_layout(s, n, where, j, src, true);
    }
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

const Registry<LayoutObjective>& layout_objective_registry() {
    static const Registry<LayoutObjective> r{"layout objective",
                                             {{"time", LayoutObjective::time, "the fastest optimizer step"},
                                              {"cost", LayoutObjective::cost, "the cheapest run: time x GPUs x price"}}};
    return r;
}

const Registry<NetworkModel>& network_model_registry() {
    static const Registry<NetworkModel> r{
        "network model",
        {{"analytic", NetworkModel::analytic, "each collective priced by the analytic model (models/network)"},
         {"flow", NetworkModel::flow, "each collective simulated alone at flow level on the cluster's topology (rings)"}}};
    return r;
}

std::span<const NumberRange> scenario_number_ranges() { return scenario_ranges_table; }

std::string ranges_markdown(std::span<const NumberRange> ranges) {
    const auto number = [](double x) {
        if (x == std::floor(x) && std::abs(x) < 1e15) return std::to_string(static_cast<long long>(x));
        return Json(x).dump();
    };
    std::string md = "| key | from | to | unit |\n|---|---|---|---|\n";
    for (const auto& r : ranges)
        md += "| `" + std::string(r.key) + "` | " + number(r.lo) + " | " + number(r.hi) + " | " + std::string(r.unit) + " |\n";
    return md;
}

ScenarioSet parse_scenarios(const std::string& text, const std::string& file, const Overrides& overrides) {
    const Json root = parse_json_text(text, file);
    JsonSource src{file, {}, scenario_ranges_table};
    if (!root.is_object()) Value(root, "", src).fail("expected a scenario object, got " + std::string(root.is_array() ? "an array" : root.dump()));

    const auto apply_overrides = [&](Json& j, JsonSource& at) {
        for (const auto& o : overrides) {
            const std::string& key = o.first;
            std::visit([&](const auto& x) { at.remap[set_dotted(j, key, Json(x))] = "override " + key; }, o.second);
        }
    };
    ScenarioSet set;
    // Expectations belong to the file, not to a point: read once, before the points.
    if (root.contains("expect")) set.expect = parse_expectations(Value(root.at("expect"), "/expect", src));
    if (!root.contains("sweep")) {
        Json j = root;
        JsonSource point_src{file, {}, scenario_ranges_table};
        apply_overrides(j, point_src);
        set.points.push_back(parse_one(j, point_src));
        return set;
    }
    const Value sweep(root["sweep"], "/sweep", src);
    if (!sweep.is_object()) sweep.fail("expected an object of \"dotted.key\": [values], got " + sweep.json().dump());
    if (sweep.json().empty()) sweep.fail("expected at least one swept key");
    // Axes vary independently (cartesian product); the keys of one `zip` group vary together,
    // value i of each key at once, so that a GPU and the instance that holds it can be swept
    // as pairs. A group counts as one axis of the product.
    struct Group {
        std::vector<std::string> keys;
        std::vector<std::vector<Value>> values;  // per key
        std::vector<std::size_t> axis;           // index into set.axes, per key
        std::size_t size = 0;
    };
    std::vector<Group> groups;
    std::set<std::string> seen;
    const auto add_key = [&](Group& g, const std::string& key, const Value& v) {
        if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
            v.fail("expected a dotted key such as \"cluster.gpus\", got \"" + key + "\"");
        if (key.starts_with("sweep") || key == "schema" || key == "zip" || key == "expect" || key.starts_with("expect."))
            v.fail("'" + key + "' cannot be swept");
        if (key.size() > 200) v.fail("expected a dotted key of at most 200 characters");
        if (!seen.insert(key).second) v.fail("'" + key + "' is swept twice");
        auto list = v.as_array();
        if (list.empty()) v.fail("expected a non-empty array of values");
        if (!g.keys.empty() && list.size() != g.size)
            v.fail("expected " + std::to_string(g.size) + " values, as many as '" + g.keys.front() +
                   "' in the same zip group, got " + std::to_string(list.size()));
        g.size = list.size();
        SweepAxis axis{key, {}};
        for (const auto& x : list) axis.labels.push_back(x.json().is_string() ? x.json().get<std::string>() : x.json().dump());
        g.axis.push_back(set.axes.size());
        set.axes.push_back(std::move(axis));
        g.keys.push_back(key);
        g.values.push_back(std::move(list));
    };
    for (const auto& [key, values] : sweep.json().items()) {
        const Value v(values, "/sweep/" + json_pointer_escape(key), src);
        if (key == "zip") {
            const auto zips = v.as_array();
            if (zips.empty()) v.fail("expected a non-empty array of {\"dotted.key\": [values], ...} groups");
            for (const auto& z : zips) {
                if (!z.is_object() || z.json().empty())
                    z.fail("expected an object of \"dotted.key\": [values] whose arrays have one length, got " + z.json().dump());
                Group g;
                for (const auto& [zkey, zvalues] : z.json().items())
                    add_key(g, zkey, Value(zvalues, z.pointer() + "/" + json_pointer_escape(zkey), src));
                groups.push_back(std::move(g));
            }
            continue;
        }
        Group g;
        add_key(g, key, v);
        groups.push_back(std::move(g));
    }
    double points = 1;
    for (const auto& g : groups) points *= static_cast<double>(g.size);
    if (points > max_sweep_points)
        sweep.fail("expected at most " + std::to_string(max_sweep_points) + " points, got " + json_number(points) +
                   " (the product of the value counts)");
    // Cartesian product of the groups, first group slowest, in file order. Each point copies
    // the scenario without its sweep block, so that expansion is linear in the points.
    // Built key by key rather than erased from a copy: erasing from an ordered object moves
    // the members after the key, leaving their children's parent links (JSON_DIAGNOSTICS)
    // pointing at the old places, which nlohmann's checks in debug builds abort on.
    Json base = Json::object();
    for (auto it = root.begin(); it != root.end(); ++it)
        if (it.key() != "sweep") base[it.key()] = it.value();
    std::vector<std::size_t> idx(groups.size(), 0);
    std::optional<InputError> first_invalid;
    std::size_t valid = 0;
    const std::string name = root.contains("name") && root["name"].is_string() ? root["name"].get<std::string>() : "";
    while (true) {
        Json j = base;
        JsonSource point_src{file, {}, scenario_ranges_table};
        std::string label;
        std::vector<std::pair<std::string, std::string>> swept;
        for (std::size_t a = 0; a < groups.size(); ++a) {
            const Group& g = groups[a];
            for (std::size_t k = 0; k < g.keys.size(); ++k) {
                const Value& value = g.values[k][idx[a]];
                const std::string ptr = set_dotted(j, g.keys[k], value.json());
                point_src.remap[ptr] = value.pointer();
                const std::string& shown = set.axes[g.axis[k]].labels[idx[a]];
                label += (label.empty() ? "" : " ") + g.keys[k] + "=" + shown;
                swept.emplace_back(g.keys[k], shown);
            }
        }
        apply_overrides(j, point_src);
        Scenario s;
        try {
            s = parse_one(j, point_src);
            ++valid;
        } catch (const InputError& e) {
            // A point that breaks a rule (a swept value out of range, or a combination such as
            // fp4 on a GPU without it) is reported in its row and the others still run; the
            // command still exits 2. An error at a swept value already names its entry.
            const InputError at_point(e.file(), e.where(),
                                      e.where().starts_with("/sweep/") ? e.message()
                                                                       : e.message() + " (at sweep point " + label + ")");
            if (!first_invalid) first_invalid = at_point;
            s = Scenario{};
            s.file = file;
            s.name = name;
            s.invalid = at_point.what();
        }
        s.point = label;
        s.swept = std::move(swept);
        set.points.push_back(std::move(s));
        // The next point: the last group fastest; past the last value of the first, done.
        bool more = false;
        for (std::size_t a = groups.size(); a-- > 0 && !more;) {
            more = ++idx[a] < groups[a].size;
            if (!more) idx[a] = 0;
        }
        if (!more) break;
    }
    // Every point broken: the file is wrong, not one combination.
    if (valid == 0 && first_invalid) throw *first_invalid;
    return set;
}

Scenario compile_scenario(const ScenarioDraft& draft) {
    Json j = Json::object();
    for (const auto& k : draft.keys) {
        const std::string& key = k.first;
        std::visit([&](const auto& x) { set_dotted(j, key, Json(x)); }, k.second);
    }
    const JsonSource src{draft.file, {}, scenario_ranges_table};
    return parse_one(j, src);
}

const Registry<Placement>& placement_registry() {
    static const Registry<Placement> r{
        "placement",
        {{"block", Placement::block, "each job on the next free nodes, in order"},
         {"interleaved", Placement::interleaved, "the nodes dealt to the jobs in turn, one each"}}};
    return r;
}

namespace {

// A fabric file's own numbers; its cluster block takes the scenario ranges.
constexpr NumberRange fabric_ranges_table[] = {
    {"schema", 0, 1e9, ""},
    {"jobs.nodes", 1, 8192, "nodes"},
    {"jobs.size_mib", 1e-6, 1048576, "MiB"},
    {"jobs.count", 1, 10000, "collectives"},
    {"jobs.gap_ms", 0, 3.6e6, "ms"},
};

}  // namespace

FabricSpec parse_fabric(const std::string& text, const std::string& file) {
    const Json root = parse_json_text(text, file);
    const JsonSource src{file, {}, fabric_ranges_table};
    const Value top(root, "", src);
    if (!root.is_object()) top.fail("expected a fabric object, got " + std::string(root.is_array() ? "an array" : root.dump()));
    Object o(top, {"schema", "name", "description", "cluster", "placement", "jobs"});
    const Value schema = o.at("schema");
    if (schema.as_int() != 1) schema.fail("unsupported schema " + schema.json().dump() + "; this rentsim reads schema 1");
    FabricSpec f;
    f.file = file;
    f.name = o.at("name").as_string();
    if (auto x = o.get("description")) (void)x->as_string();
    (void)o.at("cluster");
    const JsonSource cluster_src{file, {}, scenario_ranges_table};
    ClusterKeys given;
    f.cluster = parse_cluster(Value(root.at("cluster"), "/cluster", cluster_src), std::nullopt, given);
    if (auto x = o.get("placement")) f.placement = x->as(placement_registry());

    const Value jobs_at = o.at("jobs");
    const std::vector<Value> jobs = jobs_at.as_array();
    if (jobs.empty()) jobs_at.fail("expected at least one job");
    const int gpn = f.cluster.gpus_per_node;
    int nodes = 0;
    for (const Value& v : jobs) {
        Object j(v, {"name", "nodes", "op", "size_mib", "count", "gap_ms"});
        FabricJobSpec job;
        job.name = j.at("name").as_string();
        for (const auto& other : f.jobs)
            if (other.name == job.name) j.at("name").fail("a job named '" + job.name + "' comes earlier: names must differ");
        const Value nodes_at = j.at("nodes");
        job.nodes = static_cast<int>(nodes_at.as_positive_int());
        if (job.nodes * gpn < 2)
            nodes_at.fail("expected a job of at least 2 GPUs, got " + str(job.nodes) + " node of " + str(gpn) + " GPU");
        nodes += job.nodes;
        if (static_cast<std::int64_t>(nodes) * gpn > f.cluster.gpus)
            nodes_at.fail("the jobs so far need " + str(nodes) + " nodes of " + str(gpn) + " GPUs; the cluster has " +
                          str(f.cluster.gpus) + " GPUs");
        job.op = j.at("op").as(net::collective_registry());
        job.bytes = units::Bytes{j.at("size_mib").as_positive_number() * 1024.0 * 1024.0};
        if (auto x = j.get("count")) job.count = static_cast<int>(x->as_positive_int());
        if (auto x = j.get("gap_ms")) job.gap = units::seconds(x->as_nonnegative_number() * 1e-3);
        f.jobs.push_back(std::move(job));
    }
    return f;
}

FabricSpec load_fabric(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_fabric(ss.str(), path);
}

ScenarioSet load_scenarios(const std::string& path, const Overrides& overrides) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_scenarios(ss.str(), path, overrides);
}

}  // namespace rentsim::analysis
