#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/compute/gpu.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/compute/step.hpp"
#include "models/workloads/zoo.hpp"

using namespace rentsim;
using compute::Precision;

namespace {
compute::Calibration simple_cal() {
    compute::Calibration c;
    c.gpu = "a100-sxm4-80gb";
    c.matmul_eff = {0.5, 0.5, 0.5, 0.5, 0.0};
    c.conv_eff = 1.0;
    c.k_fill = 0.0;
    c.mem_eff = 0.5;
    c.kernel_overhead_s = 0.0;
    return c;
}
}  // namespace

TEST_CASE("the catalog holds every GPU of the scenario contract with datasheet peaks") {
    for (const char* name : {"v100-sxm2-16gb", "v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb",
                             "h100-pcie-80gb"}) {
        const auto& g = compute::find_gpu(name);
        CHECK(g.name == name);
        CHECK(!g.source.empty());
    }
    CHECK(compute::peak(compute::find_gpu("a100-sxm4-80gb"), Precision::fp16).value == doctest::Approx(312e12));
    CHECK(compute::peak(compute::find_gpu("h100-sxm5-80gb"), Precision::fp8).value == doctest::Approx(1978.9e12));
    CHECK(compute::peak(compute::find_gpu("v100-sxm2-16gb"), Precision::bf16).value == 0.0);
}

TEST_CASE("every catalog row is filled: positive sizes and rates, a dated source, a known family") {
    for (const auto& g : compute::gpu_catalog()) {
        CAPTURE(g.name);
        CHECK(g.sms > 0);
        CHECK(g.memory_gib > 0.0);
        CHECK(g.hbm_gbps > 0.0);
        CHECK(std::max(g.peak_tflops[static_cast<std::size_t>(Precision::bf16)],
                       g.peak_tflops[static_cast<std::size_t>(Precision::fp16)]) > 0.0);
        CHECK(g.peak_tflops[static_cast<std::size_t>(Precision::fp32)] > 0.0);
        CHECK(g.tdp_w > 0.0);
        CHECK(g.pcie_generation >= 3);
        CHECK(g.source.find("read 20") != std::string_view::npos);
        CHECK(std::find(compute::gpu_families.begin(), compute::gpu_families.end(), g.family) !=
              compute::gpu_families.end());
        // NVLink fields hold NVLink only; another fabric goes to gpu_link_gbps.
        CHECK((g.nvlink_generation > 0) == (g.nvlink_gbps > 0.0));
        CHECK((g.nvlink_generation > 0) == (g.nvlink_links > 0));
        CHECK(g.gpu_link_gbps >= 0.0);
        if (g.nvswitch) CHECK(g.nvlink_generation > 0);
    }
}

TEST_CASE("fp8 is zero exactly on the parts without fp8 units: Volta, Turing and Ampere") {
    for (const auto& g : compute::gpu_catalog()) {
        CAPTURE(g.name);
        const bool no_fp8 = g.family == "volta" || g.family == "turing" || g.family == "ampere" ||
                            g.family == "ampere-ga10x";
        CHECK((g.peak_tflops[static_cast<std::size_t>(Precision::fp8)] == 0.0) == no_fp8);
    }
    // T4 (Turing) has neither TF32 nor BF16 tensor paths.
    const auto& t4 = compute::find_gpu("t4");
    CHECK(t4.peak_tflops[static_cast<std::size_t>(Precision::tf32)] == 0.0);
    CHECK(t4.peak_tflops[static_cast<std::size_t>(Precision::bf16)] == 0.0);
}

TEST_CASE("the 2026 parts are in the catalog under the names measured.csv uses") {
    for (const char* name : {"b200", "gb200", "b300", "gb300", "h200-nvl-141gb", "h100-nvl-94gb", "l40s", "l40", "l4",
                             "a40", "a10", "a10g", "t4", "rtx3090", "rtx4090", "rtx-a6000", "rtx6000-ada",
                             "mi300x"}) {
        CAPTURE(name);
        REQUIRE(compute::lookup_gpu(name) != nullptr);
        CHECK(compute::find_gpu(name).name == name);
    }
    CHECK(compute::find_gpu("l40").pcie_p2p);
    CHECK_FALSE(compute::find_gpu("rtx4090").pcie_p2p);
    CHECK_FALSE(compute::find_gpu("rtx3090").pcie_p2p);
    CHECK(compute::find_gpu("h100-sxm5-80gb").pcie_p2p);
    // PCIe cards whose NVLink bridge is not modelled; NVL cards state their bridge without NVSwitch.
    for (const char* name : {"a40", "rtx-a6000", "rtx3090", "l40s", "rtx4090"}) {
        CAPTURE(name);
        CHECK(compute::find_gpu(name).nvlink_gbps == 0.0);
    }
    CHECK(compute::find_gpu("h200-nvl-141gb").nvlink_generation == 4);
    CHECK_FALSE(compute::find_gpu("h200-nvl-141gb").nvswitch);
    CHECK_FALSE(compute::find_gpu("h100-nvl-94gb").nvswitch);
    // MI300X: Infinity Fabric, not NVLink.
    const auto& mi = compute::find_gpu("mi300x");
    CHECK(mi.nvlink_generation == 0);
    CHECK(mi.nvlink_gbps == 0.0);
    CHECK(mi.gpu_link_gbps == doctest::Approx(7 * 64.0));
    for (const auto& g : compute::gpu_catalog())
        if (g.name != "mi300x") CHECK(g.gpu_link_gbps == 0.0);
}

