#include "analysis/trace/kineto.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <istream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "analysis/scenario/input_error.hpp"
#include "analysis/trace/byte_stream.hpp"
#include "analysis/trace/classify.hpp"

namespace rentsim::trace {

namespace {

using json = nlohmann::ordered_json;  // as the scenario loader; small objects, linear lookups are cheap
using analysis::InputError;

// Largest |ts| or |dur| accepted, in microseconds (about 127 years): ts + dur in ns then
// stays far inside int64 (9.2e18 ns). Kineto's ts are microseconds since the Unix epoch
// (about 1.7e15 in 2024).
constexpr double max_abs_us = 4.0e15;
// Longest quoted value in a message.
constexpr std::size_t max_quoted = 64;

std::string cut(std::string_view s) {
    if (s.size() <= max_quoted) return std::string(s);
    return std::string(s.substr(0, max_quoted)) + "...";
}

std::string pointer_escape(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

// Microseconds to the nearest ns. The whole and fractional parts are scaled apart: ts near
// 1.7e15 us times 1000 would leave a double with 256 ns steps.
std::int64_t us_to_ns(double us) {
    const double whole = std::floor(us);
    const double frac = us - whole;  // exact (Sterbenz)
    return static_cast<std::int64_t>(whole) * 1000 + static_cast<std::int64_t>(std::llround(frac * 1000.0));
}

// An integer-valued number as int64; nullopt for anything else (absent, text, fractions,
// out of range).
std::optional<std::int64_t> as_int(const json* v) {
    if (v == nullptr) return std::nullopt;
    if (v->is_number_integer()) return v->get<std::int64_t>();
    if (v->is_number_unsigned()) {
        const auto u = v->get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
        return static_cast<std::int64_t>(u);
    }
    if (v->is_number_float()) {
        const double d = v->get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

const json* find(const json& obj, const char* key) {
    if (!obj.is_object()) return nullptr;
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

std::optional<std::string> as_string(const json* v) {
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return v->get<std::string>();
}

// The number in a tid or pid: an integer, or the last run of digits of a string ("stream 7").
std::int64_t id_number(const json* v) {
    if (auto i = as_int(v)) return *i;
    if (v == nullptr || !v->is_string()) return -1;
    const std::string& s = v->get_ref<const std::string&>();
    const auto last = s.find_last_of("0123456789");
    if (last == std::string::npos) return -1;
    auto first = s.find_last_not_of("0123456789", last);
    first = first == std::string::npos ? 0 : first + 1;
    if (last - first + 1 > 18) return -1;
    return std::stoll(s.substr(first, last - first + 1));
}

bool is_int32(std::int64_t v) { return v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max(); }

// "[0, 1, 2]" or [0, 1, 2] -> {0, 1, 2}; anything unreadable -> {}.
std::vector<int> rank_list(const json* v) {
    std::vector<int> out;
    if (v == nullptr) return out;
    if (v->is_array()) {
        for (const auto& x : *v) {
            const auto i = as_int(&x);
            if (!i || !is_int32(*i)) return {};
            out.push_back(static_cast<int>(*i));
        }
        return out;
    }
    if (!v->is_string()) return out;
    const std::string& s = v->get_ref<const std::string&>();
    std::size_t i = 0;
    while (i < s.size()) {
        if (std::isdigit(static_cast<unsigned char>(s[i])) || (s[i] == '-' && i + 1 < s.size())) {
            std::size_t j = i + 1;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
            const std::string digits = s.substr(i, j - i);
            if (digits == "-" || digits.size() > 10) return {};
            const long long r = std::stoll(digits);
            if (!is_int32(r)) return {};
            out.push_back(static_cast<int>(r));
            i = j;
        } else {
            ++i;
        }
    }
    return out;
}

// Bytes of `nelems` elements of `dtype`; -1 when either is unknown or the product overflows.
std::int64_t message_bytes(const json* nelems, const std::string& dtype) {
    const auto n = as_int(nelems);
    const int size = dtype_bytes(dtype);
    if (!n || *n < 0 || size < 0 || *n > std::numeric_limits<std::int64_t>::max() / 16) return -1;
    return *n * size;
}

// One operand's shape from "Input Dims"; empty when it is not a list of non-negative integers.
std::vector<double> shape(const json& dims, std::size_t i) {
    std::vector<double> out;
    if (!dims.is_array() || i >= dims.size() || !dims[i].is_array()) return out;
    for (const auto& d : dims[i]) {
        const auto v = as_int(&d);
        if (!v || *v < 0) return {};
        out.push_back(static_cast<double>(*v));
    }
    return out;
}

double product(const std::vector<double>& v, std::size_t from, std::size_t to) {
    double p = 1;
    for (std::size_t i = from; i < to && i < v.size(); ++i) p *= v[i];
    return p;
}

// FLOPs of a matrix-product operator from its recorded input shapes (2 per multiply-add);
// -1 for other operators or shapes that do not fit. aten::linear's inner aten::addmm (or
// aten::matmul's inner aten::mm) gives the same figure again.
double matmul_flops(const std::string& op, const json& dims) {
    const bool two_first = op == "aten::addmm" || op == "aten::baddbmm";
    if (op == "aten::mm" || op == "aten::addmm") {  // A [M, K] x B [K, N]
        const auto a = shape(dims, two_first ? 1 : 0), b = shape(dims, two_first ? 2 : 1);
        if (a.size() != 2 || b.size() != 2 || a[1] != b[0]) return -1;
        return 2 * a[0] * a[1] * b[1];
    }
    if (op == "aten::bmm" || op == "aten::baddbmm") {  // A [B, M, K] x B [B, K, N]
        const auto a = shape(dims, two_first ? 1 : 0), b = shape(dims, two_first ? 2 : 1);
        if (a.size() != 3 || b.size() != 3 || a[2] != b[1] || a[0] != b[0]) return -1;
        return 2 * a[0] * a[1] * a[2] * b[2];
    }
    if (op == "aten::linear") {  // x [..., K] x W [N, K]^T
        const auto x = shape(dims, 0), w = shape(dims, 1);
        if (x.empty() || w.size() != 2 || x.back() != w[1]) return -1;
        return 2 * product(x, 0, x.size() - 1) * w[1] * w[0];
    }
    if (op == "aten::matmul") {  // A [..., M, K] x B [..., K, N] (B's batch dims when A has none)
        const auto a = shape(dims, 0), b = shape(dims, 1);
        if (a.size() < 2 || b.empty()) return -1;
        const double k = a.back();
        if (b.size() == 1) return b[0] == k ? 2 * product(a, 0, a.size()) : -1;
        if (b[b.size() - 2] != k) return -1;
        const double batch_b = a.size() == 2 ? product(b, 0, b.size() - 2) : 1;
        return 2 * product(a, 0, a.size()) * b.back() * batch_b;
    }
    return -1;
}

struct SyncRecord {  // a "cuda_sync" entry, applied to its runtime call at the end
    std::int64_t correlation, stream, wait_on_stream, record_correlation;
};

// A GEMM kernel's FLOPs are those of the operator that launched it: the innermost cpu_op
// around its runtime call on the same thread (host events nest in time), when that operator
// has FLOPs; an operator's FLOPs are split evenly over the GEMM kernels it launched. Needs
// the launch links (t.deps).
void give_kernels_flops(RankTrace& t) {
    std::map<std::int64_t, std::vector<std::uint32_t>> threads;  // host thread -> cpu_ops and runtime calls
    bool any = false;
    for (std::uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (e.kind == EventKind::cpu_op || e.kind == EventKind::runtime) threads[e.stream].push_back(i);
        any = any || (e.kind == EventKind::cpu_op && e.flops >= 0);
    }
    if (!any) return;
    std::map<std::uint32_t, std::uint32_t> launcher;  // runtime call -> the operator around it
    for (auto& [tid, ids] : threads) {
        // Outer before inner: by start, then the longer first, operators before runtime calls.
        std::stable_sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) {
            const Event &x = t.events[a], &y = t.events[b];
            if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
            if (x.dur_ns != y.dur_ns) return x.dur_ns > y.dur_ns;
            return x.kind == EventKind::cpu_op && y.kind != EventKind::cpu_op;
        });
        std::vector<std::uint32_t> open;  // operators whose span holds the current time
        for (std::uint32_t i : ids) {
            const Event& e = t.events[i];
            while (!open.empty() && t.events[open.back()].start_ns + t.events[open.back()].dur_ns <= e.start_ns)
                open.pop_back();
            if (e.kind == EventKind::cpu_op) open.push_back(i);
            else if (!open.empty() && t.events[open.back()].flops >= 0) launcher[i] = open.back();
        }
    }
    std::map<std::uint32_t, std::vector<std::uint32_t>> gemms;  // operator -> its GEMM kernels
    for (const Dep& d : t.deps) {
        const auto it = launcher.find(d.from);
        if (it != launcher.end() && t.events[d.to].cls == KernelClass::gemm) gemms[it->second].push_back(d.to);
    }
    for (const auto& [op, kernels] : gemms)
        for (std::uint32_t k : kernels) t.events[k].flops = t.events[op].flops / static_cast<double>(kernels.size());
}

struct Parsed {
    RankTrace trace;
    bool rank_recorded = false, world_recorded = false;
};

class Importer {
public:
    explicit Importer(std::string file) { out_.trace.file = std::move(file); }

    const std::string& file() const { return out_.trace.file; }
    std::string where(std::size_t index, std::string_view field = {}) const {
        std::string w = "/traceEvents/" + std::to_string(index);
        if (!field.empty()) w += "/" + pointer_escape(field);
        return w;
    }

    void add(const json& e, std::size_t index);
    void top_level(const json& root);
    Parsed finish();

private:
    double number_us(const json& e, const char* field, std::size_t index) const {
        const json* v = find(e, field);
        if (v == nullptr)
            throw InputError(file(), where(index), std::string("an \"X\" event needs \"") + field + "\" (microseconds)");
        if (!v->is_number()) throw InputError(file(), where(index, field), "expected a number of microseconds");
        const double d = v->get<double>();
        if (!(std::fabs(d) <= max_abs_us))
            throw InputError(file(), where(index, field), "out of range: " + cut(v->dump()) + " microseconds");
        return d;
    }
    void count_unknown(const std::string& kind) { ++out_.trace.unknown_kinds[kind]; }

    Parsed out_;
    std::vector<SyncRecord> syncs_;
};

void Importer::add(const json& e, std::size_t index) {
    const auto ph = as_string(find(e, "ph"));
    if (!ph) {
        count_unknown("ph (none)");
        return;
    }
    if (*ph == "M" || *ph == "i" || *ph == "I" || *ph == "s" || *ph == "f" || *ph == "t") return;
    if (*ph != "X") {
        count_unknown("ph " + cut(*ph));
        return;
    }
    const std::string cat = as_string(find(e, "cat")).value_or("");
    if (cat == "Trace") return;  // the profiler's own span

    // Kineto's categories of kept events: the kind, and whether it runs on a GPU stream.
    struct Category {
        std::string_view cat;
        EventKind kind;
        bool device;
    };
    static constexpr std::array<Category, 9> categories{{
        {"cpu_op", EventKind::cpu_op, false},
        {"cuda_runtime", EventKind::runtime, false},
        {"cuda_driver", EventKind::runtime, false},
        {"kernel", EventKind::kernel, true},
        {"gpu_memcpy", EventKind::memcpy, true},
        {"gpu_memset", EventKind::memset, true},
        {"user_annotation", EventKind::annotation, false},
        {"gpu_user_annotation", EventKind::annotation, true},
        {"python_function", EventKind::python, false},
    }};
    Event ev;
    bool device_side = false;
    const auto known = std::find_if(categories.begin(), categories.end(), [&](const Category& c) { return c.cat == cat; });
    if (known != categories.end()) {
        ev.kind = known->kind;
        device_side = known->device;
    } else if (cat != "cuda_sync") {
        ev.kind = EventKind::other;
        count_unknown("X/" + cut(cat));
    }

    const json* name = find(e, "name");
    if (name == nullptr) throw InputError(file(), where(index), "an \"X\" event needs \"name\"");
    if (!name->is_string()) throw InputError(file(), where(index, "name"), "expected a string");
    const double ts = number_us(e, "ts", index);
    const double dur = number_us(e, "dur", index);
    if (dur < 0) throw InputError(file(), where(index, "dur"), "negative duration " + cut(find(e, "dur")->dump()) + " microseconds");

    static const json no_args = json::object();
    const json* args_p = find(e, "args");
    const json& args = args_p != nullptr && args_p->is_object() ? *args_p : no_args;

    if (cat == "cuda_sync") {  // a GPU-side wait; it describes its runtime call (see header)
        syncs_.push_back({as_int(find(args, "correlation")).value_or(-1), as_int(find(args, "stream")).value_or(-1),
                          as_int(find(args, "wait_on_stream")).value_or(-1),
                          as_int(find(args, "wait_on_cuda_event_record_corr_id")).value_or(-1)});
        return;
    }

    ev.name = name->get<std::string>();
    ev.start_ns = us_to_ns(ts);
    ev.dur_ns = us_to_ns(dur);
    ev.correlation = as_int(find(args, "correlation")).value_or(-1);
    if (device_side) {
        const auto dev = as_int(find(args, "device"));
        const std::int64_t d = dev ? *dev : id_number(find(e, "pid"));
        ev.device = is_int32(d) ? static_cast<int>(d) : -1;
        ev.stream = as_int(find(args, "stream")).value_or(id_number(find(e, "tid")));
    } else {
        ev.stream = id_number(find(e, "tid"));
    }

    if (ev.kind == EventKind::kernel) ev.cls = kernel_class(ev.name);
    if (ev.kind == EventKind::memcpy || ev.kind == EventKind::memset) {
        ev.cls = KernelClass::copy;
        if (const auto b = as_int(find(args, "bytes")); b && *b >= 0) ev.bytes_accessed = static_cast<double>(*b);
    }
    if (ev.kind == EventKind::runtime && runtime_call(ev.name) == RuntimeCall::event_record) ev.cuda_event = ev.correlation;

    // Collectives: NCCL kernels by name; any kernel or cpu_op whose args name a collective.
    // A host record ("record_param_comms") counts when it names a known collective: PyTorch
    // also records work.wait() ("Collective name": "wait") that way.
    const CollectiveOp recorded = collective_from_record(as_string(find(args, "Collective name")).value_or(""));
    const bool nccl = ev.kind == EventKind::kernel && is_nccl_kernel(ev.name);
    if (nccl || (recorded != CollectiveOp::unknown && (ev.kind == EventKind::kernel || ev.kind == EventKind::cpu_op))) {
        ev.has_coll = true;
        Collective& c = ev.coll;
        c.op = recorded != CollectiveOp::unknown ? recorded : collective_from_kernel(ev.name);
        c.dtype = as_string(find(args, "dtype")).value_or("");
        c.in_bytes = message_bytes(find(args, "In msg nelems"), c.dtype);
        c.out_bytes = message_bytes(find(args, "Out msg nelems"), c.dtype);
        if (const auto g = as_int(find(args, "Group size")); g && *g > 0 && is_int32(*g)) c.group_size = static_cast<int>(*g);
        if (auto pg = as_string(find(args, "Process Group Name"))) c.process_group = *pg;
        else if (const auto id = as_int(find(args, "Process Group ID"))) c.process_group = std::to_string(*id);
        c.group_ranks = rank_list(find(args, "Process Group Ranks"));
        ev.dtype = c.dtype;
    }

    if (ev.kind == EventKind::cpu_op)
        if (const json* dims = find(args, "Input Dims")) ev.flops = matmul_flops(ev.name, *dims);

    if (ev.kind == EventKind::annotation && !device_side && ev.name.rfind("ProfilerStep#", 0) == 0) {
        const std::string n = ev.name.substr(13);
        if (!n.empty() && n.size() <= 9 && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
            out_.trace.steps.push_back({std::stoi(n), ev.start_ns, ev.dur_ns});
    }
    out_.trace.events.push_back(std::move(ev));
}

void Importer::top_level(const json& root) {
    RankTrace& t = out_.trace;
    if (const json* di = find(root, "distributedInfo")) {
        if (!di->is_object()) throw InputError(file(), "/distributedInfo", "expected an object");
        if (const json* ws = find(*di, "world_size")) {
            const auto w = as_int(ws);
            if (!w || *w < 1 || !is_int32(*w))
                throw InputError(file(), "/distributedInfo/world_size", "expected a positive integer, got " + cut(ws->dump()));
            t.world_size = static_cast<int>(*w);
            out_.world_recorded = true;
        }
        if (const json* r = find(*di, "rank")) {
            const auto v = as_int(r);
            if (!v || *v < 0 || !is_int32(*v))
                throw InputError(file(), "/distributedInfo/rank", "expected a non-negative integer, got " + cut(r->dump()));
            if (out_.world_recorded && *v >= t.world_size)
                throw InputError(file(), "/distributedInfo/rank",
                                 "rank " + std::to_string(*v) + " is not below world_size " + std::to_string(t.world_size));
            t.rank = static_cast<int>(*v);
            out_.rank_recorded = true;
        }
    }
    if (const json* dp = find(root, "deviceProperties"); dp != nullptr && dp->is_array() && !dp->empty())
        if (auto n = as_string(find((*dp)[0], "name"))) t.gpu_name = *n;
}

Parsed Importer::finish() {
    RankTrace& t = out_.trace;
    if (t.events.size() >= std::numeric_limits<std::uint32_t>::max())
        throw InputError(file(), "", "more than 2^32 events: split the trace");

    // Steps in time order; each event in the step whose window holds its start.
    std::stable_sort(t.steps.begin(), t.steps.end(), [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
    if (t.steps.empty()) {
        t.notes.push_back("no ProfilerStep annotations: replayed as one window");
    } else {
        for (Event& e : t.events) {
            auto it = std::upper_bound(t.steps.begin(), t.steps.end(), e.start_ns,
                                       [](std::int64_t ts, const Step& s) { return ts < s.start_ns; });
            if (it == t.steps.begin()) continue;
            --it;
            if (e.start_ns < it->start_ns + it->dur_ns) e.step = it->number;
        }
    }

    // Launch -> device event links by correlation.
    std::map<std::int64_t, std::vector<std::uint32_t>> launches;
    for (std::uint32_t i = 0; i < t.events.size(); ++i)
        if (t.events[i].kind == EventKind::runtime && t.events[i].correlation >= 0)
            launches[t.events[i].correlation].push_back(i);
    for (std::uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        const bool device = e.kind == EventKind::kernel || e.kind == EventKind::memcpy || e.kind == EventKind::memset;
        if (!device || e.correlation < 0) continue;
        if (const auto it = launches.find(e.correlation); it != launches.end())
            for (std::uint32_t from : it->second) t.deps.push_back({from, i, DepKind::flow});
    }

    give_kernels_flops(t);

    // cuda_sync entries describe the runtime call of their correlation.
    for (const SyncRecord& s : syncs_) {
        const auto it = launches.find(s.correlation);
        if (s.correlation < 0 || it == launches.end()) continue;
        for (std::uint32_t i : it->second) {
            Event& e = t.events[i];
            e.sync_stream = s.stream;
            if (s.record_correlation >= 0) e.cuda_event = s.record_correlation;
            if (s.wait_on_stream >= 0) e.wait_on_stream = s.wait_on_stream;
        }
    }

    // Sequence numbers per group, in time order, kernels and host records apart.
    std::vector<std::uint32_t> colls;
    for (std::uint32_t i = 0; i < t.events.size(); ++i)
        if (t.events[i].has_coll) colls.push_back(i);
    std::stable_sort(colls.begin(), colls.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return t.events[a].start_ns < t.events[b].start_ns; });
    std::map<std::pair<bool, std::string>, std::int64_t> next;
    for (std::uint32_t i : colls) {
        Event& e = t.events[i];
        e.coll.seq = next[{e.kind == EventKind::kernel, e.coll.process_group}]++;
    }
    return std::move(out_);
}

// "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..." ->
// {"line 1, column 2", "syntax error ..."}.
std::pair<std::string, std::string> split_nlohmann(const std::string& what) {
    std::string where, msg = what;
    if (const auto b = msg.find("] "); b != std::string::npos && msg[0] == '[') msg = msg.substr(b + 2);
    if (const auto at = msg.find(" at line "); at != std::string::npos) {
        const auto colon = msg.find(": ", at);
        if (colon != std::string::npos) {
            where = msg.substr(at + 4, colon - at - 4);
            msg = msg.substr(colon + 2);
        }
    }
    if (msg.size() > 4 * max_quoted) msg = msg.substr(0, 4 * max_quoted) + "...";
    return {where, msg};
}

Parsed parse_stream(ByteStream& bytes, const std::string& file) {
    Importer imp(file);
    std::istream in(&bytes);
    bool root_is_array = false, in_events = false, saw_events = false;
    std::size_t index = 0;  // of the next traceEvents entry
    bool key_is_events = false;  // the last top-level key was "traceEvents"
    const auto depth_error = [&](int depth) {
        if (depth >= max_kineto_depth)
            throw InputError(file, in_events ? imp.where(index) : "",
                             "nesting deeper than " + std::to_string(max_kineto_depth) + " levels of arrays and objects");
    };
    json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) -> bool {
        using E = json::parse_event_t;
        const int event_depth = root_is_array ? 1 : 2;
        switch (event) {
        case E::object_start:
        case E::array_start:
            depth_error(depth);
            if (depth == 0) {
                root_is_array = event == E::array_start;
                in_events = saw_events = root_is_array;
            } else if (depth == 1 && !root_is_array && key_is_events) {
                if (event == E::object_start) throw InputError(file, "/traceEvents", "expected an array of trace events");
                in_events = saw_events = true;
            } else if (in_events && depth == event_depth && event == E::array_start) {
                throw InputError(file, imp.where(index), "expected an object (a trace event), got an array");
            }
            return true;
        case E::key:
            if (depth == 1 && !root_is_array) {
                const auto& key = parsed.get_ref<const std::string&>();
                key_is_events = key == "traceEvents";
                in_events = false;
                return key_is_events || key == "distributedInfo" || key == "deviceProperties";
            }
            return true;
        case E::value:
            if (in_events && depth == event_depth)
                throw InputError(file, imp.where(index), "expected an object (a trace event), got " + cut(parsed.dump()));
            if (depth == 1 && !root_is_array && key_is_events)
                throw InputError(file, "/traceEvents", "expected an array of trace events, got " + cut(parsed.dump()));
            if (depth == 0) throw InputError(file, "", "expected a JSON object with \"traceEvents\", got " + cut(parsed.dump()));
            return true;
        case E::object_end:
            if (in_events && depth == event_depth) {
                imp.add(parsed, index++);
                return false;  // dropped: the trace keeps its Event
            }
            return true;
        case E::array_end:
            if (in_events && depth == event_depth - 1) in_events = false;
            return true;
        }
        return true;
    };
    json root;
    try {
        root = json::parse(in, cb, true, false);
    } catch (const json::exception& e) {
        if (!bytes.error().empty()) throw InputError(file, "", bytes.error());
        auto [where, msg] = split_nlohmann(e.what());
        throw InputError(file, where, "malformed JSON: " + msg);
    } catch (const InputError&) {
        if (!bytes.error().empty()) throw InputError(file, "", bytes.error());
        throw;
    }
    if (!bytes.error().empty()) throw InputError(file, "", bytes.error());
    if (!saw_events) throw InputError(file, "", "no \"traceEvents\" array: not a PyTorch profiler (Kineto) trace");
    if (!root_is_array) imp.top_level(root);
    return imp.finish();
}

}  // namespace

RankTrace read_kineto(const std::string& path) {
    auto bytes = ByteStream::open_file(path);
    return parse_stream(*bytes, path).trace;
}

RankTrace parse_kineto(std::string_view data, const std::string& name) {
    auto bytes = ByteStream::over(data);
    return parse_stream(*bytes, name).trace;
}

Trace read_kineto_ranks(const std::vector<std::string>& paths) {
    if (paths.empty()) throw InputError("", "", "no trace files given");
    std::vector<Parsed> parsed;
    parsed.reserve(paths.size());
    for (const std::string& p : paths) {
        auto bytes = ByteStream::open_file(p);
        parsed.push_back(parse_stream(*bytes, p));
    }
    const bool by_rank = std::all_of(parsed.begin(), parsed.end(), [](const Parsed& p) { return p.rank_recorded; });
    const Parsed* world_from = nullptr;
    for (const Parsed& p : parsed) {
        if (!p.world_recorded) continue;
        if (world_from != nullptr && world_from->trace.world_size != p.trace.world_size)
            throw InputError(p.trace.file, "/distributedInfo/world_size",
                             "world_size " + std::to_string(p.trace.world_size) + " differs from world_size " +
                                 std::to_string(world_from->trace.world_size) + " of " + world_from->trace.file);
        world_from = &p;
    }
    const int world = world_from != nullptr ? world_from->trace.world_size : static_cast<int>(paths.size());
    const std::string world_file = world_from != nullptr ? world_from->trace.file : "";
    Trace out;
    if (by_rank) {
        std::stable_sort(parsed.begin(), parsed.end(),
                         [](const Parsed& a, const Parsed& b) { return a.trace.rank < b.trace.rank; });
        for (std::size_t i = 1; i < parsed.size(); ++i)
            if (parsed[i].trace.rank == parsed[i - 1].trace.rank)
                throw InputError(parsed[i].trace.file, "/distributedInfo/rank",
                                 "rank " + std::to_string(parsed[i].trace.rank) + " is also the rank of " +
                                     parsed[i - 1].trace.file + ": give one file per rank");
    }
    for (std::size_t i = 0; i < parsed.size(); ++i) {
        RankTrace& t = parsed[i].trace;
        if (!by_rank) t.rank = static_cast<int>(i);
        if (t.rank >= world)
            throw InputError(t.file, "/distributedInfo/rank",
                             "rank " + std::to_string(t.rank) + " is not below the world size " + std::to_string(world) +
                                 (world_file.empty() ? " (the number of files: no file records distributedInfo.world_size)"
                                                     : " (distributedInfo.world_size of " + world_file + ")"));
        t.world_size = world;
        out.ranks.push_back(std::move(t));
    }
    if (!by_rank && paths.size() > 1)
        for (RankTrace& t : out.ranks)
            t.notes.push_back("not every file records distributedInfo.rank: ranks follow the order of the files");
    return out;
}

}  // namespace rentsim::trace
