// Data files compiled into the program (cmake/embed_files.cmake), so that it runs without
// its source tree: the price catalog, spot traces, calibrations and network rows.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace rentsim {

struct EmbeddedFile {
    std::string_view name;  // the file's name (a calibration's GPU)
    std::string_view text;
};

// A string literal's text without its terminating zero, its length taken from the array type
// (no constant evaluation walks the characters).
template <std::size_t N>
constexpr std::string_view literal_text(const char (&text)[N]) {
    return {text, N - 1};
}

// The text of the file called `name` among `files`; empty when none is.
constexpr std::string_view embedded_text(std::span<const EmbeddedFile> files, std::string_view name) {
    for (const auto& f : files)
        if (f.name == name) return f.text;
    return {};
}

}  // namespace rentsim