TEST_CASE("one hand-checked datasheet figure per 2026 part") {
    auto tflops = [](const char* name, Precision p) {
        return compute::find_gpu(name).peak_tflops[static_cast<std::size_t>(p)];
    };
    // HGX B200 spec table: FP16/BF16 4.5 PFLOPS with sparsity per GPU -> 2,250 dense.
    CHECK(tflops("b200", Precision::bf16) == doctest::Approx(2250.0));
    // GB200 NVL72 spec table: FP8 720 PFLOPS sparse per 72 GPUs -> 10 per GPU -> 5,000 dense.
    CHECK(tflops("gb200", Precision::fp8) == doctest::Approx(5000.0));
    // HGX B300 spec table: FP8 72 PFLOPS sparse per 8 GPUs -> 4,500 dense per GPU.
    CHECK(tflops("b300", Precision::fp8) == doctest::Approx(4500.0));
    // GB300 NVL72 spec table (Verda's per-GPU copy): 1.4 kW per GPU.
    CHECK(compute::find_gpu("gb300").tdp_w == doctest::Approx(1400.0));
    // H200 datasheet, H200 NVL column: BF16 1,671 TFLOPS with sparsity -> 835.5 dense; up to 600 W.
    CHECK(tflops("h200-nvl-141gb", Precision::bf16) == doctest::Approx(835.5));
    CHECK(compute::find_gpu("h200-nvl-141gb").tdp_w == doctest::Approx(600.0));
    // H100 datasheet, H100 NVL column: 94 GB HBM3 at 3.9 TB/s.
    CHECK(compute::find_gpu("h100-nvl-94gb").hbm_gbps == doctest::Approx(3900.0));
    // L40S datasheet: FP8 1,466 TFLOPS with sparsity -> 733 dense.
    CHECK(tflops("l40s", Precision::fp8) == doctest::Approx(733.0));
    // L40 datasheet: BF16 181.05 TFLOPS dense (362.1 with sparsity).
    CHECK(tflops("l40", Precision::bf16) == doctest::Approx(181.05));
    // L4 datasheet: FP16 242 TFLOPS with sparsity -> 121 dense.
    CHECK(tflops("l4", Precision::fp16) == doctest::Approx(121.0));
    // A40 datasheet: 696 GB/s GDDR6.
    CHECK(compute::find_gpu("a40").hbm_gbps == doctest::Approx(696.0));
    // A10 datasheet: TF32 125 TFLOPS with sparsity -> 62.5 dense.
    CHECK(tflops("a10", Precision::tf32) == doctest::Approx(62.5));
    // AWS A10G datasheet: FP16 70 TFLOPS dense.
    CHECK(tflops("a10g", Precision::fp16) == doctest::Approx(70.0));
    // T4 datasheet: 65 TFLOPS mixed precision (FP16 with FP32 accumulate).
    CHECK(tflops("t4", Precision::fp16) == doctest::Approx(65.0));
    // GA102 whitepaper, RTX 3090: FP32 35.6 TFLOPS.
    CHECK(tflops("rtx3090", Precision::fp32) == doctest::Approx(35.6));
    // Ada whitepaper, RTX 4090: FP16 tensor with FP32 accumulate 165.2 TFLOPS dense.
    CHECK(tflops("rtx4090", Precision::bf16) == doctest::Approx(165.2));
    // RTX A6000 datasheet: 309.7 TFLOPS tensor with sparsity -> 154.8 dense.
    CHECK(tflops("rtx-a6000", Precision::fp16) == doctest::Approx(154.8));
    // RTX 6000 Ada: the datasheet's 1,457 TFLOPS (FP8 with sparsity) is the FP16-accumulate
    // rate; its FP32-accumulate rates are the L40's (same 142-SM AD102, 300 W) at its 2.505 GHz
    // clock (91.1 TFLOPS FP32 = 18,176 cores x 2 x 2.505 GHz; the L40's 90.5 is at 2.49 GHz).
    CHECK(tflops("rtx6000-ada", Precision::bf16) == doctest::Approx(181.05 * 2.505 / 2.49).epsilon(1e-3));
    CHECK(tflops("rtx6000-ada", Precision::fp8) == doctest::Approx(362.0 * 2.505 / 2.49).epsilon(1e-3));
    // AMD MI300X data sheet: 304 CUs, FP16/BF16 1,307.4 TFLOPS dense.
    CHECK(compute::find_gpu("mi300x").sms == 304);
    CHECK(tflops("mi300x", Precision::bf16) == doctest::Approx(1307.4));
}

TEST_CASE("an unknown GPU name is rejected with a did-you-mean and the valid names") {
    try {
        (void)compute::find_gpu("h10");
        FAIL("no exception");
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        CHECK(msg.find("unknown GPU 'h10'; did you mean 'h100-sxm5-80gb'?") == 0);
        CHECK(msg.find("valid: v100-sxm2-16gb, ") != std::string::npos);
    }
}

TEST_CASE("a GEMM that fills whole waves runs at the calibrated fraction of peak") {
    // A100: 108 SMs. 12 x 9 tiles of 128 x 128 = 108 tiles: exactly one wave, compute-bound
    // (25 MB of traffic take 25 us at half of 2039 GB/s; 1.45e10 FLOP take 93 us).
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const double m = 12 * 128, n = 9 * 128, k = 4096;
    const double expected = 2 * m * n * k / (312e12 * 0.5);
    CHECK(gpu.gemm_time(m, n, k, 1, Precision::fp16).value == doctest::Approx(expected));
}

TEST_CASE("a TF32 convolution runs at its own fitted fraction of a TF32 GEMM, every other one at conv_eff") {
    auto cal = simple_cal();
    cal.conv_eff = 0.8;
    cal.conv_eff_tf32 = 0.4;
    const double m = 12 * 128, n = 9 * 128, k = 4096;  // one full wave, compute-bound
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), cal);
    CHECK(gpu.gemm_time(m, n, k, 1, Precision::tf32, true).value == doctest::Approx(2 * m * n * k / (156e12 * 0.5 * 0.4)));
    CHECK(gpu.gemm_time(m, n, k, 1, Precision::fp16, true).value == doctest::Approx(2 * m * n * k / (312e12 * 0.5 * 0.8)));
    CHECK(gpu.gemm_time(m, n, k, 1, Precision::tf32, false).value == doctest::Approx(2 * m * n * k / (156e12 * 0.5)));
    // A calibration without a TF32 figure (a file fitted before it, or a part without TF32)
    // runs TF32 convolutions at conv_eff.
    cal.conv_eff_tf32 = 0;
    const compute::GpuModel older(compute::find_gpu("a100-sxm4-80gb"), cal);
    CHECK(older.gemm_time(m, n, k, 1, Precision::tf32, true).value == doctest::Approx(2 * m * n * k / (156e12 * 0.5 * 0.8)));
}

TEST_CASE("one tile more than a wave costs a whole extra wave") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const double k = 4096;
    const double one_wave = gpu.gemm_time(12 * 128, 9 * 128, k, 1, Precision::fp16).value;    // 108 tiles
    const double plus_one = gpu.gemm_time(12 * 128 + 1, 9 * 128, k, 1, Precision::fp16).value;  // 117 tiles
    CHECK(plus_one == doctest::Approx(2 * one_wave));
}

TEST_CASE("a GEMM with a tiny K is bound by memory traffic") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const double m = 1 << 20, n = 128, k = 1;
    const double bytes = (m * k + k * n + m * n) * 2.0;
    CHECK(gpu.gemm_time(m, n, k, 1, Precision::fp16).value == doctest::Approx(bytes / (2039e9 * 0.5)));
}

TEST_CASE("more HBM bandwidth never slows a streaming kernel") {
    auto cal = simple_cal();
    const compute::GpuModel a100_40(compute::find_gpu("a100-sxm4-40gb"), cal);
    const compute::GpuModel a100_80(compute::find_gpu("a100-sxm4-80gb"), cal);
    CHECK(a100_80.stream_time(units::gib(1)) < a100_40.stream_time(units::gib(1)));
}

TEST_CASE("a precision without hardware support is an error, not a number") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    CHECK_THROWS_WITH_AS(gpu.gemm_time(128, 128, 128, 1, Precision::fp8), "GPU 'a100-sxm4-80gb' has no fp8 path",
                         std::invalid_argument);
}

