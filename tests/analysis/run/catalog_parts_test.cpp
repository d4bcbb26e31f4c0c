// Every GPU part the price catalog prices runs a job end to end on one of its instances: the
// GPU, node and price resolved from the catalog row, a LoRA fine-tune planned by the layout
// search, simulated and billed at the row's on-demand price.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "analysis/run/run.hpp"
#include "analysis/scenario/scenario.hpp"
#include "models/compute/gpu.hpp"
#include "models/pricing/catalog.hpp"

using namespace rentsim;

TEST_CASE("every catalog-priced GPU runs a fine-tune end to end, billed at its catalog price") {
    std::map<std::string, const price::CatalogRow*> first;  // the first trusted on-demand row per GPU
    for (const auto& row : price::shipped_catalog())
        if (!row.gpu.empty() && row.flag.empty() && row.plan == "on-demand") first.emplace(row.gpu, &row);
    // The 2026 parts of the catalog are priced (GB300 and H200 NVL have no stored price).
    for (const char* part : {"b200", "gb200", "b300", "h100-nvl-94gb", "l40s", "l40", "l4", "a40", "a10", "a10g", "t4",
                             "rtx3090", "rtx4090", "rtx-a6000", "rtx6000-ada", "mi300x"}) {
        CAPTURE(part);
        CHECK(first.count(part) == 1);
    }
    for (const auto& entry : first) {
        const price::CatalogRow& row = *entry.second;
        CAPTURE(row.provider);
        CAPTURE(row.instance);
        const auto& gpu = compute::find_gpu(row.gpu);
        const bool bf16 = gpu.peak_tflops[static_cast<std::size_t>(compute::Precision::bf16)] > 0;
        analysis::ScenarioDraft d{"catalog-part", {}};
        d.set("schema", std::int64_t{1})
            .set("name", std::string("part"))
            .set("workload.model", std::string("llama3-8b"))
            .set("workload.precision", std::string(bf16 ? "bf16" : "fp16"))
            .set("workload.seq_len", std::int64_t{2048})
            .set("workload.global_batch", std::int64_t{8} * row.gpus_per_instance)
            .set("workload.lora.rank", std::int64_t{16})
            .set("workload.tokens", std::int64_t{10000000})
            .set("cluster.gpus", std::int64_t{row.gpus_per_instance})
            .set("pricing.provider", row.provider)
            .set("pricing.instance", row.instance)
            .set("pricing.plan", std::string("on-demand"));
        const auto s = analysis::compile_scenario(d);
        CHECK(s.cluster.gpu->name == row.gpu);
        const auto r = analysis::run_scenario(s);
        if (!r.fits) {  // a 16 GB card holds no 8B model: the result says so, with no price
            CHECK(row.gpu == "v100-sxm2-16gb");
            continue;
        }
        CHECK(r.time_to_train_s > 0);
        CHECK(r.cost_usd > 0);
        // One instance on demand, no storage or egress: cost is its billed time x its price.
        CHECK(r.billed_s >= r.time_to_train_s);
        CHECK(r.cost_usd == doctest::Approx(row.usd_per_instance_hour() * r.billed_s / 3600.0));
    }
}
