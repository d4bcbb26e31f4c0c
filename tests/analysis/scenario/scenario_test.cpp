#include <doctest/doctest.h>

#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/scenario.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace rentsim;

namespace {
const char* base = R"({
  "schema": 1, "name": "t",
  "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "dataset_samples": 1281167, "epochs": 90},
  "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
  "pricing": {"usd_per_gpu_hour": 2.0},
  "sweep": {"cluster.gpus": [1, 8], "workload.precision": ["fp16", "tf32"]}
})";
}

TEST_CASE("a sweep expands to the cartesian product, first key slowest, in file order") {
    const auto set = analysis::parse_scenarios(base, "t.json");
    REQUIRE(set.points.size() == 4);
    CHECK(set.points[0].point == "cluster.gpus=1 workload.precision=fp16");
    CHECK(set.points[1].point == "cluster.gpus=1 workload.precision=tf32");
    CHECK(set.points[3].point == "cluster.gpus=8 workload.precision=tf32");
    CHECK(set.points[3].cluster.gpus == 8);
    CHECK(set.points[1].workload.precision == compute::Precision::tf32);
    CHECK(set.points[0].workload.samples == doctest::Approx(1281167.0 * 90));
}

TEST_CASE("zipped keys vary together, a zip group is one axis of the product") {
    std::string text = base;
    text.replace(text.find(R"("sweep": {"cluster.gpus": [1, 8], "workload.precision": ["fp16", "tf32"]})"),
                 std::string(R"("sweep": {"cluster.gpus": [1, 8], "workload.precision": ["fp16", "tf32"]})").size(),
                 R"("sweep": {"zip": [{"cluster.gpu": ["a100-sxm4-80gb", "h100-sxm5-80gb", "l4"],)"
                 R"( "pricing.usd_per_gpu_hour": [2.0, 4.0, 0.8]}], "cluster.gpus": [1, 8]})");
    const auto set = analysis::parse_scenarios(text, "t.json");
    REQUIRE(set.points.size() == 6);
    CHECK(set.axes.size() == 3);
    CHECK(set.points[0].point == "cluster.gpu=a100-sxm4-80gb pricing.usd_per_gpu_hour=2.0 cluster.gpus=1");
    CHECK(set.points[3].point == "cluster.gpu=h100-sxm5-80gb pricing.usd_per_gpu_hour=4.0 cluster.gpus=8");
    CHECK(set.points[5].point == "cluster.gpu=l4 pricing.usd_per_gpu_hour=0.8 cluster.gpus=8");
    CHECK(set.points[5].cluster.gpus == 8);
    CHECK(set.points[4].pricing.usd_per_gpu_hour == doctest::Approx(0.8));
    REQUIRE(set.points[3].swept.size() == 3);
    CHECK(set.points[3].swept[1] == std::pair<std::string, std::string>("pricing.usd_per_gpu_hour", "4.0"));
}

TEST_CASE("an error in a swept value points at the sweep entry, in its point's row") {
    std::string text = base;
    text.replace(text.find("[1, 8]"), 6, "[1, 0]");
    const auto set = analysis::parse_scenarios(text, "t.json");
    REQUIRE(set.points.size() == 4);
    CHECK(set.points[0].invalid.empty());
    CHECK(set.points[1].invalid.empty());
    CHECK(set.points[2].invalid == "t.json: /sweep/cluster.gpus/1: expected a positive integer, got 0");
    CHECK(set.points[3].invalid == set.points[2].invalid);
    CHECK(set.points[2].point == "cluster.gpus=0 workload.precision=fp16");
    // When every point is broken the file is: the first error is thrown.
    text.replace(text.find("[1, 0]"), 6, "[0]");
    try {
        (void)analysis::parse_scenarios(text, "t.json");
        FAIL("no error");
    } catch (const analysis::InputError& e) {
        CHECK(e.where() == "/sweep/cluster.gpus/0");
        CHECK(e.message() == "expected a positive integer, got 0");
    }
}

namespace {
// Expects `text` to be refused at `where` with `message`.
void check_refused(const std::string& text, const std::string& where, const std::string& message,
                   const analysis::Overrides& overrides = {}) {
    try {
        (void)analysis::parse_scenarios(text, "t.json", overrides);
        FAIL("no error");
    } catch (const analysis::InputError& e) {
        CHECK(e.file() == "t.json");
        CHECK(e.where() == where);
        CHECK(e.message() == message);
    }
}

const char* bert = R"({
  "schema": 1, "name": "b",
  "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 32, "samples": 1000000},
  "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
  "pricing": {"usd_per_gpu_hour": 2.0}
})";
}  // namespace

