// The Kineto importer on every shipped trace (facts counted independently from the JSON with
// Python's json and gzip modules and written here by hand), on a hand-written trace with
// both NCCL naming schemes, and on broken files, each refused with its exact message.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/scenario/input_error.hpp"
#include "analysis/trace/byte_stream.hpp"
#include "analysis/trace/kineto.hpp"
#include "analysis/trace/summary.hpp"

using namespace rentsim;
using namespace rentsim::trace;

namespace {

const std::string root = RENTSIM_SOURCE_DIR;
const std::string kineto = root + "/scenarios/traces/kineto/";
const std::string here = root + "/tests/analysis/trace/";

const std::string dlrm[8] = {
    "dlrm_8xV100/worker0_step_12.1694128201545.pt.trace.json.gz", "dlrm_8xV100/worker1_step_12.1694128201556.pt.trace.json.gz",
    "dlrm_8xV100/worker2_step_12.1694128201554.pt.trace.json.gz", "dlrm_8xV100/worker3_step_12.1694128201557.pt.trace.json.gz",
    "dlrm_8xV100/worker4_step_12.1694128201547.pt.trace.json.gz", "dlrm_8xV100/worker5_step_12.1694128201549.pt.trace.json.gz",
    "dlrm_8xV100/worker6_step_12.1694128201553.pt.trace.json.gz", "dlrm_8xV100/worker7_step_12.1694128201553.pt.trace.json.gz",
};
const std::string resnet = "resnet_1xV100/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
const std::string recsys[2] = {"recsys_128rank_2ranks/sampled_rank-0.json.gz", "recsys_128rank_2ranks/sampled_rank-1.json.gz"};

std::int64_t count(const std::map<EventKind, std::int64_t>& m, EventKind k) {
    const auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
}

analysis::InputError refusal_of(const std::vector<std::string>& paths) {
    try {
        (void)read_kineto_ranks(paths);
    } catch (const analysis::InputError& e) {
        return e;
    }
    FAIL("accepted");
    return analysis::InputError("", "", "");
}

std::string error_of(const std::string& broken) { return refusal_of({here + "broken/" + broken}).what(); }

// The whole uncompressed text of a file, through the importer's own byte stream.
std::string inflate(const std::string& path) {
    auto s = ByteStream::open_file(path);
    std::istream in(s.get());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool same_events(const RankTrace& a, const RankTrace& b) {
    if (a.events.size() != b.events.size() || a.deps.size() != b.deps.size() || a.steps.size() != b.steps.size()) return false;
    for (std::size_t i = 0; i < a.events.size(); ++i) {
        const Event &x = a.events[i], &y = b.events[i];
        if (x.name != y.name || x.kind != y.kind || x.cls != y.cls || x.start_ns != y.start_ns || x.dur_ns != y.dur_ns ||
            x.stream != y.stream || x.device != y.device || x.step != y.step || x.correlation != y.correlation ||
            x.has_coll != y.has_coll || x.coll.seq != y.coll.seq || x.coll.in_bytes != y.coll.in_bytes)
            return false;
    }
    for (std::size_t i = 0; i < a.deps.size(); ++i)
        if (a.deps[i].from != b.deps[i].from || a.deps[i].to != b.deps[i].to) return false;
    return a.rank == b.rank && a.world_size == b.world_size && a.gpu_name == b.gpu_name;
}

}  // namespace

TEST_CASE("every DLRM rank imports with its rank, GPU, step and 5 SendRecv + 3 AllReduce NCCL kernels") {
    std::vector<std::string> paths;
    for (const auto& f : dlrm) paths.push_back(kineto + f);
    std::reverse(paths.begin(), paths.end());  // ranks come from distributedInfo, not from the order given
    const Trace t = read_kineto_ranks(paths);
    REQUIRE(t.ranks.size() == 8);
    // Per rank: kept "X" events (all but the profiler's span), kernels, runtime calls, memsets,
    // ProfilerStep#10's duration in ns, kernel time in ns.
    struct Facts {
        std::int64_t events, kernels, runtime, memsets, step_ns, kernel_ns, deps;
    };
    const Facts facts[8] = {
        {2459, 245, 525, 0, 14455000, 6832000, 261},  {2526, 310, 527, 0, 19901000, 12582000, 262},
        {2448, 246, 513, 0, 13017000, 4560000, 262},  {2551, 315, 541, 6, 19313000, 11014000, 273},
        {2469, 251, 523, 6, 17979000, 7713000, 273},  {2439, 245, 505, 0, 17797000, 7292000, 261},
        {2450, 246, 515, 0, 13091000, 4609000, 262},  {2439, 246, 504, 0, 12509000, 2805000, 262},
    };
    for (int r = 0; r < 8; ++r) {
        CAPTURE(r);
        const RankTrace& rt = t.ranks[static_cast<std::size_t>(r)];
        const TraceSummary s = summarize(rt);
        const Facts& f = facts[r];
        CHECK(rt.rank == r);
        CHECK(rt.world_size == 8);
        CHECK(rt.file == kineto + dlrm[r]);
        CHECK(rt.gpu_name == "Tesla V100-SXM2-32GB");
        CHECK(s.events == f.events);
        CHECK(count(s.by_kind, EventKind::cpu_op) == 1633);
        CHECK(count(s.by_kind, EventKind::annotation) == 40);
        CHECK(count(s.by_kind, EventKind::kernel) == f.kernels);
        CHECK(count(s.by_kind, EventKind::runtime) == f.runtime);
        CHECK(count(s.by_kind, EventKind::memcpy) == 16);
        CHECK(count(s.by_kind, EventKind::memset) == f.memsets);
        CHECK(s.deps == f.deps);
        std::int64_t kernel_ns = 0;
        for (const auto& [c, ns] : s.kernel_ns_by_class) kernel_ns += ns;
        CHECK(kernel_ns == f.kernel_ns);
        CHECK(s.collective_kernels.size() == 2);
        CHECK(s.collective_kernels.at(CollectiveOp::send_recv) == 5);
        CHECK(s.collective_kernels.at(CollectiveOp::all_reduce) == 3);
        CHECK(s.kernels_by_class.at(KernelClass::communication) == 8);
        CHECK(s.kernels_by_class.count(KernelClass::unknown) == 0);
        REQUIRE(rt.steps.size() == 1);
        CHECK(rt.steps[0].number == 10);
        CHECK(rt.steps[0].dur_ns == f.step_ns);
        CHECK(s.unknown_kinds.empty());
        CHECK(rt.notes.empty());
        // Every kernel starts inside ProfilerStep#10. The NCCL kernels, in time order on every
        // rank: SendRecv x4 (embedding all-to-alls), AllReduce, SendRecv, AllReduce x2.
        std::vector<CollectiveOp> ops;
        for (const Event& e : rt.events) {
            if (e.kind == EventKind::kernel) CHECK(e.step == 10);
            if (e.has_coll) {
                CHECK(e.coll.seq == static_cast<std::int64_t>(ops.size()));
                CHECK(e.coll.in_bytes == -1);
                ops.push_back(e.coll.op);
            }
        }
        const std::vector<CollectiveOp> expected = {CollectiveOp::send_recv,  CollectiveOp::send_recv, CollectiveOp::send_recv,
                                                    CollectiveOp::send_recv,  CollectiveOp::all_reduce, CollectiveOp::send_recv,
                                                    CollectiveOp::all_reduce, CollectiveOp::all_reduce};
        CHECK(ops == expected);
    }
}

TEST_CASE("DLRM rank 0's first kernel keeps its recorded time, stream and launch") {
    const RankTrace t = read_kineto(kineto + dlrm[0]);
    const auto k = std::find_if(t.events.begin(), t.events.end(), [](const Event& e) { return e.kind == EventKind::kernel; });
    REQUIRE(k != t.events.end());
    CHECK(k->name.rfind("void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false", 0) == 0);
    CHECK(k->cls == KernelClass::gemm);
    CHECK(k->start_ns == 1694128201428473000);
    CHECK(k->dur_ns == 8000);
    CHECK(k->device == 0);
    CHECK(k->stream == 7);
    CHECK(k->correlation == 40875);
    const auto i = static_cast<std::uint32_t>(k - t.events.begin());
    const auto d = std::find_if(t.deps.begin(), t.deps.end(), [&](const Dep& x) { return x.to == i; });
    REQUIRE(d != t.deps.end());
    CHECK(t.events[d->from].name == "cudaLaunchKernel");
    CHECK(t.events[d->from].correlation == 40875);
    CHECK(t.events[d->from].stream == t.events[d->from].stream);
}

TEST_CASE("ResNet on one V100: 5 steps of 35, 72, 96, 96 and 96 ms, kernels per step as HTA counts them") {
    const RankTrace t = read_kineto(kineto + resnet);
    const TraceSummary s = summarize(t);
    CHECK(t.rank == 0);
    CHECK(t.world_size == 1);
    CHECK(t.gpu_name == "Tesla V100-SXM2-32GB");
    CHECK(s.events == 45419);
    CHECK(count(s.by_kind, EventKind::cpu_op) == 23910);
    CHECK(count(s.by_kind, EventKind::runtime) == 15329);
    CHECK(count(s.by_kind, EventKind::kernel) == 4350);
    CHECK(count(s.by_kind, EventKind::memcpy) == 1600);
    CHECK(count(s.by_kind, EventKind::memset) == 145);
    CHECK(count(s.by_kind, EventKind::annotation) == 85);  // 70 user_annotation, 15 gpu_user_annotation
    CHECK(s.deps == 6095);                                 // every kernel, copy and memset has its launch
    CHECK(s.collective_kernels.empty());                   // one rank: DDP launches no NCCL kernel
    CHECK(s.collective_records == 35);                     // record_param_comms: 25 allreduce, 10 broadcast
    CHECK(s.unknown_kinds.empty());
    std::int64_t kernel_ns = 0;
    for (const auto& [c, ns] : s.kernel_ns_by_class) kernel_ns += ns;
    CHECK(kernel_ns == 468153602);  // fractional microseconds, rounded to ns one by one
    // The class rules of classify.hpp on its kernel names (a pin: a rule change shows here).
    // The unknown ones are cuDNN's offset computations, 0.7 ms of the 468 ms.
    const std::map<KernelClass, std::int64_t> classes = {
        {KernelClass::gemm, 430},    {KernelClass::convolution, 1125}, {KernelClass::elementwise, 2360},
        {KernelClass::optimizer, 45}, {KernelClass::copy, 45},         {KernelClass::unknown, 345}};
    CHECK(s.kernels_by_class == classes);
    CHECK(s.kernel_ns_by_class.at(KernelClass::unknown) == 698716);  // the cask_cudnn_infer::compute* kernels, 345 of them
    REQUIRE(t.steps.size() == 5);
    const std::int64_t durations[5] = {35115869, 72077474, 95697341, 95551087, 95699037};
    for (int i = 0; i < 5; ++i) {
        CHECK(t.steps[static_cast<std::size_t>(i)].number == 101 + i);
        CHECK(t.steps[static_cast<std::size_t>(i)].dur_ns == durations[i]);
    }
    CHECK(t.steps[0].start_ns == 1712195495502094500);
    // A kernel belongs to the step whose window holds its start; those that start after the
    // last step's window (the GPU lags the host) belong to none.
    std::map<int, int> per_step;
    for (const Event& e : t.events)
        if (e.kind == EventKind::kernel) ++per_step[e.step];
    const std::map<int, int> expected = {{-1, 831}, {101, 285}, {102, 624}, {103, 870}, {104, 870}, {105, 870}};
    CHECK(per_step == expected);
    // The recorded collectives: Process Group ID 0, ranks "[0]", Float all-reduces.
    const auto ar = std::find_if(t.events.begin(), t.events.end(),
                                 [](const Event& e) { return e.has_coll && e.coll.op == CollectiveOp::all_reduce; });
    REQUIRE(ar != t.events.end());
    CHECK(ar->kind == EventKind::cpu_op);
    CHECK(ar->coll.process_group == "0");
    CHECK(ar->coll.group_ranks == std::vector<int>{0});
    CHECK(ar->coll.group_size == 1);
    CHECK(ar->coll.dtype == "Float");
    CHECK(ar->coll.in_bytes == ar->coll.out_bytes);
    CHECK(ar->coll.in_bytes % 4 == 0);
}

TEST_CASE("the recommendation job's two ranks of 128: steps 551 and 552, 10 SendRecv kernels each") {
    const Trace t = read_kineto_ranks({kineto + recsys[1], kineto + recsys[0]});
    REQUIRE(t.ranks.size() == 2);
    const std::int64_t events[2] = {4810, 4675}, kernels[2] = {1154, 1104};
    const std::int64_t steps[2][2] = {{607312000, 622928000}, {607904000, 630639000}};
    for (int r = 0; r < 2; ++r) {
        CAPTURE(r);
        const RankTrace& rt = t.ranks[static_cast<std::size_t>(r)];
        const TraceSummary s = summarize(rt);
        CHECK(rt.rank == r);
        CHECK(rt.world_size == 128);
        CHECK(rt.gpu_name.empty());  // no deviceProperties
        CHECK(s.events == events[r]);
        CHECK(count(s.by_kind, EventKind::kernel) == kernels[r]);
        CHECK(s.collective_kernels.size() == 1);
        CHECK(s.collective_kernels.at(CollectiveOp::send_recv) == 10);
        REQUIRE(rt.steps.size() == 2);
        CHECK(rt.steps[0].number == 551);
        CHECK(rt.steps[1].number == 552);
        CHECK(rt.steps[0].dur_ns == steps[r][0]);
        CHECK(rt.steps[1].dur_ns == steps[r][1]);
        // No ac2g flow events in these files: the links come from the correlation ids alone.
        CHECK(s.deps == count(s.by_kind, EventKind::runtime));
    }
}

TEST_CASE("GEMM kernels get the FLOPs of the operator that launched them, from its recorded shapes") {
    // The sums were computed independently with Python: innermost cpu_op around each launch,
    // 2 x M x N x K of its "Input Dims", split over its GEMM kernels.
    const RankTrace dlrm0 = read_kineto(kineto + dlrm[0]);
    const RankTrace recsys0 = read_kineto(kineto + recsys[0]);
    for (const auto& [t, flops, kernels] : {std::tuple{&dlrm0, 60487168.0, 28}, std::tuple{&recsys0, 1650322923520.0, 386}}) {
        double sum = 0;
        int with = 0;
        for (const Event& e : t->events)
            if (e.kind == EventKind::kernel && e.flops >= 0) {
                CHECK(e.cls == KernelClass::gemm);
                sum += e.flops;
                ++with;
            }
        CHECK(sum == flops);
        CHECK(with == kernels);
    }
    // ResNet was recorded without record_shapes: no FLOPs anywhere.
    const RankTrace resnet_t = read_kineto(kineto + resnet);
    CHECK(std::none_of(resnet_t.events.begin(), resnet_t.events.end(), [](const Event& e) { return e.flops >= 0; }));

    const RankTrace t = parse_kineto(R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 100, "args": {"Input Dims": [[2, 4, 8], [16, 8], [16]]}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"Input Dims": [[16], [8, 8], [8, 16], [], []]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 1}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 2}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 40, "dur": 5, "args": {"correlation": 3}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 70, "dur": 5, "args": {"correlation": 4}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::matmul", "pid": 1, "tid": 2, "ts": 0, "dur": 10, "args": {"Input Dims": [[3, 5], [5]]}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::bmm", "pid": 1, "tid": 2, "ts": 20, "dur": 10, "args": {"Input Dims": [[2, 3, 5], [2, 4, 7]]}},
      {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 50, "dur": 5, "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "cutlass_80_tensorop_s1688gemm_64x64", "pid": 0, "tid": 7, "ts": 60, "dur": 5, "args": {"correlation": 2}},
      {"ph": "X", "cat": "kernel", "name": "splitKreduce_kernel", "pid": 0, "tid": 7, "ts": 70, "dur": 5, "args": {"correlation": 3}},
      {"ph": "X", "cat": "kernel", "name": "volta_sgemm_32x32_nn", "pid": 0, "tid": 7, "ts": 80, "dur": 5, "args": {"correlation": 4}}
    ]})",
                                     "flops.json");
    CHECK(t.events[0].flops == 2.0 * 8 * 8 * 16);  // linear: 2 x (2 x 4) x 8 x 16
    CHECK(t.events[1].flops == 2.0 * 8 * 8 * 16);  // its addmm, the same product
    CHECK(t.events[6].flops == 2.0 * 3 * 5);       // matmul by a vector
    CHECK(t.events[7].flops == -1);                // bmm with shapes that do not multiply
    CHECK(t.events[8].flops == 1024);              // the addmm's two GEMM kernels share its 2,048
    CHECK(t.events[9].flops == 1024);
    CHECK(t.events[10].flops == -1);  // not a GEMM
    CHECK(t.events[11].flops == 2048);  // launched by aten::linear itself, after its addmm
}

