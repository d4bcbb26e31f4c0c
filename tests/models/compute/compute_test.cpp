#include <doctest/doctest.h>

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
        "h200-sxm-141gb";
    CHECK(reg.unknown_message("h10") == msg);
    CHECK_THROWS_WITH_AS(compute::find_gpu("h10"), msg.c_str(), std::invalid_argument);
}

TEST_CASE("the precision registry names every Precision in order and round-trips") {
    const auto& reg = compute::precision_registry();
    const std::vector<std::string_view> names(reg.names().begin(), reg.names().end());
    CHECK(names == std::vector<std::string_view>{"fp32", "tf32", "fp16", "bf16", "fp8"});
    for (const auto& e : reg.entries()) {
        CAPTURE(e.name);
        CHECK_FALSE(e.description.empty());
        CHECK(reg.name_of(e.value) == e.name);
        CHECK(compute::to_string(e.value) == e.name);
        CHECK(compute::parse_precision(e.name) == e.value);
    }
    CHECK(reg.get("bf16") == Precision::bf16);
    CHECK_FALSE(compute::parse_precision("fp64").has_value());
    CHECK(reg.unknown_message("bf-16") == "unknown precision 'bf-16'; did you mean 'bf16'? valid: fp32, tf32, fp16, bf16, fp8");
}
