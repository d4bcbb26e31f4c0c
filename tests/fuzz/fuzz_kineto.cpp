// Fuzz target: the Kineto importer (trace::parse_kineto) on plain or gzip bytes. Expected:
// InputError. Checks the documented results: links within the events and from a runtime call
// to a device event of its correlation, steps in time order, every event's step one whose
// window holds its start, non-negative durations, sequence numbers on collectives only.
#include <algorithm>

#include "analysis/scenario/input_error.hpp"
#include "analysis/trace/kineto.hpp"
#include "analysis/trace/summary.hpp"
#include "fuzz_target.hpp"

namespace {

void check(const rentsim::trace::RankTrace& t) {
    using namespace rentsim::trace;
    for (const Dep& d : t.deps) {
        RENTSIM_FUZZ_CHECK(d.from < t.events.size() && d.to < t.events.size(), "a link outside the events");
        const Event &from = t.events[d.from], &to = t.events[d.to];
        const bool device = to.kind == EventKind::kernel || to.kind == EventKind::memcpy || to.kind == EventKind::memset;
        RENTSIM_FUZZ_CHECK(from.kind == EventKind::runtime && device && from.correlation == to.correlation &&
                               from.correlation >= 0,
                           "a link that is not launch -> device event of one correlation");
    }
    RENTSIM_FUZZ_CHECK(std::is_sorted(t.steps.begin(), t.steps.end(),
                                      [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; }),
                       "steps out of time order");
    for (const Event& e : t.events) {
        RENTSIM_FUZZ_CHECK(e.dur_ns >= 0, "a negative duration");
        RENTSIM_FUZZ_CHECK(e.has_coll == (e.coll.seq >= 0), "a sequence number without a collective, or none with one");
        if (e.step >= 0)
            RENTSIM_FUZZ_CHECK(std::any_of(t.steps.begin(), t.steps.end(),
                                           [&](const Step& s) {
                                               return s.number == e.step && s.start_ns <= e.start_ns &&
                                                      e.start_ns < s.start_ns + s.dur_ns;
                                           }),
                               "an event in a step whose window does not hold it");
    }
    RENTSIM_FUZZ_CHECK(!t.steps.empty() || !t.notes.empty(), "no note for a trace without steps");
    (void)describe(summarize(t));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes = rentsim::fuzz::text(data, size);
    try {
        check(rentsim::trace::parse_kineto(bytes, "fuzz.json"));
    } catch (const rentsim::analysis::InputError&) {
    }
    return 0;
}
