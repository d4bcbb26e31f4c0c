// Named, reproducible random streams.
//
// A RandomStream is xoshiro256** whose state is filled by splitmix64 from a 64-bit key:
// FNV-1a-64 over the seed's eight little-endian bytes followed by the name's bytes. So a
// stream's values depend only on (seed, name), never on creation order or on other
// streams. Integer outputs are identical on every platform; real-valued ones go through
// <cmath> (log, sqrt), which C libraries may round differently in the last bit.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace rentsim::sim {

// FNV-1a, 64-bit, over bytes. Stable across platforms, unlike std::hash.
constexpr std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ULL) {
    for (const char c : bytes) {
        h ^= static_cast<std::uint8_t>(c);
        h *= 0x100000001b3ULL;
    }
    return h;
}

// The splitmix64 finaliser: a bijective 64-bit mix with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Seed of replication `index` of a run seeded with `seed`. Distinct indices give distinct
// seeds for a given seed, and derive_seed(s, i) != s in practice.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t index);

// The key a stream is seeded from (exposed for tests and documentation of the scheme).
std::uint64_t stream_key(std::uint64_t seed, std::string_view name);

class RandomStream {
public:
    using result_type = std::uint64_t;

    RandomStream(std::uint64_t seed, std::string_view name);

    std::uint64_t next_u64();
    // Uniform in [0, 1), 53 random bits.
    double uniform();
    // Exponential with the given mean (> 0), by inversion.
    double exponential(double mean);
    // Normal by the Marsaglia polar method; the second value of each pair is kept for
    // the next call.
    double normal(double mean, double sd);
    // Uniform integer in [lo, hi], both inclusive, without modulo bias. Throws
    // std::invalid_argument if lo > hi.
    std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);

    // UniformRandomBitGenerator, so standard distributions accept a stream.
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
    result_type operator()() { return next_u64(); }

private:
    std::uint64_t s_[4];
    double spare_ = 0.0;
    bool has_spare_ = false;
};

}  // namespace rentsim::sim
