// Fuzz target: the calibration file loader (analysis::parse_calibration). Expected: InputError.
// Checks that what calibration_to_json writes for a loaded calibration loads again.
#include "analysis/scenario/calibration_io.hpp"
#include "analysis/scenario/input_error.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rentsim::analysis;
    rentsim::compute::Calibration c;
    try {
        c = parse_calibration(rentsim::fuzz::text(data, size), "fuzz.json");
    } catch (const InputError&) {
        return 0;
    }
    try {
        (void)parse_calibration(calibration_to_json(c), "written.json");
    } catch (const InputError& e) {
        RENTSIM_FUZZ_CHECK(false, std::string("a written calibration does not load: ") + e.what());
    }
    return 0;
}
