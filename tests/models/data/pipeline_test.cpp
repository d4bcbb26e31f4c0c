#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "analysis/scenario/csv.hpp"
#include "models/data/pipeline.hpp"
#include "models/pricing/catalog.hpp"

using namespace rentsim;

TEST_CASE("the ImageNet decode time is the fitted line at the mean JPEG size") {
    const auto* k = data::find_sample_kind("imagenet-jpeg");
    REQUIRE(k != nullptr);
    // 147,897,477,120 B / 1,281,167 images = 115.44 KB; -0.30684 + 0.0139226 x 115.44 = 1.3004 ms.
    CHECK(k->stored_bytes.value == doctest::Approx(115439.66).epsilon(1e-6));
    CHECK(k->cpu_decode_s.value == doctest::Approx(1.3004e-3).epsilon(1e-3));
    // Augmentation is assumed to cost as much as the decode: 384.5 images/s per core.
    CHECK(1.0 / k->cpu_s_per_sample(false).value == doctest::Approx(384.5).epsilon(1e-3));
    CHECK(k->has_gpu_decode());
    CHECK_FALSE(data::find_sample_kind("point-cloud")->has_gpu_decode());
}

TEST_CASE("a dataset that fits the page cache is all hits once warm, a larger one hits in proportion") {
    CHECK(data::warm_hit_fraction(units::bytes(100e9), units::bytes(200e9)) == 1.0);
    CHECK(data::warm_hit_fraction(units::bytes(200e9), units::bytes(50e9)) == doctest::Approx(0.25));
}

TEST_CASE("staging copies at the slowest of source, ingress and drives, after one request latency") {
    const data::Source s3 = data::default_source(data::SourceKind::object_storage);
    // 148 GB over a 10 Gb/s link (1.25 GB/s): 118.32 s, plus 30 ms.
    const auto t = data::staging_time(units::bytes(147.897e9), s3, units::gbits_per_s(10), units::gbytes_per_s(16));
    CHECK(t.value == doctest::Approx(147.897e9 / 1.25e9 + 0.030));
    // Without an ingress limit the 100 Gb/s source is slower than 16 GB/s of drives.
    const auto fast = data::staging_time(units::bytes(100e9), s3, units::BytesPerSecond{}, units::gbytes_per_s(16));
    CHECK(fast.value == doctest::Approx(100e9 / 12.5e9 + 0.030));
}

TEST_CASE("instance presets carry the catalog's vCPUs, RAM, network and NVMe") {
    const auto* p4d = data::find_instance("aws-p4d.24xlarge");
    REQUIRE(p4d != nullptr);
    CHECK(p4d->vcpus == 96);
    CHECK(p4d->ram_gib == 1152);
    CHECK(p4d->network_gbps == 400);
    CHECK(p4d->nvme_bytes().value == doctest::Approx(8e12));
    CHECK(p4d->nvme_bandwidth().value == doctest::Approx(16e9));
    const auto* p3 = data::find_instance("aws-p3.2xlarge");
    REQUIRE(p3 != nullptr);
    CHECK(p3->nvme_drives == 0);
    CHECK(data::find_instance("aws-p4d") == nullptr);
}

namespace {
std::string measured_csv() { return std::string(RENTSIM_SOURCE_DIR) + "/models/compute/measurements/measured.csv"; }
}  // namespace

TEST_CASE("the ImageNet decode constants are the least-squares line through the shipped decode rows") {
    const auto t = analysis::read_csv(measured_csv());
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& r : t.rows) {
        const auto& id = r.at("id");
        if (id != "DAT-003" && id != "DAT-004" && id != "DAT-005" && id != "DAT-006") continue;
        // The published size sits in the notes, e.g. "JPEG decode 320p (71.1 KB)".
        const auto& notes = r.at("notes");
        const auto open = notes.find('(');
        const double kb = std::stod(notes.substr(open + 1));
        const double decode_ms = 1000.0 / *r.number("value");
        n += 1;
        sx += kb;
        sy += decode_ms;
        sxx += kb * kb;
        sxy += kb * decode_ms;
    }
    REQUIRE(n == 4);
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    const double intercept = (sy - slope * sx) / n;
    const auto* k = data::find_sample_kind("imagenet-jpeg");
    CHECK(k->cpu_decode_s.value * 1e3 == doctest::Approx(intercept + slope * k->stored_bytes.value / 1000.0).epsilon(1e-4));
    // GPU decode: DAT-002.
    for (const auto& r : t.rows)
        if (r.at("id") == "DAT-002") CHECK(1.0 / k->gpu_decode_s.value == doctest::Approx(*r.number("value")));
}