TEST_CASE("gzip and plain JSON of one trace import the same") {
    const RankTrace gz = read_kineto(kineto + dlrm[3]);
    const RankTrace plain = parse_kineto(inflate(kineto + dlrm[3]), "plain");
    CHECK(same_events(gz, plain));
    const RankTrace a = read_kineto(here + "data/nccl-both-names.json");
    const RankTrace b = read_kineto(here + "data/nccl-both-names.json.gz");
    CHECK(same_events(a, b));
    CHECK(a.unknown_kinds == b.unknown_kinds);
    // Two gzip members one after the other (`cat a.gz b.gz`), each half of the JSON.
    const RankTrace c = read_kineto(here + "data/nccl-both-names.two-members.json.gz");
    CHECK(same_events(a, c));
}

TEST_CASE("a hand-written trace with both NCCL names, the recent collective args and a cuda_sync wait") {
    const RankTrace t = read_kineto(here + "data/nccl-both-names.json");
    CHECK(t.rank == 1);
    CHECK(t.world_size == 4);
    CHECK(t.gpu_name == "NVIDIA H100 80GB HBM3");
    REQUIRE(t.events.size() == 13);  // the 14 "X" entries but the cuda_sync one
    const std::map<std::string, std::int64_t> unknown = {{"X/overhead", 1}, {"ph C", 1}};
    CHECK(t.unknown_kinds == unknown);
    REQUIRE(t.steps.size() == 1);
    CHECK(t.steps[0].number == 3);
    CHECK(t.steps[0].start_ns == 1000000);
    CHECK(t.steps[0].dur_ns == 500500);

    const Event& ar = t.events[3];
    CHECK(ar.kind == EventKind::kernel);
    CHECK(ar.cls == KernelClass::communication);
    CHECK(ar.start_ns == 1010125);  // 1010.125 us
    CHECK(ar.has_coll);
    CHECK(ar.coll.op == CollectiveOp::all_reduce);  // from the old name alone
    CHECK(ar.coll.in_bytes == -1);
    CHECK(ar.coll.process_group.empty());
    CHECK(ar.coll.seq == 0);
    CHECK(ar.step == 3);

    const Event& ag = t.events[5];
    CHECK(ag.has_coll);
    CHECK(ag.coll.op == CollectiveOp::all_gather);
    CHECK(ag.coll.dtype == "BFloat16");
    CHECK(ag.coll.in_bytes == 2048);  // 1024 x 2 bytes
    CHECK(ag.coll.out_bytes == 8192);
    CHECK(ag.coll.group_size == 4);
    CHECK(ag.coll.process_group == "1");
    CHECK(ag.coll.group_ranks == std::vector<int>{0, 1, 2, 3});
    CHECK(ag.coll.seq == 0);  // the first of group "1"

    const Event& a2a = t.events[6];
    CHECK(a2a.coll.op == CollectiveOp::all_to_all);  // the recorded name wins over SendRecv
    CHECK(a2a.coll.in_bytes == 40);
    CHECK(a2a.coll.group_ranks == std::vector<int>{1, 3});
    CHECK(a2a.coll.seq == 1);

    // Launch -> kernel links by correlation: 7 and 8 have launches, 9 and 12 none.
    REQUIRE(t.deps.size() == 2);
    CHECK(t.deps[0].from == 2);
    CHECK(t.deps[0].to == 3);
    CHECK(t.deps[1].from == 4);
    CHECK(t.deps[1].to == 5);
    CHECK(t.deps[0].kind == DepKind::flow);

    const Event& record = t.events[7];
    const Event& wait = t.events[8];
    CHECK(record.name == "cudaEventRecord");
    CHECK(record.cuda_event == 10);
    CHECK(wait.name == "cudaStreamWaitEvent");
    CHECK(wait.cuda_event == 10);
    CHECK(wait.sync_stream == 21);
    CHECK(wait.wait_on_stream == 20);

    const Event& copy = t.events[9];
    CHECK(copy.kind == EventKind::memcpy);
    CHECK(copy.cls == KernelClass::copy);
    CHECK(copy.bytes_accessed == 4096);

    const Event& k2 = t.events[10];
    CHECK(k2.cls == KernelClass::gemm);
    CHECK(k2.stream == 7);  // from "tid": "stream 7"
    CHECK(k2.device == 0);  // from the pid

    CHECK(t.events[11].kind == EventKind::other);
    const Event& late = t.events[12];
    CHECK(late.start_ns == 1500500);
    CHECK(late.step == -1);  // the step's window is [1000, 1500.5) us
    CHECK(late.cls == KernelClass::elementwise);
    CHECK(t.events[1].stream == 11);  // a host event's stream is its thread
    CHECK(t.events[1].device == -1);
    CHECK(t.notes.empty());
}