TEST_CASE("the step model counts training FLOPs as three forward passes and Adam memory as 16 bytes per parameter") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const auto w = work::bert("large", 128);
    compute::StepConfig cfg;
    cfg.micro_batch = 8;
    cfg.precision = Precision::fp16;
    const auto step = compute::plan_step(w, gpu, cfg);
    CHECK(step.model_flops_per_sample.value == doctest::Approx(3 * w.fwd_flops_per_sample()));
    CHECK(step.params == doctest::Approx(w.params()));
    const double state = (step.memory.weights + step.memory.gradients + step.memory.optimizer).value;
    CHECK(state == doctest::Approx(16.0 * w.params()));
    CHECK(step.gradient_bytes.value == doctest::Approx(2.0 * w.params()));
    CHECK(step.bwd > step.fwd);
    // Reduced in fp32 (autocast's fp32 parameters): 4 bytes a parameter, nothing else moves.
    cfg.grad_reduce = compute::GradReduce::fp32;
    const auto fp32 = compute::plan_step(w, gpu, cfg);
    CHECK(fp32.gradient_bytes.value == doctest::Approx(4.0 * w.params()));
    CHECK(fp32.fwd.value == step.fwd.value);
    CHECK(fp32.bwd.value == step.bwd.value);
    // fp32 training reduces 4-byte gradients whatever the framework says.
    CHECK(compute::reduced_gradient_bytes(Precision::fp32, compute::GradReduce::param) == 4.0);
    CHECK(compute::reduced_gradient_bytes(Precision::bf16, compute::GradReduce::param) == 2.0);
    CHECK(compute::reduced_gradient_bytes(Precision::fp8, compute::GradReduce::fp32) == 4.0);
}

TEST_CASE("Megatron's main gradients: 20, 18 and 16 bytes per parameter, 4 + 16/d, 6 + 12/d and 8 + 8/d distributed") {
    // The Megatron Core user guide's table (Distributed Optimizer): fp16 parameters and
    // gradients; bf16 parameters with fp32 gradients; fp32.
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const auto w = work::bert("large", 128);
    const auto bytes = [&](Precision p, compute::GradReduce g, int zero, int dp) {
        compute::StepConfig cfg;
        cfg.micro_batch = 8;
        cfg.precision = p;
        cfg.grad_reduce = g;
        cfg.main_grads = true;
        cfg.zero = zero;
        cfg.dp = dp;
        const auto step = compute::plan_step(w, gpu, cfg);
        return (step.memory.weights + step.memory.gradients + step.memory.optimizer).value / w.params();
    };
    using compute::GradReduce;
    CHECK(bytes(Precision::fp16, GradReduce::param, 0, 1) == doctest::Approx(20.0));
    CHECK(bytes(Precision::bf16, GradReduce::fp32, 0, 1) == doctest::Approx(18.0));
    CHECK(bytes(Precision::fp32, GradReduce::fp32, 0, 1) == doctest::Approx(16.0));
    CHECK(bytes(Precision::fp16, GradReduce::param, 1, 8) == doctest::Approx(4.0 + 16.0 / 8));
    CHECK(bytes(Precision::bf16, GradReduce::fp32, 1, 8) == doctest::Approx(6.0 + 12.0 / 8));
    CHECK(bytes(Precision::fp32, GradReduce::fp32, 1, 8) == doctest::Approx(8.0 + 8.0 / 8));
    // The checkpointed state (weights and optimizer) leaves the gradient copy out.
    compute::StepConfig cfg;
    cfg.micro_batch = 8;
    cfg.precision = Precision::fp16;
    cfg.main_grads = true;
    const auto step = compute::plan_step(w, gpu, cfg);
    CHECK((step.memory.weights + step.memory.optimizer).value == doctest::Approx(14.0 * w.params()));
}

TEST_CASE("ZeRO-1 shards the optimizer state across data-parallel ranks") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const auto w = work::bert("large", 128);
    compute::StepConfig cfg;
    cfg.micro_batch = 8;
    cfg.precision = Precision::fp16;
    cfg.dp = 8;
    const auto plain = compute::plan_step(w, gpu, cfg);
    cfg.zero = 1;
    const auto zero1 = compute::plan_step(w, gpu, cfg);
    CHECK(zero1.memory.optimizer.value == doctest::Approx(plain.memory.optimizer.value / 8));
    CHECK(zero1.memory.weights.value == doctest::Approx(plain.memory.weights.value));
}

TEST_CASE("tensor parallelism splits the token table by vocabulary and sums the lookups across ranks") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    // Llama-shaped: rotary positions, so the embedding layer is the token table alone
    // (32,000 x 1,024) and its lookup is the layer's only op.
    work::GptShape shape{2, 1024, 16, 512, 32000, 2816, 4, true, work::NormKind::rms_norm, work::Positions::rotary,
                         false, false, false};
    const auto w = work::gpt(shape);
    compute::StepConfig cfg;
    cfg.micro_batch = 2;
    cfg.precision = Precision::bf16;
    const auto one = compute::plan_step(w, gpu, cfg);
    cfg.tp = 4;
    const auto four = compute::plan_step(w, gpu, cfg);
    REQUIRE(one.layers.front().name == "embedding");
    CHECK(one.layers.front().params == doctest::Approx(32000.0 * 1024));
    CHECK(four.layers.front().params == doctest::Approx(32000.0 * 1024 / 4));
    // Every layer divides: the whole model's parameters are a quarter per rank.
    CHECK(four.params == doctest::Approx(one.params / 4));
    // The partial lookups are summed like a row-parallel output: one collective of the
    // micro-batch's 2 x 512 x 1,024 bf16 values in forward; none without tensor parallelism.
    CHECK(one.layers.front().tp_fwd_collectives == 0);
    CHECK(four.layers.front().tp_fwd_collectives == 1);
    CHECK(four.layers.front().tp_bwd_collectives == 0);
    CHECK(four.layers.front().tp_collective_bytes.value == doctest::Approx(2.0 * 512 * 1024 * 2));
}

TEST_CASE("a larger micro-batch takes longer but not longer per sample") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const auto w = work::resnet50();
    compute::StepConfig cfg;
    cfg.precision = Precision::fp16;
    cfg.micro_batch = 32;
    const auto small = compute::plan_step(w, gpu, cfg);
    cfg.micro_batch = 256;
    const auto big = compute::plan_step(w, gpu, cfg);
    CHECK((big.fwd + big.bwd) > (small.fwd + small.bwd));
    CHECK((big.fwd + big.bwd).value / 256 <= (small.fwd + small.bwd).value / 32 * 1.000001);
}

