#include "analysis/simulate/flow_collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

#include "sim/engine.hpp"
#include "sim/link.hpp"
#include <tuple>
#include <utility>

namespace rentsim::analysis {
namespace {

using net::Collective;

struct Flow {
    std::vector<int> links;
    double remaining = 0.0;   // wire bytes left
};

struct Job {
    std::vector<std::vector<Flow>> phases;
    double phase_latency = 0.0;
    std::size_t phase = 0;
    double ready = 0.0;       // when the current phase's latency has passed
    bool done = false;
    FlowJobResult result;
};

// Efficiency of a flow's path, as the analytic model applies it: the fabric's once a path
// leaves the node, NVLink's for all-NVLink paths, PCIe's otherwise.
double path_efficiency(const net::Network& network, const std::vector<int>& links) {
    const net::Topology& t = network.topology();
    const net::NetworkParams& p = network.params();
    bool nvlink = true;
    for (int id : links) {
        const net::Link& l = t.link(id);
        if (l.kind == net::LinkKind::network) return p.efficiency(t.design().fabric);
        if (l.kind != net::LinkKind::nvlink) nvlink = false;
    }
    return nvlink ? p.nvlink_efficiency(t.design().nvlink_generation) : p.pcie_efficiency;
}

Job build_job(const net::Network& network, const FlowJob& spec) {
    const net::Topology& t = network.topology();
    if (spec.ranks.size() < 2) throw std::invalid_argument("a flow-level collective needs at least two ranks");
    std::vector<int> ranks = spec.ranks;
    std::sort(ranks.begin(), ranks.end());
    if (std::adjacent_find(ranks.begin(), ranks.end()) != ranks.end())
        throw std::invalid_argument("flow-level collective lists a rank twice");
    const int n = static_cast<int>(ranks.size());
    const double bytes = spec.bytes.value;

    // Ranks by node, in ring order.
    std::map<int, std::vector<int>> by_node;
    for (int r : ranks) by_node[t.node_of(r)].push_back(r);
    int per_node = 0;
    for (const auto& [node, members] : by_node) per_node = std::max(per_node, static_cast<int>(members.size()));
    const bool multi_node = by_node.size() > 1;
    // One channel per GPU of a node, times as many as it takes to give every NIC of the node a
    // channel: NCCL spreads channels so that each NIC carries ring traffic.
    const int nics = t.design().nics;
    const int channels = multi_node ? per_node * std::max(1, (nics + per_node - 1) / per_node) : 1;

    const net::Algorithm algo = spec.op == Collective::all_to_all ? net::Algorithm::direct : net::Algorithm::ring;
    const net::CollectiveEstimate analytic = network.collective(spec.op, spec.bytes, spec.ranks, algo);

    Job job;
    job.result.channels = spec.op == Collective::all_to_all ? 1 : channels;
    // Ring steps repeat the same hops: route each (from, to, rail) once.
    std::map<std::tuple<int, int, int>, std::pair<std::vector<int>, double>> routes;
    auto make_flow = [&](int a, int b, int rail, double payload) {
        auto [it, inserted] = routes.try_emplace({a, b, rail});
        if (inserted) {
            it->second.first = t.route(a, b, rail);
            it->second.second = path_efficiency(network, it->second.first);
        }
        Flow f;
        f.links = it->second.first;
        f.remaining = payload / it->second.second;
        return f;
    };
    // Ring order of channel c: nodes in order, each node's ranks rotated by c, so that every
    // channel enters and leaves a node through different GPUs (and so different NICs).
    auto ring_order = [&](int c) {
        std::vector<int> order;
        for (const auto& [node, members] : by_node) {
            const auto size = static_cast<int>(members.size());
            for (int i = 0; i < size; ++i) order.push_back(members[static_cast<std::size_t>((i + c) % size)]);
        }
        return order;
    };
    auto ring_phase = [&](double payload_per_flow, bool closed) {
        std::vector<Flow> flows;
        for (int c = 0; c < channels; ++c) {
            const std::vector<int> order = ring_order(c);
            const int rail = c / per_node;
            for (int i = 0; i < n; ++i) {
                if (!closed && i == n - 1) break;
                flows.push_back(make_flow(order[static_cast<std::size_t>(i)],
                                          order[static_cast<std::size_t>((i + 1) % n)], rail, payload_per_flow));
            }
        }
        return flows;
    };
    switch (spec.op) {
        case Collective::all_reduce:
            for (int s = 0; s < 2 * (n - 1); ++s) job.phases.push_back(ring_phase(bytes / n / channels, true));
            break;
        case Collective::reduce_scatter:
        case Collective::all_gather:
            for (int s = 0; s < n - 1; ++s) job.phases.push_back(ring_phase(bytes / n / channels, true));
            break;
        case Collective::broadcast:
            // A pipelined chain: every hop carries the whole message.
            job.phases.push_back(ring_phase(bytes / channels, false));
            break;
        case Collective::send_recv:
            job.phases.push_back(ring_phase(bytes / channels, true));
            break;
        case Collective::all_to_all: {
            std::vector<Flow> flows;
            for (int a : ranks)
                for (int b : ranks)
                    if (a != b) flows.push_back(make_flow(a, b, b, bytes / n));
            job.phases.push_back(std::move(flows));
            break;
        }
    }
    job.phase_latency = analytic.latency.value / static_cast<double>(job.phases.size());
    job.result.phases = static_cast<int>(job.phases.size());
    job.ready = spec.start.value + job.phase_latency;
    return job;
}

}  // namespace

std::vector<FlowJobResult> simulate_flow_collectives(const net::Network& network, std::span<const FlowJob> specs) {
    const net::Topology& t = network.topology();
    sim::Engine engine(0);
    sim::FlowNetwork links(engine);
    for (std::size_t id = 0; id < t.link_count(); ++id) links.add_link(t.link(static_cast<int>(id)).bandwidth.value);

    std::vector<Job> jobs;
    for (const FlowJob& spec : specs) jobs.push_back(build_job(network, spec));
    // Paths as the engine's link ids, built once.
    using Path = std::vector<sim::LinkId>;
    std::vector<std::vector<std::vector<Path>>> paths(jobs.size());  // job, phase, flow
    for (std::size_t j = 0; j < jobs.size(); ++j)
        for (const auto& phase : jobs[j].phases) {
            auto& out = paths[j].emplace_back();
            for (const Flow& f : phase) {
                Path& path = out.emplace_back();
                for (int id : f.links) path.push_back(static_cast<sim::LinkId>(id));
            }
        }
    std::vector<std::size_t> in_flight(jobs.size(), 0);

    // A phase waits its share of the collective's latency, then starts all its flows on the
    // engine's FlowNetwork, which shares every link max-min fairly among all running flows;
    // the phase ends when its last flow does.
    std::function<void(std::size_t)> start_phase;
    const auto end_phase = [&](std::size_t j) {
        Job& job = jobs[j];
        if (++job.phase == job.phases.size()) {
            job.done = true;
            job.result.finish = units::Seconds{sim::to_seconds(engine.now())};
            job.result.duration = job.result.finish - specs[j].start;
            return;
        }
        engine.schedule_in(sim::ceil_seconds(job.phase_latency), [&start_phase, j] { start_phase(j); });
    };
    start_phase = [&](std::size_t j) {
        Job& job = jobs[j];
        const auto& phase = job.phases[job.phase];
        for (std::size_t f = 0; f < phase.size(); ++f) {
            if (phase[f].remaining <= 0.0) continue;
            ++in_flight[j];
            links.start_flow(paths[j][job.phase][f], phase[f].remaining, [&in_flight, &end_phase, j] {
                if (--in_flight[j] == 0) end_phase(j);
            });
        }
        if (in_flight[j] == 0) end_phase(j);
    };
    for (std::size_t j = 0; j < jobs.size(); ++j)
        engine.schedule_at(sim::ceil_seconds(jobs[j].ready), [&start_phase, j] { start_phase(j); });
    engine.run();

    std::vector<FlowJobResult> results;
    for (const Job& job : jobs) {
        if (!job.done) throw std::logic_error("flow-level run is stuck: flows without bandwidth");
        results.push_back(job.result);
    }
    return results;
}

}  // namespace rentsim::analysis
