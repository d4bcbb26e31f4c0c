// CSV files with a header row, read through the project's one CSV parser (models/csv.hpp).
// Errors are InputErrors naming the file and line.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rentsim::analysis {

struct CsvRow {
    int line = 0;  // 1-based line of the row in its file
    std::map<std::string, std::string, std::less<>> cells;
    const std::string& at(const std::string& col) const;  // empty string when the column is absent
    std::optional<double> number(const std::string& col) const;  // nullopt when empty; throws on junk
    std::string file;
};

struct CsvTable {
    std::string file;
    std::vector<std::string> header;
    std::vector<CsvRow> rows;
    bool has_column(const std::string& c) const;
};

// The longest cell read: notes and sources fit; longer cells are refused with their line.
inline constexpr std::size_t max_csv_cell = 4096;

CsvTable read_csv(const std::string& path);
CsvTable parse_csv(const std::string& text, const std::string& file);

}  // namespace rentsim::analysis