namespace {
// Stash of one transformer block: the difference between a two-block and a one-block model.
double block_stash_bytes(int tp, bool sp, compute::Recompute rc) {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    compute::StepConfig cfg;
    cfg.micro_batch = 1;
    cfg.precision = Precision::fp16;
    cfg.tp = tp;
    cfg.sequence_parallel = sp;
    cfg.recompute = rc;
    const auto stash = [&](int layers) {
        const auto w = work::gpt(work::GptShape{layers, 1024, 16, 512, 1000});
        return compute::plan_step(w, gpu, cfg).memory.activations.value;
    };
    return stash(2) - stash(1);
}
}  // namespace

TEST_CASE("tensor and sequence parallelism divide a block's stash as Korthikanti et al. 2022 state") {
    const double s = 512, h = 1024, a = 16, t = 4;
    const double quad = 5 * a * s / h;  // the attention scores term
    using compute::Recompute;
    CHECK(block_stash_bytes(1, false, Recompute::none) == doctest::Approx(s * h * (34 + quad)));
    CHECK(block_stash_bytes(4, false, Recompute::none) == doctest::Approx(s * h * (10 + 24 / t + quad / t)));
    CHECK(block_stash_bytes(4, true, Recompute::none) == doctest::Approx(s * h * (34 / t + quad / t)));
    CHECK(block_stash_bytes(4, true, Recompute::selective) == doctest::Approx(s * h * 34 / t));
}

TEST_CASE("the weight gradient of a row-parallel GEMM is divided by tp with or without sequence parallelism") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const auto w = work::gpt(work::GptShape{1, 1024, 16, 512, 1000});
    const work::Op* down = nullptr;
    for (const auto& op : w.layers[1].ops)
        if (op.name == "mlp_down") down = &op;
    REQUIRE(down);
    for (const auto& b : work::backward_ops(*down)) {
        const double whole = gpu.op_cost(b, 1, Precision::fp16, 1).flops.value;
        CHECK(gpu.op_cost(b, 1, Precision::fp16, 4, false).flops.value == doctest::Approx(whole / 4));
        CHECK(gpu.op_cost(b, 1, Precision::fp16, 4, true).flops.value == doctest::Approx(whole / 4));
    }
}

TEST_CASE("selective recomputation replays the attention core and full recomputation the whole forward") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const auto w = work::gpt(work::GptShape{2, 1024, 16, 512, 1000});
    compute::StepConfig cfg;
    cfg.precision = Precision::fp16;
    const auto none = compute::plan_step(w, gpu, cfg);
    cfg.recompute = compute::Recompute::selective;
    const auto sel = compute::plan_step(w, gpu, cfg);
    cfg.recompute = compute::Recompute::full;
    const auto full = compute::plan_step(w, gpu, cfg);
    CHECK(sel.model_flops_per_sample.value == none.model_flops_per_sample.value);
    // Attention core forward FLOPs: scores and context, 4 s^2 h per block; softmax and dropout 7 a s^2.
    const double s = 512, h = 1024, a = 16;
    CHECK(sel.hardware_flops_per_sample.value - none.hardware_flops_per_sample.value ==
          doctest::Approx(2 * (4 * s * s * h + (5 + 2) * a * s * s)));
    CHECK(full.hardware_flops_per_sample.value == doctest::Approx(4.0 / 3.0 * none.model_flops_per_sample.value));
    CHECK(sel.bwd.value > none.bwd.value);
    CHECK(full.bwd.value == doctest::Approx((none.bwd + none.fwd).value));
}

TEST_CASE("the GPU registry holds the catalog in order, described, and names the closest GPU for a typo") {
    const auto& reg = compute::gpu_registry();
    CHECK(reg.what() == "GPU");
    REQUIRE(reg.entries().size() == compute::gpu_catalog().size());
    for (std::size_t i = 0; i < reg.entries().size(); ++i) {
        const auto& e = reg.entries()[i];
        CHECK(e.name == compute::gpu_catalog()[i].name);
        CHECK(e.value == &compute::gpu_catalog()[i]);
        CHECK(e.description == compute::gpu_catalog()[i].description);
    }
    REQUIRE(reg.find("h100-sxm5-80gb") != nullptr);
    CHECK((*reg.find("h100-sxm5-80gb"))->sms == 132);
    CHECK(&compute::find_gpu("a100-sxm4-80gb") == reg.get("a100-sxm4-80gb"));
    CHECK(reg.find("h10") == nullptr);
    CHECK(compute::lookup_gpu("h10") == nullptr);
    const std::string msg =
        "unknown GPU 'h10'; did you mean 'h100-sxm5-80gb'? valid: v100-sxm2-16gb, v100-sxm2-32gb, v100-sxm3-32gb, "
        "a100-sxm4-40gb, a100-sxm4-80gb, a100-pcie-40gb, a100-pcie-80gb, h100-sxm5-80gb, h100-pcie-80gb, "
        "h200-sxm-141gb, b200, gb200, b300, gb300, h200-nvl-141gb, h100-nvl-94gb, l40s, l40, l4, a40, a10, a10g, "
        "t4, rtx3090, rtx4090, rtx-a6000, rtx6000-ada, mi300x";
    CHECK(reg.unknown_message("h10") == msg);
    CHECK_THROWS_WITH_AS(compute::find_gpu("h10"), msg.c_str(), std::invalid_argument);
}

TEST_CASE("the precision registry names every Precision in order and round-trips") {
    const auto& reg = compute::precision_registry();
    const std::vector<std::string_view> names(reg.names().begin(), reg.names().end());
    CHECK(names == std::vector<std::string_view>{"fp32", "tf32", "fp16", "bf16", "fp8", "fp4"});
    for (const auto& e : reg.entries()) {
        CAPTURE(e.name);
        CHECK_FALSE(e.description.empty());
        CHECK(reg.name_of(e.value) == e.name);
        CHECK(compute::to_string(e.value) == e.name);
        CHECK(compute::parse_precision(e.name) == e.value);
    }
    CHECK(reg.get("bf16") == Precision::bf16);
    CHECK_FALSE(compute::parse_precision("fp64").has_value());
    CHECK(reg.unknown_message("bf-16") == "unknown precision 'bf-16'; did you mean 'bf16'? valid: fp32, tf32, fp16, bf16, fp8, fp4");
}

namespace {
// A100 SXM4 80GB: 2,039 GB/s of HBM at mem_eff 0.5, 10 us per kernel; BERT in fp32 at micro-batch 8.
compute::GpuModel a100_10us() {
    compute::Calibration c = simple_cal();
    c.kernel_overhead_s = 10e-6;
    return compute::GpuModel(compute::find_gpu("a100-sxm4-80gb"), c);
}
constexpr double a100_10us_rate = 2039e9 * 0.5;
compute::StepConfig fp32_micro_batch_8() {
    compute::StepConfig cfg;
    cfg.micro_batch = 8;
    cfg.precision = Precision::fp32;
    return cfg;
}
}  // namespace

