// Fuzz target: the Chakra importer (trace::parse_chakra) on bytes in any of its forms: the
// protobuf .et stream, the JSON forms, PyTorch execution traces, each plain or gzip.
// Expected: InputError. Checks the documented results: dependencies between existing events
// and never of an event on itself; Chakra forms have no start times and non-negative
// durations, PyTorch execution traces no durations at all.
#include <string>

#include "analysis/scenario/input_error.hpp"
#include "analysis/trace/chakra.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rentsim::trace;
    const std::string bytes = rentsim::fuzz::text(data, size);
    try {
        const RankTrace t = parse_chakra(bytes, "fuzz");
        for (const Dep& d : t.deps) {
            RENTSIM_FUZZ_CHECK(d.from < t.events.size() && d.to < t.events.size(), "a dependency outside the events");
            RENTSIM_FUZZ_CHECK(d.from != d.to, "an event depends on itself");
        }
        for (const Event& e : t.events) {
            RENTSIM_FUZZ_CHECK(e.start_ns == -1, "a start time in a trace that records none");
            if (t.format == Format::pytorch_et)
                RENTSIM_FUZZ_CHECK(e.dur_ns == -1, "a duration in a PyTorch execution trace");
            else
                RENTSIM_FUZZ_CHECK(e.dur_ns >= 0, "a negative duration");
            if (e.has_coll) RENTSIM_FUZZ_CHECK(e.coll.in_bytes >= -1, "a negative message size");
        }
    } catch (const rentsim::analysis::InputError&) {
    }
    return 0;
}
