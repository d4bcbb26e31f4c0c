#include "analysis/scenario/check_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "analysis/scenario/json_reader.hpp"

namespace rentsim::analysis {

FoundScenarios find_scenario_files(const std::string& folder) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) throw InputError(folder, "", "not a folder");
    std::vector<std::string> files;
    fs::recursive_directory_iterator it(folder, fs::directory_options::none, ec);
    if (ec) throw InputError(folder, "", "cannot read folder: " + ec.message());
    for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
        if (ec) throw InputError(folder, "", "cannot read folder: " + ec.message());
        const fs::path& p = it->path();
        if (p.extension() == ".json" && it->is_regular_file(ec)) files.push_back(p.generic_string());
    }
    std::sort(files.begin(), files.end());
    FoundScenarios found;
    for (const auto& f : files) {
        const Json j = read_json_file(f);
        if (j.is_object() && j.contains("workload")) found.scenarios.push_back(f);
        else found.skipped.emplace_back(f, j.is_object() ? "no \"workload\" key" : "not a JSON object");
    }
    return found;
}

namespace {

std::vector<ResultRow> parse_result_rows_json(const Json& root, const std::string& path);

void flatten(const Json& j, const std::string& prefix, ResultRow& row) {
    for (const auto& [key, v] : j.items()) {
        const std::string name = prefix.empty() ? key : prefix + "." + key;
        if (v.is_object()) flatten(v, name, row);
        else if (v.is_null()) row.numbers[name] = std::nullopt;
        else if (v.is_number()) row.numbers[name] = v.get<double>();
    }
}

}  // namespace

std::vector<ResultRow> load_result_rows(const std::string& path) {
    return parse_result_rows_json(read_json_file(path), path);
}

std::vector<ResultRow> parse_result_rows(const std::string& text, const std::string& file) {
    return parse_result_rows_json(parse_json_text(text, file), file);
}

namespace {

std::vector<ResultRow> parse_result_rows_json(const Json& root, const std::string& path) {
    const JsonSource src{path, {}, {}};
    const Value top(root, "", src);
    if (!top.is_object()) top.fail("expected a result file {\"schema\": 1, \"results\": [...]}, got " + root.dump().substr(0, 64));
    if (root.contains("shard"))
        Value(root.at("shard"), "/shard", src).fail("a shard of a sweep: join the shards with `rentsim merge` first");
    const Object o(top, {"schema", "results"});
    const Value schema = o.at("schema");
    if (schema.as_int() != 1) schema.fail("unsupported schema " + schema.json().dump() + "; this rentsim reads schema 1");
    std::vector<ResultRow> rows;
    std::set<std::pair<std::string, std::string>> seen;
    for (const Value& r : o.at("results").as_array()) {
        if (!r.is_object()) r.fail("expected a result object, got " + r.json().dump().substr(0, 64));
        ResultRow row;
        if (!r.json().contains("name")) r.fail("expected a result with a \"name\"");
        row.name = Value(r.json().at("name"), r.pointer() + "/name", src).as_string();
        if (r.json().contains("point")) row.point = Value(r.json().at("point"), r.pointer() + "/point", src).as_string();
        if (!seen.emplace(row.name, row.point).second)
            r.fail("a second result named '" + row.name + "'" + (row.point.empty() ? "" : " at point " + row.point));
        flatten(r.json(), "", row);
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

}  // namespace rentsim::analysis
