#include "analysis/run/shard.hpp"

#include <charconv>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "analysis/run/sweep.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/json_reader.hpp"

namespace rentsim::analysis {

namespace {

using Record = nlohmann::ordered_json;

// FNV-1a, 64 bits, over every point's hash: which sweep a shard belongs to.
std::string digest(const std::vector<std::string>& hashes) {
    std::uint64_t h = 14695981039346656037ull;
    for (const auto& s : hashes)
        for (const unsigned char c : s + "\n") {
            h ^= c;
            h *= 1099511628211ull;
        }
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = digits[h & 15];
    return out;
}

bool parse_int(std::string_view s, int& x) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

}  // namespace

ShardSpec parse_shard(std::string_view text) {
    const auto slash = text.find('/');
    ShardSpec s;
    if (slash == std::string_view::npos || !parse_int(text.substr(0, slash), s.index) ||
        !parse_int(text.substr(slash + 1), s.count) || s.count < 1 || s.count > max_shards || s.index < 1 ||
        s.index > s.count)
        throw InputError("--shard", "",
                         "expected i/N with 1 <= i <= N <= " + std::to_string(max_shards) + ", such as 2/4, got '" +
                             std::string(text.substr(0, 64)) + "'");
    return s;
}

std::vector<std::size_t> shard_points(std::size_t points, ShardSpec shard) {
    std::vector<std::size_t> out;
    for (std::size_t i = static_cast<std::size_t>(shard.index - 1); i < points; i += static_cast<std::size_t>(shard.count))
        out.push_back(i);
    return out;
}

std::string shard_json(ShardSpec shard, std::string_view name, const std::vector<std::string>& hashes,
                       const std::vector<std::size_t>& indices, const std::vector<Result>& results) {
    if (indices.size() != results.size()) throw std::invalid_argument("shard_json: one result per index");
    Record j = Record::object();
    j["schema"] = 1;
    j["shard"] = {{"index", shard.index}, {"count", shard.count}, {"points", hashes.size()}, {"name", name},
                  {"inputs", digest(hashes)}};
    j["results"] = Record::array();
    for (std::size_t k = 0; k < indices.size(); ++k) {
        Record p = Record::object();
        p["index"] = indices[k];
        p["inputs"] = hashes.at(indices[k]);
        p["result"] = Record::parse(result_record(results[k]));
        j["results"].push_back(std::move(p));
    }
    return j.dump(1) + "\n";
}

std::vector<Result> merge_shards(const std::vector<std::string>& paths) {
    std::vector<std::pair<std::string, std::string>> shards;
    for (const auto& path : paths) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw InputError(path, "", "cannot open file");
        std::ostringstream text;
        text << in.rdbuf();
        shards.emplace_back(path, text.str());
    }
    return merge_shard_texts(shards);
}

std::vector<Result> merge_shard_texts(const std::vector<std::pair<std::string, std::string>>& shards) {
    if (shards.empty()) throw InputError("merge", "", "expected the shard files of one sweep");
    struct Head {
        std::int64_t count = 0;
        std::uint64_t points = 0;
        std::string name, inputs, file;
    };
    std::optional<Head> first;
    std::vector<std::optional<Result>> results;
    std::vector<std::string> seen_shard;  // by shard index - 1: the file that held it
    for (const auto& shard : shards) {
        const std::string& path = shard.first;
        const std::string& text = shard.second;
        // The scenario reader's parser: nesting depth and duplicate keys checked, errors at a line.
        const Record j = parse_json_text(text, path);
        const auto fail = [&](const std::string& where, const std::string& message) -> void {
            throw InputError(path, where, message);
        };
        if (!j.is_object() || !j.contains("shard") || !j["shard"].is_object())
            fail("", "not a shard file (written by `rentsim sweep FILE --shard i/N --out SHARD.json`)");
        const Record& s = j["shard"];
        for (const char* key : {"index", "count", "points"})
            if (!s.contains(key) || !s[key].is_number_unsigned()) fail(std::string("/shard/") + key, "expected a count");
        for (const char* key : {"name", "inputs"})
            if (!s.contains(key) || !s[key].is_string()) fail(std::string("/shard/") + key, "expected a string");
        if (j.value("schema", Record()) != Record(1)) fail("/schema", "expected schema 1");
        Head h{s["count"].get<std::int64_t>(), s["points"].get<std::uint64_t>(), s["name"].get<std::string>(),
               s["inputs"].get<std::string>(), path};
        const auto index = s["index"].get<std::int64_t>();
        if (h.count < 1 || h.count > max_shards || index < 1 || index > h.count) fail("/shard", "expected 1 <= index <= count");
        if (h.points > 100000) fail("/shard/points", "expected at most 100000 points");
        if (!first) {
            first = h;
            results.resize(h.points);
            seen_shard.resize(static_cast<std::size_t>(h.count));
        } else if (h.count != first->count || h.points != first->points || h.inputs != first->inputs || h.name != first->name) {
            fail("/shard", "a shard of another sweep than " + first->file + " (its scenario, seed or replications differ, or its count of shards)");
        }
        auto& seen = seen_shard[static_cast<std::size_t>(index - 1)];
        if (!seen.empty()) fail("/shard/index", "shard " + std::to_string(index) + " again: " + seen + " holds it too");
        seen = path;
        const ShardSpec spec{static_cast<int>(index), static_cast<int>(h.count)};
        const auto expected = shard_points(h.points, spec);
        if (!j.contains("results") || !j["results"].is_array() || j["results"].size() != expected.size())
            fail("/results", "expected the " + std::to_string(expected.size()) + " points of shard " + std::to_string(index) + "/" +
                                 std::to_string(h.count));
        for (std::size_t k = 0; k < expected.size(); ++k) {
            const Record& p = j["results"][k];
            const std::string at = "/results/" + std::to_string(k);
            if (!p.is_object() || !p.contains("index") || !p["index"].is_number_unsigned() ||
                p["index"].get<std::uint64_t>() != expected[k] || !p.contains("result") || !p["result"].is_object())
                fail(at, "expected the record of point " + std::to_string(expected[k]));
            try {
                results[expected[k]] = result_from_record(p["result"].dump());
            } catch (const std::invalid_argument& e) {
                fail(at + "/result", std::string("not a result of this rentsim: ") + e.what());
            }
        }
    }
    for (std::size_t i = 0; i < seen_shard.size(); ++i)
        if (seen_shard[i].empty())
            throw InputError(shards.front().first, "", "shard " + std::to_string(i + 1) + "/" + std::to_string(first->count) + " is missing");
    std::vector<Result> out;
    out.reserve(results.size());
    for (auto& r : results) out.push_back(std::move(*r));
    return out;
}

}  // namespace rentsim::analysis
