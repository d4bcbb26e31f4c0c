#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "analysis/plan/plan.hpp"
#include "analysis/scenario/scenario.hpp"

using namespace rentsim;

namespace {
analysis::Scenario scenario(const std::string& text) { return analysis::parse_scenarios(text, "p.json").points.at(0); }

const char* gpt = R"({
  "schema": 1, "name": "g",
  "workload": {"model": "gpt3-175b", "precision": "fp16", "global_batch": 1536, "micro_batch": 1, "samples": 3072000,
               "parallelism": {"tp": 8, "pp": 16, "recompute": "full"}},
  "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 1024, "topology": "dgx-a100"},
  "pricing": {"usd_per_gpu_hour": 2.0},
  "lifecycle": {"checkpoint": {"interval_s": 3600, "write_gb_per_s": 10}}
})";
// GPT-3 1.3B under ZeRO-3 on one 8-GPU node, with overlap contention off so that the switch
// under test shows alone; `extra` adds parallelism keys.
std::pair<analysis::Scenario, analysis::StepPlan> zero3_plan(const std::string& framework, const std::string& precision,
                                                              const std::string& gpu, const std::string& topology,
                                                              const std::string& extra) {
    const auto s = scenario(R"({"schema": 1, "name": "z3",
      "workload": {"model": "gpt3-1.3b", "precision": ")" + precision + R"(", "framework": ")" + framework + R"(",
                   "global_batch": 64, "micro_batch": 4, "tokens": 1e9,
                   "parallelism": {"tp": 1, "pp": 1, "zero": 3, "overlap_contention": false)" + extra + R"(}},
      "cluster": {"gpu": ")" + gpu + R"(", "gpus": 8, "topology": ")" + topology + R"("},
      "pricing": {"usd_per_gpu_hour": 2.0}})");
    return {s, analysis::plan_step(s, 8, analysis::cluster_network(s))};
}
}  // namespace

