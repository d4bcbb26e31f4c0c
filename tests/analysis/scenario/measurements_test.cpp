// Measurement files read for calibration: malformed rows are input errors with the file,
// the line and the column; nothing reaches the fit as NaN or infinity.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/measurements.hpp"

using namespace rentsim;

namespace {

const std::string header =
    "id,role,category,model,gpu,gpus,precision,batch_per_gpu,global_batch,seq_len,metric,value,unit,notes\n";

// The error reading `rows` (after the header) for the A100 family; fails when there is none.
analysis::InputError read_error(const std::string& rows) {
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / ("rentsim-rows-" + std::to_string(::getpid()) + ".csv");
    { std::ofstream(file) << header << rows; }
    std::vector<std::string> skipped;
    try {
        (void)analysis::read_calibration_rows({file.string()}, "a100-sxm4-80gb", skipped);
    } catch (const analysis::InputError& e) {
        fs::remove(file);
        return e;
    }
    fs::remove(file);
    FAIL("accepted");
    return analysis::InputError("", "", "");
}

}  // namespace

TEST_CASE("a measured value of 0 is refused with its line and column, never fitted as infinity") {
    const auto e = read_error("G1,calibrate,gemm_efficiency,,a100-sxm4-80gb,1,fp16,,,,gemm_tflops,0,TFLOP/s,MxNxK=8192x8192x8192\n");
    CHECK(e.where() == "line 2");
    CHECK(e.message() == "column 'value': expected a number from 1e-06 to 1e+06, got 0");
}

TEST_CASE("a cell of 30,000 digits is refused by its length, not parsed by recursion") {
    const auto e = read_error("G1,calibrate,gemm_efficiency,,a100-sxm4-80gb,1,fp16,,,,gemm_tflops,100,TFLOP/s,MxNxK=" +
                              std::string(30000, '9') + "x8x8\n");
    CHECK(e.where() == "line 2");
    CHECK(e.message() == "a cell of 30010 characters; at most 4096 are read");
}

TEST_CASE("a GEMM shape too large for a row's notes is skipped, and 10,000-digit numbers are refused") {
    std::vector<std::string> skipped;
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / ("rentsim-shape-" + std::to_string(::getpid()) + ".csv");
    { std::ofstream(file) << header << "G2,calibrate,gemm_efficiency,,a100-sxm4-80gb,1,fp16,,,,gemm_tflops,100,TFLOP/s,MxNxK=" +
                                           std::string(100, '9') + "x8x8\n"; }
    const auto rows = analysis::read_calibration_rows({file.string()}, "a100-sxm4-80gb", skipped);
    fs::remove(file);
    CHECK(rows.empty());
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0] == "G2: GEMM shape not stated");
    const auto e = read_error("G3,calibrate,gemm_efficiency,,a100-sxm4-80gb,1,fp16,,,,gemm_tflops," +
                              std::string(4000, '9') + ",TFLOP/s,MxNxK=8192x8192x8192\n");
    CHECK(e.message().starts_with("column 'value': expected a finite number, got '9999"));
}

TEST_CASE("an attention row of the measurement script: its FLOPs, traffic and one block per 128 queries") {
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / ("rentsim-attention-" + std::to_string(::getpid()) + ".csv");
    {
        std::ofstream(file) << "gpu,kind,name,precision,m,n,k,batch,seq_len,bytes,flops,time_s\n"
                            // 64 heads x 1 sample, 4096 tokens of head dim 128: 4 b h s^2 d / 2 FLOPs causal.
                            << "b200,attention,sdpa_fwd_causal,bf16,,,128,64,4096,150994944,274877906944,0.00028\n"
                            << "b200,attention,sdpa_fwd_causal,bf16,,,128,64,4096,,274877906944,0.00028\n";
    }
    std::vector<std::string> skipped;
    try {
        (void)analysis::read_calibration_rows({file.string()}, "b200", skipped);
        FAIL("a row without bytes was accepted");
    } catch (const analysis::InputError& e) {
        CHECK(e.where() == "line 3");
        CHECK(e.message() == "column 'bytes': expected a number, got an empty cell");
    }
    { std::ofstream(file) << "gpu,kind,name,precision,m,n,k,batch,seq_len,bytes,flops,time_s\n"
                          << "b200,attention,sdpa_fwd_causal,bf16,,,128,64,4100,150994944,274877906944,0.00028\n"; }
    const auto rows = analysis::read_calibration_rows({file.string()}, "b200", skipped);
    fs::remove(file);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].kind == analysis::RowKind::attention);
    CHECK(rows[0].flops == 274877906944.0);
    CHECK(rows[0].bytes == 150994944.0);
    CHECK(rows[0].query_blocks == 64.0 * 33);  // ceil(4100 / 128) = 33 blocks per head
    CHECK(rows[0].measured_s == 0.00028);
}
