// Shared by the fuzz targets. Each target defines LLVMFuzzerTestOneInput: it feeds one input
// to a public entry point, returns 0 on success or on the entry point's documented input
// errors, and lets anything else escape. A broken documented postcondition throws
// CheckFailure, which no target catches: libFuzzer reports it as a crash, the replay driver
// as a failure of that input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace rentsim::fuzz {

struct CheckFailure : std::logic_error {
    using std::logic_error::logic_error;
};

inline std::string text(const std::uint8_t* data, std::size_t size) {
    return size == 0 ? std::string() : std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace rentsim::fuzz

#define RENTSIM_FUZZ_CHECK(cond, what)                                                                     \
    do {                                                                                                   \
        if (!(cond))                                                                                       \
            throw ::rentsim::fuzz::CheckFailure(std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                                                ": " + (what));                                            \
    } while (0)