TEST_CASE("stage balancing cuts layers into contiguous stages with the smallest largest stage") {
    using units::seconds;
    const std::vector<units::Seconds> fwd{seconds(1), seconds(1), seconds(1), seconds(1), seconds(4)};
    const std::vector<units::Seconds> bwd(5, seconds(0));
    CHECK(analysis::balanced_stages(fwd, bwd, 1) == std::vector<std::size_t>{0, 5});
    CHECK(analysis::balanced_stages(fwd, bwd, 2) == std::vector<std::size_t>{0, 4, 5});
    // Every stage keeps at least one layer, even when time alone would put two in one stage.
    CHECK(analysis::balanced_stages(fwd, bwd, 5) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("Megatron's even split: blocks evenly, the layers before the first with the first stage, the rest with the last") {
    // embedding, seven blocks, final norm and output layer: 7 = 3 + 2 + 2 over three stages.
    const std::vector<bool> block{false, true, true, true, true, true, true, true, false, false};
    CHECK(analysis::even_stages(block, 1) == std::vector<std::size_t>{0, 10});
    CHECK(analysis::even_stages(block, 3) == std::vector<std::size_t>{0, 4, 6, 10});
    CHECK(analysis::even_stages(block, 7) == std::vector<std::size_t>{0, 2, 3, 4, 5, 6, 7, 10});
    // Fewer blocks than stages: no even split (the plan then balances by time).
    CHECK(analysis::even_stages(block, 8).empty());
}

TEST_CASE("the even split is never faster than stages balanced by time, and megatron-core uses it") {
    const auto plan = [](const std::string& framework, const std::string& split) {
        const auto s = scenario(R"({"schema": 1, "name": "p",
          "workload": {"model": "gpt", "layers": 12, "hidden": 4096, "heads": 32, "seq_len": 2048, "vocab": 128000,
                       "precision": "bf16", "framework": ")" + framework + R"(", "global_batch": 64, "micro_batch": 1,
                       "tokens": 1e9, "parallelism": {"tp": 1, "pp": 4)" + split + R"(}},
          "cluster": {"gpu": "h100-sxm5-80gb", "gpus": 32, "topology": "dgx-h100"},
          "pricing": {"usd_per_gpu_hour": 2.0}})");
        return std::pair{s.workload.parallelism.even_stages, analysis::plan_step(s, 32, analysis::cluster_network(s))};
    };
    const auto [core_even, core] = plan("megatron-core", "");
    const auto [ddp_even, ddp] = plan("pytorch-ddp", "");
    CHECK(core_even);
    CHECK_FALSE(ddp_even);
    const auto [forced_even, even] = plan("pytorch-ddp", R"(, "stage_split": "even")");
    const auto [forced_balanced, balanced] = plan("megatron-core", R"(, "stage_split": "balanced")");
    CHECK(forced_even);
    CHECK_FALSE(forced_balanced);
    // Three blocks a stage, the 128,000-word output layer on the last: its slot is the
    // largest, which balancing by time shortens.
    const auto bounds = analysis::even_stages({false, true, true, true, true, true, true, true, true, true, true, true, true, false}, 4);
    CHECK(bounds == std::vector<std::size_t>{0, 4, 7, 10, 14});
    CHECK(core.training.micro_fwd_bwd > balanced.training.micro_fwd_bwd);
    CHECK(even.training.micro_fwd_bwd >= ddp.training.micro_fwd_bwd);
}

TEST_CASE("the step plan lays out the batch as Megatron does") {
    const auto s = scenario(gpt);
    const auto p = analysis::plan_step(s, s.cluster.gpus, analysis::cluster_network(s));
    CHECK(p.dp == 8);                      // 1024 / (8 x 16)
    CHECK(p.micro_steps == 192);           // 1536 / (8 x 1)
    CHECK(p.iterations == 2000);           // 3072000 / 1536
    CHECK(p.training.micro_steps == 192);
    CHECK(p.fits);
}

TEST_CASE("the pipeline bubble is every stage's slot but the slowest one's") {
    const auto s = scenario(gpt);
    const auto p = analysis::plan_step(s, s.cluster.gpus, analysis::cluster_network(s));
    // The stages as the plan cuts them, from its per-layer times (TP collectives included).
    const auto bounds = analysis::balanced_stages(p.layer_fwd, p.layer_bwd, 16);
    std::vector<double> stage;
    for (std::size_t c = 0; c + 1 < bounds.size(); ++c) {
        double t = 0;
        for (std::size_t i = bounds[c]; i < bounds[c + 1]; ++i) t += (p.layer_fwd[i] + p.layer_bwd[i]).value;
        stage.push_back(t);
    }
    const double slowest = *std::max_element(stage.begin(), stage.end());
    const double sum = std::accumulate(stage.begin(), stage.end(), 0.0);
    // A slot is the slowest stage plus its two pipeline transfers; every other stage adds its
    // own compute and the same transfers to the fill and drain.
    const double slot = static_cast<double>(p.training.micro_fwd_bwd) * 1e-9;
    const double transfers = slot - slowest;
    CHECK(transfers > 0);
    CHECK(static_cast<double>(p.training.pipeline_bubble) * 1e-9 ==
          doctest::Approx(sum - slowest + 15.0 * transfers).epsilon(1e-6));
    // The head makes the last stage the slowest: the bubble is less than the balanced
    // pipeline's (pp - 1) slots (Narayanan et al. 2021), and more than 14 of them.
    CHECK(stage.back() == slowest);
    CHECK(static_cast<double>(p.training.pipeline_bubble) < 15.0 * static_cast<double>(p.training.micro_fwd_bwd));
    CHECK(static_cast<double>(p.training.pipeline_bubble) > 14.0 * static_cast<double>(p.training.micro_fwd_bwd));
}

TEST_CASE("a checkpoint holds the unsharded weights and optimizer state, written at the given bandwidth") {
    const auto s = scenario(gpt);
    const auto job = analysis::plan_job(s, analysis::cluster_network(s));
    const auto& m = job.step.step.memory;
    CHECK(job.checkpoint_bytes == doctest::Approx(m.weights.value + m.optimizer.value));
    CHECK(job.checkpoint_write_s == doctest::Approx(job.checkpoint_bytes / 10e9));
    CHECK(job.checkpoint_interval_s == 3600);
    CHECK(job.lifecycle.checkpoint_interval == sim::ceil_seconds(3600));
    // 175B parameters over tp 8 x pp 16 hold about 1.37B per GPU at 14 B each (fp16 weights,
    // fp32 master weights and two Adam moments): about 2.4 TB for the whole model.
    CHECK(job.checkpoint_bytes * 128 / 1e12 > 2.0);
}

TEST_CASE("gradient buckets cover the whole backward pass of a data-parallel step") {
    const auto plan = [](const char* contention) {
        const auto s = scenario(std::string(R"({"schema": 1, "name": "r",
          "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 32, "samples": 1000000,
                       "parallelism": {"overlap_contention": )") + contention + R"(}},
          "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
          "pricing": {"usd_per_gpu_hour": 2.0}})");
        return analysis::plan_step(s, 8, analysis::cluster_network(s));
    };
    const auto sum = [](const std::vector<sim::Time>& v) { return std::accumulate(v.begin(), v.end(), sim::Time{0}); };
    const auto free = plan("false");
    REQUIRE(free.training.bucket_bwd.size() == free.training.bucket_comm.size());
    CHECK(free.training.bucket_bwd.size() > 2);
    // Overlap taken as free: the buckets are the backward pass, each rounded up to a nanosecond.
    CHECK(std::abs(static_cast<double>(sum(free.training.bucket_bwd)) - free.step.bwd.value * 1e9) <=
          static_cast<double>(free.training.bucket_bwd.size()));
    for (auto c : free.training.bucket_comm) CHECK(c > 0);
    // With contention each bucket's backward is dilated while an earlier reduction is on the
    // wire: never shorter, the first bucket (nothing on the wire yet) unchanged, and the whole
    // excess at most the slowdown times the reductions that could overlap it.
    const auto slowed = plan("true");
    REQUIRE(slowed.training.bucket_bwd.size() == free.training.bucket_bwd.size());
    for (std::size_t b = 0; b < slowed.training.bucket_bwd.size(); ++b)
        CHECK(slowed.training.bucket_bwd[b] >= free.training.bucket_bwd[b]);
    CHECK(slowed.training.bucket_bwd.front() == free.training.bucket_bwd.front());
    const auto excess = sum(slowed.training.bucket_bwd) - sum(free.training.bucket_bwd);
    CHECK(excess > 0);
    CHECK(static_cast<double>(excess) <=
          compute::overlap_compute_slowdown * static_cast<double>(sum(free.training.bucket_comm)) + static_cast<double>(free.training.bucket_bwd.size()));
}