TEST_CASE("enumerated values are resolved to enums and references by the loader") {
    std::string text = bert;
    text.replace(text.find("\"samples\""), 0, R"("parallelism": {"recompute": "selective", "tp": 2, "sequence_parallel": true}, )");
    const auto s = analysis::parse_scenarios(text, "t.json").points.at(0);
    CHECK(s.workload.parallelism.recompute == compute::Recompute::selective);
    CHECK(s.workload.parallelism.schedule == analysis::Schedule::one_f_one_b);
    CHECK(s.workload.parallelism.sequence_parallel);
    CHECK(s.workload.parallelism.dp == 4);
    CHECK(s.cluster.gpu->name == "a100-sxm4-80gb");
    CHECK(s.cluster.calibration.gpu == "a100-sxm4-80gb");
    CHECK(s.workload.graph.heads == 16);
    CHECK(s.pricing.kind == analysis::PlanKind::on_demand);
    CHECK(s.cluster.collective_algorithm == net::Algorithm::automatic);
}

TEST_CASE("sequence parallelism without tensor parallelism resolves to off") {
    std::string text = bert;
    text.replace(text.find("\"samples\""), 0, R"("parallelism": {"sequence_parallel": true}, )");
    CHECK_FALSE(analysis::parse_scenarios(text, "t.json").points.at(0).workload.parallelism.sequence_parallel);
}

TEST_CASE("layout errors of a swept key name the sweep entry, not a pointer absent from the file") {
    std::string text = bert;
    text.replace(text.rfind('}'), 1, R"(, "sweep": {"workload.parallelism.tp": [2, 3]}})");
    const auto refused = [](const std::string& t) { return analysis::parse_scenarios(t, "t.json").points.at(1).invalid; };
    CHECK(refused(text) == "t.json: /sweep/workload.parallelism.tp/1: expected a multiple of tp x pp x cp (3), got 8");
    text.replace(text.find("\"gpus\": 8"), 9, "\"gpus\": 24, \"inter_node\": {\"fabric\": \"tcp\", \"gbps_per_gpu\": 10, \"latency_us\": 30}");
    CHECK(refused(text) == "t.json: /sweep/workload.parallelism.tp/1: expected a divisor of the model's 16 attention heads, got tp = 3");
}

TEST_CASE("an overridden key is named as an override in errors") {
    check_refused(bert, "override cluster.gpus", "expected a positive integer, got 0",
                  {{"cluster.gpus", std::int64_t{0}}});
    const auto s = analysis::parse_scenarios(bert, "t.json", {{"cluster.gpus", std::int64_t{4}}}).points.at(0);
    CHECK(s.cluster.gpus == 4);
}

TEST_CASE("a cluster named by its instance takes the GPU, GPUs per node and network from the catalog") {
    std::string text = bert;
    text.replace(text.find(R"({"gpu": "a100-sxm4-80gb", "gpus": 8})"), 36, R"({"instance": "aws/p4de.24xlarge", "nodes": 2})");
    const auto s = analysis::parse_scenarios(text, "t.json").points.at(0);
    CHECK(s.cluster.gpu->name == "a100-sxm4-80gb");
    CHECK(s.cluster.gpus_per_node == 8);
    CHECK(s.cluster.gpus == 16);
    CHECK(s.cluster.topology.preset == "aws-p4d");
    CHECK(s.cluster.from_instance == "aws/p4de.24xlarge: gpu a100-sxm4-80gb, 8 GPUs per node, topology aws-p4d");
    // Explicit keys override the instance's; a conflicting one names both.
    std::string conflict = text;
    conflict.replace(conflict.find("\"nodes\": 2"), 10, "\"nodes\": 2, \"gpus_per_node\": 4");
    check_refused(conflict, "/cluster/gpus_per_node", "4 conflicts with cluster 'instance' (p4de.24xlarge has 8 GPUs)");
}

