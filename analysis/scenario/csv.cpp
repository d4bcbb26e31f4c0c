#include "analysis/scenario/csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "analysis/scenario/input_error.hpp"
#include "models/csv.hpp"

namespace rentsim::analysis {

namespace {
const std::string empty_cell;
}

const std::string& CsvRow::at(const std::string& col) const {
    auto it = cells.find(col);
    return it == cells.end() ? empty_cell : it->second;
}

std::optional<double> CsvRow::number(const std::string& col) const {
    const std::string& s = at(col);
    if (s.empty()) return std::nullopt;
    double v = 0;
    const auto* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, v);
    const std::string shown = s.size() > 64 ? s.substr(0, 64) + "..." : s;
    if (ec != std::errc() || p != end || !std::isfinite(v))
        throw InputError(file, "line " + std::to_string(line), "column '" + col + "': expected a finite number, got '" + shown + "'");
    return v;
}

bool CsvTable::has_column(const std::string& c) const { return std::find(header.begin(), header.end(), c) != header.end(); }

CsvTable parse_csv(const std::string& text, const std::string& file) {
    CsvTable t;
    t.file = file;
    std::vector<CsvRecord> records;
    try {
        records = parse_csv_records(text, file);
    } catch (const CsvError& e) {
        throw InputError(file, "line " + std::to_string(e.line()), e.message());
    }
    if (records.empty()) throw InputError(file, "line 1", "expected a header row");
    t.header = records[0].fields;
    for (std::size_t r = 1; r < records.size(); ++r) {
        if (records[r].fields.size() != t.header.size())
            throw InputError(file, "line " + std::to_string(records[r].line),
                             "expected " + std::to_string(t.header.size()) + " fields as in the header, got " +
                                 std::to_string(records[r].fields.size()));
        for (const auto& cell : records[r].fields)
            if (cell.size() > max_csv_cell)
                throw InputError(file, "line " + std::to_string(records[r].line),
                                 "a cell of " + std::to_string(cell.size()) + " characters; at most " +
                                     std::to_string(max_csv_cell) + " are read");
        CsvRow row;
        row.line = static_cast<int>(records[r].line);
        row.file = file;
        for (std::size_t c = 0; c < t.header.size(); ++c) row.cells[t.header[c]] = std::move(records[r].fields[c]);
        t.rows.push_back(std::move(row));
    }
    return t;
}

CsvTable read_csv(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_csv(ss.str(), path);
}

}  // namespace rentsim::analysis