TEST_CASE("Megatron-LM's local DDP reduces the gradients only after the whole backward pass") {
    const auto plan = [](const std::string& framework, const std::string& extra) {
        const auto s = scenario(R"({"schema": 1, "name": "m",
          "workload": {"model": "gpt3-1.3b", "precision": "fp16", "framework": ")" + framework + R"(",
                       "global_batch": 64, "micro_batch": 4, "tokens": 1e9,
                       "parallelism": {"tp": 1, "pp": 1, "overlap_contention": false)" + extra + R"(}},
          "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "topology": "dgx-a100"},
          "pricing": {"usd_per_gpu_hour": 2.0}})");
        return analysis::plan_step(s, 16, analysis::cluster_network(s));
    };
    const auto sum = [](const std::vector<sim::Time>& v) { return std::accumulate(v.begin(), v.end(), sim::Time{0}); };
    // The profile's default: one bucket holding the last micro-batch's whole backward pass, and
    // every reduction after it.
    const auto local = plan("megatron-lm", "");
    REQUIRE(local.training.bucket_bwd.size() == 1);
    REQUIRE(local.training.bucket_comm.size() == 1);
    // Overlapped as written (torch DDP): the same backward and the same reductions, in buckets.
    const auto overlapped = plan("megatron-lm", R"(, "overlap_grad_reduce": true)");
    CHECK(overlapped.training.bucket_bwd.size() > 2);
    CHECK(std::llabs(sum(overlapped.training.bucket_bwd) - local.training.bucket_bwd.front()) <= 1);
    CHECK(sum(overlapped.training.bucket_comm) == local.training.bucket_comm.front());
    // Megatron-Core's profile leaves the overlap off as well (--overlap-grad-reduce is opt-in);
    // PyTorch DDP's buckets overlap backward.
    CHECK(plan("megatron-core", "").training.bucket_bwd.size() == 1);
    CHECK(plan("pytorch-ddp", "").training.bucket_bwd.size() > 2);
}

