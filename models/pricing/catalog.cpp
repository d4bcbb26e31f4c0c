#include "models/pricing/catalog.hpp"

#include "models/pricing/shipped_files.hpp"

#include "models/csv.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rentsim::price {

namespace {

// Provider facts. The AWS and GCP figures are those stated in the shipped pricing data's
// documentation (models/pricing/README.md, "Billing rules"), taken from the providers'
// documentation: AWS bills Linux instances per second with a 60 s minimum and gives a
// 2-minute spot interruption notice; Google Cloud spot VMs get a 30 s notice. Egress: AWS
// 0.09 USD/GB for the first 10 TB a month (AWS price list, 2018-07-22).
constexpr ProviderFacts provider_facts[] = {
    {"aws", 1.0, 60.0, 120.0, 0.09, "AWS EC2 documentation; AWS price list 2018-07-22 (egress)"},
    {"gcp", 1.0, 60.0, 30.0, 0.0, "Google Cloud documentation (spot preemption notice)"},
};

double number(const std::string& s, std::size_t line_no, const char* what) {
    if (s.empty()) return 0.0;
    try {
        std::size_t used = 0;
        const double v = std::stod(s, &used);
        if (used != s.size() || !std::isfinite(v) || v < 0) throw std::invalid_argument(s);
        return v;
    } catch (const std::exception&) {
        throw std::invalid_argument("catalog line " + std::to_string(line_no) + ": " + what +
                                    ": expected a non-negative number, got '" + s + "'");
    }
}

constexpr std::string_view columns[] = {"provider", "instance", "gpu", "gpu_label", "gpus_per_instance", "vcpus",
                                         "ram_gb", "network_gbps", "plan", "price_per_hour", "currency",
                                         "usd_per_unit", "region", "as_of", "source", "notes", "flag"};

template <class F>
std::vector<std::string> distinct(std::span<const CatalogRow> rows, F&& field) {
    std::vector<std::string> out;
    for (const auto& r : rows) {
        auto v = field(r);
        if (v && std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
    }
    return out;
}

}  // namespace

std::vector<CatalogRow> parse_catalog(std::string_view text) {
    std::vector<CatalogRow> rows;
    bool header = true;
    for (auto& record : parse_csv_records(text, "catalog")) {
        const std::size_t line_no = record.line;
        const auto& f = record.fields;
        if (f.size() != std::size(columns))
            throw std::invalid_argument("catalog line " + std::to_string(line_no) + ": expected " +
                                        std::to_string(std::size(columns)) + " fields, got " + std::to_string(f.size()));
        if (header) {
            header = false;
            for (std::size_t i = 0; i < f.size(); ++i)
                if (f[i] != columns[i])
                    throw std::invalid_argument("catalog header: expected column '" + std::string(columns[i]) +
                                                "', got '" + f[i] + "'");
            continue;
        }
        CatalogRow r;
        r.provider = f[0];
        r.instance = f[1];
        r.gpu = f[2];
        r.gpu_label = f[3];
        // Checked as a number before it becomes an int: 1 to 72 (a GB200 NVL72 rack).
        const double gpus = number(f[4], line_no, "gpus_per_instance");
        if (!(gpus >= 1 && gpus <= 72) || gpus != std::floor(gpus))
            throw std::invalid_argument("catalog line " + std::to_string(line_no) +
                                        ": gpus_per_instance must be a whole number from 1 to 72");
        r.gpus_per_instance = static_cast<int>(gpus);
        r.vcpus = number(f[5], line_no, "vcpus");
        r.ram_gb = number(f[6], line_no, "ram_gb");
        r.network_gbps = number(f[7], line_no, "network_gbps");
        r.plan = f[8];
        r.price_per_hour = number(f[9], line_no, "price_per_hour");
        r.currency = f[10];
        r.usd_per_unit = number(f[11], line_no, "usd_per_unit");
        if (r.usd_per_unit <= 0)
            throw std::invalid_argument("catalog line " + std::to_string(line_no) + ": usd_per_unit must be > 0");
        r.region = f[12];
        r.as_of = f[13];
        r.source = f[14];
        r.notes = f[15];
        r.flag = f[16];
        if (r.flag.empty() && r.price_per_hour == 700.0) r.flag = "price 700.0 is a catalog placeholder for not offered";
        rows.push_back(std::move(r));
    }
    return rows;
}

const std::vector<CatalogRow>& shipped_catalog() {
    static const std::vector<CatalogRow> rows = parse_catalog(embedded_text(shipped_pricing_files(), "catalog.csv"));  // immutable after init
    return rows;
}

std::vector<std::string> catalog_providers(std::span<const CatalogRow> rows) {
    return distinct(rows, [](const CatalogRow& r) { return std::optional<std::string>(r.provider); });
}

std::vector<std::string> catalog_instances(std::span<const CatalogRow> rows, std::string_view provider) {
    return distinct(rows, [&](const CatalogRow& r) {
        return r.provider == provider ? std::optional<std::string>(r.instance) : std::nullopt;
    });
}

std::vector<std::string> catalog_plans(std::span<const CatalogRow> rows, std::string_view provider,
                                       std::string_view instance) {
    return distinct(rows, [&](const CatalogRow& r) {
        return r.provider == provider && r.instance == instance ? std::optional<std::string>(r.plan) : std::nullopt;
    });
}

std::vector<std::string> catalog_regions(std::span<const CatalogRow> rows, std::string_view provider,
                                         std::string_view instance, std::string_view plan) {
    return distinct(rows, [&](const CatalogRow& r) {
        return r.provider == provider && r.instance == instance && r.plan == plan ? std::optional<std::string>(r.region)
                                                                                  : std::nullopt;
    });
}

const CatalogRow* find_price(std::span<const CatalogRow> rows, std::string_view provider, std::string_view instance,
                             std::string_view plan, std::string_view region) {
    const CatalogRow* flagged = nullptr;
    for (const auto& r : rows) {
        if (r.provider != provider || r.instance != instance || r.plan != plan) continue;
        if (!region.empty() && r.region != region) continue;
        if (r.flag.empty()) return &r;
        if (!flagged) flagged = &r;
    }
    return flagged;
}

const ProviderFacts* find_provider_facts(std::string_view provider) {
    for (const auto& f : provider_facts)
        if (f.provider == provider) return &f;
    return nullptr;
}

PlanKind plan_kind(std::string_view plan) {
    if (plan == "self-owned") return PlanKind::owned;
    if (plan == "spot" || plan == "preemptible") return PlanKind::spot;
    if (plan.starts_with("reserved") || plan.starts_with("committed") || plan == "monthly") return PlanKind::committed;
    return PlanKind::on_demand;
}

}  // namespace rentsim::price
