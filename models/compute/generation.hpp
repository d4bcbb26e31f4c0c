// Autoregressive generation by a decoder-only transformer on one GPU: the prompt's prefill,
// then one decode step per generated token, each reading every weight and the K/V cache of
// the batch. The rollout phase of RL fine-tuning (PPO) generates this way before it trains.
//
// Every op is priced by the GPU model (gpu_model.hpp) as the training step prices it:
// GEMMs by their tiles and their traffic (at a decode step the m dimension is the batch, so
// the k x n weights dominate the traffic and the step is bound by HBM bandwidth), streaming
// ops by their bytes, each kernel with the calibrated per-kernel overhead. Attention over the
// cache is one fused kernel (FlashAttention / Flash-Decoding) priced by GpuModel::attention_time:
// per sample and K/V head, the group's queries (heads / kv_heads rows per new token) against
// the cached keys and values, its traffic the cache read. Tensor parallelism divides the heads, the MLP width and the
// vocabulary; its per-layer all-reduces are not priced here (callers refuse tp > 1).
// Runs in the precision attention runs in for the step precision (fp8 training generates in
// bf16, GpuModel::attention_precision): the precision inference engines keep by default.
#pragma once

#include "models/compute/gpu_model.hpp"
#include "models/units.hpp"
#include "models/workloads/workload.hpp"

namespace rentsim::compute {

struct GenerationCost {
    units::Seconds prefill;   // the forward pass over the prompts, once per batch
    units::Seconds decode;    // every decode step of the batch, summed
    units::Bytes kv_cache;    // K and V of the batch at full length (prompt + response), this GPU
    int kernels_per_token = 0;  // kernels one decode step launches
    units::Seconds total() const { return prefill + decode; }
};

// `batch` sequences of `prompt` tokens, each extended by `response` tokens, on one GPU.
// The workload must be a decoder-only transformer (Workload::n_layers, heads, hidden > 0).
// Throws std::invalid_argument otherwise, or on a non-positive batch, prompt or response, or
// a tp that does not divide the heads.
GenerationCost generation_cost(const work::Workload& w, const GpuModel& gpu, Precision p, double batch, int prompt,
                               int response, int tp = 1);

}  // namespace rentsim::compute
