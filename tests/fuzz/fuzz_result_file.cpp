// Fuzz target: the result-file reader (analysis::parse_result_text) and what is drawn from it.
// Expected: InputError. Checks that every chart of a file that loads is a whole SVG document
// without a non-finite number, and that the HTML report is a whole page.
#include "analysis/report/charts.hpp"
#include "analysis/report/html.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/result_file.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rentsim::analysis;
    ResultFile f;
    try {
        f = parse_result_text(rentsim::fuzz::text(data, size), "fuzz.json");
    } catch (const InputError&) {
        return 0;
    }
    const Charts charts = result_charts(f);
    for (const Chart& c : charts.charts) {
        RENTSIM_FUZZ_CHECK(c.svg.starts_with("<svg ") && c.svg.ends_with("</svg>\n"), c.name + " is not a whole SVG document");
        RENTSIM_FUZZ_CHECK(c.svg.find("nan") == std::string::npos && c.svg.find("inf\"") == std::string::npos,
                           c.name + " holds a non-finite number");
    }
    const std::string html = result_report_html(f, charts);
    RENTSIM_FUZZ_CHECK(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"), "the report is not a whole page");
    return 0;
}
