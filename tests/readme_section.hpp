// README sections generated from the code's tables (result fields, accepted ranges): a test
// checks that the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in README.md is
// `expected`, and with RENTSIM_UPDATE_README=1 rewrites it instead.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace rentsim::test {

inline void check_readme_section(const std::string& name, const std::string& expected, const std::string& regenerate) {
    const std::string path = RENTSIM_SOURCE_DIR "/README.md";
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string readme = buffer.str();
    const std::string begin = "<!-- " + name + ":begin -->\n", end = "<!-- " + name + ":end -->";
    const auto b = readme.find(begin);
    const auto e = readme.find(end, b == std::string::npos ? 0 : b);
    REQUIRE_MESSAGE(b != std::string::npos, "README.md has no line " << begin);
    REQUIRE_MESSAGE(e != std::string::npos, "README.md has no line " << end << " after " << begin);
    const std::string actual = readme.substr(b + begin.size(), e - b - begin.size());
    if (actual == expected) return;
    if (const char* update = std::getenv("RENTSIM_UPDATE_README"); update && std::string(update) == "1") {
        readme.replace(b + begin.size(), e - b - begin.size(), expected);
        std::ofstream(path, std::ios::binary) << readme;
        MESSAGE("updated README.md between " << begin.substr(0, begin.size() - 1) << " and " << end);
        return;
    }
    FAIL("README.md between " << begin.substr(0, begin.size() - 1) << " and " << end
         << " differs from the code. Regenerate it with\n  RENTSIM_UPDATE_README=1 " << regenerate
         << "\nor put this text between the two lines:\n"
         << expected);
}

}  // namespace rentsim::test
