#include "models/csv.hpp"

namespace rentsim {

std::vector<CsvRecord> parse_csv_records(std::string_view text, std::string_view what) {
    std::vector<CsvRecord> records;
    CsvRecord rec;
    std::string field;
    bool quoted = false, at_line_start = true;
    std::size_t line = 1;
    rec.line = 1;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        const char c = i < text.size() ? text[i] : '\n';
        if (quoted) {
            if (i == text.size()) throw CsvError(what, rec.line, "unterminated quoted field");
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                if (c == '\n') ++line;
                field += c;
            }
            continue;
        }
        if (at_line_start && records.empty() && c == '#') {  // a comment above the first record
            while (i < text.size() && text[i] != '\n') ++i;
            rec.line = ++line;
            continue;
        }
        at_line_start = false;
        if (c == '"' && field.empty()) {
            quoted = true;
        } else if (c == ',') {
            rec.fields.push_back(std::move(field));
            field.clear();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            rec.fields.push_back(std::move(field));
            field.clear();
            if (!(rec.fields.size() == 1 && rec.fields[0].empty())) records.push_back(std::move(rec));
            rec = CsvRecord{};
            rec.line = ++line;
            at_line_start = true;
        } else {
            field += c;
        }
    }
    return records;
}

}  // namespace rentsim
