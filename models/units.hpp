// Strong unit types used at every model boundary.
//
// A Quantity carries its dimension as exponents of (byte, flop, second, usd) in its type,
// so `Bytes + Seconds` does not compile and `Bytes / BytesPerSecond` is `Seconds`.
// Values are doubles in SI base units: bytes, floating-point operations, seconds, US dollars.
#pragma once

#include <cmath>
#include <compare>

namespace rentsim::units {

template <int B, int F, int S, int U>
struct Quantity {
    double value{0.0};

    constexpr Quantity() = default;
    constexpr explicit Quantity(double v) : value(v) {}

    constexpr Quantity& operator+=(Quantity o) { value += o.value; return *this; }
    constexpr Quantity& operator-=(Quantity o) { value -= o.value; return *this; }
    constexpr Quantity& operator*=(double k) { value *= k; return *this; }
    constexpr Quantity& operator/=(double k) { value /= k; return *this; }

    friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity{a.value + b.value}; }
    friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity{a.value - b.value}; }
    friend constexpr Quantity operator-(Quantity a) { return Quantity{-a.value}; }
    friend constexpr Quantity operator*(Quantity a, double k) { return Quantity{a.value * k}; }
    friend constexpr Quantity operator*(double k, Quantity a) { return Quantity{a.value * k}; }
    friend constexpr Quantity operator/(Quantity a, double k) { return Quantity{a.value / k}; }
    friend constexpr double operator/(Quantity a, Quantity b) { return a.value / b.value; }
    friend constexpr auto operator<=>(Quantity a, Quantity b) = default;
};

template <int B1, int F1, int S1, int U1, int B2, int F2, int S2, int U2>
constexpr Quantity<B1 + B2, F1 + F2, S1 + S2, U1 + U2> operator*(Quantity<B1, F1, S1, U1> a,
                                                                 Quantity<B2, F2, S2, U2> b) {
    return Quantity<B1 + B2, F1 + F2, S1 + S2, U1 + U2>{a.value * b.value};
}

template <int B1, int F1, int S1, int U1, int B2, int F2, int S2, int U2>
    requires(B1 != B2 || F1 != F2 || S1 != S2 || U1 != U2)
constexpr Quantity<B1 - B2, F1 - F2, S1 - S2, U1 - U2> operator/(Quantity<B1, F1, S1, U1> a,
                                                                 Quantity<B2, F2, S2, U2> b) {
    return Quantity<B1 - B2, F1 - F2, S1 - S2, U1 - U2>{a.value / b.value};
}

using Bytes = Quantity<1, 0, 0, 0>;
using Flops = Quantity<0, 1, 0, 0>;
using Seconds = Quantity<0, 0, 1, 0>;
using Usd = Quantity<0, 0, 0, 1>;
using BytesPerSecond = Quantity<1, 0, -1, 0>;
using FlopsPerSecond = Quantity<0, 1, -1, 0>;
using UsdPerSecond = Quantity<0, 0, -1, 1>;
using Hertz = Quantity<0, 0, -1, 0>;  // events (samples, requests) per second

template <int B, int F, int S, int U>
constexpr Quantity<B, F, S, U> max(Quantity<B, F, S, U> a, Quantity<B, F, S, U> b) {
    return a.value >= b.value ? a : b;
}
template <int B, int F, int S, int U>
constexpr Quantity<B, F, S, U> min(Quantity<B, F, S, U> a, Quantity<B, F, S, U> b) {
    return a.value <= b.value ? a : b;
}

// Constructors from the units people write in scenarios and data files.
constexpr Seconds seconds(double s) { return Seconds{s}; }
constexpr Seconds microseconds(double us) { return Seconds{us * 1e-6}; }
constexpr Seconds hours(double h) { return Seconds{h * 3600.0}; }
constexpr Bytes bytes(double b) { return Bytes{b}; }
constexpr Bytes gib(double g) { return Bytes{g * 1073741824.0}; }
constexpr Flops flops(double f) { return Flops{f}; }
constexpr FlopsPerSecond tflops_per_s(double t) { return FlopsPerSecond{t * 1e12}; }
constexpr BytesPerSecond gbytes_per_s(double g) { return BytesPerSecond{g * 1e9}; }
constexpr BytesPerSecond gbits_per_s(double g) { return BytesPerSecond{g * 1e9 / 8.0}; }
constexpr UsdPerSecond usd_per_hour(double p) { return UsdPerSecond{p / 3600.0}; }
constexpr Usd usd(double u) { return Usd{u}; }

}  // namespace rentsim::units
