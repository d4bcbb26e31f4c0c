// The result fields, one descriptor each: public name, kind, unit, the outputs that carry
// it, when a result holds it, how to read it from a Result, and what it means. The JSON and
// CSV writers, the comparison table and the README's field list all follow this table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "analysis/run/run.hpp"

namespace rentsim::analysis {

// Named counts (the layout search's refusals by reason), written as a JSON object.
using Counts = std::map<std::string, std::int64_t>;
// One value of a field: null, a number, an integer, a flag, a string or named counts.
using FieldValue = std::variant<std::nullptr_t, double, std::int64_t, std::uint64_t, bool, std::string, Counts>;

enum class Kind {
    number,            // double
    integer,           // std::int64_t or std::uint64_t
    boolean,
    string,
    nullable_number,   // a number, or null where the figure does not apply
    nullable_integer,  // an integer, or null
    nullable_string,   // a string, or null
    counts,            // an object of name -> integer (Counts), or null; JSON only
    epochs,            // array of one object per epoch, with the fields of epoch_fields()
};

// Bit flags: the outputs that carry a field.
enum class Outputs : unsigned {
    json = 1,       // --out, nested by the dotted name
    csv = 2,        // --csv, one column named by the dotted name (or Field::csv_name)
    both = 3,
    json_last = 4,  // in JSON, after every other field of the result
};
constexpr Outputs operator|(Outputs a, Outputs b) { return static_cast<Outputs>(static_cast<unsigned>(a) | static_cast<unsigned>(b)); }
constexpr bool carries(Outputs set, Outputs o) { return (static_cast<unsigned>(set) & static_cast<unsigned>(o)) != 0; }

// When a result holds a field. A run that does not fit in GPU memory has no times, costs or
// diagnosis: `fits` fields then hold null (in JSON, the whole top-level object of a dotted
// name), `fits_only` and `fits_if_set` fields are absent. CSV cells are empty wherever JSON
// has null or nothing.
enum class Presence {
    always,       // every result
    if_set,       // every result whose accessor gives a value; absent where it gives null
    fits,         // runs that fit; null in runs that do not
    fits_only,    // runs that fit; absent in runs that do not
    fits_if_set,  // runs that fit, where the accessor gives a value
};

struct Field {
    std::string_view name;  // public name; a dotted name nests in JSON: breakdown.compute_s
    Kind kind;
    std::string_view unit;  // s, USD, GiB, samples/s, ...; empty for names, counts and flags
    Outputs outputs;
    Presence presence;
    FieldValue (*get)(const Result&);  // null for Kind::epochs, which the writers expand
    std::string_view description;      // one line, Markdown
    std::string_view csv_name = {};    // the CSV column, where it is not the dotted name
};

// One field of each object of a result's `epochs` array (epochs counted from 1).
struct EpochField {
    std::string_view name;
    Kind kind;
    std::string_view unit;
    FieldValue (*get)(const EpochResult&, std::size_t epoch);
    std::string_view description;
};

// The table, in CSV column order (JSON keeps it too, `json_last` fields moved to the end).
std::span<const Field> result_fields();
std::span<const EpochField> epoch_fields();
// The field of a public name; throws std::out_of_range for an unknown one.
const Field& field(std::string_view name);
// The CSV column of a field: csv_name, else the dotted name.
std::string_view csv_column(const Field& f);

// What a result holds for a field under its Presence: nullopt where the field is absent,
// null where it is null. Not for Kind::epochs.
std::optional<FieldValue> reported_value(const Field& f, const Result& r);

// The field list of README.md's "Results" section, as a Markdown table, one row per field.
std::string results_fields_markdown();

}  // namespace rentsim::analysis