TEST_CASE("an unfused optimizer streams each step of the update and launches per tensor") {
    const compute::GpuModel gpu = a100_10us();
    const double rate = a100_10us_rate;
    compute::StepConfig cfg = fp32_micro_batch_8();
    const auto large = work::bert_squad("large");
    const auto base = work::bert_squad("base");
    const auto fused = compute::plan_step(large, gpu, cfg);
    // An encoder layer holds 12 tensors: QKV, output projection and the two MLP GEMMs, each
    // with its bias, and two LayerNorms with gain and bias. Large has 12 layers more than base.
    CHECK(fused.param_tensors - compute::plan_step(base, gpu, cfg).param_tensors == doctest::Approx(12 * 12));
    const double p = fused.trainable_params, t = fused.param_tensors;
    // Fused Adam: 28 B per parameter, one launch per 320 blocks of 65,536 elements.
    CHECK(fused.optimizer.value == doctest::Approx(28 * p / rate + std::ceil(p / (320 * 65536.0)) * 10e-6));
    cfg.optimizer_kernel = compute::OptimizerKernel::for_loop;
    const auto loop = compute::plan_step(large, gpu, cfg);
    // PyTorch's single-tensor AdamW: 80 B per parameter in 8 kernels per tensor.
    CHECK(loop.optimizer.value == doctest::Approx(80 * p / rate + 8 * t * 10e-6));
    cfg.optimizer_kernel = compute::OptimizerKernel::foreach;
    const auto each = compute::plan_step(large, gpu, cfg);
    // The same passes over lists of at most 48 tensors and 320 x 65,536 elements.
    const double lists = std::max(std::ceil(t / 48), std::ceil(p / (320 * 65536.0)));
    CHECK(each.optimizer.value == doctest::Approx(80 * p / rate + 8 * lists * 10e-6));
    CHECK(fused.optimizer < each.optimizer);
    CHECK(each.optimizer < loop.optimizer);
    // Only the update changes.
    CHECK(loop.fwd.value == doctest::Approx(fused.fwd.value));
    CHECK(loop.memory.total().value == doctest::Approx(fused.memory.total().value));
}

TEST_CASE("BertAdam clips and updates each tensor in eager kernels, and global clipping adds two multi-tensor passes") {
    const compute::GpuModel gpu = a100_10us();
    const double rate = a100_10us_rate;
    compute::StepConfig cfg = fp32_micro_batch_8();
    const auto large = work::bert_squad("large");
    const auto fused = compute::plan_step(large, gpu, cfg);
    cfg.optimizer_kernel = compute::OptimizerKernel::bert_adam;
    const auto bert = compute::plan_step(large, gpu, cfg);
    // Of an encoder layer's 12 tensors, the four GEMM weights take weight decay; the biases and
    // the LayerNorms do not. Large has 12 layers more than base.
    CHECK(bert.decayed_tensors - compute::plan_step(work::bert_squad("base"), gpu, cfg).decayed_tensors ==
          doctest::Approx(12 * 4));
    const double p = bert.trainable_params, t = bert.param_tensors, d = bert.decayed_tensors;
    // 132 B per parameter; 18 kernels per tensor and 2 more per decayed one.
    CHECK(bert.optimizer.value == doctest::Approx(132 * p / rate + (18 * t + 2 * d) * 10e-6));
    CHECK(bert.optimizer_kind == compute::Optimizer::adam);
    CHECK(bert.memory.total().value == doctest::Approx(fused.memory.total().value));
    // Global-norm clipping before the fused update: 12 B per parameter more, and a norm and
    // a scale pass, each one launch per list of 48 tensors or 320 x 65,536 elements.
    cfg.optimizer_kernel = compute::OptimizerKernel::fused;
    cfg.grad_clip = compute::GradClip::global;
    const auto clipped = compute::plan_step(large, gpu, cfg);
    const double lists = std::max(std::ceil(t / 48), std::ceil(p / (320 * 65536.0)));
    CHECK(clipped.optimizer.value ==
          doctest::Approx((28 + 12) * p / rate + (std::ceil(p / (320 * 65536.0)) + 2 * lists) * 10e-6));
    CHECK(clipped.optimizer > fused.optimizer);
    CHECK(clipped.fwd.value == doctest::Approx(fused.fwd.value));
}

TEST_CASE("BertAdam is Adam even for a model that trains with SGD") {
    compute::StepConfig cfg;
    cfg.micro_batch = 32;
    cfg.optimizer_kernel = compute::OptimizerKernel::bert_adam;
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), simple_cal());
    const auto step = compute::plan_step(work::resnet50(), gpu, cfg);
    CHECK(step.optimizer_kind == compute::Optimizer::adam);
    // fp32 Adam holds two moments, 8 B per parameter.
    CHECK(step.memory.optimizer.value == doctest::Approx(8 * step.trainable_params));
}

TEST_CASE("SGD unfused is 44 B per parameter in 4 kernels per tensor") {
    compute::Calibration c = simple_cal();
    c.kernel_overhead_s = 10e-6;
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), c);
    compute::StepConfig cfg;
    cfg.micro_batch = 32;
    cfg.optimizer_kernel = compute::OptimizerKernel::for_loop;
    const auto step = compute::plan_step(work::resnet50(), gpu, cfg);
    REQUIRE(step.optimizer_kind == compute::Optimizer::sgd_momentum);
    // ResNet-50: 53 convolutions and 53 BatchNorms (gain and bias), the classifier's weight and bias.
    CHECK(step.param_tensors == doctest::Approx(53 + 2 * 53 + 2));
    CHECK(step.optimizer.value == doctest::Approx(44 * step.trainable_params / (2039e9 * 0.5) + 4 * step.param_tensors * 10e-6));
}

namespace {
// Llama 3 8B as the zoo builds it: 32 blocks, GQA with 8 KV heads, SwiGLU, FlashAttention.
work::Workload llama3_8b() {
    const auto* preset = work::find_gpt_preset("llama3-8b");
    if (!preset) throw std::runtime_error("no llama3-8b preset");
    return work::gpt(preset->shape, "llama3-8b");
}
compute::GpuModel h100() { return compute::GpuModel(compute::find_gpu("h100-sxm5-80gb"), simple_cal()); }
compute::StepConfig bf16_micro_batch_1() {
    compute::StepConfig cfg;
    cfg.micro_batch = 1;
    cfg.precision = Precision::bf16;
    return cfg;
}
}  // namespace