TEST_CASE("a trace without ProfilerStep says it is replayed as one window, and a bare event array is read") {
    const RankTrace t = read_kineto(here + "data/no-steps.json");
    CHECK(t.events.size() == 2);
    CHECK(t.steps.empty());
    CHECK(t.events[1].step == -1);
    CHECK(t.events[1].cls == KernelClass::unknown);
    CHECK(t.notes == std::vector<std::string>{"no ProfilerStep annotations: replayed as one window"});
    const TraceSummary s = summarize(t);
    CHECK(s.span_ns == 3000);
    CHECK(describe(s) ==
          "events 2: cpu_op 1, kernel 1\nkernels by class: unknown 1\ncollective kernels: none\nsteps: none\n"
          "note: no ProfilerStep annotations: replayed as one window\n");
}

TEST_CASE("files without distributedInfo take their ranks from their order, the world size from their number") {
    const Trace t = read_kineto_ranks({here + "data/no-steps.json", here + "data/no-steps.json"});
    REQUIRE(t.ranks.size() == 2);
    CHECK(t.ranks[0].rank == 0);
    CHECK(t.ranks[1].rank == 1);
    CHECK(t.ranks[1].world_size == 2);
    CHECK(t.ranks[1].notes.back() == "not every file records distributedInfo.rank: ranks follow the order of the files");
}

