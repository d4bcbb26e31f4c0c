#include "sim/random.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>

namespace rentsim::sim {

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t index) {
    // Both steps are bijections, so for a fixed seed distinct indices never collide.
    return mix64(mix64(seed) + (index + 1) * 0x9e3779b97f4a7c15ULL);
}

std::uint64_t stream_key(std::uint64_t seed, std::string_view name) {
    // Bytes are taken by shifting, not by reinterpreting memory, so that big-endian
    // machines hash the same sequence.
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((seed >> (8 * i)) & 0xffU);
    return fnv1a64(name, fnv1a64(std::string_view(bytes, 8)));
}

RandomStream::RandomStream(std::uint64_t seed, std::string_view name) {
    std::uint64_t x = stream_key(seed, name);
    for (std::uint64_t& s : s_) {
        x += 0x9e3779b97f4a7c15ULL;  // splitmix64
        s = mix64(x);
    }
    // splitmix64 never yields four zero words in a row, but xoshiro would be stuck there.
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
}

std::uint64_t RandomStream::next_u64() {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
}

double RandomStream::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double RandomStream::exponential(double mean) {
    // 1 - u is exact for u on the 2^-53 grid and lies in (0, 1], so the log is finite.
    return -mean * std::log(1.0 - uniform());
}

double RandomStream::normal(double mean, double sd) {
    if (has_spare_) {
        has_spare_ = false;
        return mean + sd * spare_;
    }
    double u = 0.0;
    double v = 0.0;
    double s = 0.0;
    do {
        u = 2.0 * uniform() - 1.0;
        v = 2.0 * uniform() - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double m = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * m;
    has_spare_ = true;
    return mean + sd * u * m;
}

std::int64_t RandomStream::uniform_int(std::int64_t lo, std::int64_t hi) {
    if (lo > hi) throw std::invalid_argument("RandomStream::uniform_int: lo > hi");
    // Unsigned arithmetic wraps, so the full int64 range gives range == 0.
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    if (range == 0) return static_cast<std::int64_t>(next_u64());
    // Reject the lowest (2^64 mod range) values so that every residue is equally likely.
    const std::uint64_t threshold = (0 - range) % range;
    std::uint64_t r = next_u64();
    while (r < threshold) r = next_u64();
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + r % range);
}

}  // namespace rentsim::sim
