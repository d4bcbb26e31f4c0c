#include "analysis/studies/collective.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/simulate/flow_collectives.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace rentsim::analysis {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

constexpr std::string_view kForms = "expected a number of bytes with an optional unit, e.g. 8, 1K, 64MiB, 1GiB, 1GB";
constexpr std::string_view kMaxSizeText = "1 PiB (1125899906842624 bytes)";

// The size after `b` in a range: b x factor rounded down, and at least one byte more, so that a
// factor close to 1 still moves on (1:8:1.5 is 1, 2, 3, 4, 6).
double next_size(double b, double factor) { return std::max(std::floor(b * factor), b + 1.0); }

// Sizes in the range, counting no further than `limit` + 1.
std::size_t count_sizes(const SizeRange& r, std::size_t limit) {
    std::size_t n = 0;
    for (double b = r.min.value; b <= r.max.value && n <= limit; b = next_size(b, r.factor)) ++n;
    return n;
}

// What parse_size_range promises about a range; the message names `text`.
void check_range(const SizeRange& r, std::string_view text) {
    for (const units::Bytes b : {r.min, r.max})
        if (!(b.value >= kMinSizeBytes && b.value <= kMaxSizeBytes))
            throw std::invalid_argument(fmt::format("size range '{}': sizes must be from 1 byte to {}", text, kMaxSizeText));
    if (r.min > r.max) throw std::invalid_argument(fmt::format("size range '{}' starts above its end", text));
    if (!(r.factor > 1.0) || !std::isfinite(r.factor))
        throw std::invalid_argument(
            fmt::format("size range '{}': factor must be a finite number above 1, got {}", text, r.factor));
    // Counting stops early for ranges far too long (1:1PiB:1.0000001 holds about 2e8 sizes).
    constexpr std::size_t kCountLimit = 1000000;
    const std::size_t n = count_sizes(r, kCountLimit);
    if (n > kMaxSizes)
        throw std::invalid_argument(fmt::format("size range '{}' holds {} sizes; at most {}: use a larger factor or a "
                                                "narrower range",
                                                text, n > kCountLimit ? fmt::format("more than {}", kCountLimit)
                                                                      : std::to_string(n),
                                                kMaxSizes));
}

}  // namespace

units::Bytes parse_size(std::string_view text) {
    const std::string_view s = trim(text);
    if (s.empty()) throw std::invalid_argument(fmt::format("empty size; {}", kForms));
    std::size_t digits = 0;
    while (digits < s.size() && (std::isdigit(static_cast<unsigned char>(s[digits])) || s[digits] == '.')) ++digits;
    if (digits == 0) throw std::invalid_argument(fmt::format("size '{}': {}", s, kForms));
    double number = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + digits, number);
    if (ec == std::errc::result_out_of_range && ptr == s.data() + digits) {
        // Too many digits for a double: far above the maximum, or (0.000...1) far below 1 byte.
        const std::string_view n = s.substr(0, digits);
        if (n.find_first_of("123456789") < n.find('.'))
            throw std::invalid_argument(fmt::format("size '{}' is above the maximum of {}", s, kMaxSizeText));
        throw std::invalid_argument(fmt::format("size '{}': expected a size of at least 1 byte", s));
    }
    if (ec != std::errc{} || ptr != s.data() + digits)
        throw std::invalid_argument(fmt::format("size '{}': '{}' is not a number; {}", s, s.substr(0, digits), kForms));
    const std::string unit = lower(trim(s.substr(digits)));
    double scale = 0.0;
    if (unit.empty() || unit == "b") scale = 1.0;
    const std::string_view prefixes = "kmgt";
    for (std::size_t i = 0; i < prefixes.size(); ++i) {
        const std::string p(1, prefixes[i]);
        if (unit == p || unit == p + "ib") scale = std::pow(1024.0, static_cast<double>(i + 1));
        if (unit == p + "b") scale = std::pow(1000.0, static_cast<double>(i + 1));
    }
    if (scale == 0.0)
        throw std::invalid_argument(fmt::format(
            "unknown unit '{}' in size '{}'; valid: B, K, M, G, T, KiB, MiB, GiB, TiB, KB, MB, GB, TB", trim(s.substr(digits)), s));
    const double bytes = number * scale;
    if (bytes < kMinSizeBytes)
        throw std::invalid_argument(fmt::format("size '{}': expected a size of at least 1 byte", s));
    if (bytes > kMaxSizeBytes)
        throw std::invalid_argument(fmt::format("size '{}' is {} bytes, above the maximum of {}", s, bytes, kMaxSizeText));
    if (bytes != std::floor(bytes))
        throw std::invalid_argument(fmt::format("size '{}' is {} bytes, not a whole number of bytes", s, bytes));
    return units::Bytes{bytes};
}

SizeRange parse_size_range(std::string_view text) {
    const std::string_view s = trim(text);
    SizeRange r;
    const auto first = s.find(':');
    if (first == std::string_view::npos) {
        r.min = r.max = parse_size(s);
        return r;
    }
    const std::string_view rest = s.substr(first + 1);
    const auto second = rest.find(':');
    r.min = parse_size(s.substr(0, first));
    r.max = parse_size(rest.substr(0, second));
    if (second != std::string_view::npos) {
        const std::string_view f = trim(rest.substr(second + 1));
        const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), r.factor);
        if (ec != std::errc{} || ptr != f.data() + f.size())
            throw std::invalid_argument(fmt::format("size range '{}': factor '{}' is not a number", s, f));
    }
    check_range(r, s);
    return r;
}