TEST_CASE("broken traces are refused with the file, the place and what was expected") {
    const std::string b = here + "broken/";
    CHECK(error_of("truncated.json.gz") ==
          b + "truncated.json.gz: truncated gzip stream: the compressed data ends before the end of its last block");
    CHECK(error_of("corrupt.json.gz") == b + "corrupt.json.gz: corrupt gzip data (invalid distance too far back)");
    CHECK(error_of("trailing-garbage.json.gz") ==
          b + "trailing-garbage.json.gz: bytes after the end of the gzip stream, not another gzip member");
    CHECK(error_of("bad-json.json") ==
          b + "bad-json.json: line 2, column 31: malformed JSON: syntax error while parsing object key - unexpected ','; expected string literal");
    CHECK(error_of("x-without-ts.json") == b + "x-without-ts.json: /traceEvents/1: an \"X\" event needs \"ts\" (microseconds)");
    CHECK(error_of("negative-dur.json") == b + "negative-dur.json: /traceEvents/0/dur: negative duration -2.5 microseconds");
    CHECK(error_of("ts-not-a-number.json") == b + "ts-not-a-number.json: /traceEvents/0/ts: expected a number of microseconds");
    CHECK(error_of("ts-out-of-range.json") == b + "ts-out-of-range.json: /traceEvents/0/ts: out of range: 1e+300 microseconds");
    CHECK(error_of("name-not-a-string.json") == b + "name-not-a-string.json: /traceEvents/0/name: expected a string");
    CHECK(error_of("event-not-an-object.json") ==
          b + "event-not-an-object.json: /traceEvents/1: expected an object (a trace event), got 17");
    CHECK(error_of("events-not-an-array.json") == b + "events-not-an-array.json: /traceEvents: expected an array of trace events");
    CHECK(error_of("no-trace-events.json") ==
          b + "no-trace-events.json: no \"traceEvents\" array: not a PyTorch profiler (Kineto) trace");
    CHECK(error_of("rank-not-below-world.json") ==
          b + "rank-not-below-world.json: /distributedInfo/rank: rank 8 is not below world_size 8");
    CHECK(error_of("too-deep.json") ==
          b + "too-deep.json: /traceEvents/0: nesting deeper than 32 levels of arrays and objects");
    CHECK(error_of("empty.json") ==
          b + "empty.json: line 1, column 1: malformed JSON: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal");
    CHECK(std::string(refusal_of({b + "rank0-a.json", b + "rank0-b.json"}).what()) ==
          b + "rank0-b.json: /distributedInfo/rank: rank 0 is also the rank of " + b + "rank0-a.json: give one file per rank");
    CHECK(std::string(refusal_of({b + "rank0-a.json", b + "world-differs.json"}).what()) ==
          b + "world-differs.json: /distributedInfo/world_size: world_size 4 differs from world_size 2 of " + b + "rank0-a.json");
    CHECK(std::string(refusal_of({b + "rank-without-world.json"}).what()) ==
          b + "rank-without-world.json: /distributedInfo/rank: rank 3 is not below the world size 1 (the number of files: no "
              "file records distributedInfo.world_size)");
    CHECK(std::string(refusal_of({b + "missing.json"}).what()) == b + "missing.json: cannot open file: No such file or directory");
    CHECK(std::string(refusal_of({b}).what()) == b + ": is a folder, not a trace file");
    CHECK(std::string(refusal_of({}).what()) == "no trace files given");
}

TEST_CASE("an error names the entry by its index in traceEvents, also in a gzip stream") {
    const analysis::InputError e = [] {
        try {
            (void)parse_kineto(R"({"traceEvents": [{"ph": "M"}, {"ph": "i"}, {"ph": "X", "cat": "kernel", "name": "k", "ts": 1}]})", "mem");
        } catch (const analysis::InputError& x) {
            return x;
        }
        return analysis::InputError("", "", "accepted");
    }();
    CHECK(e.file() == "mem");
    CHECK(e.where() == "/traceEvents/2");
    CHECK(e.message() == "an \"X\" event needs \"dur\" (microseconds)");
}
