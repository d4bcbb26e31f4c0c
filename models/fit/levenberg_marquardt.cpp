#include "models/fit/levenberg_marquardt.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace rentsim::fit {
namespace {

Vector to_vector(const Eigen::VectorXd& v) { return Vector(v.data(), v.data() + v.size()); }

// Residuals as an Eigen vector, checked to keep their count.
Eigen::VectorXd evaluate(const Residuals& r, const Eigen::VectorXd& x, Eigen::Index count) {
    const Vector values = r(to_vector(x));
    if (count >= 0 && static_cast<Eigen::Index>(values.size()) != count)
        throw std::invalid_argument("least squares: the residual function returned " + std::to_string(values.size()) +
                                    " values, earlier " + std::to_string(count));
    return Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

// The Jacobian at x; at_x are the residuals at x (used by forward differences).
Eigen::MatrixXd numeric_jacobian(const Residuals& r, const Eigen::VectorXd& x, const Eigen::VectorXd& at_x,
                                 const Differences& d) {
    Eigen::MatrixXd jac(at_x.size(), x.size());
    for (Eigen::Index j = 0; j < x.size(); ++j) {
        const double h = d.relative ? d.step * std::max(1.0, std::abs(x[j])) : d.step;
        Eigen::VectorXd up = x;
        up[j] += h;
        if (d.central) {
            Eigen::VectorXd down = x;
            down[j] -= h;
            jac.col(j) = (evaluate(r, up, at_x.size()) - evaluate(r, down, at_x.size())) / (2 * h);
        } else {
            jac.col(j) = (evaluate(r, up, at_x.size()) - at_x) / h;
        }
    }
    return jac;
}

}  // namespace

Matrix jacobian(const Residuals& r, const Vector& x, const Differences& differences) {
    const Eigen::VectorXd at = Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
    const Eigen::MatrixXd jac = numeric_jacobian(r, at, evaluate(r, at, -1), differences);
    Matrix m;
    m.rows = static_cast<std::size_t>(jac.rows());
    m.cols = static_cast<std::size_t>(jac.cols());
    m.values.reserve(m.rows * m.cols);
    for (Eigen::Index i = 0; i < jac.rows(); ++i)
        for (Eigen::Index j = 0; j < jac.cols(); ++j) m.values.push_back(jac(i, j));
    return m;
}

Result levenberg_marquardt(const Residuals& r, const Vector& x0, const Options& o) {
    Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(x0.data(), static_cast<Eigen::Index>(x0.size()));
    Eigen::VectorXd res = evaluate(r, x, -1);
    const Eigen::Index count = res.size();
    double cost = res.squaredNorm();
    double lambda = o.lambda;
    Result out;
    for (int iteration = 0; iteration < o.max_iterations && !out.converged; ++iteration) {
        const Eigen::MatrixXd jac = numeric_jacobian(r, x, res, o.differences);
        const Eigen::MatrixXd jtj = jac.transpose() * jac;
        const Eigen::VectorXd grad = jac.transpose() * res;
        bool stepped = false;
        for (int trial = 0; trial < o.max_trials && lambda < o.lambda_max; ++trial) {
            Eigen::MatrixXd a = jtj;
            a.diagonal().array() += lambda * (jtj.diagonal().array() + o.damping_floor) + o.ridge;
            const Eigen::VectorXd step = a.ldlt().solve(-grad);
            const Eigen::VectorXd x_trial = x + step;
            Eigen::VectorXd res_trial = evaluate(r, x_trial, count);
            const double cost_trial = res_trial.squaredNorm();
            if (std::isfinite(cost_trial) && cost_trial < cost) {
                const double gain = cost - cost_trial;
                x = x_trial;
                res = std::move(res_trial);
                cost = cost_trial;
                lambda = std::max(lambda / 3.0, o.lambda_min);
                stepped = true;
                ++out.iterations;
                out.converged = gain <= o.tolerance * std::max(1.0, cost);
                break;
            }
            lambda *= 4.0;
        }
        if (!stepped) break;
    }
    out.x = to_vector(x);
    out.cost = cost;
    return out;
}

}  // namespace rentsim::fit