TEST_CASE("Megatron-Core's distributed optimizer (ZeRO-1) reduce-scatters the gradients, as ZeRO-2 does") {
    const auto reduction = [](int zero) {
        const auto s = scenario(R"({"schema": 1, "name": "z",
          "workload": {"model": "gpt3-1.3b", "precision": "bf16", "framework": "megatron-core",
                       "global_batch": 64, "micro_batch": 4, "tokens": 1e9, "bucket_mb": 4096,
                       "parallelism": {"tp": 1, "pp": 1, "zero": )" + std::to_string(zero) + R"(, "overlap_contention": false}},
          "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8, "topology": "dgx-a100"},
          "pricing": {"usd_per_gpu_hour": 2.0}})");
        const auto p = analysis::plan_step(s, 8, analysis::cluster_network(s));
        // Without --overlap-grad-reduce every reduction waits for the whole backward pass: the
        // first bucket is the reduction, then ZeRO-1/2's parameter gather.
        REQUIRE(!p.training.bucket_comm.empty());
        return static_cast<double>(p.training.bucket_comm.front());
    };
    const double all_reduce = reduction(0), zero1 = reduction(1), zero2 = reduction(2);
    // Each rank updates only its shard, so it needs only that shard's sum: ZeRO-1 and ZeRO-2
    // send the same buckets the same way.
    CHECK(zero1 == zero2);
    // A ring all-reduce is a reduce-scatter followed by an all-gather of the same bytes: on
    // one NVSwitch node, with buckets of GiB where bandwidth dominates, it takes twice as long.
    CHECK(all_reduce / zero1 == doctest::Approx(2.0).epsilon(0.05));
}

TEST_CASE("DeepSpeed's ZeRO-1 gathers the updated weights inside its optimizer step, before the next forward") {
    const auto gather = [](const std::string& extra) {
        const auto s = scenario(R"({"schema": 1, "name": "d",
          "workload": {"model": "gpt3-1.3b", "precision": "bf16", "framework": "deepspeed",
                       "global_batch": 64, "micro_batch": 4, "tokens": 1e9,
                       "parallelism": {"tp": 1, "pp": 1, "zero": 1, "overlap_contention": false)" + extra + R"(}},
          "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "topology": "dgx-a100"},
          "pricing": {"usd_per_gpu_hour": 2.0}})");
        const auto p = analysis::plan_step(s, 16, analysis::cluster_network(s));
        // The gather is the last bucket: no backward of its own, its collective after the update.
        REQUIRE(p.training.bucket_bwd.back() == 0);
        return p.training.bucket_comm.back();
    };
    const auto profile = gather(""), exposed = gather(R"(, "overlap_param_gather": false)"),
               hidden = gather(R"(, "overlap_param_gather": true)");
    CHECK(profile == exposed);
    CHECK(profile > 0);
    CHECK(hidden < exposed);  // Megatron's --overlap-param-gather hides it behind the next forward
}

