#include "models/names.hpp"

#include <algorithm>
#include <numeric>

namespace rentsim {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string_view closest_name(std::string_view name, std::span<const std::string_view> candidates) {
    std::string_view best;
    std::size_t best_d = SIZE_MAX;
    for (auto c : candidates) {
        // A prefix of a valid name ("h100" for "h100-sxm5-80gb") is the likeliest intent.
        std::size_t d = (c.starts_with(name) && name.size() >= 2) ? 1 : edit_distance(name, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
    return best_d <= limit ? best : std::string_view{};
}

std::string unknown_name_message(std::string_view what, std::string_view name,
                                 std::span<const std::string_view> valid) {
    std::string msg = "unknown " + std::string(what) + " '" + std::string(name) + "'";
    if (auto c = closest_name(name, valid); !c.empty()) msg += "; did you mean '" + std::string(c) + "'? valid: ";
    else msg += "; valid: ";
    for (std::size_t i = 0; i < valid.size(); ++i) {
        if (i) msg += ", ";
        msg += valid[i];
    }
    return msg;
}

}  // namespace rentsim
