#include "analysis/flow_collectives.hpp"

#include "models/network/maxmin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
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
    bool transferring = false;
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
    std::vector<double> capacity(t.link_count());
    for (std::size_t id = 0; id < capacity.size(); ++id) capacity[id] = t.link(static_cast<int>(id)).bandwidth.value;

    std::vector<Job> jobs;
    for (const FlowJob& spec : specs) jobs.push_back(build_job(network, spec));
    double now = 0.0;
    for (;;) {
        // Start the phases whose latency has passed; finish phases whose flows are all done.
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            Job& job = jobs[j];
            for (bool progressed = true; progressed && !job.done;) {
                progressed = false;
                if (!job.transferring && job.ready <= now * (1.0 + 1e-12) + 1e-15) {
                    job.transferring = true;
                    progressed = true;
                }
                if (job.transferring &&
                    std::all_of(job.phases[job.phase].begin(), job.phases[job.phase].end(),
                                [](const Flow& f) { return f.remaining <= 0.0; })) {
                    job.transferring = false;
                    if (++job.phase == job.phases.size()) {
                        job.done = true;
                        job.result.finish = units::Seconds{now};
                        job.result.duration = units::Seconds{now - specs[j].start.value};
                    } else {
                        job.ready = now + job.phase_latency;
                    }
                    progressed = true;
                }
            }
        }
        std::vector<Flow*> active;
        double next_ready = std::numeric_limits<double>::infinity();
        for (Job& job : jobs) {
            if (job.done) continue;
            if (!job.transferring) {
                next_ready = std::min(next_ready, job.ready);
                continue;
            }
            for (Flow& f : job.phases[job.phase])
                if (f.remaining > 0.0) active.push_back(&f);
        }
        if (active.empty() && !std::isfinite(next_ready)) break;
        std::vector<std::vector<int>> paths;
        for (const Flow* f : active) paths.push_back(f->links);
        const std::vector<double> rate = net::max_min_rates(capacity, paths);
        double dt = next_ready - now;
        for (std::size_t i = 0; i < active.size(); ++i)
            if (rate[i] > 0.0) dt = std::min(dt, active[i]->remaining / rate[i]);
        if (!std::isfinite(dt)) throw std::logic_error("flow-level run is stuck: flows without bandwidth");
        dt = std::max(dt, 0.0);
        now += dt;
        for (std::size_t i = 0; i < active.size(); ++i) {
            Flow& f = *active[i];
            f.remaining -= rate[i] * dt;
            // A flow within rounding of its end is done (its own completion defined dt).
            if (f.remaining <= 1e-9 * std::max(1.0, rate[i] * dt)) f.remaining = 0.0;
        }
    }
    std::vector<FlowJobResult> results;
    for (const Job& job : jobs) results.push_back(job.result);
    return results;
}

}  // namespace rentsim::analysis
