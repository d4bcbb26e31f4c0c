// Serial rounds (Op::serial_rounds): farthest point sampling priced as dependent rounds, and
// PointNet++'s memory at a hand-checked batch.
#include <doctest/doctest.h>

#include <cmath>
#include <string_view>

#include "models/compute/gpu.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/compute/step.hpp"
#include "models/workloads/zoo.hpp"

using namespace rentsim;
using compute::Precision;

namespace {

compute::Calibration half_cal() {
    compute::Calibration c;
    c.gpu = "a100-sxm4-80gb";
    c.matmul_eff = {0.5, 0.5, 0.5, 0.5, 0.0};
    c.mem_eff = 0.5;
    c.kernel_overhead_s = 0.0;
    return c;
}

// An op of a temporary workload would dangle: the workload must be a named value.
const work::Op& find_op(work::Workload&& w, std::string_view layer, std::string_view name) = delete;
const work::Op& find_op(const work::Workload& w, std::string_view layer, std::string_view name) {
    for (const work::Layer& l : w.layers)
        if (l.name == layer)
            for (const work::Op& o : l.ops)
                if (o.name == name) return o;
    FAIL("no op " << layer << "/" << name);
    return w.layers.front().ops.front();
}

}  // namespace

TEST_CASE("the per-round latency is the derived 573 cycles at 1.53 GHz") {
    CHECK(compute::serial_round_latency_s == doctest::Approx(573.0 / 1.53e9));
    CHECK(compute::serial_round_latency_s * 1e9 == doctest::Approx(374.5).epsilon(1e-3));
}

TEST_CASE("farthest point sampling: rounds x (scan traffic at bandwidth + round latency)") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), half_cal());
    const work::Workload w = work::pointnet2_semseg();
    const work::Op& fps = find_op(w, "sa1", "fps");
    // 32 samples of 8192 points -> 1024 centres, fp32: per round every point's xyz and running
    // distance read and the distance written, 5 x 4 B; 1024 rounds x 32 x 8192 x 20 B =
    // 5,368,709,120 B at 0.5 x 2039 GB/s = 5.2666 ms. 32 samples on 108 SMs: one wave of
    // blocks, so 1024 rounds x 374.5 ns = 0.3835 ms. (FLOPs: 32 x 1024 x 8192 x 10 = 2.68e9
    // at 0.5 x 19.5 TFLOP/s = 0.275 ms, below the traffic.)
    const double traffic_s = 1024.0 * 32 * 8192 * 20 / (0.5 * 2039e9);
    const double serial_s = 1024 * 573.0 / 1.53e9;
    const auto c = gpu.op_cost(fps, 32, Precision::fp32);
    CHECK(c.time.value == doctest::Approx(traffic_s + serial_s).epsilon(1e-9));
    CHECK(c.time.value * 1e3 == doctest::Approx(5.650).epsilon(1e-3));
    // The same op without rounds is its traffic alone.
    work::Op parallel = fps;
    parallel.serial_rounds = 0;
    CHECK(gpu.op_cost(parallel, 32, Precision::fp32).time.value == doctest::Approx(traffic_s).epsilon(1e-9));
    // 200 samples need two waves of blocks on 108 SMs: twice the rounds' latency.
    CHECK(gpu.op_cost(fps, 200, Precision::fp32).time.value ==
          doctest::Approx(traffic_s * 200 / 32 + 2 * serial_s).epsilon(1e-9));
}

TEST_CASE("a neighbour search runs at the fp32 rate, not at its traffic") {
    const compute::GpuModel gpu(compute::find_gpu("a100-sxm4-80gb"), half_cal());
    const work::Workload w = work::pointnet2_semseg();  // outlives the reference to its op
    const work::Op& bq = find_op(w, "sa1", "ball_query");
    // 32 x 1024 x 8192 tests x 9 FLOPs = 2.416e9 FLOPs at 0.5 x 19.5 TFLOP/s = 0.2478 ms; its
    // traffic (3 x 8192 + 3 x 1024 + 1024 x 32 elements per sample) is 7.6 MB, 7.5 us.
    const auto c = gpu.op_cost(bq, 32, Precision::fp32);
    CHECK(c.time.value == doctest::Approx(32.0 * 1024 * 8192 * 9 / (0.5 * 19.5e12)).epsilon(1e-9));
}

TEST_CASE("PointNet++ at batch 133 fits a V100 16 GB in fp32, at 134 it does not") {
    // Stash per sample (elements, each tensor once): sa1 32768 rows x (3 + 32 + 32 + 32 + 32 +
    // 64 + 64) = 8,486,912; sa2 8192 x 579 = 4,743,168; sa3 2048 x 1155 = 2,365,440; sa4 512 x
    // 2307 = 1,181,184; fp4 64 x 1536 = 98,304; fp3 256 x 1152 = 294,912; fp2 1024 x 960 =
    // 983,040; fp1 8192 x 768 = 6,291,456; head 8192 x (128 + 128 + 128 + 21) = 3,317,760:
    // 27,762,176 elements x 4 B + the dropout mask 8192 x 128 x 1 B = 112,097,280 B. Adam in
    // fp32 holds 16 B per parameter: 969,013 x 16 = 15,504,208 B; reserved 2 GiB.
    const compute::GpuModel gpu(compute::find_gpu("v100-sxm2-16gb"), half_cal());
    const work::Workload w = work::pointnet2_semseg();
    const auto plan = [&](double b) {
        compute::StepConfig cfg;
        cfg.micro_batch = b;
        cfg.precision = Precision::fp32;
        return compute::plan_step(w, gpu, cfg);
    };
    const auto s = plan(1);
    CHECK(s.memory.activations.value == doctest::Approx(112097280.0));
    CHECK(s.memory.weights.value + s.memory.gradients.value + s.memory.optimizer.value == doctest::Approx(15504208.0));
    CHECK(s.optimizer_kind == compute::Optimizer::adam);
    const double capacity = 16.0 * 1024 * 1024 * 1024;
    CHECK(plan(133).memory.total().value <= capacity);
    CHECK(plan(134).memory.total().value > capacity);
}
