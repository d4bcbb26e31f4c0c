#include "analysis/studies/fabric.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>

#include "analysis/simulate/flow_collectives.hpp"
#include "models/network/network.hpp"

namespace rentsim::analysis {

std::vector<std::vector<int>> place_jobs(const FabricSpec& spec) {
    const std::size_t n = spec.jobs.size();
    std::vector<std::vector<int>> nodes(n);
    int next = 0;
    if (spec.placement == Placement::block) {
        for (std::size_t j = 0; j < n; ++j)
            for (int k = 0; k < spec.jobs[j].nodes; ++k) nodes[j].push_back(next++);
        return nodes;
    }
    // Interleaved: one node to each job still short of nodes, in turn, until all have theirs.
    for (bool dealt = true; dealt;) {
        dealt = false;
        for (std::size_t j = 0; j < n; ++j)
            if (static_cast<int>(nodes[j].size()) < spec.jobs[j].nodes) {
                nodes[j].push_back(next++);
                dealt = true;
            }
    }
    return nodes;
}

std::vector<FabricJobResult> run_fabric(const FabricSpec& spec) {
    const net::Network network(net::build_topology(spec.cluster.topology));
    const int gpn = spec.cluster.gpus_per_node;
    const auto placed = place_jobs(spec);
    std::vector<FlowStream> streams;
    for (std::size_t j = 0; j < spec.jobs.size(); ++j) {
        const FabricJobSpec& job = spec.jobs[j];
        FlowStream s;
        s.job.op = job.op;
        s.job.bytes = job.bytes;
        for (int node : placed[j])
            for (int g = 0; g < gpn; ++g) s.job.ranks.push_back(node * gpn + g);
        s.count = job.count;
        s.gap = job.gap;
        streams.push_back(std::move(s));
    }
    const auto shared = simulate_flow_streams(network, streams);
    std::vector<FabricJobResult> out;
    for (std::size_t j = 0; j < streams.size(); ++j) {
        const auto alone = simulate_flow_streams(network, std::span<const FlowStream>(&streams[j], 1)).front();
        FabricJobResult r;
        r.name = spec.jobs[j].name;
        r.gpus = static_cast<int>(streams[j].job.ranks.size());
        r.nodes = placed[j];
        r.alone_s = alone.duration.value;
        r.shared_s = shared[j].duration.value;
        r.slowdown = r.alone_s > 0.0 ? r.shared_s / r.alone_s : 1.0;
        out.push_back(std::move(r));
    }
    return out;
}

namespace {

// "0-3" for a run of nodes, "0, 2, 4" otherwise.
std::string node_list(const std::vector<int>& nodes) {
    bool run = true;
    for (std::size_t i = 1; i < nodes.size(); ++i) run = run && nodes[i] == nodes[i - 1] + 1;
    if (nodes.size() > 1 && run) return fmt::format("{}-{}", nodes.front(), nodes.back());
    std::string s;
    for (std::size_t i = 0; i < nodes.size(); ++i) s += (i ? "," : "") + std::to_string(nodes[i]);
    return s;
}

std::string size_text(double bytes) {
    const double mib = bytes / (1024.0 * 1024.0);
    return mib >= 1024.0 ? fmt::format("{:g} GiB", mib / 1024.0) : fmt::format("{:g} MiB", mib);
}

}  // namespace

std::string format_fabric(const FabricSpec& spec, const std::vector<FabricJobResult>& results) {
    const net::Network network(net::build_topology(spec.cluster.topology));
    std::string out = fmt::format("{}: {} jobs sharing {} GPUs ({} per node), placement {}, flow level\n", spec.name,
                                  results.size(), spec.cluster.gpus, spec.cluster.gpus_per_node,
                                  placement_registry().name_of(spec.placement));
    out += fmt::format("  {}\n", network.topology().describe());
    out += fmt::format("  {:<10} {:>5}  {:<12} {:<15} {:>9} {:>5} {:>8}  {:>12} {:>12} {:>8}\n", "job", "gpus", "nodes",
                       "op", "size", "count", "gap ms", "alone ms", "shared ms", "slowdown");
    for (std::size_t j = 0; j < results.size(); ++j) {
        const FabricJobResult& r = results[j];
        const FabricJobSpec& job = spec.jobs[j];
        out += fmt::format("  {:<10} {:>5}  {:<12} {:<15} {:>9} {:>5} {:>8.3f}  {:>12.3f} {:>12.3f} {:>7.3f}x\n", r.name,
                           r.gpus, node_list(r.nodes), net::to_string(job.op), size_text(job.bytes.value), job.count,
                           job.gap.value * 1e3, r.alone_s * 1e3, r.shared_s * 1e3, r.slowdown);
    }
    return out;
}

std::string fabric_json(const FabricSpec& spec, const std::vector<FabricJobResult>& results) {
    nlohmann::ordered_json doc;
    doc["schema"] = 1;
    doc["name"] = spec.name;
    doc["placement"] = std::string(placement_registry().name_of(spec.placement));
    doc["jobs"] = nlohmann::ordered_json::array();
    for (std::size_t j = 0; j < results.size(); ++j) {
        const FabricJobResult& r = results[j];
        const FabricJobSpec& job = spec.jobs[j];
        nlohmann::ordered_json o;
        o["name"] = r.name;
        o["gpus"] = r.gpus;
        o["nodes"] = r.nodes;
        o["op"] = std::string(net::to_string(job.op));
        o["bytes"] = job.bytes.value;
        o["count"] = job.count;
        o["gap_s"] = job.gap.value;
        o["alone_s"] = r.alone_s;
        o["shared_s"] = r.shared_s;
        o["slowdown"] = r.slowdown;
        doc["jobs"].push_back(std::move(o));
    }
    return doc.dump(2) + "\n";
}

}  // namespace rentsim::analysis