TEST_CASE("an overlapped ZeRO-1 gather skips the layers LoRA freezes: no collective, no latency") {
    const auto s = scenario(R"({"schema": 1, "name": "l",
      "workload": {"model": "gpt3-1.3b", "precision": "bf16", "framework": "megatron-core", "lora": {"rank": 16},
                   "global_batch": 64, "micro_batch": 4, "tokens": 1e9,
                   "parallelism": {"tp": 1, "pp": 1, "zero": 1, "overlap_param_gather": true, "overlap_contention": false}},
      "cluster": {"gpu": "l40s", "gpus": 8, "topology": "pcie-l40s"},
      "pricing": {"usd_per_gpu_hour": 2.0}})");
    const auto network = analysis::cluster_network(s);
    const auto p = analysis::plan_step(s, 8, network);
    // By hand, as forward runs: each layer with trained parameters gathers them (in order on
    // one stream), a frozen layer (the embedding, the head) gathers nothing.
    double comm = 0, done = 0, work = 0;
    int frozen = 0;
    for (const auto& l : p.step.layers) {
        frozen += l.trainable_params == 0;
        const double g = l.trainable_params > 0
                             ? network.collective(net::Collective::all_gather, units::bytes(2.0 * l.trainable_params), 8).time.value
                             : 0.0;
        comm += g;
        done = std::max(done, comm) + l.fwd.value;
        work += l.fwd.value;
    }
    REQUIRE(frozen > 0);
    REQUIRE(p.training.bucket_bwd.back() == 0);
    CHECK(static_cast<double>(p.training.bucket_comm.back()) == doctest::Approx(1e9 * (done - work)).epsilon(1e-6));
}

TEST_CASE("ZeRO-3 gathers each layer before its forward, one collective per layer, in order ahead of the compute") {
    // Over PCIe (no NVLink) on 8 GPUs the gathers are slow next to each layer's forward.
    const auto [s, p] = zero3_plan("pytorch-fsdp", "bf16", "l40s", "pcie-l40s", "");
    const auto network = analysis::cluster_network(s);
    // By hand: layer i's gather starts when gather i - 1 ends; its forward when both its
    // gather and forward i - 1 are done. What the forward waits is exposed.
    double comm = 0, done = 0, work = 0, first = 0;
    for (const auto& l : p.step.layers) {
        const double g = l.params > 0 ? network.collective(net::Collective::all_gather, units::bytes(2.0 * l.params), 8).time.value : 0.0;
        if (first == 0) first = g;
        comm += g;
        done = std::max(done, comm) + l.fwd.value;
        work += l.fwd.value;
    }
    const double exposed = done - work;
    CHECK(exposed >= first);  // the first layer's gather is never hidden
    CHECK(exposed > std::max(0.0, comm - work));  // more than one gather of the whole model would expose
    CHECK(static_cast<double>(p.training.micro_comm) == doctest::Approx(1e9 * exposed).epsilon(1e-6));
}

TEST_CASE("FSDP2 copies each gathered layer out of the gather buffer on the compute stream, forward and backward") {
    const auto plan = [](const std::string& framework, const std::string& extra) {
        return zero3_plan(framework, "bf16", "a100-sxm4-80gb", "dgx-a100", extra);
    };
    const auto [s, fsdp2] = plan("torchtitan", "");
    const auto without = plan("torchtitan", R"(, "gather_copy_out": false)").second;
    // By hand: per layer and gather, one kernel reading and writing the layer's bf16 weights
    // (2 bytes each) at the calibrated streaming rate, once before forward, once before backward.
    const compute::GpuModel gpu(*s.cluster.gpu, s.cluster.calibration);
    double fwd_copies = 0;
    for (const auto& l : fsdp2.step.layers)
        if (l.params > 0) fwd_copies += (units::bytes(2.0 * 2.0 * l.params) / gpu.memory_rate()).value + s.cluster.calibration.kernel_overhead_s;
    CHECK(fwd_copies > 0);
    // The compute grows by the copies; what the gathers expose (micro_comm) can only shrink,
    // since each layer's longer forward hides more of the next gather.
    const auto compute_part = [](const analysis::StepPlan& p) {
        return static_cast<double>(p.training.micro_fwd_bwd - p.training.micro_comm);
    };
    const auto forward_part = [](const analysis::StepPlan& p) {
        return static_cast<double>(p.training.last_fwd - p.training.micro_comm);
    };
    CHECK(fsdp2.training.micro_comm <= without.training.micro_comm);
    CHECK(compute_part(fsdp2) - compute_part(without) == doctest::Approx(2e9 * fwd_copies).epsilon(1e-6));
    CHECK(forward_part(fsdp2) - forward_part(without) == doctest::Approx(1e9 * fwd_copies).epsilon(1e-6));
    // FSDP1 (the pytorch-fsdp profile) gathers into its flat parameter: nothing to copy unless
    // the scenario says so.
    const auto fsdp1 = plan("pytorch-fsdp", "").second;
    const auto fsdp1_copied = plan("pytorch-fsdp", R"(, "gather_copy_out": true)").second;
    CHECK(compute_part(fsdp1_copied) - compute_part(fsdp1) == doctest::Approx(2e9 * fwd_copies).epsilon(1e-6));
}

