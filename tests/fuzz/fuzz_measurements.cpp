// Fuzz target: measurement CSVs. The text goes to analysis::parse_csv, with every cell read as
// a number, and, through a file (read_calibration_rows takes paths), to the calibration-row
// reader of `rentsim calibrate` for each GPU family. Expected: InputError. The file is
// <temp dir>/rentsim-fuzz-measurements-<pid>.csv, rewritten for every input and removed at exit.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "analysis/scenario/csv.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/measurements.hpp"
#include "fuzz_target.hpp"

namespace {

class TempFile {
public:
    TempFile()
        : path_(std::filesystem::temp_directory_path() /
                ("rentsim-fuzz-measurements-" + std::to_string(::getpid()) + ".csv")) {}
    ~TempFile() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& write(const std::string& text) {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        RENTSIM_FUZZ_CHECK(out.good(), "cannot write " + path_);
        return path_;
    }

private:
    std::string path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rentsim::analysis;
    const std::string text = rentsim::fuzz::text(data, size);
    try {
        const CsvTable t = parse_csv(text, "fuzz.csv");
        for (const CsvRow& row : t.rows) {
            for (const std::string& col : t.header) {
                try {
                    (void)row.number(col);
                } catch (const InputError&) {
                }
            }
        }
    } catch (const InputError&) {
    }
    static TempFile file;
    const std::vector<std::string> files{file.write(text)};
    for (const char* gpu : {"a100-sxm4-80gb", "h100-sxm5-80gb", "v100-sxm2-16gb"}) {
        std::vector<std::string> skipped;
        try {
            (void)read_calibration_rows(files, gpu, skipped);
        } catch (const InputError&) {
        }
    }
    return 0;
}
