// Strict reading of JSON input. Every accessor checks the type and range it expects and
// throws InputError with the file and JSON pointer; `Object` rejects keys it was not told
// about, with a did-you-mean. Only the scenario and calibration loaders use this header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/ranges.hpp"
#include "models/registry.hpp"

namespace rentsim::analysis {

using Json = nlohmann::ordered_json;

// Parses text; malformed JSON, nesting deeper than max_json_depth, numbers beyond a double
// and duplicate keys raise InputError with "line L, column C".
Json parse_json_text(const std::string& text, const std::string& file);
// Reads and parses a file; an unreadable file raises InputError.
Json read_json_file(const std::string& path);

// The deepest nesting of arrays and objects a JSON input may have; deeper input is refused
// before it is parsed (the parser and the value tree recurse once per level).
inline constexpr int max_json_depth = 64;
// The longest input message: a quoted value is cut to keep messages readable.
inline constexpr std::size_t max_quoted_value = 64;

// Where a value came from: its file and pointer, a table that maps pointers of values
// substituted from a `sweep` block back to where the user wrote them, and the ranges of the
// file's numeric keys (when set, every number read must have one).
struct JsonSource {
    std::string file;
    std::map<std::string, std::string> remap;
    std::span<const NumberRange> ranges;
    std::string locate(const std::string& pointer) const;
    // The range of the number at `pointer`; nullptr when the source has no ranges.
    const NumberRange* range_of(const std::string& pointer) const;
};

class Value {
public:
    Value(const Json& j, std::string pointer, const JsonSource& src) : j_(&j), ptr_(std::move(pointer)), src_(&src) {}

    const Json& json() const { return *j_; }
    const std::string& pointer() const { return ptr_; }
    const JsonSource& source() const { return *src_; }
    [[noreturn]] void fail(const std::string& message) const;

    std::string as_string() const;
    std::string as_name(std::string_view what, std::span<const std::string_view> valid) const;
    // The registered value a string names; an unknown name fails with the registry's message.
    template <class T>
    const T& as(const Registry<T>& registry) const {
        return *registry.find(as_name(registry.what(), registry.names()));
    }
    bool as_bool() const;
    double as_number() const;
    double as_positive_number() const;       // > 0
    double as_nonnegative_number() const;    // >= 0
    double as_fraction() const;              // in [0, 1]
    std::int64_t as_int() const;
    std::int64_t as_positive_int() const;    // >= 1
    std::int64_t as_nonnegative_int() const; // >= 0
    std::vector<Value> as_array() const;
    bool is_object() const { return j_->is_object(); }
    bool is_string() const { return j_->is_string(); }

private:
    std::string describe() const;  // "-8", "\"x\"", "an object"; long values are cut
    double in_range(double d) const;  // checks the source's range for this key
    const Json* j_;
    std::string ptr_;
    const JsonSource* src_;
};

// An object whose keys are all declared: construction fails on any other key.
class Object {
public:
    Object(const Value& v, std::initializer_list<std::string_view> keys);

    bool has(std::string_view key) const;
    Value at(std::string_view key) const;  // required
    std::optional<Value> get(std::string_view key) const;
    const Value& value() const { return v_; }

private:
    Value v_;
};

std::string json_pointer_escape(std::string_view key);

}  // namespace rentsim::analysis
