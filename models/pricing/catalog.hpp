// The price catalog: published instance prices per provider, instance, plan and region, read
// from models/pricing/data/catalog.csv (compiled in; see models/pricing/README.md for its
// sources). Rows whose `flag` is non-empty are to be distrusted; `flag` says why.
// Also the provider facts the lifecycle needs (billing increment, spot notice), with sources.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim::price {

struct CatalogRow {
    std::string provider;        // lower case: aws, gcp, azure, lambda, runpod, ...
    std::string instance;        // provider's instance name, e.g. p4de.24xlarge
    std::string gpu;             // GPU catalog name (a100-sxm4-80gb), empty if not in the GPU catalog
    std::string gpu_label;       // the GPU as the source names it (A100-80GB)
    int gpus_per_instance = 1;
    double vcpus = 0, ram_gb = 0, network_gbps = 0;  // 0: not stated
    std::string plan;            // on-demand, spot, reserved_1y_standard_no_upfront, committed_use_1y, ...
    double price_per_hour = 0;   // per instance, in `currency`
    std::string currency = "USD";
    double usd_per_unit = 1.0;   // exchange rate: USD per unit of `currency`
    std::string region, as_of, source, notes;
    std::string flag;            // why the row is not to be trusted; empty if trusted

    double usd_per_instance_hour() const { return price_per_hour * usd_per_unit; }
};

// Parses catalog text in the layout of models/pricing/data/catalog.csv. Throws
// std::invalid_argument with the line number on a malformed row. A price of exactly 700.0
// (a catalog placeholder for "not offered") is flagged even if the file does not say so.
std::vector<CatalogRow> parse_catalog(std::string_view text);
// The shipped catalog, parsed once per call site; cheap to call repeatedly.
const std::vector<CatalogRow>& shipped_catalog();

// Distinct values, in catalog order.
std::vector<std::string> catalog_providers(std::span<const CatalogRow> rows);
std::vector<std::string> catalog_instances(std::span<const CatalogRow> rows, std::string_view provider);
std::vector<std::string> catalog_plans(std::span<const CatalogRow> rows, std::string_view provider,
                                       std::string_view instance);
std::vector<std::string> catalog_regions(std::span<const CatalogRow> rows, std::string_view provider,
                                         std::string_view instance, std::string_view plan);
// The row for (provider, instance, plan[, region]): the first trusted row in catalog order,
// else the first flagged one (the caller decides whether to accept it); nullptr if none.
const CatalogRow* find_price(std::span<const CatalogRow> rows, std::string_view provider, std::string_view instance,
                             std::string_view plan, std::string_view region = {});

// How a plan bills: per use (on-demand), per use and preemptible (spot, preemptible),
// every hour of a term (reserved_*, committed_*, monthly), or owned (self-owned).
enum class PlanKind { on_demand, spot, committed, owned };
// The kind of a catalog plan name or of "self-owned"; other names are per use.
PlanKind plan_kind(std::string_view plan);

// Facts about a provider that are not prices. Values of 0 mean "not documented here".
struct ProviderFacts {
    std::string_view provider;
    double billing_increment_s;  // billing granularity of instances
    double minimum_billed_s;     // minimum billed time of one instance lease
    double spot_notice_s;        // warning before a spot instance is reclaimed
    double egress_usd_per_gb;    // internet egress, first tier
    std::string_view source;
};
// nullptr for providers without documented facts.
const ProviderFacts* find_provider_facts(std::string_view provider);

}  // namespace rentsim::price
