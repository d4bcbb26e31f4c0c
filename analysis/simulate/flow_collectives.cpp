#include "analysis/simulate/flow_collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "sim/engine.hpp"
#include "sim/link.hpp"

namespace rentsim::analysis {
namespace {

using net::Collective;

// The flows of one phase, ready for the FlowNetwork: each stands for `multiplicity` flows of
// `bytes` wire bytes each, over `path` (link ids of the FlowNetwork).
struct PhaseFlows {
    std::vector<std::vector<sim::LinkId>> paths;
    std::vector<double> bytes;
    std::vector<std::uint32_t> multiplicity;
};

// One flow of a phase as the topology sees it: its route (topology link ids) and wire bytes.
struct RoutedFlow {
    const std::vector<int>* links = nullptr;
    double bytes = 0.0;
};

struct Job {
    // Every phase of a collective here is the same set of transfers (one ring step, or the one
    // burst of all-to-all): routed once, used by every phase.
    std::vector<RoutedFlow> flows;
    PhaseFlows phase;
    std::size_t phases = 0;
    double phase_latency = 0.0;
    std::size_t phase_index = 0;
    int rounds = 1;                 // collectives in the stream, and those finished
    int round = 0;
    double gap = 0.0;               // seconds between one collective's end and the next's start
    std::size_t in_flight = 0;
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

// Routes of (from, to, rail), each searched once for all jobs.
class RouteCache {
public:
    explicit RouteCache(const net::Network& network) : network_(network) {}
    const std::pair<std::vector<int>, double>& get(int a, int b, int rail) {
        auto [it, inserted] = routes_.try_emplace({a, b, rail});
        if (inserted) {
            it->second.first = network_.topology().route(a, b, rail);
            it->second.second = path_efficiency(network_, it->second.first);
        }
        return it->second;
    }

private:
    const net::Network& network_;
    std::map<std::tuple<int, int, int>, std::pair<std::vector<int>, double>> routes_;
};

Job build_job(const net::Network& network, const FlowJob& spec, RouteCache& routes) {
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
    for (const auto& entry : by_node) per_node = std::max(per_node, static_cast<int>(entry.second.size()));
    const bool multi_node = by_node.size() > 1;
    // One channel per GPU of a node, times as many as it takes to give every NIC of the node a
    // channel: NCCL spreads channels so that each NIC carries ring traffic.
    const int nics = t.design().nics;
    const int channels = multi_node ? per_node * std::max(1, (nics + per_node - 1) / per_node) : 1;

    const net::Algorithm algo = spec.op == Collective::all_to_all ? net::Algorithm::direct : net::Algorithm::ring;
    const net::CollectiveEstimate analytic = network.collective(spec.op, spec.bytes, spec.ranks, algo);

    Job job;
    job.result.channels = spec.op == Collective::all_to_all ? 1 : channels;
    // The protocol is the one the analytic model picks for this call, latency and payload alike:
    // LL128 has the shorter steps but sends 128 bytes per 120 of data, and taking its latency
    // with Simple's full payload would beat every real protocol.
    const double payload_fraction = net::payload_fraction(analytic.protocol);
    auto add_flow = [&](int a, int b, int rail, double payload) {
        const auto& route = routes.get(a, b, rail);
        job.flows.push_back(RoutedFlow{&route.first, payload / (route.second * payload_fraction)});
    };
    // Ring order of channel c: nodes in order, each node's ranks rotated by c, so that every
    // channel enters and leaves a node through different GPUs (and so different NICs).
    auto ring_step = [&](double payload_per_flow, bool closed) {
        std::vector<int> order;
        for (int c = 0; c < channels; ++c) {
            order.clear();
            for (const auto& entry : by_node) {
                const std::vector<int>& members = entry.second;
                const auto size = static_cast<int>(members.size());
                for (int i = 0; i < size; ++i) order.push_back(members[static_cast<std::size_t>((i + c) % size)]);
            }
            const int rail = c / per_node;
            for (int i = 0; i < n; ++i) {
                if (!closed && i == n - 1) break;
                add_flow(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>((i + 1) % n)], rail,
                         payload_per_flow);
            }
        }
    };
    switch (spec.op) {
        case Collective::all_reduce:
            ring_step(bytes / n / channels, true);
            job.phases = 2 * static_cast<std::size_t>(n - 1);
            break;
        case Collective::reduce_scatter:
        case Collective::all_gather:
            ring_step(bytes / n / channels, true);
            job.phases = static_cast<std::size_t>(n - 1);
            break;
        case Collective::broadcast:
            // A pipelined chain: every hop carries the whole message.
            ring_step(bytes / channels, false);
            job.phases = 1;
            break;
        case Collective::send_recv:
            ring_step(bytes / channels, true);
            job.phases = 1;
            break;
        case Collective::all_to_all:
            // Each GPU spreads its peers over the NICs nearest it, at both ends: rail = the sum of
            // the two local indices, which for a fixed sender runs over its NICs as the receiver
            // changes, and the other way round. (The receiver's index alone sent all traffic into
            // the two GPUs of a DGX A100 PCIe switch through one of their two NICs.)
            for (int a : ranks)
                for (int b : ranks)
                    if (a != b) add_flow(a, b, t.local_index(a) + t.local_index(b), bytes / n);
            job.phases = 1;
            break;
    }
    std::erase_if(job.flows, [](const RoutedFlow& f) { return !(f.bytes > 0.0); });
    job.phase_latency = analytic.latency.value / static_cast<double>(job.phases);
    job.result.phases = static_cast<int>(job.phases);
    return job;
}

// The phase's flows over the topology's own links, one FlowNetwork flow each.
PhaseFlows plain_flows(const Job& job) {
    PhaseFlows out;
    for (const RoutedFlow& f : job.flows) {
        out.paths.emplace_back(f.links->begin(), f.links->end());
        out.bytes.push_back(f.bytes);
        out.multiplicity.push_back(1);
    }
    return out;
}

// Gives each element a colour: equal signatures, equal colours, numbered in order of first
// appearance so that the result does not depend on anything but the input order.
class Colouring {
public:
    std::uint32_t colour(const std::vector<std::uint64_t>& signature) {
        const auto [it, inserted] = ids_.try_emplace(signature, static_cast<std::uint32_t>(ids_.size()));
        return it->second;
    }
    std::size_t count() const { return ids_.size(); }

private:
    std::map<std::vector<std::uint64_t>, std::uint32_t> ids_;
};

// The phase's flows with symmetric ones merged, for a job that no other job shares a link with.
//
// Colour refinement (1-dimensional Weisfeiler-Leman) of the flow-link incidence graph, starting
// from flows coloured by wire bytes and links by capacity, ends in an equitable partition: every
// link of a link class carries the same number of flows of each flow class, and every flow of a
// flow class crosses the same number of links of each link class. Progressive filling treats
// the members of a class alike at every round, so max-min gives every flow of a class the same
// rate, and they all finish together. The phase is then simulated on one link per link class,
// of the class's total capacity, carrying one flow per flow class with the class's size as
// multiplicity: on a class of k links, the constraint sum(flows x rate) <= k x capacity is the
// sum of its k equal per-link constraints, so the shares, and the times, are the same.
PhaseFlows symmetric_flows(const net::Topology& t, const Job& job, sim::FlowNetwork& links) {
    const std::size_t flows = job.flows.size();
    // The job's links, numbered locally in order of first use.
    std::map<int, std::uint32_t> local;
    std::vector<int> link_ids;
    std::vector<std::vector<std::uint32_t>> flow_links(flows);
    for (std::size_t f = 0; f < flows; ++f)
        for (int id : *job.flows[f].links) {
            const auto [it, inserted] = local.try_emplace(id, static_cast<std::uint32_t>(link_ids.size()));
            if (inserted) link_ids.push_back(id);
            flow_links[f].push_back(it->second);
        }
    std::vector<std::vector<std::uint32_t>> link_flows(link_ids.size());
    for (std::size_t f = 0; f < flows; ++f)
        for (std::uint32_t l : flow_links[f]) link_flows[l].push_back(static_cast<std::uint32_t>(f));

    std::vector<std::uint32_t> flow_colour(flows), link_colour(link_ids.size());
    std::size_t flow_classes = 0, link_classes = 0;
    {
        Colouring by_bytes, by_capacity;
        for (std::size_t f = 0; f < flows; ++f)
            flow_colour[f] = by_bytes.colour({std::bit_cast<std::uint64_t>(job.flows[f].bytes)});
        for (std::size_t l = 0; l < link_ids.size(); ++l)
            link_colour[l] = by_capacity.colour({std::bit_cast<std::uint64_t>(t.link(link_ids[l]).bandwidth.value)});
        flow_classes = by_bytes.count();
        link_classes = by_capacity.count();
    }
    std::vector<std::uint64_t> signature;
    for (;;) {
        Colouring next_flows, next_links;
        for (std::size_t f = 0; f < flows; ++f) {
            signature.assign(1, flow_colour[f]);
            for (std::uint32_t l : flow_links[f]) signature.push_back(link_colour[l]);
            std::sort(signature.begin() + 1, signature.end());
            flow_colour[f] = next_flows.colour(signature);
        }
        for (std::size_t l = 0; l < link_ids.size(); ++l) {
            signature.assign(1, link_colour[l]);
            for (std::uint32_t f : link_flows[l]) signature.push_back(flow_colour[f]);
            std::sort(signature.begin() + 1, signature.end());
            link_colour[l] = next_links.colour(signature);
        }
        // Refinement only splits classes: once neither count grows, the partition is stable.
        const bool stable = next_flows.count() == flow_classes && next_links.count() == link_classes;
        flow_classes = next_flows.count();
        link_classes = next_links.count();
        if (stable) break;
    }

    // One FlowNetwork link per link class, with the class's total capacity.
    std::vector<double> class_capacity(link_classes, 0.0);
    for (std::size_t l = 0; l < link_ids.size(); ++l) class_capacity[link_colour[l]] += t.link(link_ids[l]).bandwidth.value;
    std::vector<sim::LinkId> class_link(link_classes);
    for (std::size_t c = 0; c < link_classes; ++c) class_link[c] = links.add_link(class_capacity[c]);
    // One flow per flow class, over the classes of its first member's links.
    PhaseFlows out;
    std::vector<std::uint32_t> members(flow_classes, 0);
    std::vector<std::size_t> first(flow_classes, flows);
    for (std::size_t f = 0; f < flows; ++f) {
        ++members[flow_colour[f]];
        if (first[flow_colour[f]] == flows) first[flow_colour[f]] = f;
    }
    for (std::size_t c = 0; c < flow_classes; ++c) {
        const std::size_t f = first[c];
        auto& path = out.paths.emplace_back();
        for (std::uint32_t l : flow_links[f]) path.push_back(class_link[link_colour[l]]);
        out.bytes.push_back(job.flows[f].bytes);
        out.multiplicity.push_back(members[c]);
    }
    return out;
}

}  // namespace

std::vector<FlowJobResult> simulate_flow_collectives(const net::Network& network, std::span<const FlowJob> jobs) {
    std::vector<FlowStream> streams;
    streams.reserve(jobs.size());
    for (const FlowJob& job : jobs) streams.push_back(FlowStream{job, 1, units::Seconds{0.0}});
    return simulate_flow_streams(network, streams);
}

std::vector<FlowJobResult> simulate_flow_streams(const net::Network& network, std::span<const FlowStream> streams) {
    const net::Topology& t = network.topology();
    sim::Engine engine(0);
    sim::FlowNetwork links(engine);
    for (std::size_t id = 0; id < t.link_count(); ++id) links.add_link(t.link(static_cast<int>(id)).bandwidth.value);

    RouteCache routes(network);
    std::vector<Job> jobs;
    jobs.reserve(streams.size());
    for (const FlowStream& stream : streams) {
        if (stream.count < 1)
            throw std::invalid_argument(fmt::format("a flow-level stream needs at least one collective, got {}", stream.count));
        if (!(stream.gap.value >= 0.0) || !std::isfinite(stream.gap.value))
            throw std::invalid_argument(fmt::format("a flow-level stream needs a finite gap >= 0 s, got {}", stream.gap.value));
        Job& job = jobs.emplace_back(build_job(network, stream.job, routes));
        job.rounds = stream.count;
        job.gap = stream.gap.value;
    }

    // Jobs that share a link interact; a job alone on its links runs with its symmetric flows
    // merged, the others flow by flow on the topology's links.
    std::vector<std::size_t> owner(t.link_count(), jobs.size());
    std::vector<bool> shared(jobs.size(), false);
    for (std::size_t j = 0; j < jobs.size(); ++j)
        for (const RoutedFlow& f : jobs[j].flows)
            for (int id : *f.links) {
                std::size_t& o = owner[static_cast<std::size_t>(id)];
                if (o == jobs.size()) o = j;
                else if (o != j) shared[o] = shared[j] = true;
            }
    for (std::size_t j = 0; j < jobs.size(); ++j)
        jobs[j].phase = shared[j] ? plain_flows(jobs[j]) : symmetric_flows(t, jobs[j], links);

    // A phase waits its share of the collective's latency, then starts all its flows at once
    // (one re-share for the lot) on the FlowNetwork, which shares every link max-min fairly
    // among all running flows; the phase ends when its last flow does.
    std::function<void(std::size_t)> start_phase;
    const auto end_phase = [&](std::size_t j) {
        Job& job = jobs[j];
        if (++job.phase_index == job.phases) {
            if (++job.round < job.rounds) {
                // The stream's next collective: after its compute gap, then its first phase's latency.
                job.phase_index = 0;
                engine.schedule_in(sim::ceil_seconds(job.gap + job.phase_latency), [&start_phase, j] { start_phase(j); });
                return;
            }
            job.done = true;
            job.result.finish = units::Seconds{sim::to_seconds(engine.now())};
            job.result.duration = job.result.finish - streams[j].job.start;
            return;
        }
        engine.schedule_in(sim::ceil_seconds(job.phase_latency), [&start_phase, j] { start_phase(j); });
    };
    start_phase = [&](std::size_t j) {
        Job& job = jobs[j];
        const PhaseFlows& phase = job.phase;
        {
            const sim::FlowNetwork::Batch batch(links);
            for (std::size_t f = 0; f < phase.paths.size(); ++f) {
                ++job.in_flight;
                links.start_flow(
                    phase.paths[f], phase.bytes[f],
                    [&jobs, &end_phase, j] {
                        if (--jobs[j].in_flight == 0) end_phase(j);
                    },
                    0, phase.multiplicity[f]);
            }
        }
        if (job.in_flight == 0) end_phase(j);
    };
    for (std::size_t j = 0; j < jobs.size(); ++j)
        engine.schedule_at(sim::ceil_seconds(streams[j].job.start.value + jobs[j].phase_latency),
                           [&start_phase, j] { start_phase(j); });
    engine.run();

    std::vector<FlowJobResult> results;
    for (const Job& job : jobs) {
        if (!job.done) throw std::logic_error("flow-level run is stuck: flows without bandwidth");
        results.push_back(job.result);
    }
    return results;
}

}  // namespace rentsim::analysis