TEST_CASE("a calibration path resolves from the scenario's folder, not the working directory") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("rentsim-cal-" + std::to_string(::getpid()));
    fs::create_directories(dir / "plans");
    fs::copy_file(fs::path(RENTSIM_SOURCE_DIR) / "models/compute/calibration/a100-sxm4-80gb.json", dir / "plans/mycal.json",
                  fs::copy_options::overwrite_existing);
    std::string text = bert;
    text.replace(text.find("\"gpus\": 8"), 9, "\"gpus\": 8, \"calibration\": \"mycal.json\"");
    { std::ofstream(dir / "plans/q.json") << text; }
    const auto s = analysis::load_scenarios((dir / "plans/q.json").string()).points.at(0);
    CHECK(s.cluster.calibration_file == (dir / "plans/mycal.json").string());
    CHECK(s.cluster.calibration.gpu == "a100-sxm4-80gb");
    fs::remove_all(dir);
}

TEST_CASE("a scenario built in code goes through the loader's rules") {
    analysis::ScenarioDraft d;
    d.file = "rows.csv line 7";
    d.set("schema", std::int64_t{1}).set("name", std::string("row"));
    d.set("workload.model", std::string("resnet50")).set("workload.precision", std::string("fp8"));
    d.set("workload.batch_per_gpu", std::int64_t{256}).set("workload.samples", 1e6);
    d.set("cluster.gpu", std::string("v100-sxm2-16gb")).set("cluster.gpus", std::int64_t{8});
    d.set("cluster.topology", std::string("dgx1-v100")).set("pricing.usd_per_gpu_hour", std::int64_t{0});
    try {
        (void)analysis::compile_scenario(d);
        FAIL("no error");
    } catch (const analysis::InputError& e) {
        CHECK(e.file() == "rows.csv line 7");
        CHECK(e.where() == "/workload/precision");
        CHECK(e.message().starts_with("GPU 'v100-sxm2-16gb' has no fp8 support; valid: fp32"));
    }
    d.set("workload.precision", std::string("fp16"));
    const auto s = analysis::compile_scenario(d);
    CHECK(s.workload.precision == compute::Precision::fp16);
    CHECK(s.cluster.gpus_per_node == 8);
}

namespace {
std::string gpt(const std::string& extra) {
    return R"({"schema": 1, "name": "g",
      "workload": {"model": "gpt3-1.3b", "precision": "bf16", "global_batch": 64, )" + extra + R"("tokens": 1e9},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "topology": "dgx-a100"},
      "pricing": {"usd_per_gpu_hour": 2.0}})";
}
}  // namespace

TEST_CASE("\"auto\", an auto object, or a GPT global batch without a layout asks for the layout search") {
    const auto par = [](const std::string& extra) {
        return analysis::parse_scenarios(gpt(extra), "g.json").points.at(0).workload.parallelism;
    };
    CHECK(par(R"("parallelism": "auto", )").search);
    CHECK(par(R"("parallelism": "auto", )").objective == analysis::LayoutObjective::time);
    const auto cost = par(R"("parallelism": {"auto": true, "objective": "cost", "tp_comm_overlap": true}, )");
    CHECK(cost.search);
    CHECK(cost.objective == analysis::LayoutObjective::cost);
    CHECK(cost.tp_comm_overlap);
    CHECK(par("").search);                             // no parallelism block: searched
    CHECK(par(R"("micro_batch": 2, )").search);        // micro-batch fixed, the rest searched
    CHECK_FALSE(par(R"("micro_batch": 1, "parallelism": {"tp": 2}, )").search);
    CHECK_FALSE(par(R"("micro_batch": 1, "parallelism": {"auto": false, "tp": 2}, )").search);
    const auto s = analysis::parse_scenarios(gpt(""), "g.json").points.at(0);
    CHECK(s.workload.micro_batch == 0);  // the search's variable
    // Data-parallel forms stay data parallel, and BERT keeps its layout.
    CHECK_FALSE(analysis::parse_scenarios(bert, "b.json").points.at(0).workload.parallelism.search);
    std::string per_gpu = gpt("");
    per_gpu.replace(per_gpu.find("\"global_batch\": 64"), 18, "\"batch_per_gpu\": 4");
    CHECK_FALSE(analysis::parse_scenarios(per_gpu, "g.json").points.at(0).workload.parallelism.search);
}

