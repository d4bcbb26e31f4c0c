// Fuzz target: the result files rentsim reads back, a baseline of `check --baseline`
// (analysis::parse_result_rows) and a shard of `merge` (analysis::merge_shard_texts, the input
// as shard 1/1). Expected: InputError. Checks that a merged shard's results write a shard
// file that merges to the same records.
#include "analysis/run/shard.hpp"
#include "analysis/run/sweep.hpp"
#include "analysis/scenario/check_inputs.hpp"
#include "analysis/scenario/input_error.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rentsim::analysis;
    const std::string text = rentsim::fuzz::text(data, size);
    try {
        (void)parse_result_rows(text, "fuzz.json");
    } catch (const InputError&) {
    }
    std::vector<Result> merged;
    try {
        merged = merge_shard_texts({{"fuzz.json", text}});
    } catch (const InputError&) {
        return 0;
    }
    std::vector<std::string> hashes(merged.size(), "0");
    std::vector<std::size_t> indices;
    for (std::size_t i = 0; i < merged.size(); ++i) indices.push_back(i);
    const auto again = merge_shard_texts({{"written.json", shard_json({1, 1}, "fuzz", hashes, indices, merged)}});
    RENTSIM_FUZZ_CHECK(again.size() == merged.size(), "a written shard merges to another count");
    for (std::size_t i = 0; i < merged.size(); ++i)
        RENTSIM_FUZZ_CHECK(result_record(again[i]) == result_record(merged[i]), "a written shard merges to other results");
    return 0;
}
