// Small hand-made traces for the replay tests: times in microseconds, as Kineto writes them.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/trace/trace.hpp"

namespace rentsim::replay::test {

constexpr std::int64_t us = 1000;

struct RankBuilder {
    trace::RankTrace r;

    RankBuilder(int rank, int world, std::string gpu = "Tesla V100-SXM2-32GB") {
        r.file = "rank" + std::to_string(rank) + ".json";
        r.rank = rank;
        r.world_size = world;
        r.gpu_name = std::move(gpu);
    }
    std::uint32_t push(trace::Event e) {
        r.events.push_back(std::move(e));
        return static_cast<std::uint32_t>(r.events.size() - 1);
    }
    // A runtime call on host thread 1.
    std::uint32_t call(std::string name, double start_us, double dur_us, std::int64_t corr = -1, std::int64_t thread = 1) {
        trace::Event e;
        e.name = std::move(name);
        e.kind = trace::EventKind::runtime;
        e.stream = thread;
        e.start_ns = static_cast<std::int64_t>(start_us * us);
        e.dur_ns = static_cast<std::int64_t>(dur_us * us);
        e.correlation = corr;
        return push(e);
    }
    std::uint32_t kernel(std::string name, trace::KernelClass cls, double start_us, double dur_us, std::int64_t corr,
                         std::int64_t stream = 7) {
        trace::Event e;
        e.name = std::move(name);
        e.kind = trace::EventKind::kernel;
        e.cls = cls;
        e.device = 0;
        e.stream = stream;
        e.start_ns = static_cast<std::int64_t>(start_us * us);
        e.dur_ns = static_cast<std::int64_t>(dur_us * us);
        e.correlation = corr;
        return push(e);
    }
    std::uint32_t all_reduce(double start_us, double dur_us, std::int64_t corr, int group, std::int64_t stream = 20) {
        const std::uint32_t i = kernel("ncclKernel_AllReduce_RING_LL_Sum_float", trace::KernelClass::communication, start_us,
                                       dur_us, corr, stream);
        trace::Event& e = r.events[i];
        e.has_coll = true;
        e.coll.op = trace::CollectiveOp::all_reduce;
        e.coll.group_size = group;
        e.coll.in_bytes = e.coll.out_bytes = 4 << 20;
        e.coll.process_group = "0";
        e.coll.dtype = "Float";
        return i;
    }
    void step(int n, double start_us, double dur_us) {
        r.steps.push_back({n, static_cast<std::int64_t>(start_us * us), static_cast<std::int64_t>(dur_us * us)});
    }
};

}  // namespace rentsim::replay::test
