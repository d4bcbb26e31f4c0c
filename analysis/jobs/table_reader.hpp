// The shared machinery of the importers (internal to analysis/jobs): bad-row bookkeeping, a reader
// of jobs held in memory and sorted, and a reader of delimited files that streams them, row by
// row through a format's RowParser, in one of three orders.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/jobs/job.hpp"
#include "analysis/jobs/records.hpp"

namespace rentsim::jobs {

// Bad rows kept for reports; later ones are only counted.
inline constexpr std::size_t max_kept_bad_rows = 20;

// Skips (counting, keeping the first max_kept_bad_rows) or throws InputError(file, "line N", message).
class BadRowLog {
public:
    BadRowLog(std::string file, BadRowPolicy policy) : file_(std::move(file)), policy_(policy) {}
    void add(std::int64_t line, const std::string& message);
    std::int64_t skipped() const { return skipped_; }
    const std::vector<BadRow>& rows() const { return rows_; }

private:
    std::string file_;
    BadRowPolicy policy_;
    std::int64_t skipped_ = 0;
    std::vector<BadRow> rows_;
};

// A format's reading of one record.
enum class RowKind : std::uint8_t { job, not_run, bad };
struct Row {
    RowKind kind = RowKind::job;
    std::string message;  // for `bad`: what was expected
};
inline Row job_row() { return {}; }
inline Row not_run_row() { return {RowKind::not_run, {}}; }
inline Row bad_row(std::string message) { return {RowKind::bad, std::move(message)}; }
// "column 'num_gpus': expected a whole number >= 0, got 'x'"
std::string cell_message(std::string_view column, std::string_view expected, std::string_view got);

class RowParser {
public:
    virtual ~RowParser() = default;
    // Formats with a header row get it here first; a header without the format's columns throws
    // InputError (the whole file is of another layout, whatever the bad-row policy).
    virtual bool has_header() const = 0;
    virtual void header(const std::string& file, const RecordReader::Record& r) = 0;
    // Fills `job` with `submit_s` on the format's own clock (any origin) and says what the row is.
    virtual Row parse(const RecordReader::Record& r, Job& job) = 0;
};

// How a format's file is ordered. `sorted`: by submission, documented; streamed, and a row out
// of order is a bad row. `check`: streamed when a first pass finds it sorted (it keeps nothing),
// else sorted in memory. `sort`: known unsorted, read into memory and sorted.
enum class Order : std::uint8_t { sorted, check, sort };

// `format` names the format in messages ("the Gavel trace").
std::unique_ptr<JobReader> make_table_reader(const std::string& path, char separator, std::unique_ptr<RowParser> parser,
                                             Order order, BadRowPolicy policy, std::string format);

// Jobs already read (submit_s on the format's clock), yielded sorted by submission (ties in the
// order given) with submit_s counted from the earliest.
std::unique_ptr<JobReader> make_sorted_reader(std::vector<Job> jobs, BadRowLog log, std::int64_t not_run);

// The index of `name` in a header; throws InputError(file, "line N", ...) naming the format's
// columns when it is missing.
std::size_t column(const std::string& file, const RecordReader::Record& header, std::string_view name,
                   std::string_view format, std::string_view expected_columns);

}  // namespace rentsim::jobs
