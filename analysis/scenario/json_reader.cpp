#include "analysis/scenario/json_reader.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "models/names.hpp"

namespace rentsim::analysis {

Json parse_json_text(const std::string& text, const std::string& file) {
    try {
        return Json::parse(text);
    } catch (const Json::parse_error& e) {
        // nlohmann reports a byte offset; users think in lines and columns.
        std::size_t line = 1, col = 1;
        const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        for (std::size_t i = 0; i < end; ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        std::string what = e.what();
        // Keep nlohmann's explanation, drop its "[json.exception.parse_error.101] parse error at ..." prefix.
        if (auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
        throw InputError(file, "line " + std::to_string(line) + ", column " + std::to_string(col),
                         "malformed JSON: " + what);
    }
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
    return j_->dump();
}

std::string Value::as_string() const {
    if (!j_->is_string()) fail("expected a string, got " + describe());
    return j_->get<std::string>();
}

std::string Value::as_name(std::string_view what, std::span<const std::string_view> valid) const {
    std::string s = as_string();
    for (auto v : valid)
        if (v == s) return s;
    fail(unknown_name_message(what, s, valid));
}

bool Value::as_bool() const {
    if (!j_->is_boolean()) fail("expected true or false, got " + describe());
    return j_->get<bool>();
}

double Value::as_number() const {
    if (!j_->is_number()) fail("expected a number, got " + describe());
    const double d = j_->get<double>();
    if (!std::isfinite(d)) fail("expected a finite number, got " + describe());
    return d;
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
    if (j_->is_number_integer()) return j_->get<std::int64_t>();
    if (j_->is_number_float()) {
        const double d = j_->get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9e15) return static_cast<std::int64_t>(d);
    }
    fail("expected an integer, got " + describe());
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
            Value child(v.json()[k], v.pointer() + "/" + json_pointer_escape(k), v.source());
            std::string msg = "unknown key '" + k + "'";
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