TEST_CASE("instance presets have NVMe drives exactly where the price catalog's row does") {
    const auto& catalog = price::shipped_catalog();
    for (const auto& inst : data::instances()) {
        CAPTURE(inst.name);
        const auto* row = price::find_price(catalog, "aws", inst.name.substr(4), "on-demand");
        REQUIRE(row != nullptr);
        CHECK(row->gpus_per_instance == inst.gpus);
        const bool ebs_only = row->notes.find("EBS only") != std::string::npos;
        CHECK(ebs_only == (inst.nvme_drives == 0));
    }
}

TEST_CASE("the sample kind registry holds sample_kinds() in order with their descriptions") {
    const auto& reg = data::sample_kind_registry();
    const std::vector<std::string_view> names(reg.names().begin(), reg.names().end());
    CHECK(names == std::vector<std::string_view>{"imagenet-jpeg", "pretokenized-text", "point-cloud"});
    for (std::size_t i = 0; i < reg.entries().size(); ++i) {
        const auto& e = reg.entries()[i];
        CHECK(e.value == &data::sample_kinds()[i]);
        CHECK(e.description == data::sample_kinds()[i].description);
    }
    CHECK(data::find_sample_kind("imagenet-jpeg") == reg.get("imagenet-jpeg"));
    CHECK(data::find_sample_kind("imagenet") == nullptr);
    CHECK(reg.unknown_message("imagenet") ==
          "unknown sample kind 'imagenet'; did you mean 'imagenet-jpeg'? valid: imagenet-jpeg, pretokenized-text, "
          "point-cloud");
}

TEST_CASE("the source kind registry names every SourceKind in order and round-trips") {
    const auto& reg = data::source_kind_registry();
    const std::vector<std::string_view> names(reg.names().begin(), reg.names().end());
    CHECK(names == std::vector<std::string_view>{"local-nvme", "nfs", "object-storage"});
    for (const auto& e : reg.entries()) {
        CAPTURE(e.name);
        CHECK_FALSE(e.description.empty());
        CHECK(reg.name_of(e.value) == e.name);
        CHECK(data::to_string(e.value) == e.name);
        CHECK(data::parse_source_kind(e.name) == e.value);
    }
    CHECK(reg.get("nfs") == data::SourceKind::nfs);
    CHECK(reg.unknown_message("s3") == "unknown source kind 's3'; valid: local-nvme, nfs, object-storage");
    CHECK(reg.unknown_message("local_nvme") ==
          "unknown source kind 'local_nvme'; did you mean 'local-nvme'? valid: local-nvme, nfs, object-storage");
}

TEST_CASE("the instance registry holds instances() in order, described from the table") {
    const auto& reg = data::instance_registry();
    REQUIRE(reg.entries().size() == data::instances().size());
    for (std::size_t i = 0; i < reg.entries().size(); ++i) {
        const auto& e = reg.entries()[i];
        CHECK(e.name == data::instances()[i].name);
        CHECK(e.value == &data::instances()[i]);
    }
    CHECK(reg.names().front() == "aws-p3.2xlarge");
    CHECK(reg.names().back() == "aws-p5.48xlarge");
    CHECK(reg.describe("aws-p4d.24xlarge") ==
          "8x a100-sxm4-40gb, 96 vCPUs, 1152 GiB RAM, 400 Gb/s network, 8x 1000 GB NVMe");
    CHECK(reg.describe("aws-p3.2xlarge") == "1x v100-sxm2-16gb, 8 vCPUs, 61 GiB RAM, 10 Gb/s network, no instance NVMe");
    CHECK(data::find_instance("aws-p4d.24xlarge") == reg.get("aws-p4d.24xlarge"));
    CHECK(data::find_instance("aws-p4d") == nullptr);
    CHECK(reg.unknown_message("aws-p5.48xl").starts_with(
        "unknown instance 'aws-p5.48xl'; did you mean 'aws-p5.48xlarge'? valid: aws-p3.2xlarge, aws-p3.8xlarge, "));
}