TEST_CASE("Composer's BACKWARD_POST: each backward gather waits for the layer above it, off the gradient communication") {
    const auto plan = [](const std::string& framework, const std::string& extra) {
        return zero3_plan(framework, "bf16", "a100-sxm4-80gb", "dgx-a100", extra);
    };
    const auto [s, post] = plan("composer", "");
    const auto pre = plan("composer", R"(, "backward_prefetch": "pre")").second;
    const auto fsdp = plan("pytorch-fsdp", "").second;
    const auto fsdp_post = plan("pytorch-fsdp", R"(, "backward_prefetch": "post")").second;
    // By hand: every layer's all-gather of its bf16 weights (2 bytes each) over the 8 ranks.
    const auto network = analysis::cluster_network(s);
    double gathers = 0;
    for (const auto& l : post.step.layers)
        if (l.params > 0) gathers += network.collective(net::Collective::all_gather, units::bytes(2.0 * l.params), 8).time.value;
    REQUIRE(gathers > 0);
    const auto sum = [](const std::vector<sim::Time>& v) { return static_cast<double>(std::accumulate(v.begin(), v.end(), sim::Time{0})); };
    // The backward compute path carries every layer's gather; the communication stream none of
    // them (prefetched, it prices one gather per gradient bucket, and a bucket may join a small
    // layer to the next: a few latencies fewer).
    CHECK(sum(post.training.bucket_bwd) - sum(pre.training.bucket_bwd) == doctest::Approx(1e9 * gathers).epsilon(1e-6));
    CHECK(sum(pre.training.bucket_comm) - sum(post.training.bucket_comm) == doctest::Approx(1e9 * gathers).epsilon(0.01));
    CHECK(sum(pre.training.bucket_comm) - sum(post.training.bucket_comm) <= 1e9 * gathers);
    // Forward is the same either way; the profile is the only difference from pytorch-fsdp.
    CHECK(post.training.micro_fwd_bwd == pre.training.micro_fwd_bwd);
    CHECK(sum(fsdp.training.bucket_bwd) == sum(pre.training.bucket_bwd));
    CHECK(sum(fsdp_post.training.bucket_bwd) == sum(post.training.bucket_bwd));
}

