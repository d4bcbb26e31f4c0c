// The network rows' interpretations used by validation (models/network/data/nccl_rows.csv),
// compiled into the program as one file, "nccl_rows.csv".
#pragma once

#include "models/embedded.hpp"

namespace rentsim::analysis {

std::span<const EmbeddedFile> shipped_network_rows();

}  // namespace rentsim::analysis
