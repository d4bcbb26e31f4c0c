// The one CSV reader of the project (RFC 4180): quoted fields may hold commas, newlines and
// doubled quotes; LF or CRLF line ends; blank lines are skipped, and so are lines starting
// with '#' before the first record (comments above a header). Data files compiled into the
// models and user files read by the analysis layer both go through it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim {

struct CsvRecord {
    std::size_t line = 0;              // 1-based line where the record starts
    std::vector<std::string> fields;
};

// An error at a line of the text; what() reads "<what> line N: <message>".
class CsvError : public std::invalid_argument {
public:
    CsvError(std::string_view what, std::size_t line, const std::string& message)
        : std::invalid_argument(std::string(what) + " line " + std::to_string(line) + ": " + message),
          line_(line), message_(message) {}
    std::size_t line() const { return line_; }
    const std::string& message() const { return message_; }

private:
    std::size_t line_;
    std::string message_;
};

// `what` names the text in errors (a file name, "catalog").
std::vector<CsvRecord> parse_csv_records(std::string_view text, std::string_view what);

}  // namespace rentsim
