// Data files compiled into the program (cmake/embed_files.cmake), so that it runs without
// its source tree: the price catalog, spot traces, calibrations and network rows.
#pragma once

#include <span>
#include <string_view>

namespace rentsim {

struct EmbeddedFile {
    std::string_view name;  // the file's name (a calibration's GPU)
    std::string_view text;
};

// The text of the file called `name` among `files`; empty when none is.
constexpr std::string_view embedded_text(std::span<const EmbeddedFile> files, std::string_view name) {
    for (const auto& f : files)
        if (f.name == name) return f.text;
    return {};
}

}  // namespace rentsim