std::vector<units::Bytes> sizes_in(const SizeRange& range) {
    check_range(range, fmt::format("{:.0f}:{:.0f}:{}", range.min.value, range.max.value, range.factor));
    std::vector<units::Bytes> out;
    for (double b = range.min.value; b <= range.max.value; b = next_size(b, range.factor)) out.push_back(units::Bytes{b});
    return out;
}

const Registry<CollectiveModel>& collective_model_registry() {
    static const Registry<CollectiveModel> registry{
        "collective model",
        {{"analytic", CollectiveModel::analytic, "the analytic model: NCCL's algorithms and protocols, as its tuner picks"},
         {"flow", CollectiveModel::flow,
          "flow-level simulation: ring steps (all-to-all: direct transfers) as flows sharing links max-min fairly"}}};
    return registry;
}

std::vector<CollectiveRow> collective_rows(const net::Network& network, net::Collective op, const SizeRange& sizes,
                                           int gpus, net::Algorithm algo, CollectiveModel model) {
    std::vector<CollectiveRow> rows;
    if (model == CollectiveModel::flow) {
        const net::Algorithm own = op == net::Collective::all_to_all ? net::Algorithm::direct : net::Algorithm::ring;
        if (algo != net::Algorithm::automatic && algo != own)
            throw std::invalid_argument(fmt::format("the flow model runs {} as {}; valid algorithms: auto, {}",
                                                    net::to_string(op), net::to_string(own), net::to_string(own)));
        if (gpus < 2) throw std::invalid_argument("the flow model needs a group of at least 2 GPUs");
        std::vector<int> ranks(static_cast<std::size_t>(gpus));
        std::iota(ranks.begin(), ranks.end(), 0);
        for (units::Bytes b : sizes_in(sizes)) {
            const std::vector<FlowJob> jobs{FlowJob{op, b, ranks, units::Seconds{0.0}}};
            const double time = simulate_flow_collectives(network, jobs).front().duration.value;
            const double algbw = time > 0.0 ? b.value / time / 1e9 : 0.0;
            rows.push_back(CollectiveRow{std::string(net::to_string(op)), b.value, gpus, std::string(net::to_string(own)),
                                         time, algbw, algbw * net::busbw_factor(op, gpus)});
        }
        return rows;
    }
    for (units::Bytes b : sizes_in(sizes)) {
        const net::CollectiveEstimate e = network.collective(op, b, gpus, algo);
        rows.push_back(CollectiveRow{std::string(net::to_string(op)), b.value, gpus,
                                     std::string(net::to_string(e.algorithm)), e.time.value, e.algbw_gbps,
                                     e.busbw_gbps});
    }
    return rows;
}

std::string format_nccl_tests(std::span<const CollectiveRow> rows, std::string_view topology_name) {
    std::string s;
    if (!rows.empty())
        s += fmt::format("# rentsim estimate: {} over {} GPUs, topology {}\n#\n", rows.front().op, rows.front().gpus,
                         topology_name);
    s += fmt::format("#{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {:>10}  {:>7}  {:>7}  {}\n", "size", "count", "type", "redop",
                     "root", "time", "algbw", "busbw", "algorithm");
    s += fmt::format("#{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {:>10}  {:>7}  {:>7}\n", "(B)", "(elements)", "", "", "",
                     "(us)", "(GB/s)", "(GB/s)");
    double total = 0.0;
    for (const CollectiveRow& r : rows) {
        const bool reduces = r.op == "all-reduce" || r.op == "reduce-scatter";
        const bool rooted = r.op == "broadcast";
        s += fmt::format(" {:>12.0f}  {:>12.0f}  {:>8}  {:>6}  {:>6}  {:>10.2f}  {:>7.2f}  {:>7.2f}  {}\n", r.bytes,
                         std::floor(r.bytes / 4.0), "float", reduces ? "sum" : "none", rooted ? 0 : -1, r.time_s * 1e6,
                         r.algbw_gbps, r.busbw_gbps, r.algorithm);
        total += r.busbw_gbps;
    }
    s += fmt::format("# Avg bus bandwidth    : {:.4g}\n", rows.empty() ? 0.0 : total / static_cast<double>(rows.size()));
    return s;
}

std::string collective_rows_json(std::span<const CollectiveRow> rows) {
    nlohmann::ordered_json doc;
    doc["schema"] = 1;
    doc["rows"] = nlohmann::ordered_json::array();
    for (const CollectiveRow& r : rows) {
        nlohmann::ordered_json j;
        j["op"] = r.op;
        j["bytes"] = static_cast<std::uint64_t>(r.bytes);
        j["gpus"] = r.gpus;
        j["algorithm"] = r.algorithm;
        j["time_s"] = r.time_s;
        j["algbw_gbps"] = r.algbw_gbps;
        j["busbw_gbps"] = r.busbw_gbps;
        doc["rows"].push_back(std::move(j));
    }
    return doc.dump(2) + "\n";
}

}  // namespace rentsim::analysis
