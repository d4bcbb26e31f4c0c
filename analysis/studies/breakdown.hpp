// The model's breakdown of a step set against what published measurements of the same
// configuration state: a guard against errors that cancel in the end-to-end time (a GEMM
// rate too fast offset by communication too slow). Three configurations, each from the
// shipped measurement file or trace:
//   - ResNet-50 v1.5 in fp32 on one V100 32 GB, PyTorch eager: the kernel time of the shipped
//     Kineto trace's profiled step, by kernel class, against the model's step by op class
//     (the model runs measured.csv's DLE-009 row: DeepLearningExamples, batch 112);
//   - GPT 22B, tp 8 on eight A100 80 GB (Korthikanti et al. 2022, arXiv:2205.05198, Table 4):
//     one transformer layer's forward and backward time in five recomputation and sequence
//     parallelism settings (the model runs measured.csv's MEG-024 row with each setting);
//   - GPT-3 175B, tp 8 pp 16 dp 8 on 1,024 A100 80 GB (measured.csv's MEG-022 row: Megatron-LM's
//     GPT-3 example): the step's compute, exposed communication and pipeline bubble, the bubble
//     against Narayanan et al. 2021's (p - 1) / (m + p - 1).
#pragma once

#include <string>

namespace rentsim::analysis {

// The README's "breakdown against published configurations" tables, in markdown. `measured`
// is a measurement file holding the rows named above; `resnet_trace` the Kineto trace (a file
// or its folder). Throws analysis::InputError when a row or the trace is missing.
std::string breakdown_markdown(const std::string& measured, const std::string& resnet_trace);

}  // namespace rentsim::analysis
