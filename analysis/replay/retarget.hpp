// Retargeting a recorded iteration to another GPU, precision or cluster size, by rescaling the
// durations of a ReplayGraph's device work before it is replayed. Host time and launch
// latencies are kept as recorded.
//
// Each kernel's time t becomes o + (t - o) x f, where o is the recorded GPU's per-kernel
// overhead (its calibration's kernel_overhead_s, kept) and f the ratio of the two GPUs' model
// rates for the kernel's class (models/compute GpuModel with each GPU's shipped calibration):
//   gemm:        matmul_rate(recorded precision) / matmul_rate(target precision)
//   convolution: the same x each calibration's conv_eff(precision) (conv_eff_tf32 for TF32)
//   attention:   attention_rate
//   elementwise, optimizer, copy on the device: memory_rate (efficiency x HBM bandwidth); a
//     precision change scales elementwise and copy bytes by activation_bytes
//   host<->device copies: the PCIe rate of each GPU
//   unknown:     the roofline of the kernel where the recording gives its FLOPs and bytes;
//                otherwise a class guessed from the name, else the memory ratio (kernels whose
//                names nobody recognises are mostly elementwise and reduction kernels); listed
//                in the result either way.
// A kernel's precision comes from its dtype, else its name (bf16, fp16/h884, tf32, sgemm),
// else fp32. Collectives are re-costed with the network model (models/network) at the new
// group size on the target topology: recorded time x model(target) / model(recorded); the
// bytes come from the recording, or, when it has none (older NCCL kernels), from inverting the
// model at the recorded time. Groups that spanned the whole recorded world span the new one.
// With strong scaling, computation on each GPU is divided by (new GPUs / recorded GPUs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/replay/graph.hpp"

namespace rentsim::replay {

struct RetargetOptions {
    std::string gpu;           // target GPU (catalog name); empty: the recorded GPU
    std::string recorded_gpu;  // the recorded GPU, when the trace does not name it
    std::string precision;     // compute precision of the target; empty: as recorded
    int gpus = 0;              // GPUs in the target cluster; 0: the recorded world size
    std::string topology;      // topology preset of the target; empty: the target GPU's usual server
    bool strong = false;       // divide each GPU's work by the change in GPUs (default: keep it)

    bool any() const { return !gpu.empty() || !precision.empty() || gpus > 0 || !topology.empty(); }
};

struct ClassScale {
    std::string cls;             // kernel class name
    std::int64_t kernels = 0;
    double recorded_s = 0;       // summed over ranks
    double retargeted_s = 0;
};

struct RetargetSummary {
    std::string recorded_gpu, target_gpu;
    std::string recorded_topology, target_topology;
    int recorded_gpus = 0, target_gpus = 0;
    std::string scaling;         // "weak" or "strong"
    std::vector<ClassScale> classes;
    std::vector<std::string> notes;
};

// The catalog name of a recorded GPU name ("Tesla V100-SXM2-32GB" -> "v100-sxm2-32gb"), or
// empty when the catalog has no such part.
std::string catalog_gpu(const std::string& recorded_name);

// Rescales g's device work in place. Throws analysis::InputError naming the option for an
// unknown GPU, precision or topology, a GPU without the precision, a GPU count out of range,
// or a trace whose GPU is unknown and not given with --recorded-gpu.
RetargetSummary retarget(ReplayGraph& g, const RetargetOptions& o);

}  // namespace rentsim::replay