TEST_CASE("full recomputation of every k-th block replays 1/k of the blocks' forward") {
    const auto w = llama3_8b();
    const compute::GpuModel gpu = h100();
    compute::StepConfig cfg = bf16_micro_batch_1();
    const auto none = compute::plan_step(w, gpu, cfg);
    cfg.recompute = compute::Recompute::full;
    const auto all = compute::plan_step(w, gpu, cfg);
    cfg.recompute_every = 2;
    const auto half = compute::plan_step(w, gpu, cfg);
    // 32 blocks: blocks 0, 2, ..., 30 replay their forward (16 of them).
    double block_flops = 0, block_fwd = 0;
    for (const auto& layer : w.layers)
        if (layer.transformer_block)
            for (const auto& op : layer.ops) block_flops += op.fwd_flops;
    for (const auto& l : none.layers)
        if (l.name == "block") block_fwd = l.fwd.value;
    CHECK(half.hardware_flops_per_sample.value == doctest::Approx(none.hardware_flops_per_sample.value + 16 * block_flops));
    CHECK(half.bwd.value == doctest::Approx(none.bwd.value + 16 * block_fwd));
    CHECK(half.model_flops_per_sample.value == doctest::Approx(none.model_flops_per_sample.value));
    // Memory: between none and every block, and the 16 replaying blocks keep their inputs.
    CHECK(half.memory.activations < none.memory.activations);
    CHECK(half.memory.activations > all.memory.activations);
    CHECK(all.bwd > half.bwd);
}

TEST_CASE("the loss kernel sets the loss softmax's element size, its casts and its stash") {
    // Llama 3 8B's head, micro-batch 1: a softmax over 8,192 tokens x 128,256 words, beyond
    // the 24,576 16-bit elements a block keeps on chip, so eager reads it three times and
    // writes it once (4 passes), and its backward moves 1.5 times that. No kernel overhead.
    const auto w = llama3_8b();
    const compute::GpuModel gpu = h100();
    compute::StepConfig cfg = bf16_micro_batch_1();
    const auto with = [&](compute::LossKernel k) {
        cfg.loss_kernel = k;
        return compute::plan_step(w, gpu, cfg);
    };
    const auto head = [](const compute::StepCost& s) {
        for (const auto& l : s.layers)
            if (l.name == "head") return l;
        throw std::runtime_error("no head");
    };
    const auto eager = with(compute::LossKernel::eager), fp32 = with(compute::LossKernel::fp32),
               fused = with(compute::LossKernel::fused);
    const double logits = 8192.0 * 128256, per_byte = gpu.stream_time(units::Bytes{1e9}).value / 1e9;
    // fp32: 4 passes of 4 bytes plus the cast up (2 read, 4 written) against 4 passes of 2.
    CHECK(head(fp32).fwd.value - head(eager).fwd.value == doctest::Approx((16 + 6 - 8) * logits * per_byte));
    // Backward: 6 passes of 4 bytes plus the gradient's cast down against 6 passes of 2.
    CHECK(head(fp32).bwd.value - head(eager).bwd.value == doctest::Approx((24 + 6 - 12) * logits * per_byte));
    CHECK(head(fp32).kernels == head(eager).kernels + 2);
    // fused: one 2-byte read forward; one read and one write backward.
    CHECK(head(eager).fwd.value - head(fused).fwd.value == doctest::Approx((8 - 2) * logits * per_byte));
    CHECK(head(eager).bwd.value - head(fused).bwd.value == doctest::Approx((12 - 4) * logits * per_byte));
    // The stashed log-probabilities are 4-byte in fp32; the fused kernel keeps the 16-bit logits.
    CHECK(fp32.memory.activations.value - eager.memory.activations.value == doctest::Approx(2 * logits));
    CHECK(fused.memory.activations.value == doctest::Approx(eager.memory.activations.value));
    // Nothing but the head changes.
    const auto body = [&](const compute::StepCost& s) { return s.fwd.value + s.bwd.value - head(s).fwd.value - head(s).bwd.value; };
    CHECK(body(fp32) == doctest::Approx(body(eager)));
    CHECK(body(fused) == doctest::Approx(body(eager)));
    // A run already in fp32 has nothing to cast: fp32 and eager are the same kernels.
    cfg.precision = Precision::fp32;
    CHECK(head(with(compute::LossKernel::fp32)).fwd.value == doctest::Approx(head(with(compute::LossKernel::eager)).fwd.value));
}

TEST_CASE("a 20,003-class loss row stays on chip in 16 bits and not in fp32") {
    // Transformer-XL's adaptive head: 20,003 classes are 40 KB in 16 bits, under the 48 KiB a
    // softmax block caches (one read, one write), and 80 KB in fp32 (three reads, one write).
    work::Op loss{.name = "loss", .cls = work::OpClass::softmax, .m = 1000, .n = 20003, .k = 0, .batch = 1,
                  .fwd_flops = 0, .fwd_elems = 2 * 1000 * 20003.0, .weight_elems = 0, .saved_elems = 1000 * 20003.0};
    loss.loss = true;
    work::Workload w{.name = "head-only", .domain = work::Domain::language, .seq_len = 1000,
                     .layers = {work::Layer{.name = "head", .ops = {loss}, .params = 0, .repeat = 1}}};
    const compute::GpuModel gpu = h100();
    compute::StepConfig cfg = bf16_micro_batch_1();
    const double logits = 1000 * 20003.0, per_byte = gpu.stream_time(units::Bytes{1e9}).value / 1e9;
    CHECK(compute::plan_step(w, gpu, cfg).fwd.value == doctest::Approx(2 * 2 * logits * per_byte));
    cfg.loss_kernel = compute::LossKernel::fp32;  // four 4-byte passes and the cast up
    CHECK(compute::plan_step(w, gpu, cfg).fwd.value == doctest::Approx((4 * 4 + 6) * logits * per_byte));
    cfg.loss_kernel = compute::LossKernel::eager;  // an fp32 run: the same four passes, no cast
    cfg.precision = Precision::fp32;
    CHECK(compute::plan_step(w, gpu, cfg).fwd.value == doctest::Approx(4 * 4 * logits * per_byte));
}

TEST_CASE("op-level checkpointing replays every second matmul of a block and every op but attention") {
    const auto w = llama3_8b();
    const compute::GpuModel gpu = h100();
    compute::StepConfig cfg = bf16_micro_batch_1();
    const auto none = compute::plan_step(w, gpu, cfg);
    cfg.recompute = compute::Recompute::op;
    const auto op = compute::plan_step(w, gpu, cfg);
    // Matmuls in issue order: q, k, v (4096, 1024, 1024 wide), o, w1, w3, w2. Replayed: k, o, w3.
    double replayed = 0, flash = 0;
    for (const auto& layer : w.layers) {
        if (!layer.transformer_block) continue;
        for (const auto& o : layer.ops) {
            if (o.name == "qkv") replayed += o.fwd_flops * 1024.0 / 6144.0;
            else if (o.name == "attn_proj") replayed += o.fwd_flops;
            else if (o.name == "mlp_gate_up") replayed += o.fwd_flops / 2;
            else if (o.cls == work::OpClass::fused_attention) flash += o.fwd_flops;
            else if (o.cls != work::OpClass::matmul) replayed += o.fwd_flops;
        }
    }
    REQUIRE(flash > 0);
    CHECK(op.hardware_flops_per_sample.value == doctest::Approx(none.hardware_flops_per_sample.value + 32 * replayed));
    // Replayed ops stash nothing: less memory than without recomputation.
    CHECK(op.memory.activations < none.memory.activations);
    CHECK(op.bwd > none.bwd);
}

