#include "analysis/replay/retarget.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/scenario/calibration_io.hpp"
#include "analysis/trace/classify.hpp"
#include "analysis/scenario/input_error.hpp"
#include "models/compute/gpu.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/network/network.hpp"
#include "models/network/topology.hpp"

namespace rentsim::replay {

namespace {

using compute::Precision;
using trace::Event;
using trace::KernelClass;

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The precision a kernel computes in: its recorded dtype, else what its name says, else fp32.
Precision precision_of(const Event& e) {
    const std::string d = lower(e.dtype);
    if (d == "float" || d == "float32") return Precision::fp32;
    if (d == "half" || d == "float16") return Precision::fp16;
    if (d == "bfloat16") return Precision::bf16;
    if (has(d, "float8")) return Precision::fp8;
    const std::string n = lower(e.name);
    if (has(n, "bf16")) return Precision::bf16;
    if (has(n, "tf32")) return Precision::tf32;
    if (has(n, "fp16") || has(n, "f16") || has(n, "h884") || has(n, "h1688") || has(n, "h16816") || has(n, "hgemm"))
        return Precision::fp16;
    return Precision::fp32;
}

// A class for a kernel the importer could not place, from its name.
KernelClass guess_class(const std::string& name) {
    const std::string n = lower(name);
    if (has(n, "gemm") || has(n, "matmul") || has(n, "xmma")) return KernelClass::gemm;
    if (has(n, "conv") || has(n, "cudnn") || has(n, "wgrad") || has(n, "dgrad")) return KernelClass::convolution;
    if (has(n, "fmha") || has(n, "flash") || has(n, "attention")) return KernelClass::attention;
    return KernelClass::unknown;
}

double compute_rate(const compute::GpuModel& m, KernelClass c, Precision p) {
    switch (c) {
    case KernelClass::convolution: return m.matmul_rate(p).value * m.conv_eff(p);
    case KernelClass::attention: return m.attention_rate(p).value;
    default: return m.matmul_rate(p).value;
    }
}

std::optional<net::Collective> net_op(const Event& e, int group) {
    using trace::CollectiveOp;
    const CollectiveOp op = e.has_coll ? e.coll.op : CollectiveOp::unknown;
    switch (op) {
    case CollectiveOp::all_reduce:
    case CollectiveOp::barrier: return net::Collective::all_reduce;
    case CollectiveOp::all_gather: return net::Collective::all_gather;
    case CollectiveOp::reduce_scatter: return net::Collective::reduce_scatter;
    case CollectiveOp::all_to_all: return net::Collective::all_to_all;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: return net::Collective::broadcast;
    case CollectiveOp::send:
    case CollectiveOp::recv: return net::Collective::send_recv;
    // SendRecv kernels in a group larger than a pair are the parts of an all-to-all.
    case CollectiveOp::send_recv: return group > 2 ? net::Collective::all_to_all : net::Collective::send_recv;
    case CollectiveOp::unknown: break;
    }
    const std::string n = lower(e.name);
    if (has(n, "allreduce") || has(n, "all_reduce")) return net::Collective::all_reduce;
    if (has(n, "allgather") || has(n, "all_gather")) return net::Collective::all_gather;
    if (has(n, "reducescatter") || has(n, "reduce_scatter")) return net::Collective::reduce_scatter;
    if (has(n, "alltoall") || has(n, "all_to_all")) return net::Collective::all_to_all;
    if (has(n, "broadcast")) return net::Collective::broadcast;
    if (has(n, "sendrecv")) return group > 2 ? net::Collective::all_to_all : net::Collective::send_recv;
    return std::nullopt;
}

// The nccl-tests size of a recorded collective, -1 when the recording does not give it.
double recorded_bytes(const Event& e, net::Collective op) {
    if (!e.has_coll) return -1;
    const std::int64_t b = op == net::Collective::all_gather ? e.coll.out_bytes : e.coll.in_bytes;
    return b > 0 ? static_cast<double>(b) : -1;
}

// The first topology preset whose node holds this GPU, else one of its family; empty if none.
std::string usual_topology(const compute::GpuSpec& gpu) {
    std::string family_match;
    for (const auto& entry : net::topology_registry().entries()) {
        net::TopologySpec s;
        s.preset = std::string(entry.name);
        const net::NodeDesign d = net::resolve_node_design(s);
        if (d.gpu == gpu.name) return s.preset;
        const compute::GpuSpec* other = compute::lookup_gpu(d.gpu);
        if (family_match.empty() && other && other->family == gpu.family) family_match = s.preset;
    }
    return family_match;
}

net::Network network(const std::string& preset, int gpus, const char* option) {
    net::TopologySpec s;
    s.preset = preset;
    s.gpus = gpus;
    try {
        return net::Network{net::build_topology(s)};
    } catch (const std::invalid_argument& e) {
        throw analysis::InputError(option, "", e.what());
    }
}

}  // namespace

std::string catalog_gpu(const std::string& recorded_name) {
    std::string n = lower(recorded_name);
    for (const char* prefix : {"tesla ", "nvidia "})
        if (n.rfind(prefix, 0) == 0) n = n.substr(std::string(prefix).size());
    std::replace(n.begin(), n.end(), ' ', '-');
    return compute::lookup_gpu(n) ? n : std::string();
}

RetargetSummary retarget(ReplayGraph& g, const RetargetOptions& o) {
    const trace::Trace& t = *g.trace;
    RetargetSummary s;
    // The recorded GPU: given, else the trace's (every rank the same part).
    if (!o.recorded_gpu.empty()) {
        if (!compute::lookup_gpu(o.recorded_gpu))
            throw analysis::InputError("--recorded-gpu", "", compute::gpu_registry().unknown_message(o.recorded_gpu));
        s.recorded_gpu = o.recorded_gpu;
    } else {
        for (const trace::RankTrace& rt : t.ranks) {
            const std::string c = catalog_gpu(rt.gpu_name);
            if (c.empty())
                throw analysis::InputError(
                    rt.file, "",
                    rt.gpu_name.empty()
                        ? "the trace does not say which GPU recorded it: give --recorded-gpu NAME to retarget it"
                        : fmt::format("the recorded GPU '{}' is not in the catalog: give --recorded-gpu NAME to retarget it",
                                      rt.gpu_name));
            if (!s.recorded_gpu.empty() && c != s.recorded_gpu)
                throw analysis::InputError(rt.file, "",
                                           fmt::format("recorded on {}, another rank on {}: ranks must share one GPU type",
                                                       c, s.recorded_gpu));
            s.recorded_gpu = c;
        }
    }
    s.target_gpu = o.gpu.empty() ? s.recorded_gpu : o.gpu;
    if (!compute::lookup_gpu(s.target_gpu))
        throw analysis::InputError("--gpu", "", compute::gpu_registry().unknown_message(s.target_gpu));
    const compute::GpuSpec& rec_spec = compute::find_gpu(s.recorded_gpu);
    const compute::GpuSpec& tgt_spec = compute::find_gpu(s.target_gpu);
    const compute::GpuModel rec(rec_spec, analysis::shipped_calibration(s.recorded_gpu));
    const compute::GpuModel tgt(tgt_spec, analysis::shipped_calibration(s.target_gpu));
    std::optional<Precision> forced;
    if (!o.precision.empty()) {
        forced = compute::parse_precision(o.precision);
        if (!forced) throw analysis::InputError("--precision", "", compute::precision_registry().unknown_message(o.precision));
        if (tgt.matmul_rate(*forced).value <= 0)
            throw analysis::InputError("--precision", "",
                                       fmt::format("GPU '{}' has no {} path", s.target_gpu, o.precision));
    }

    // Cluster sizes and networks.
    int world = 1;
    for (const trace::RankTrace& rt : t.ranks) world = std::max(world, rt.world_size);
    s.recorded_gpus = world;
    if (o.gpus < 0 || o.gpus > net::max_gpus)
        throw analysis::InputError("--gpus", "", fmt::format("expected a number of GPUs from 1 to {}, got {}", net::max_gpus, o.gpus));
    s.target_gpus = o.gpus > 0 ? o.gpus : world;
    s.scaling = o.strong ? "strong" : "weak";
    if (!o.topology.empty() && !net::topology_registry().find(o.topology))
        throw analysis::InputError("--topology", "", net::topology_registry().unknown_message(o.topology));
    s.recorded_topology = usual_topology(rec_spec);
    s.target_topology = o.topology.empty() ? usual_topology(tgt_spec) : o.topology;
    if (s.target_topology.empty())
        throw analysis::InputError("--topology", "",
                                   fmt::format("no topology preset holds GPU '{}': give --topology PRESET", s.target_gpu));
    if (s.recorded_topology.empty()) {
        s.recorded_topology = s.target_topology;
        s.notes.push_back(fmt::format("no topology preset holds the recorded GPU {}: collectives re-costed for the group size "
                                      "only, on {}", s.recorded_gpu, s.target_topology));
    }

    const double overhead = rec.calibration().kernel_overhead_s;
    const double strong_div = o.strong ? static_cast<double>(s.target_gpus) / static_cast<double>(world) : 1.0;
    const bool recost = s.target_gpus != world || s.target_topology != s.recorded_topology;
    std::optional<net::Network> rec_net, tgt_net;
    std::map<std::string, ClassScale> classes;
    int inferred_bytes = 0, unknown_guessed = 0, unknown_memory = 0, precision_fallback = 0;

    std::vector<double> device_before, device_after;  // per rank, seconds
    const auto scale = [&](double t_s, double f) { return t_s <= overhead ? t_s : overhead + (t_s - overhead) * f; };
    Graph& gr = g.graph;
    for (Vertex v = 0; v < boost::num_vertices(gr); ++v) {
        Node& nd = gr[v];
        if (nd.kind != NodeKind::device && nd.kind != NodeKind::op) continue;
        const Event* e = node_event(g, v);
        if (!e) continue;
        const bool host_op = nd.kind == NodeKind::op && e->device < 0 && e->cls == KernelClass::none;
        if (host_op) continue;
        const double t_rec = static_cast<double>(nd.dur_ns) * 1e-9;
        double t_new = t_rec;
        KernelClass c = e->cls;
        if (e->has_coll || c == KernelClass::communication || e->kind == trace::EventKind::comm) {
            c = KernelClass::communication;
            const int group_rec = e->has_coll && e->coll.group_size > 0 ? e->coll.group_size : world;
            const int group_new = group_rec >= world ? s.target_gpus : std::min(group_rec, s.target_gpus);
            const auto op = net_op(*e, group_rec);
            if (recost && op && group_rec > 1) {
                if (!rec_net) rec_net = network(s.recorded_topology, world, "--recorded-gpu");
                if (!tgt_net) tgt_net = network(s.target_topology, s.target_gpus, "--topology");
                if (group_new <= 1) {
                    t_new = std::min(t_rec, overhead);
                } else {
                    double bytes = recorded_bytes(*e, *op);
                    const auto time_at = [&](const net::Network& nw, double b, int grp) {
                        return nw.collective(*op, units::bytes(b), grp).time.value;
                    };
                    if (bytes <= 0) {
                        // No size recorded: the size at which the model takes the recorded time.
                        ++inferred_bytes;
                        double lo = 1, hi = 1e13;
                        if (time_at(*rec_net, lo, group_rec) >= t_rec) hi = lo;
                        for (int k = 0; k < 100 && hi / lo > 1.001; ++k) {
                            const double mid = std::sqrt(lo * hi);
                            (time_at(*rec_net, mid, group_rec) < t_rec ? lo : hi) = mid;
                        }
                        bytes = hi;
                    }
                    t_new = t_rec * time_at(*tgt_net, bytes, group_new) / time_at(*rec_net, bytes, group_rec);
                }
            }
        } else {
            Precision p = precision_of(*e);
            if (rec.matmul_rate(p).value <= 0) p = Precision::fp32;  // a dtype the recording GPU lacks
            Precision q = forced ? *forced : p;
            if (tgt.matmul_rate(q).value <= 0) {
                q = Precision::fp32;
                ++precision_fallback;
            }
            const bool host_copy = e->kind == trace::EventKind::memcpy && (has(e->name, "HtoD") || has(e->name, "DtoH"));
            KernelClass r = c;
            if (c == KernelClass::unknown || c == KernelClass::none) {
                r = guess_class(e->name);
                if (r != KernelClass::unknown) ++unknown_guessed;
            }
            double f = 1.0;
            if (host_copy) {
                f = compute::pcie_bandwidth(rec_spec).value / compute::pcie_bandwidth(tgt_spec).value;
            } else if (r == KernelClass::gemm || r == KernelClass::convolution || r == KernelClass::attention) {
                f = compute_rate(rec, r, p) / compute_rate(tgt, r, q);
            } else if (c == KernelClass::unknown && e->flops > 0 && e->bytes_accessed > 0) {
                const auto roof = [&](const compute::GpuModel& m, Precision pr) {
                    return std::max(e->flops / m.matmul_rate(pr).value, e->bytes_accessed / m.memory_rate().value);
                };
                f = roof(tgt, q) / roof(rec, p);
            } else {
                if (c == KernelClass::unknown) ++unknown_memory;
                f = rec.memory_rate().value / tgt.memory_rate().value;
                if (r != KernelClass::optimizer) f *= compute::activation_bytes(q) / compute::activation_bytes(p);
            }
            t_new = scale(t_rec, f) ;
            if (o.strong) t_new = scale(t_new, 1.0 / strong_div);
        }
        nd.dur_ns = std::llround(std::max(0.0, t_new) * 1e9);
        if (static_cast<std::size_t>(nd.rank) >= device_before.size()) {
            device_before.resize(static_cast<std::size_t>(nd.rank) + 1, 0.0);
            device_after.resize(static_cast<std::size_t>(nd.rank) + 1, 0.0);
        }
        device_before[static_cast<std::size_t>(nd.rank)] += t_rec;
        device_after[static_cast<std::size_t>(nd.rank)] += static_cast<double>(nd.dur_ns) * 1e-9;
        ClassScale& cs = classes[std::string(trace::class_name(c))];
        cs.cls = trace::class_name(c);
        ++cs.kernels;
        cs.recorded_s += t_rec;
        cs.retargeted_s += static_cast<double>(nd.dur_ns) * 1e-9;
    }
    // Members of one collective transfer for one time: the longest of their re-costed times.
    for (const CollectiveGroup& c : g.collectives) {
        std::int64_t longest = 0;
        for (Vertex v : c.transfers) longest = std::max(longest, gr[v].dur_ns);
        for (Vertex v : c.transfers) gr[v].dur_ns = longest;
    }
    // The previous iteration's backlog is the same work: rescaled as the rank's device work was.
    for (Vertex v = 0; v < boost::num_vertices(gr); ++v) {
        Node& nd = gr[v];
        const auto r = static_cast<std::size_t>(nd.rank);
        if (nd.kind != NodeKind::backlog || r >= device_before.size() || device_before[r] <= 0) continue;
        nd.dur_ns = std::llround(static_cast<double>(nd.dur_ns) * device_after[r] / device_before[r]);
    }
    for (auto& [name, cs] : classes) s.classes.push_back(cs);
    if (inferred_bytes > 0)
        s.notes.push_back(fmt::format("{} collectives record no size: sized by the network model from their recorded time",
                                      inferred_bytes));
    if (unknown_guessed > 0)
        s.notes.push_back(fmt::format("{} unclassified kernels rescaled by the class their name suggests", unknown_guessed));
    if (unknown_memory > 0)
        s.notes.push_back(fmt::format("{} unclassified kernels rescaled by the memory bandwidth ratio", unknown_memory));
    if (precision_fallback > 0)
        s.notes.push_back(fmt::format("{} kernels in a precision the target lacks: rescaled at fp32", precision_fallback));
    return s;
}

}  // namespace rentsim::replay