TEST_CASE("with the layout search the layout keys are refused, the overlaps kept, and its checks skipped") {
    check_refused(gpt(R"("parallelism": {"auto": true, "tp": 2}, )"), "/workload/parallelism/tp",
                  "'tp' is chosen by the layout search (\"auto\": true); drop it, or drop 'auto' and give the whole layout");
    check_refused(gpt(R"("parallelism": {"auto": true, "objective": "fastest"}, )"), "/workload/parallelism/objective",
                  "unknown layout objective 'fastest'; valid: time, cost");
    check_refused(gpt(R"("micro_batch": 1, "parallelism": {"objective": "cost"}, )"), "/workload/parallelism/objective",
                  "'objective' steers the layout search: it needs \"auto\": true");
    check_refused(gpt(R"("parallelism": "autom", )"), "/workload/parallelism",
                  "unknown parallelism 'autom'; did you mean 'auto'? valid: auto (or an object {tp, pp, cp, dp, ...} "
                  "giving the layout, or {\"auto\": true, \"objective\": \"time\" or \"cost\"})");
    std::string per_gpu = gpt(R"("parallelism": "auto", )");
    per_gpu.replace(per_gpu.find("\"global_batch\": 64"), 18, "\"batch_per_gpu\": 4");
    check_refused(per_gpu, "/workload/batch_per_gpu",
                  "the layout search (\"parallelism\": \"auto\") varies dp: give 'global_batch' (samples per optimizer "
                  "step) instead of 'batch_per_gpu'");
    // 16 GPUs x micro-batch 8 does not divide 64: a rule of the written layout, the search's to check.
    CHECK(analysis::parse_scenarios(gpt(R"("micro_batch": 8, "parallelism": "auto", )"), "g.json").points.at(0).workload.micro_batch == 8);
    check_refused(gpt(R"("micro_batch": 8, "parallelism": {"tp": 1}, )"), "/workload/global_batch",
                  "expected a multiple of dp x micro_batch (128), got 64");
}

TEST_CASE("a sweep block before other keys: every point keeps the keys after it") {
    const std::string text = R"({"schema": 1, "name": "t",
  "sweep": {"cluster.gpus": [8, 16]},
  "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "dataset_samples": 1281167, "epochs": 1},
  "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8, "gpus_per_node": 8,
              "inter_node": {"fabric": "infiniband", "gbps_per_gpu": 200, "latency_us": 5}},
  "pricing": {"usd_per_gpu_hour": 2.0},
  "lifecycle": {"budget_usd": 100}})";
    const auto set = analysis::parse_scenarios(text, "t.json");
    REQUIRE(set.points.size() == 2);
    CHECK(set.points[1].cluster.gpus == 16);
    CHECK(set.points[1].lifecycle.budget_usd == 100.0);
}

namespace {
analysis::Scenario bert_512(const std::string& framework, double padding, int bin) {
    analysis::ScenarioDraft d;
    d.file = "bert";
    d.set("schema", std::int64_t{1}).set("name", std::string("b"));
    d.set("workload.model", std::string("bert-large")).set("workload.precision", std::string("fp16"));
    d.set("workload.seq_len", std::int64_t{512}).set("workload.framework", framework);
    d.set("workload.batch_per_gpu", std::int64_t{32}).set("workload.samples", 1e6);
    if (padding > 0) d.set("workload.padding_fraction", padding);
    if (bin > 0) d.set("workload.length_bin", std::int64_t{bin});
    d.set("cluster.gpu", std::string("a100-sxm4-80gb")).set("cluster.gpus", std::int64_t{8});
    d.set("cluster.topology", std::string("dgx-a100")).set("pricing.usd_per_gpu_hour", std::int64_t{0});
    return analysis::compile_scenario(d);
}
}  // namespace

TEST_CASE("padding: kept, removed by the framework, or cut to half a length bin per sample") {
    // Half of 512 is padding: 256 real tokens. A framework that pads keeps 512; one that unpads
    // runs 256; binned batches of 64 run the real tokens plus half a bin, 256 + 32 = 288.
    CHECK(bert_512("pytorch-ddp", 0.5, 0).workload.graph.seq_len == 512);
    CHECK(bert_512("mlperf-nvidia", 0.5, 0).workload.graph.seq_len == 256);
    CHECK(bert_512("nvidia-dle", 0.5, 64).workload.graph.seq_len == 288);
    // Unpadding wins over binning; a bin can never pad past seq_len.
    CHECK(bert_512("mlperf-nvidia", 0.5, 64).workload.graph.seq_len == 256);
    CHECK(bert_512("nvidia-dle", 0.1, 512).workload.graph.seq_len == 512);
}