TEST_CASE("the board power limit lowers the tensor clock as (1 + x^4)^(-1/8), x the demand over the limit") {
    const auto& g = compute::find_gpu("rtx6000-ada");  // 300 W, 182.1 TFLOP/s dense fp16
    auto c = simple_cal();
    c.gpu = "rtx6000-ada";
    c.matmul_eff = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    c.attention_eff = 0.5;
    const compute::GpuModel free_clock(g, c);
    CHECK(free_clock.power_clock() == 1.0);  // tensor_energy_pj 0: no limit
    c.tensor_energy_pj = 4.0;
    const compute::GpuModel capped(g, c);
    // By hand: x = 4 pJ x 182.1 TFLOP/s / 300 W = 2.428; (1 + 2.428^4)^(-1/8) = 35.754^(-0.125) = 0.63949.
    CHECK(capped.power_clock() == doctest::Approx(0.63949).epsilon(1e-4));
    CHECK(capped.matmul_rate(Precision::fp16).value == doctest::Approx(182.1e12 * 0.5 * 0.63949).epsilon(1e-4));
    CHECK(capped.matmul_rate(Precision::tf32).value == doctest::Approx(91.05e12 * 0.5 * 0.63949).epsilon(1e-4));
    CHECK(capped.attention_rate(Precision::bf16).value == doctest::Approx(182.1e12 * 0.5 * 0.63949).epsilon(1e-4));
    // The CUDA cores' fp32 rate and the memory rate are not limited.
    CHECK(capped.matmul_rate(Precision::fp32).value == doctest::Approx(91.1e12 * 0.5));
    CHECK(capped.memory_rate().value == free_clock.memory_rate().value);
    // A GEMM bound by its FLOPs takes 1 / 0.63949 times as long.
    const double t_free = free_clock.gemm_time(8192, 8192, 8192, 1, Precision::fp16).value;
    const double t_capped = capped.gemm_time(8192, 8192, 8192, 1, Precision::fp16).value;
    CHECK(t_capped / t_free == doctest::Approx(1 / 0.63949).epsilon(1e-3));
}

TEST_CASE("more board power never slows a tensor-core GEMM") {
    auto c = simple_cal();
    c.tensor_energy_pj = 1.5;
    compute::GpuSpec spec = compute::find_gpu("a100-sxm4-80gb");
    double last_clock = 0, last_time = 1e300;
    for (const double watts : {50.0, 150.0, 250.0, 400.0, 700.0, 2000.0}) {
        CAPTURE(watts);
        spec.tdp_w = watts;
        const compute::GpuModel m(spec, c);
        const double t = m.gemm_time(4096, 4096, 4096, 1, Precision::bf16).value;
        CHECK(m.power_clock() > last_clock);
        CHECK(m.power_clock() <= 1.0);
        CHECK(t <= last_time);
        last_clock = m.power_clock();
        last_time = t;
    }
}

namespace {
double class_sum(const compute::StepCost& c) {
    double t = c.by_class.extra.value;
    for (const auto& s : c.by_class.op) t += s.value;
    return t;
}
}  // namespace

TEST_CASE("the step's time by op class adds up to its forward and backward in every recomputation mode") {
    const auto w = llama3_8b();
    const compute::GpuModel gpu = h100();
    compute::StepConfig cfg = bf16_micro_batch_1();
    const auto none = compute::plan_step(w, gpu, cfg);
    CHECK(class_sum(none) == doctest::Approx((none.fwd + none.bwd).value));
    CHECK(none.by_class.of(work::OpClass::conv).value == 0.0);
    CHECK(none.by_class.extra.value == 0.0);
    for (const auto mode : {compute::Recompute::selective, compute::Recompute::full, compute::Recompute::op}) {
        cfg.recompute = mode;
        const auto r = compute::plan_step(w, gpu, cfg);
        CHECK(class_sum(r) == doctest::Approx((r.fwd + r.bwd).value));
    }
    cfg.recompute = compute::Recompute::full;
    const auto full = compute::plan_step(w, gpu, cfg);
    // The replayed forward lands in the classes of the ops replayed: the whole forward again.
    CHECK(class_sum(full) - class_sum(none) == doctest::Approx(none.fwd.value));
    CHECK(full.by_class.of(work::OpClass::matmul) > none.by_class.of(work::OpClass::matmul));
    cfg.recompute_every = 2;
    const auto half = compute::plan_step(w, gpu, cfg);
    CHECK(class_sum(half) == doctest::Approx((half.fwd + half.bwd).value));
    // Selective recomputation replays only the attention core: the linear layers keep their time.
    cfg.recompute = compute::Recompute::selective;
    cfg.recompute_every = 1;
    const auto sel = compute::plan_step(w, gpu, cfg);
    CHECK(sel.by_class.of(work::OpClass::matmul).value == doctest::Approx(none.by_class.of(work::OpClass::matmul).value));
    CHECK(class_sum(sel) - class_sum(none) == doctest::Approx((sel.bwd - none.bwd).value));
}

TEST_CASE("fp8 casts and NCHW transposes are the step's extra kernels, outside every op class") {
    compute::Calibration cal = simple_cal();
    cal.matmul_eff[4] = 0.5;  // the fp8 GEMM path
    const compute::GpuModel gpu(compute::find_gpu("h100-sxm5-80gb"), cal);
    compute::StepConfig cfg = bf16_micro_batch_1();
    cfg.precision = Precision::fp8;
    const auto fp8 = compute::plan_step(llama3_8b(), gpu, cfg);
    CHECK(fp8.by_class.extra.value > 0);
    CHECK(class_sum(fp8) == doctest::Approx((fp8.fwd + fp8.bwd).value));
    compute::StepConfig vision;
    vision.precision = Precision::fp16;
    vision.micro_batch = 32;
    vision.conv_layout = compute::ConvLayout::nchw;
    const auto nchw = compute::plan_step(work::resnet50(), gpu, vision);
    vision.conv_layout = compute::ConvLayout::nhwc;
    const auto nhwc = compute::plan_step(work::resnet50(), gpu, vision);
    CHECK(nhwc.by_class.extra.value == 0.0);
    CHECK(nchw.by_class.extra.value > 0);
    CHECK(nchw.by_class.extra.value == doctest::Approx((nchw.fwd + nchw.bwd - nhwc.fwd - nhwc.bwd).value));
    CHECK(nchw.by_class.of(work::OpClass::normalization).value > 0);
    CHECK(nchw.by_class.of(work::OpClass::conv).value == doctest::Approx(nhwc.by_class.of(work::OpClass::conv).value));
}

