#include "analysis/csv.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "analysis/input_error.hpp"

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
    if (ec != std::errc() || p != end)
        throw InputError(file, "line " + std::to_string(line), "column '" + col + "': expected a number, got '" + s + "'");
    return v;
}

bool CsvTable::has_column(const std::string& c) const { return std::find(header.begin(), header.end(), c) != header.end(); }

CsvTable parse_csv(const std::string& text, const std::string& file) {
    CsvTable t;
    t.file = file;
    std::vector<std::vector<std::string>> records;
    std::vector<int> lines;
    std::vector<std::string> rec;
    std::string field;
    bool quoted = false, at_start = true, header_seen = false;
    int line = 1, rec_line = 1;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        const char c = i < text.size() ? text[i] : '\n';
        if (quoted) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n') ++line;
                field += c;
            }
            continue;
        }
        if (at_start && !header_seen && c == '#') {  // comment line before the header
            while (i < text.size() && text[i] != '\n') ++i;
            ++line;
            rec_line = line;
            continue;
        }
        at_start = false;
        if (c == '"' && field.empty()) {
            quoted = true;
        } else if (c == ',') {
            rec.push_back(field);
            field.clear();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            rec.push_back(field);
            field.clear();
            if (!(rec.size() == 1 && rec[0].empty())) {
                records.push_back(rec);
                lines.push_back(rec_line);
                header_seen = true;
            }
            rec.clear();
            ++line;
            rec_line = line;
            at_start = true;
        } else {
            field += c;
        }
    }
    if (quoted) throw InputError(file, "line " + std::to_string(rec_line), "unterminated quoted field");
    if (records.empty()) throw InputError(file, "line 1", "expected a header row");
    t.header = records[0];
    for (std::size_t r = 1; r < records.size(); ++r) {
        if (records[r].size() != t.header.size())
            throw InputError(file, "line " + std::to_string(lines[r]),
                             "expected " + std::to_string(t.header.size()) + " fields as in the header, got " +
                                 std::to_string(records[r].size()));
        CsvRow row;
        row.line = lines[r];
        row.file = file;
        for (std::size_t c = 0; c < t.header.size(); ++c) row.cells[t.header[c]] = records[r][c];
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
