// The job-trace importers' building blocks: a streaming record reader that holds one record at a
// time (traces run to gigabytes), and strict cell parsers whose messages say what was expected.
// Internal to analysis/jobs.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim::jobs {

// The longest cell read; longer cells make the row bad (a binary file, a missing quote).
inline constexpr std::size_t max_cell_chars = 4096;
// The most fields a record may have (the widest format has 17); more make the row bad.
inline constexpr std::size_t max_fields = 1024;

// Reads delimited records one at a time. With ',' the fields follow RFC 4180 (quoted fields may
// hold the separator, doubled quotes and line breaks); with '\t' quotes are plain characters (the
// Gavel trace). LF or CRLF line ends; blank lines are skipped, and so are lines starting with '#'
// before the first record (comments above a header). A record that cannot be read (an unclosed
// quote, a cell over max_cell_chars, more than max_fields fields) is returned with `error` set;
// reading goes on at the next line.
class RecordReader {
public:
    // Throws analysis::InputError when `path` cannot be opened.
    RecordReader(const std::string& path, char separator);

    struct Record {
        std::int64_t line = 0;  // 1-based line where the record starts
        std::vector<std::string> fields;
        std::string error;  // non-empty when the record could not be read
    };
    // False at the end of the file. `r` is reused from call to call (its strings keep capacity).
    bool next(Record& r);
    void rewind();  // back to the first byte, for a second pass
    const std::string& path() const { return path_; }

private:
    int get();  // next byte or -1
    int peek();
    bool fill();

    std::string path_;
    char sep_;
    std::ifstream in_;
    std::vector<char> buf_;
    std::size_t pos_ = 0, end_ = 0;
    std::int64_t line_ = 1;
    bool seen_record_ = false;
};

// Strict cell parsers: nullopt when the cell is not exactly what is asked (no spaces, no junk).
std::optional<double> parse_number(std::string_view s);            // finite decimal
std::optional<std::int64_t> parse_integer(std::string_view s);     // whole number; "8.0" allowed
// "YYYY-MM-DD HH:MM:SS" (or 'T' between), optional fraction of a second and optional "+HH:MM",
// "-HH:MM" or "Z": seconds since 1970-01-01 UTC (the offset applied; no offset reads as UTC).
std::optional<double> parse_datetime(std::string_view s);

// "'abc'", cut at 64 characters, for messages.
std::string quote_cell(std::string_view s);

}  // namespace rentsim::jobs
