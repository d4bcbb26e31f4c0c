// Retargeting a recorded iteration: kernel times rescaled by the compute model's rates.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "analysis/replay/graph.hpp"
#include "analysis/replay/replay.hpp"
#include "analysis/replay/retarget.hpp"
#include "analysis/scenario/calibration_io.hpp"
#include "analysis/scenario/input_error.hpp"
#include "models/compute/gpu.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/network/network.hpp"
#include "models/network/topology.hpp"
#include "tests/analysis/replay/trace_builder.hpp"

using namespace rentsim;
using namespace rentsim::replay;
using test::RankBuilder;
using test::us;

namespace {

// One gemm (fp16 by its name) of 1000 us and one elementwise kernel of 400 us, back to back.
trace::Trace two_kernels(std::string gpu = "Tesla V100-SXM2-32GB") {
    RankBuilder b(0, 1, std::move(gpu));
    b.call("cudaLaunchKernel", 0, 5, 1);
    b.call("cudaLaunchKernel", 6, 5, 2);
    b.kernel("volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", trace::KernelClass::gemm, 10, 1000, 1);
    b.kernel("vectorized_elementwise_kernel", trace::KernelClass::elementwise, 1010, 400, 2);
    b.step(1, 0, 1500);
    trace::Trace t;
    t.ranks.push_back(b.r);
    return t;
}

RetargetOptions ro(std::string gpu, std::string recorded = "", std::string precision = "", int gpus = 0) {
    RetargetOptions o;
    o.gpu = std::move(gpu);
    o.recorded_gpu = std::move(recorded);
    o.precision = std::move(precision);
    o.gpus = gpus;
    return o;
}

compute::GpuModel model(const char* gpu) {
    return compute::GpuModel(compute::find_gpu(gpu), analysis::shipped_calibration(gpu));
}

}  // namespace

TEST_CASE("recorded GPU names map to the catalog") {
    CHECK(catalog_gpu("Tesla V100-SXM2-32GB") == "v100-sxm2-32gb");
    CHECK(catalog_gpu("NVIDIA A100-SXM4-80GB") == "a100-sxm4-80gb");
    CHECK(catalog_gpu("Quadro Unknown 9000").empty());
    CHECK(catalog_gpu("").empty());
}

TEST_CASE("retargeting to the recorded GPU changes nothing") {
    const trace::Trace t = two_kernels();
    ReplayGraph g = build_graph(t);
    const double before = run_replay(g).iteration_s;
    const RetargetSummary s = retarget(g, ro("v100-sxm2-32gb"));
    CHECK(s.recorded_gpu == "v100-sxm2-32gb");
    CHECK(s.recorded_topology == s.target_topology);
    CHECK(run_replay(g).iteration_s == doctest::Approx(before));
}

TEST_CASE("a gemm scales by the achieved matmul rates, an elementwise kernel by the memory rates") {
    const trace::Trace t = two_kernels();
    ReplayGraph g = build_graph(t);
    const RetargetSummary s = retarget(g, ro("a100-sxm4-80gb"));
    CHECK(s.target_gpu == "a100-sxm4-80gb");
    const auto v100 = model("v100-sxm2-32gb"), a100 = model("a100-sxm4-80gb");
    const double o = v100.calibration().kernel_overhead_s;
    const double gemm = o + (1000e-6 - o) * v100.matmul_rate(compute::Precision::fp16).value /
                                a100.matmul_rate(compute::Precision::fp16).value;
    const double elem = o + (400e-6 - o) * v100.memory_rate().value / a100.memory_rate().value;
    for (Vertex v = 0; v < boost::num_vertices(g.graph); ++v) {
        const trace::Event* e = node_event(g, v);
        if (!e || e->kind != trace::EventKind::kernel) continue;
        const double got = static_cast<double>(g.graph[v].dur_ns) * 1e-9;
        CHECK(got == doctest::Approx(e->cls == trace::KernelClass::gemm ? gemm : elem).epsilon(1e-6));
    }
    // Faster on the A100: both kernels shrink.
    CHECK(gemm < 1000e-6);
    CHECK(elem < 400e-6);
    REQUIRE(s.classes.size() == 2);
    CHECK(s.classes[0].cls == "elementwise");
    CHECK(s.classes[1].cls == "gemm");
    CHECK(s.classes[1].retargeted_s == doctest::Approx(gemm).epsilon(1e-6));
}

