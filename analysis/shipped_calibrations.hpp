// Data files compiled into the program: the calibrations (generated from
// models/compute/calibration/) and the network rows' interpretations used by validation
// (models/network/data/nccl_rows.csv).
#pragma once

#include <span>
#include <string_view>

namespace rentsim::analysis {

struct EmbeddedFile {
    std::string_view gpu;   // the GPU, or the file's name for other data
    std::string_view text;
};

std::span<const EmbeddedFile> shipped_calibration_files();
std::span<const EmbeddedFile> shipped_network_rows();  // one file: "nccl_rows.csv"

}  // namespace rentsim::analysis
