// The pricing data compiled into the program (models/pricing/data/): catalog.csv and the
// spot traces, each by its file name.
#pragma once

#include "models/embedded.hpp"

namespace rentsim::price {

std::span<const EmbeddedFile> shipped_pricing_files();

}  // namespace rentsim::price