TEST_CASE("fused elementwise ops: a run after a GEMM is one kernel as wide as its widest op, a run after a norm is free") {
    // One layer: a GEMM, then dropout (reads and writes m x n) and a residual add (reads two,
    // writes one), as Megatron's bias-dropout-add fuses them; a second: a norm, then ReLU and
    // the same add, as cuDNN's batch norm with fused add and activation runs them.
    const double m = 4096, n = 4096;
    const auto op = [&](std::string_view name, work::OpClass cls, double elems) {
        return work::Op{.name = name, .cls = cls, .m = m, .n = n, .k = 0, .batch = 1, .fwd_flops = m * n,
                        .fwd_elems = elems, .weight_elems = 0, .saved_elems = 0};
    };
    work::Op gemm{.name = "fc", .cls = work::OpClass::matmul, .m = m, .n = n, .k = n, .batch = 1,
                  .fwd_flops = 2 * m * n * n, .fwd_elems = 2 * m * n, .weight_elems = n * n, .saved_elems = m * n};
    const work::Op dropout = op("dropout", work::OpClass::elementwise, 2 * m * n),
                   add = op("residual_add", work::OpClass::elementwise, 3 * m * n),
                   relu = op("relu", work::OpClass::elementwise, 2 * m * n),
                   norm = op("norm", work::OpClass::normalization, 2 * m * n);
    const auto layer = [](std::string_view name, std::vector<work::Op> ops) {
        return work::Layer{.name = name, .ops = std::move(ops), .params = 0, .repeat = 1};
    };
    const auto plan = [&](std::vector<work::Op> ops, bool fused) {
        const work::Workload w{.name = "t", .domain = work::Domain::language, .seq_len = m, .layers = {layer("l", std::move(ops))}};
        compute::StepConfig cfg = bf16_micro_batch_1();
        cfg.fused_elementwise = fused;
        return compute::plan_step(w, h100(), cfg);
    };
    const auto fwd = [&](std::vector<work::Op> ops) { return plan(std::move(ops), false).fwd.value; };
    const auto bwd = [&](std::vector<work::Op> ops) { return plan(std::move(ops), false).bwd.value; };
    // After a GEMM: the run costs the add's own time, forward and backward (the add moves more
    // than the dropout), not the sum of both.
    const auto gemm_run = plan({gemm, dropout, add}, true);
    CHECK(gemm_run.fwd.value == doctest::Approx(fwd({gemm}) + fwd({add})));
    CHECK(gemm_run.bwd.value == doctest::Approx(bwd({gemm}) + std::max(bwd({dropout}), bwd({add}))));
    CHECK(gemm_run.fwd.value < fwd({gemm, dropout, add}));
    // The widest op counts wherever it stands in the run.
    CHECK(plan({gemm, add, dropout}, true).fwd.value == doctest::Approx(gemm_run.fwd.value));
    // One kernel for the run in each direction, beside the GEMM's.
    CHECK(gemm_run.layers[0].kernels == plan({gemm}, false).layers[0].kernels + 2);
    // After a norm: the run folds into the norm's kernel.
    const auto norm_run = plan({norm, relu, add}, true);
    CHECK(norm_run.fwd.value == doctest::Approx(fwd({norm})));
    CHECK(norm_run.bwd.value == doctest::Approx(bwd({norm})));
    CHECK(norm_run.layers[0].kernels == plan({norm}, false).layers[0].kernels);
    // Unfused, every op is its own kernel.
    CHECK(plan({gemm, dropout, add}, false).fwd.value == doctest::Approx(fwd({gemm}) + fwd({dropout}) + fwd({add})));
}

TEST_CASE("a GeLU after a GEMM runs in the GEMM's epilogue: no time, no kernel, the same stash and FLOPs") {
    // fc1, GeLU, fc2, as a feed-forward block: with gemm_epilogue the GeLU costs nothing in
    // either direction and launches nothing; its FLOPs and its stash stay. A GeLU that follows
    // no GEMM (after a norm) is still a kernel of its own.
    const double m = 4096, h = 1024, f = 4096;
    work::Op fc1{.name = "fc1", .cls = work::OpClass::matmul, .m = m, .n = f, .k = h, .batch = 1,
                 .fwd_flops = 2 * m * f * h, .fwd_elems = m * h + m * f, .weight_elems = h * f, .saved_elems = m * h};
    work::Op gelu{.name = "gelu", .cls = work::OpClass::elementwise, .m = m, .n = f, .k = 0, .batch = 1,
                  .fwd_flops = 9 * m * f, .fwd_elems = 2 * m * f, .weight_elems = 0, .saved_elems = m * f};
    gelu.activation = true;
    work::Op fc2{.name = "fc2", .cls = work::OpClass::matmul, .m = m, .n = h, .k = f, .batch = 1,
                 .fwd_flops = 2 * m * h * f, .fwd_elems = m * f + m * h, .weight_elems = h * f, .saved_elems = m * f};
    const work::Op norm{.name = "norm", .cls = work::OpClass::normalization, .m = m, .n = f, .k = 0, .batch = 1,
                        .fwd_flops = 7 * m * f, .fwd_elems = 2 * m * f, .weight_elems = 2 * f, .saved_elems = m * f};
    const auto plan = [&](std::vector<work::Op> ops, bool epilogue) {
        const work::Workload w{.name = "t", .domain = work::Domain::language, .seq_len = m,
                               .layers = {work::Layer{.name = "l", .ops = std::move(ops), .params = 0, .repeat = 1}}};
        compute::StepConfig cfg = bf16_micro_batch_1();
        cfg.gemm_epilogue = epilogue;
        return compute::plan_step(w, h100(), cfg);
    };
    const auto plain = plan({fc1, gelu, fc2}, false), fused = plan({fc1, gelu, fc2}, true);
    const auto gemms = plan({fc1, fc2}, false), alone = plan({gelu}, false);
    CHECK(fused.fwd.value == doctest::Approx(gemms.fwd.value));
    CHECK(fused.bwd.value == doctest::Approx(gemms.bwd.value));
    CHECK(plain.fwd.value == doctest::Approx(gemms.fwd.value + alone.fwd.value));
    CHECK(plain.bwd.value == doctest::Approx(gemms.bwd.value + alone.bwd.value));
    CHECK(fused.layers[0].kernels == gemms.layers[0].kernels);
    CHECK(plain.layers[0].kernels == gemms.layers[0].kernels + alone.layers[0].kernels);
    CHECK(fused.model_flops_per_sample.value == doctest::Approx(plain.model_flops_per_sample.value));
    CHECK(fused.memory.activations.value == doctest::Approx(plain.memory.activations.value));
    // After a norm, no epilogue takes it.
    CHECK(plan({norm, gelu}, true).fwd.value == doctest::Approx(plan({norm, gelu}, false).fwd.value));
}