TEST_CASE("an fp8 all-gather moves and copies one byte per parameter, and only in fp8 training") {
    const auto plan = [](const std::string& precision, const std::string& extra) {
        return zero3_plan("torchtitan", precision, "h100-sxm5-80gb", "dgx-h100", extra);
    };
    const auto [s, bf16] = plan("fp8", "");
    const auto fp8 = plan("fp8", R"(, "fp8_all_gather": true)").second;
    // Every bucket's backward gather carries half the bytes: its collectives take less time.
    REQUIRE(fp8.training.bucket_comm.size() == bf16.training.bucket_comm.size());
    for (std::size_t b = 0; b < fp8.training.bucket_comm.size(); ++b)
        if (bf16.training.bucket_comm[b] > 0) CHECK(fp8.training.bucket_comm[b] < bf16.training.bucket_comm[b]);
    // FSDP2's copy-out reads and writes 1 byte per parameter instead of 2, before forward and
    // before backward: the micro-batch is shorter by 2 x 2 x (2 - 1) bytes per parameter at the
    // streaming rate (the gathers stay hidden behind forward).
    const compute::GpuModel gpu(*s.cluster.gpu, s.cluster.calibration);
    double saved = 0;
    for (const auto& l : bf16.step.layers) saved += (units::bytes(4.0 * l.params) / gpu.memory_rate()).value;
    // The forward's gathers carry half the bytes too: they expose less.
    CHECK(fp8.training.micro_comm < bf16.training.micro_comm);
    const auto compute_part = [](const analysis::StepPlan& p) {
        return static_cast<double>(p.training.micro_fwd_bwd - p.training.micro_comm);
    };
    CHECK(compute_part(bf16) - compute_part(fp8) == doctest::Approx(1e9 * saved).epsilon(1e-6));
    // In bf16 training the switch changes nothing.
    const auto plain = plan("bf16", "").second, asked = plan("bf16", R"(, "fp8_all_gather": true)").second;
    CHECK(plain.training.micro_fwd_bwd == asked.training.micro_fwd_bwd);
    CHECK(plain.training.bucket_comm == asked.training.bucket_comm);
}

TEST_CASE("an elastic job is planned at each of its GPU counts, without simulating") {
    const auto s = scenario(R"({"schema": 1, "name": "e",
      "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 32, "samples": 1000000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "topology": "dgx-a100"},
      "pricing": {"usd_per_gpu_hour": 2.0},
      "elastic": {"schedule": [{"from_h": 0, "gpus": 16}, {"from_h": 8, "gpus": 2}], "repeat_h": 24}})");
    const auto job = analysis::plan_job(s, analysis::cluster_network(s));
    REQUIRE(job.elastic.size() == 2);
    CHECK(job.elastic[0].dp == 16);
    CHECK(job.elastic[1].dp == 2);
    CHECK(job.elastic[1].global_batch == 64);
    REQUIRE(job.lifecycle.phases.size() == 2);
    CHECK(job.lifecycle.phases[1].from == sim::ceil_seconds(8 * 3600.0));
    CHECK(job.lifecycle.repeat == sim::ceil_seconds(24 * 3600.0));
}

TEST_CASE("a ZeRO-3 gather hidden behind forward slows that forward by the overlap contention") {
    const auto plan = [](const char* contention) {
        const auto s = scenario(std::string(R"({"schema": 1, "name": "z",
          "workload": {"model": "gpt3-1.3b", "precision": "bf16", "global_batch": 64, "micro_batch": 4, "tokens": 1e9,
                       "parallelism": {"tp": 1, "pp": 1, "zero": 3, "overlap_contention": )") + contention + R"(}},
          "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "topology": "dgx-a100"},
          "pricing": {"usd_per_gpu_hour": 2.0}})");
        return analysis::plan_step(s, 16, analysis::cluster_network(s));
    };
    const auto free = plan("false"), slowed = plan("true");
    const auto extra = slowed.training.last_fwd - free.training.last_fwd;
    // The gather is hidden (none exposed), so the whole gather time overlaps the forward: the
    // forward grows by 18.9% of the hidden gather, which is at most the forward itself.
    CHECK(free.training.micro_comm == slowed.training.micro_comm);
    CHECK(extra > 0);
    CHECK(static_cast<double>(extra) <= compute::overlap_compute_slowdown * static_cast<double>(free.training.last_fwd) + 1);
    // Both times are rounded to whole nanoseconds on their own: equal to within that rounding.
    CHECK(std::llabs((slowed.training.micro_fwd_bwd - free.training.micro_fwd_bwd) - extra) <= 1);
}
