// The input pipeline of one GPU, as PyTorch's DataLoader runs it: `workers` processes each
// build whole batches at `samples_per_s_per_worker`, keep up to `prefetch_factor` batches
// ready or in flight, and the trainer takes batches in order, round-robin over workers.
// This value only describes rates; the engine simulates the queue (analysis/trainer).
#pragma once

#include "models/units.hpp"

namespace rentsim::data {

struct InputPipeline {
    int workers = 0;                     // 0: data is already on the GPU (synthetic)
    double samples_per_s_per_worker = 0;
    int prefetch_factor = 2;

    bool modelled() const { return workers > 0; }
    // Time one worker takes to build a batch.
    units::Seconds batch_time(double batch) const { return units::seconds(batch / samples_per_s_per_worker); }
    // Sustained rate of all workers together, samples per second.
    double samples_per_s() const { return workers * samples_per_s_per_worker; }
};

}  // namespace rentsim::data
