#include "models/pricing/spot_price.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>

#include <nlohmann/json.hpp>
#include "models/pricing/civil_date.hpp"


namespace rentsim::price {

namespace {

using Json = nlohmann::json;

// The highest price accepted, per instance-hour: far above any instance's on-demand price, a
// bound on nonsense rather than a calibration.
constexpr double max_usd_per_hour = 1e6;
// A history nests three levels; deeper input is refused before parsing (the bound of the other
// JSON readers, analysis/scenario/json_reader.hpp).
constexpr int max_spot_price_depth = 64;

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out) {
    if (at + n > s.size()) return false;
    out = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

// "YYYY-MM-DDTHH:MM:SS[.fff]Z" as seconds since 1970 (fraction kept); false when malformed.
bool parse_timestamp(std::string_view s, double& out) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
    if (s.size() < 20 || !digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
        !digits(s, 8, 2, d) || s[10] != 'T' || !digits(s, 11, 2, h) || s[13] != ':' || !digits(s, 14, 2, mi) ||
        s[16] != ':' || !digits(s, 17, 2, se) || s.back() != 'Z')
        return false;
    if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
    double frac = 0;
    const std::string_view rest = s.substr(19, s.size() - 20);
    if (!rest.empty()) {
        if (rest[0] != '.' || rest.size() < 2 || rest.size() > 10) return false;
        double scale = 0.1;
        for (char c : rest.substr(1)) {
            if (c < '0' || c > '9') return false;
            frac += (c - '0') * scale;
            scale /= 10;
        }
    }
    const std::int64_t whole = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                               h * 3600 + mi * 60 + se;
    out = static_cast<double>(whole) + frac;
    return true;
}

// A positive decimal price, as AWS writes it ("1.067100"); a JSON number is accepted too.
bool parse_price(const Json& v, double& out) {
    if (v.is_number()) {
        out = v.get<double>();
    } else if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        if (s.empty() || s.size() > 32 || s.find_first_not_of("0123456789.") != std::string::npos) return false;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        if (ec != std::errc() || end != s.data() + s.size()) return false;
    } else {
        return false;
    }
    return std::isfinite(out) && out > 0 && out <= max_usd_per_hour;
}

// A key as a JSON pointer token (RFC 6901: ~ as ~0, / as ~1).
std::string pointer_escape(const std::string& key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

std::string describe(const Json& v) {
    std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
}

const std::string& string_at(const Json& rec, const std::string& key, const std::string& ptr) {
    const auto it = rec.find(key);
    if (it == rec.end()) throw SpotPriceError(ptr, "missing key '" + key + "'");
    if (!it->is_string() || it->get_ref<const std::string&>().empty())
        throw SpotPriceError(ptr + "/" + key, "expected a non-empty string, got " + describe(*it));
    return it->get_ref<const std::string&>();
}

}  // namespace

double SpotPriceSeries::price_at(double t_s) const {
    auto it = std::upper_bound(steps.begin(), steps.end(), t_s,
                               [](double t, const SpotPriceStep& s) { return t < s.time_s; });
    if (it == steps.begin()) return steps.front().usd_per_hour;
    return std::prev(it)->usd_per_hour;
}

double SpotPriceSeries::weighted_seconds(double from_s, double length_s, double per) const {
    // The step in force at from_s, then each later one until the length is used up. The last
    // piece is what remains of the length, so that one step gives exactly length_s * 1 when
    // `per` is its price (a constant history bills as the catalog price, to the bit).
    auto it = std::upper_bound(steps.begin(), steps.end(), from_s,
                               [](double t, const SpotPriceStep& s) { return t < s.time_s; });
    std::size_t i = it == steps.begin() ? 0 : static_cast<std::size_t>(it - steps.begin()) - 1;
    double done = 0, sum = 0;
    while (done < length_s) {
        const double left = length_s - done;
        double piece = left;
        if (i + 1 < steps.size()) piece = std::min(left, std::max(0.0, steps[i + 1].time_s - (from_s + done)));
        sum += piece * (steps[i].usd_per_hour / per);
        done = piece == left ? length_s : done + piece;
        ++i;
        if (i >= steps.size()) i = steps.size() - 1;
    }
    return sum;
}

double SpotPriceSeries::mean(double span_s) const {
    if (steps.size() == 1 || span_s <= 0) return steps.front().usd_per_hour;
    return weighted_seconds(0, span_s, 1.0) / span_s;
}

const SpotPriceSeries* SpotPriceHistory::find_zone(std::string_view zone) const {
    for (const auto& z : zones)
        if (z.zone == zone) return &z;
    return nullptr;
}

const SpotPriceSeries& SpotPriceHistory::cheapest() const {
    const SpotPriceSeries* best = &zones.front();
    double best_mean = best->mean(span_s);
    for (const auto& z : zones) {
        const double m = z.mean(span_s);
        if (m < best_mean) {
            best = &z;
            best_mean = m;
        }
    }
    return *best;
}

std::vector<std::string_view> SpotPriceHistory::zone_names() const {
    std::vector<std::string_view> out;
    for (const auto& z : zones) out.push_back(z.zone);
    return out;
}