TEST_CASE("Transformer-XL's softmax: adaptive as DLE configures it, or full over the vocabulary") {
    const auto txl = [](const char* softmax) {
        analysis::ScenarioDraft d;
        d.file = "txl";
        d.set("schema", std::int64_t{1}).set("name", std::string("t"));
        d.set("workload.model", std::string("transformer-xl")).set("workload.precision", std::string("fp16"));
        d.set("workload.batch_per_gpu", std::int64_t{16}).set("workload.samples", 1e6);
        if (softmax) d.set("workload.softmax", std::string(softmax));
        d.set("cluster.gpu", std::string("a100-sxm4-80gb")).set("cluster.gpus", std::int64_t{1});
        d.set("pricing.usd_per_gpu_hour", std::int64_t{0});
        return analysis::compile_scenario(d).workload.graph;
    };
    // The preset: adaptive, div_val 4 (285,167,482 parameters, tested in llm_test); full: one
    // 267,735 x 1024 table and the output biases, at the preset's tgt_len of 384.
    CHECK(txl(nullptr).params() == 285'167'482);
    CHECK(txl("adaptive").params() == 285'167'482);
    const double v = 267735, h = 1024, f = 4096;
    const double layer = 5 * h * h + 2 * h * f + f + h + 4 * h;
    CHECK(txl("full").params() == v * h + v + 18 * layer + 2 * 16 * 64);
}

TEST_CASE("the gradient reduction width comes from the framework and the precision, or the key") {
    const auto grad = [](const std::string& framework, const std::string& precision, const std::string& extra = "") {
        const std::string text = R"({"schema": 1, "name": "g",
          "workload": {"model": "bert-large", "precision": ")" + precision + R"(", "framework": ")" + framework + R"(",
                       "seq_len": 128, "batch_per_gpu": 32, "samples": 1000)" + extra + R"(},
          "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8}, "pricing": {"usd_per_gpu_hour": 2.0}})";
        return analysis::parse_scenarios(text, "g.json").points.at(0).workload.grad_reduce;
    };
    CHECK(grad("pytorch-ddp", "fp16") == compute::GradReduce::fp32);  // autocast: fp32 parameters
    CHECK(grad("megatron-core", "fp16") == compute::GradReduce::param);
    CHECK(grad("megatron-core", "bf16") == compute::GradReduce::fp32);
    CHECK(grad("deepspeed", "bf16") == compute::GradReduce::param);
    CHECK(grad("pytorch-ddp", "fp16", R"(, "grad_reduce": "param")") == compute::GradReduce::param);
}

TEST_CASE("Megatron's main-gradient buffers come from the framework, or the key") {
    const auto main_grads = [](const std::string& framework, const std::string& extra = "") {
        const std::string text = R"({"schema": 1, "name": "m",
          "workload": {"model": "bert-large", "precision": "bf16", "framework": ")" + framework + R"(",
                       "seq_len": 128, "batch_per_gpu": 32, "samples": 1000)" + extra + R"(},
          "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8}, "pricing": {"usd_per_gpu_hour": 2.0}})";
        return analysis::parse_scenarios(text, "m.json").points.at(0).workload.main_grads;
    };
    CHECK(main_grads("megatron-core"));
    CHECK(main_grads("nemo"));
    CHECK_FALSE(main_grads("pytorch-fsdp"));
    CHECK_FALSE(main_grads("megatron-core", R"(, "main_grads": false)"));
    CHECK(main_grads("deepspeed", R"(, "main_grads": true)"));
}

