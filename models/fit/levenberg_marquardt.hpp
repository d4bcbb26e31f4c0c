// Damped least squares (Levenberg-Marquardt): finds x minimising sum_i r_i(x)^2 for a
// residual function r, with a finite-difference Jacobian. Deterministic: the same inputs
// give the same bits. Units are the caller's; the fit works on plain real vectors.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <vector>

namespace rentsim::fit {

using Vector = std::vector<double>;

// The residuals at x. Must return the same number of values at every x; a non-finite
// residual makes a trial step fail (it is never accepted).
using Residuals = std::function<Vector(const Vector& x)>;

// Jacobian dr_i/dx_j by finite differences with step h on x_j.
struct Differences {
    bool central = true;     // (r(x+h) - r(x-h)) / 2h; false: (r(x+h) - r(x)) / h
    double step = 1e-6;      // h
    bool relative = false;   // true: h = step x max(1, |x_j|)
};

// A dense matrix, row-major: (i, j) is values[i * cols + j].
struct Matrix {
    std::size_t rows = 0, cols = 0;
    std::vector<double> values;
    double operator()(std::size_t i, std::size_t j) const { return values[i * cols + j]; }
};

// The Jacobian of r at x (rows: residuals, columns: parameters).
Matrix jacobian(const Residuals& r, const Vector& x, const Differences& differences = {});

// Each iteration takes the Jacobian J at x and tries steps dx solving
//   (J'J + lambda (diag(J'J) + damping_floor) + ridge) dx = -J'r
// (Marquardt's scaling), multiplying lambda by 4 after each step that does not lower the cost
// and dividing it by 3 (not below lambda_min) after the first that does, which is taken.
struct Options {
    Differences differences;
    int max_iterations = 200;      // Jacobian evaluations
    int max_trials = std::numeric_limits<int>::max();   // steps tried per iteration
    double lambda = 1e-3;          // initial damping
    double lambda_min = 1e-12;
    double lambda_max = 1e12;      // no step is tried with lambda at or above it
    double damping_floor = 0.0;    // added to diag(J'J) inside the damping, scaled by lambda
    double ridge = 1e-12;          // added to the diagonal unscaled: keeps the system solvable
    double tolerance = 1e-12;      // stop after a step gaining <= tolerance x max(1, cost)
};

struct Result {
    Vector x;
    double cost = 0.0;       // sum of squared residuals at x
    int iterations = 0;      // steps taken (each lowered the cost)
    bool converged = false;  // stopped on the tolerance; false: no lower step, or max_iterations
};

// Minimises from x0. Throws std::invalid_argument when r changes its number of residuals.
Result levenberg_marquardt(const Residuals& r, const Vector& x0, const Options& options = {});

}  // namespace rentsim::fit
