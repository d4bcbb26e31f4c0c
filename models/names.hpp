// Name registries: the shared did-you-mean and error text for unknown names.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rentsim {

// Levenshtein distance, case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);
// The closest candidate within a distance that scales with the length of `name`, if any.
std::string_view closest_name(std::string_view name, std::span<const std::string_view> candidates);
// "unknown GPU 'h10'; did you mean 'h100-sxm5-80gb'? valid: a, b, c"
std::string unknown_name_message(std::string_view what, std::string_view name,
                                 std::span<const std::string_view> valid);

}  // namespace rentsim
