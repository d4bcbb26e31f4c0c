#include "analysis/scenario/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <fstream>
#include <sstream>

#include "models/names.hpp"

namespace rentsim::analysis {

namespace {

std::string line_column(std::string_view text, std::size_t offset) {
    std::size_t line = 1, col = 1;
    const std::size_t end = std::min(offset, text.size());
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

std::string cut(std::string_view s) {
    if (s.size() <= max_quoted_value) return std::string(s);
    return std::string(s.substr(0, max_quoted_value)) + "...";
}

// One linear pass over the text with an explicit stack, before the recursive parser sees
// it: refuses nesting deeper than max_json_depth. Strings are skipped with their escapes;
// anything else malformed is left to the parser's message.
void check_depth(std::string_view text, const std::string& file) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > max_json_depth)
                throw InputError(file, line_column(text, i),
                                 "nesting deeper than " + std::to_string(max_json_depth) + " levels of arrays and objects");
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
}

// Duplicate keys: the parser keeps the last, which silently drops what the user wrote
// first. Walks the parsed events with their byte positions (nlohmann's SAX interface).
class DuplicateKeys : public nlohmann::json_sax<Json> {
public:
    DuplicateKeys(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}
    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override {
        value();
        frames_.push_back({true, {}, 0, {}});
        return true;
    }
    bool key(string_t& k) override {
        Frame& f = frames_.back();
        if (std::find(f.keys.begin(), f.keys.end(), k) != f.keys.end())
            throw InputError(file_, pointer() + "/" + json_pointer_escape(k),
                             "duplicate key '" + cut(k) + "' (the first is ignored by JSON parsers; remove one)");
        f.keys.push_back(k);
        f.current = k;
        return true;
    }
    bool end_object() override {
        frames_.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        value();
        frames_.push_back({false, {}, 0, {}});
        return true;
    }
    bool end_array() override {
        frames_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    struct Frame {
        bool object;
        std::vector<std::string> keys;
        std::size_t next;  // arrays: index of the next element
        std::string current;
    };
    // A value starts: advance the enclosing array's index.
    bool value() {
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().next;
        return true;
    }
    std::string pointer() const {
        std::string p;
        for (const auto& f : frames_)
            p += "/" + (f.object ? json_pointer_escape(f.current) : std::to_string(f.next - 1));
        return frames_.empty() ? p : p.substr(0, p.rfind('/'));
    }
    std::string_view text_;
    std::string file_;
    std::vector<Frame> frames_;
};

}  // namespace

Json parse_json_text(const std::string& text, const std::string& file) {
    check_depth(text, file);
    Json j;
    try {
        j = Json::parse(text);
    } catch (const Json::parse_error& e) {
        // nlohmann reports a byte offset; users think in lines and columns.
        std::string what = e.what();
        // Keep nlohmann's explanation, drop its "[json.exception.parse_error.101] parse error at ..." prefix.
        if (auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
        // The parser quotes the last token it read, which can be the whole input.
        if (what.size() > 4 * max_quoted_value) what = what.substr(0, 4 * max_quoted_value) + "...";
        throw InputError(file, line_column(text, e.byte > 0 ? e.byte - 1 : 0), "malformed JSON: " + what);
    } catch (const Json::out_of_range& e) {
        // A number beyond a double (1e309): the parser names the literal but not where it is.
        const std::string what = e.what();
        const auto open = what.find('\''), close = what.rfind('\'');
        const std::string literal = open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
        const auto at = literal.empty() ? std::string::npos : text.find(literal);
        throw InputError(file, at == std::string::npos ? "" : line_column(text, at),
                         "number " + cut(literal) + " is beyond the range of a double (about 1.8e308)");
    }
    // The first pass accepted the text: a duplicate key is the only error left to find.
    DuplicateKeys dup(text, file);
    Json::sax_parse(text, &dup);
    return j;
}

Json read_json_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_json_text(ss.str(), path);
}

std::string JsonSource::locate(const std::string& pointer) const {
    for (const auto& [from, to] : remap)
        if (pointer == from || pointer.starts_with(from + "/")) return to + pointer.substr(from.size());
    return pointer;
}

std::string json_pointer_escape(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

void Value::fail(const std::string& message) const { throw InputError(src_->file, src_->locate(ptr_), message); }

std::string Value::describe() const {
    if (j_->is_object()) return "an object";
    if (j_->is_array()) return "an array";
    if (j_->is_null()) return "null";
    return cut(j_->dump());
}

const NumberRange* JsonSource::range_of(const std::string& pointer) const {
    if (ranges.empty()) return nullptr;
    // "/elastic/schedule/3/gpus" -> "elastic.schedule.gpus"
    std::string key;
    std::size_t start = 1;
    while (start <= pointer.size()) {
        auto end = pointer.find('/', start);
        if (end == std::string::npos) end = pointer.size();
        const std::string part = pointer.substr(start, end - start);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) key += (key.empty() ? "" : ".") + part;
        start = end + 1;
    }
    for (const auto& r : ranges)
        if (r.key == key) return &r;
    throw std::logic_error("no documented range for the numeric key '" + key + "'");
}

double Value::in_range(double d) const {
    if (const NumberRange* r = src_->range_of(ptr_)) {
        const auto bound = [&](double b) {
            const std::string n = b == std::floor(b) && std::abs(b) < 1e15 ? std::to_string(static_cast<long long>(b)) : Json(b).dump();
            return n + (r->unit.empty() ? "" : " " + std::string(r->unit));
        };
        if (d > r->hi) fail("expected at most " + bound(r->hi) + ", got " + describe());
        if (d < r->lo) fail("expected at least " + bound(r->lo) + ", got " + describe());
    }
    return d;
}

std::string Value::as_string() const {
    if (!j_->is_string()) fail("expected a string, got " + describe());
    return j_->get<std::string>();
}

std::string Value::as_name(std::string_view what, std::span<const std::string_view> valid) const {
    std::string s = as_string();
    for (auto v : valid)
        if (v == s) return s;
    fail(unknown_name_message(what, cut(s), valid));
}

bool Value::as_bool() const {
    if (!j_->is_boolean()) fail("expected true or false, got " + describe());
    return j_->get<bool>();
}

double Value::as_number() const {
    if (!j_->is_number()) fail("expected a number, got " + describe());
    const double d = j_->get<double>();
    if (!std::isfinite(d)) fail("expected a finite number, got " + describe());
    return in_range(d);
}

double Value::as_positive_number() const {
    if (!j_->is_number() || !(j_->get<double>() > 0.0)) fail("expected a positive number, got " + describe());
    return as_number();
}

double Value::as_nonnegative_number() const {
    if (!j_->is_number() || !(j_->get<double>() >= 0.0)) fail("expected a number >= 0, got " + describe());
    return as_number();
}

double Value::as_fraction() const {
    if (!j_->is_number() || !(j_->get<double>() >= 0.0 && j_->get<double>() <= 1.0))
        fail("expected a number between 0 and 1, got " + describe());
    return as_number();
}

std::int64_t Value::as_int() const {
    // Integers from 2^63 to 2^64 - 1 arrive unsigned: read them as such, never wrapped.
    if (j_->is_number_unsigned() && j_->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        fail("expected an integer up to " + std::to_string(INT64_MAX) + ", got " + describe());
    std::int64_t x = 0;
    if (j_->is_number_integer()) {
        x = j_->get<std::int64_t>();
    } else if (j_->is_number_float() && std::isfinite(j_->get<double>()) && j_->get<double>() == std::floor(j_->get<double>()) &&
               std::abs(j_->get<double>()) < 9e15) {
        x = static_cast<std::int64_t>(j_->get<double>());
    } else {
        fail("expected an integer, got " + describe());
    }
    in_range(static_cast<double>(x));
    return x;
}

std::int64_t Value::as_positive_int() const {
    if (!j_->is_number() || !(j_->get<double>() >= 1.0)) fail("expected a positive integer, got " + describe());
    return as_int();
}

std::int64_t Value::as_nonnegative_int() const {
    if (!j_->is_number() || !(j_->get<double>() >= 0.0)) fail("expected an integer >= 0, got " + describe());
    return as_int();
}

std::vector<Value> Value::as_array() const {
    if (!j_->is_array()) fail("expected an array, got " + describe());
    std::vector<Value> out;
    for (std::size_t i = 0; i < j_->size(); ++i) out.emplace_back((*j_)[i], ptr_ + "/" + std::to_string(i), *src_);
    return out;
}

Object::Object(const Value& v, std::initializer_list<std::string_view> keys) : v_(v) {
    if (!v.json().is_object()) v.fail("expected an object, got " + (v.json().is_array() ? std::string("an array") : v.json().dump()));
    std::vector<std::string_view> valid(keys.begin(), keys.end());
    for (const auto& [k, _] : v.json().items()) {
        bool known = false;
        for (auto key : valid) known = known || key == k;
        if (!known) {
            Value child(v.json()[k], v.pointer() + "/" + json_pointer_escape(cut(k)), v.source());
            std::string msg = "unknown key '" + cut(k) + "'";
            if (auto c = closest_name(k, valid); !c.empty()) msg += "; did you mean '" + std::string(c) + "'? valid keys: ";
            else msg += "; valid keys: ";
            for (std::size_t i = 0; i < valid.size(); ++i) msg += (i ? ", " : "") + std::string(valid[i]);
            child.fail(msg);
        }
    }
}

bool Object::has(std::string_view key) const { return v_.json().contains(key); }

Value Object::at(std::string_view key) const {
    if (!has(key)) v_.fail("missing required key '" + std::string(key) + "'");
    return Value(v_.json()[std::string(key)], v_.pointer() + "/" + json_pointer_escape(key), v_.source());
}

std::optional<Value> Object::get(std::string_view key) const {
    if (!has(key)) return std::nullopt;
    return at(key);
}

}  // namespace rentsim::analysis
