#include "analysis/trace/summary.hpp"

#include <algorithm>
#include <limits>

#include "analysis/trace/classify.hpp"

namespace rentsim::trace {

TraceSummary summarize(const RankTrace& t) {
    TraceSummary s;
    s.events = static_cast<std::int64_t>(t.events.size());
    s.deps = static_cast<std::int64_t>(t.deps.size());
    s.steps = t.steps;
    s.unknown_kinds = t.unknown_kinds;
    s.notes = t.notes;
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
    for (const Event& e : t.events) {
        ++s.by_kind[e.kind];
        if (e.kind == EventKind::kernel) {
            ++s.kernels_by_class[e.cls];
            s.kernel_ns_by_class[e.cls] += e.dur_ns;
            if (e.has_coll) ++s.collective_kernels[e.coll.op];
        } else if (e.has_coll) {
            ++s.collective_records;
        }
        if (e.start_ns >= 0) {
            first = std::min(first, e.start_ns);
            last = std::max(last, e.start_ns + e.dur_ns);
        }
    }
    if (first <= last) s.span_ns = last - first;
    return s;
}

std::string describe(const TraceSummary& s) {
    std::string out = "events " + std::to_string(s.events) + ":";
    const char* sep = " ";
    for (const auto& [k, n] : s.by_kind) {
        out += sep + std::string(kind_name(k)) + " " + std::to_string(n);
        sep = ", ";
    }
    out += "\nkernels by class:";
    sep = " ";
    for (const auto& [c, n] : s.kernels_by_class) {
        out += sep + std::string(class_name(c)) + " " + std::to_string(n);
        sep = ", ";
    }
    out += "\ncollective kernels:";
    sep = " ";
    for (const auto& [op, n] : s.collective_kernels) {
        out += sep + std::string(op_name(op)) + " " + std::to_string(n);
        sep = ", ";
    }
    if (s.collective_kernels.empty()) out += " none";
    out += "\nsteps:";
    sep = " ";
    for (const Step& st : s.steps) {
        out += sep + ("#" + std::to_string(st.number)) + " " + std::to_string(st.dur_ns / 1000) + " us";
        sep = ", ";
    }
    if (s.steps.empty()) out += " none";
    if (!s.unknown_kinds.empty()) {
        out += "\nunknown kinds:";
        sep = " ";
        for (const auto& [k, n] : s.unknown_kinds) {
            out += sep + k + " " + std::to_string(n);
            sep = ", ";
        }
    }
    for (const std::string& n : s.notes) out += "\nnote: " + n;
    return out + "\n";
}

}  // namespace rentsim::trace