TEST_CASE("gradient clipping comes from the framework, or the key, whose unknown names list the valid ones") {
    const auto text = [](const std::string& framework, const std::string& extra = "") {
        return R"({"schema": 1, "name": "c",
          "workload": {"model": "bert-large", "precision": "bf16", "framework": ")" + framework + R"(",
                       "seq_len": 128, "batch_per_gpu": 32, "samples": 1000)" + extra + R"(},
          "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8}, "pricing": {"usd_per_gpu_hour": 2.0}})";
    };
    const auto clip = [&](const std::string& framework, const std::string& extra = "") {
        return analysis::parse_scenarios(text(framework, extra), "c.json").points.at(0).workload.grad_clip;
    };
    CHECK(clip("pytorch-ddp") == compute::GradClip::none);
    CHECK(clip("megatron-core") == compute::GradClip::global);  // --clip-grad 1.0
    CHECK(clip("torchtitan") == compute::GradClip::global);     // training.max_norm 1.0
    CHECK(clip("pytorch-ddp", R"(, "grad_clip": "global")") == compute::GradClip::global);
    CHECK(clip("megatron-core", R"(, "grad_clip": "none")") == compute::GradClip::none);
    try {
        (void)analysis::parse_scenarios(text("pytorch-ddp", R"(, "grad_clip": "globl")"), "c.json");
        FAIL("expected an InputError");
    } catch (const analysis::InputError& e) {
        CHECK(std::string(e.what()) ==
              "c.json: /workload/grad_clip: unknown gradient clipping 'globl'; did you mean 'global'? valid: none, global");
    }
}

TEST_CASE("the attention kernel: the framework's where it runs, else unfused, and a written kernel where it cannot run is refused") {
    const auto scenario = [](const std::string& framework, const std::string& precision, const std::string& gpu,
                             const std::string& extra = "", const std::string& model = "bert-large") {
        return R"({"schema": 1, "name": "a",
          "workload": {"model": ")" + model + R"(", "precision": ")" + precision + R"(", "framework": ")" + framework +
               R"(", "seq_len": 512, "batch_per_gpu": 8, "samples": 1000)" + extra + R"(},
          "cluster": {"gpu": ")" + gpu + R"(", "gpus": 8}, "pricing": {"usd_per_gpu_hour": 2.0}})";
    };
    const auto kind = [](const std::string& text) { return analysis::parse_scenarios(text, "t.json").points.at(0).workload.attention; };
    using work::AttentionKind;
    // NVIDIA's MLPerf BERT runs apex fmha: sm80 and sm90, fp16 only.
    CHECK(kind(scenario("mlperf-nvidia", "fp16", "a100-sxm4-80gb")) == AttentionKind::fmha);
    CHECK(kind(scenario("mlperf-nvidia", "fp16", "h100-sxm5-80gb")) == AttentionKind::fmha);
    CHECK(kind(scenario("mlperf-nvidia", "bf16", "a100-sxm4-80gb")) == AttentionKind::unfused);
    CHECK(kind(scenario("mlperf-nvidia", "fp16", "rtx-a6000")) == AttentionKind::unfused);  // sm86
    CHECK(kind(scenario("mlperf-nvidia", "fp16", "b200")) == AttentionKind::unfused);       // sm100
    CHECK(kind(scenario("nvidia-dle", "fp16", "a100-sxm4-80gb")) == AttentionKind::unfused);
    CHECK(kind(scenario("nvidia-dle", "fp16", "a100-sxm4-80gb", R"(, "attention": "fmha")")) == AttentionKind::fmha);
    check_refused(scenario("nvidia-dle", "bf16", "a100-sxm4-80gb", R"(, "attention": "fmha")"), "/workload/attention",
                  "'fmha' runs in fp16 only, not bf16");
    check_refused(scenario("nvidia-dle", "fp16", "l40s", R"(, "attention": "fmha")"), "/workload/attention",
                  "'fmha' runs on sm80 and sm90 GPUs (A100, A30, H100, H200); 'l40s' is ada");
    check_refused(scenario("megatron-core", "fp16", "a100-sxm4-80gb", R"(, "attention": "fmha")", "gpt3-1.3b"),
                  "/workload/attention", "'fmha' is BERT's encoder kernel (no causal mask); GPT models take 'flash' or 'unfused'");
    check_refused(scenario("nvidia-dle", "fp16", "v100-sxm2-16gb", R"(, "attention": "flash")"), "/workload/attention",
                  "FlashAttention needs an Ampere or newer GPU; 'v100-sxm2-16gb' is volta");
    check_refused(scenario("nvidia-dle", "tf32", "a100-sxm4-80gb", R"(, "attention": "flash")"), "/workload/attention",
                  "FlashAttention runs in fp16 or bf16 (or under fp8 training), not tf32");
}