SpotPriceHistory parse_spot_price_history(std::string_view text, std::string name) {
    // The JSON parser and value tree recurse once per level: refuse deep nesting before parsing.
    int depth = 0;
    bool in_string = false, escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_spot_price_depth)
                throw SpotPriceError("byte " + std::to_string(i + 1), "nesting deeper than " + std::to_string(max_spot_price_depth));
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    Json doc;
    try {
        doc = Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
        throw SpotPriceError("byte " + std::to_string(e.byte), "malformed JSON");
    } catch (const Json::out_of_range&) {
        // The parser refuses a number beyond a double ("2e04000") with out_of_range, not parse_error.
        throw SpotPriceError("", "malformed JSON: a number out of the range of a double");
    }
    if (!doc.is_object())
        throw SpotPriceError("", "expected a DescribeSpotPriceHistory object {\"SpotPriceHistory\": [...]}, got " +
                                     describe(doc));
    for (const auto& [key, value] : doc.items())
        if (key != "SpotPriceHistory" && key != "NextToken")
            throw SpotPriceError("/" + pointer_escape(key), "unknown key; expected SpotPriceHistory, NextToken");
    const auto hist = doc.find("SpotPriceHistory");
    if (hist == doc.end()) throw SpotPriceError("", "missing key 'SpotPriceHistory'");
    if (!hist->is_array()) throw SpotPriceError("/SpotPriceHistory", "expected an array of records, got " + describe(*hist));
    if (hist->empty()) throw SpotPriceError("/SpotPriceHistory", "expected at least one price record");
    if (hist->size() > max_spot_price_records)
        throw SpotPriceError("/SpotPriceHistory", "more than " + std::to_string(max_spot_price_records) + " records");

    struct Record {
        double t;
        double price;
        std::size_t index;
    };
    std::map<std::string, std::vector<Record>> by_zone;
    SpotPriceHistory h;
    h.name = std::move(name);
    double t0 = 0;
    for (std::size_t i = 0; i < hist->size(); ++i) {
        const Json& rec = (*hist)[i];
        const std::string ptr = "/SpotPriceHistory/" + std::to_string(i);
        if (!rec.is_object()) throw SpotPriceError(ptr, "expected a price record object, got " + describe(rec));
        for (const auto& [key, value] : rec.items())
            if (key != "AvailabilityZone" && key != "AvailabilityZoneId" && key != "InstanceType" &&
                key != "ProductDescription" && key != "SpotPrice" && key != "Timestamp")
                throw SpotPriceError(ptr + "/" + pointer_escape(key),
                                     "unknown key; expected AvailabilityZone, AvailabilityZoneId, InstanceType, "
                                     "ProductDescription, SpotPrice, Timestamp");
        const std::string& zone = string_at(rec, "AvailabilityZone", ptr);
        const std::string& instance = string_at(rec, "InstanceType", ptr);
        const std::string& product = string_at(rec, "ProductDescription", ptr);
        if (const auto id = rec.find("AvailabilityZoneId"); id != rec.end() && !id->is_string())
            throw SpotPriceError(ptr + "/AvailabilityZoneId", "expected a string, got " + describe(*id));
        if (i == 0) {
            h.instance = instance;
            h.product = product;
        } else if (instance != h.instance) {
            throw SpotPriceError(ptr + "/InstanceType", "expected " + h.instance + " as in the first record, got " + instance);
        } else if (product != h.product) {
            throw SpotPriceError(ptr + "/ProductDescription",
                                 "expected '" + h.product + "' as in the first record, got '" + product + "'");
        }
        const auto p = rec.find("SpotPrice");
        if (p == rec.end()) throw SpotPriceError(ptr, "missing key 'SpotPrice'");
        double price = 0;
        if (!parse_price(*p, price))
            throw SpotPriceError(ptr + "/SpotPrice", "expected a positive price per instance-hour (\"1.067100\"), got " +
                                                         describe(*p));
        const std::string& stamp = string_at(rec, "Timestamp", ptr);
        double t = 0;
        if (!parse_timestamp(stamp, t))
            throw SpotPriceError(ptr + "/Timestamp", "expected YYYY-MM-DDTHH:MM:SS[.fff]Z (year 1970 to 2200), got '" +
                                                         stamp.substr(0, 40) + "'");
        if (i == 0 || t < t0) {
            t0 = t;
            h.start = stamp;
        }
        by_zone[zone].push_back({t, price, i});
    }
    for (auto& [zone, recs] : by_zone) {
        std::sort(recs.begin(), recs.end(), [](const Record& a, const Record& b) { return a.t < b.t || (a.t == b.t && a.index < b.index); });
        SpotPriceSeries s;
        s.zone = zone;
        for (std::size_t k = 0; k < recs.size(); ++k) {
            const Record& r = recs[k];
            if (k > 0 && r.t == recs[k - 1].t && r.price != recs[k - 1].price)
                throw SpotPriceError("/SpotPriceHistory/" + std::to_string(r.index),
                                     "a second price for " + zone + " at the same time as record " +
                                         std::to_string(recs[k - 1].index));
            const double t = r.t - t0;
            h.span_s = std::max(h.span_s, t);
            if (!s.steps.empty() && s.steps.back().usd_per_hour == r.price) continue;
            // A zone's first price is in force from time 0 (the header comment).
            s.steps.push_back({s.steps.empty() ? 0.0 : t, r.price});
        }
        h.zones.push_back(std::move(s));
    }
    return h;
}

}  // namespace rentsim::price
