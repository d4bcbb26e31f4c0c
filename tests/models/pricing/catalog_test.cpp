#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/compute/gpu.hpp"
#include "models/pricing/catalog.hpp"
#include "models/pricing/spot_trace.hpp"

using namespace rentsim;

TEST_CASE("the shipped catalog maps instances to catalog GPUs and per-instance prices") {
    const auto& cat = price::shipped_catalog();
    const auto* r = price::find_price(cat, "aws", "p4de.24xlarge", "on-demand");
    REQUIRE(r != nullptr);
    CHECK(r->gpu == "a100-sxm4-80gb");
    CHECK(r->gpus_per_instance == 8);
    CHECK(r->price_per_hour == doctest::Approx(27.44705));
    CHECK(r->flag.empty());
    CHECK(r->currency == "USD");
    // The pre-cut list price of the same instance and region is flagged, and not chosen.
    const auto plans = price::catalog_plans(cat, "aws", "p4de.24xlarge");
    CHECK(std::find(plans.begin(), plans.end(), "spot") != plans.end());
    CHECK(std::find(plans.begin(), plans.end(), "reserved_1y_standard_no_upfront") != plans.end());
}

TEST_CASE("distrusted catalog rows carry the reason") {
    const auto& cat = price::shipped_catalog();
    const auto* anomaly = price::find_price(cat, "gcp", "a3-highgpu-8g", "on-demand", "us-central1");
    REQUIRE(anomaly != nullptr);
    CHECK(anomaly->flag.empty());  // the trusted row of the same region comes first
    const auto* outlier = price::find_price(cat, "aws", "p4d.24xlarge", "spot");
    REQUIRE(outlier != nullptr);
    CHECK(outlier->flag.find("outlier") != std::string::npos);
}

TEST_CASE("a price of 700.0 is flagged as a placeholder and a malformed row names its line") {
    const std::string header =
        "provider,instance,gpu,gpu_label,gpus_per_instance,vcpus,ram_gb,network_gbps,plan,price_per_hour,currency,"
        "usd_per_unit,region,as_of,source,notes,flag\n";
    const auto rows = price::parse_catalog(header + "x,big,,B200,8,,,,spot,700.0,USD,1,r,2026,src,,\n"
                                                    "x,cny,,A100,1,,,,on-demand,20,CNY,0.14,r,2026,src,,\n");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].flag.find("placeholder") != std::string::npos);
    CHECK(rows[1].usd_per_instance_hour() == doctest::Approx(2.8));
    CHECK_THROWS_AS(price::parse_catalog(header + "x,y,,A100,1,,,,spot,abc,USD,1,r,d,s,,\n"), std::invalid_argument);
}

TEST_CASE("the Bamboo p3 spot trace has 177 additions and 167 removals over 11.4 hours") {
    const auto t = price::shipped_trace("bamboo-p3");
    CHECK(t.events.size() == 344);
    CHECK(t.removals() == 167);
    CHECK(t.span.value == doctest::Approx(40920.0));
    int most = 0;
    for (const auto& e : t.events) most = std::max(most, e.alive_before);
    CHECK(most == 32);
    CHECK_THROWS_AS(price::parse_bamboo_trace("60000,vanish,node1\n", "bad"), std::invalid_argument);
}

TEST_CASE("the Google Cloud A100 count log turns drops of the instance count into removals") {
    const auto t = price::shipped_trace("gcloud-a100-us-east1b");
    CHECK(t.removals() == 154);
    CHECK(t.span.value == doctest::Approx(27 * 3600.0 + 1 * 60 + 6));
    const auto small = price::parse_count_trace("2021-12-11, 23:59:30, 5\n2021-12-12, 00:00:30, 3\n"
                                                "2021-12-11, 23:59:00, 5\n2021-12-12, 00:01:30, 4\n", "x");
    REQUIRE(small.events.size() == 3);
    CHECK(small.events[0].time.value == doctest::Approx(90.0));
    CHECK_FALSE(small.events[0].add);
    CHECK(small.events[0].alive_before == 5);
    CHECK(small.events[1].alive_before == 4);
    CHECK(small.events[2].add);
    CHECK_THROWS_AS(price::parse_count_trace("2021-12-11 23:59:30 5\n", "bad"), std::invalid_argument);
}