TEST_CASE("a precision change rescales compute by the target precision's rate") {
    const trace::Trace t = two_kernels();
    ReplayGraph g = build_graph(t);
    retarget(g, ro("a100-sxm4-80gb", "", "bf16"));
    const auto v100 = model("v100-sxm2-32gb"), a100 = model("a100-sxm4-80gb");
    const double o = v100.calibration().kernel_overhead_s;
    const double gemm = o + (1000e-6 - o) * v100.matmul_rate(compute::Precision::fp16).value /
                                a100.matmul_rate(compute::Precision::bf16).value;
    bool seen = false;
    for (Vertex v = 0; v < boost::num_vertices(g.graph); ++v) {
        const trace::Event* e = node_event(g, v);
        if (e && e->cls == trace::KernelClass::gemm) {
            CHECK(static_cast<double>(g.graph[v].dur_ns) * 1e-9 == doctest::Approx(gemm).epsilon(1e-6));
            seen = true;
        }
    }
    CHECK(seen);
}

TEST_CASE("a trace that does not name its GPU cannot be retargeted unless told") {
    const trace::Trace t = two_kernels("");
    ReplayGraph g = build_graph(t);
    CHECK_THROWS_WITH_AS(retarget(g, ro("h100-sxm5-80gb")),
                         "rank0.json: the trace does not say which GPU recorded it: give --recorded-gpu NAME to retarget it",
                         analysis::InputError);
    CHECK_NOTHROW(retarget(g, ro("h100-sxm5-80gb", "a100-sxm4-80gb")));
    CHECK_THROWS_WITH_AS(retarget(g, ro("h10", "a100-sxm4-80gb")),
                         doctest::Contains("--gpu: unknown GPU 'h10'; did you mean"), analysis::InputError);
    CHECK_THROWS_WITH_AS(retarget(g, ro("v100-sxm2-32gb", "a100-sxm4-80gb", "bf16")),
                         "--precision: GPU 'v100-sxm2-32gb' has no bf16 path", analysis::InputError);
}

TEST_CASE("collectives are re-costed by the network model at the new group size") {
    // Two ranks of an 8-GPU job, one 4 MiB all-reduce each; 64 GPUs on DGX-1 nodes need
    // the network between nodes: the all-reduce takes longer.
    trace::Trace t;
    for (int rank = 0; rank < 2; ++rank) {
        RankBuilder b(rank, 8);
        b.call("cudaLaunchKernel", 0, 5, 1);
        b.all_reduce(5, 100, 1, 8);
        b.step(1, 0, 200);
        t.ranks.push_back(b.r);
    }
    ReplayGraph g = build_graph(t);
    const RetargetSummary s = retarget(g, ro("", "", "", 64));
    CHECK(s.recorded_gpus == 8);
    CHECK(s.target_gpus == 64);
    CHECK(s.recorded_topology == s.target_topology);
    net::TopologySpec spec;
    spec.preset = s.recorded_topology;
    spec.gpus = 8;
    const net::Network n8{net::build_topology(spec)};
    spec.gpus = 64;
    const net::Network n64{net::build_topology(spec)};
    const double ratio = n64.collective(net::Collective::all_reduce, units::bytes(4 << 20), 64).time.value /
                         n8.collective(net::Collective::all_reduce, units::bytes(4 << 20), 8).time.value;
    CHECK(ratio > 1);
    CHECK(static_cast<double>(g.graph[g.collectives.at(0).transfers.at(0)].dur_ns) ==
          doctest::Approx(100e3 * ratio).epsilon(1e-6));
}