TEST_CASE("the spot trace registry names the shipped traces in order, and shipped_trace follows it") {
    const auto& reg = price::spot_trace_registry();
    const std::vector<std::string_view> names(reg.names().begin(), reg.names().end());
    CHECK(names == std::vector<std::string_view>{"bamboo-p3", "gcloud-a100-us-east1b"});
    CHECK(price::shipped_trace_names() == names);
    for (const auto& e : reg.entries()) {
        CAPTURE(e.name);
        CHECK_FALSE(e.description.empty());
        const auto t = price::shipped_trace(e.name);
        CHECK(t.name == e.name);
        CHECK(t.removals() > 0);
    }
    CHECK(reg.get("bamboo-p3") == "spot-trace-bamboo-p3.csv");
    const std::string msg =
        "unknown spot trace 'bamboo-p4'; did you mean 'bamboo-p3'? valid: bamboo-p3, gcloud-a100-us-east1b";
    CHECK(reg.unknown_message("bamboo-p4") == msg);
    CHECK_THROWS_WITH_AS(price::shipped_trace("bamboo-p4"), msg.c_str(), std::invalid_argument);
}

TEST_CASE("every catalog row that names a GPU names one of the GPU catalog, and only GH200 is left unnamed") {
    for (const auto& r : price::shipped_catalog()) {
        CAPTURE(r.provider);
        CAPTURE(r.instance);
        if (r.gpu.empty()) {
            CHECK(r.gpu_label == "GH200");
            continue;
        }
        CHECK(compute::lookup_gpu(r.gpu) != nullptr);
    }
}

TEST_CASE("the 2026 rows load with their source and date, and B200 and H100 NVL rows resolve their GPU") {
    const auto& cat = price::shipped_catalog();
    struct Row {
        const char* instance;
        const char* gpu;
        int gpus;
        double on_demand, reserved_1y;
    };
    // tsaol/aws-gpu @77fcd9f (instances.vantage.sh, 2026-01-21), us-east-1.
    for (const Row& e : {Row{"g6e.48xlarge", "l40s", 8, 30.13118, 18.98264}, Row{"g6.48xlarge", "l4", 8, 13.3504, 8.69111},
                         Row{"g5.48xlarge", "a10g", 8, 16.288, 10.26144}, Row{"g4dn.metal", "t4", 8, 7.824, 4.929}}) {
        CAPTURE(e.instance);
        const auto* od = price::find_price(cat, "aws", e.instance, "on-demand", "us-east-1");
        const auto* ri = price::find_price(cat, "aws", e.instance, "reserved_1y_standard_no_upfront", "us-east-1");
        REQUIRE(od != nullptr);
        REQUIRE(ri != nullptr);
        for (const auto* r : {od, ri}) {
            CHECK(r->gpu == e.gpu);
            CHECK(r->gpus_per_instance == e.gpus);
            CHECK(r->flag.empty());
            CHECK(r->as_of == "2026-01-21");
            CHECK(r->source.find("tsaol/aws-gpu") != std::string::npos);
            CHECK(price::plan_kind(r->plan) == (r == od ? price::PlanKind::on_demand : price::PlanKind::committed));
        }
        CHECK(od->price_per_hour == doctest::Approx(e.on_demand));
        CHECK(ri->price_per_hour == doctest::Approx(e.reserved_1y));
        CHECK(ri->price_per_hour < od->price_per_hour);
    }
    for (const auto& entry : {std::pair{"aws", "p6-b200.48xlarge"}, std::pair{"lambda", "gpu_8x_b200_sxm6"},
                              std::pair{"coreweave", "HGX B200 (8 GPU node)"}}) {
        const auto provider = entry.first;
        const auto instance = entry.second;
        CAPTURE(instance);
        const auto* r = price::find_price(cat, provider, instance, "on-demand");
        REQUIRE(r != nullptr);
        CHECK(r->gpu == "b200");
    }
    const auto* nvl = price::find_price(cat, "azure", "Standard_NC80adis_H100_v5", "on-demand");
    REQUIRE(nvl != nullptr);
    CHECK(nvl->gpu == "h100-nvl-94gb");
}
