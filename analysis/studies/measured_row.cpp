#include "analysis/studies/measured_row.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include "analysis/scenario/input_error.hpp"
#include "models/compute/gpu.hpp"
#include "models/data/pipeline.hpp"
#include "models/workloads/zoo.hpp"

namespace rentsim::analysis {

namespace {

// SQuAD v1.1 training set: 87,599 question-answer pairs (Rajpurkar et al. 2016, Table 2;
// train-v1.1.json, read 2026-11). DLE's SQuAD time-to-train rows state "2 epochs" of it;
// the few questions whose context exceeds 384 tokens and is split in two windows are ignored.
constexpr double squad_v11_train_samples = 87599;
// Steps simulated for a throughput or iteration-time row: enough for the fast-forward to
// reach its steady state.
constexpr double throughput_steps = 20;
// Share of padding tokens in BERT's Wikipedia pretraining samples at sequence length 512:
// "in excess of 50%" (Krell et al. 2021, arXiv:2107.02027, abstract).
constexpr double wikipedia_padding_at_512 = 0.5;

// DeepLearningExamples' BERT for PyTorch, since its release on the 21.11 container (README
// changelog, January 2022), bins phase-2 (sequence 512) pretraining by length ("Binned
// pretraining for phase2 with LDDL using a bin size of 64"; scripts/run_pretraining.sh,
// phase2_bin_size default 64) and pretrains a TorchScript model on the NVFuser backend
// ("TorchScript with NVFuser backend": run_pretraining.py enables NVFuser and calls
// torch.jit.script(model) unless --disable_jit_fusions), which fuses the elementwise ops;
// run_squad.py fine-tunes eagerly.
constexpr int dle_bert_phase2_bin = 64;
constexpr int dle_bert_2022_release = 2111;  // NGC container YY.MM as YYMM

// NVIDIA's MLPerf BERT removed padding from round v0.7 on, but ran attention as separate
// kernels until v1.0: v0.7's `mha.py` (FastUnpadBertSelfAttention) calls a batched GEMM for
// the scores, a fused mask-softmax-dropout kernel and a second batched GEMM, its configs pass
// `--unpad` alone (config_DGXA100_1x8x32x1.sh); v1.0's configs add `--unpad_fmha`, the fused
// multi-head attention kernel (config_DGXA100_8x8x48x1.sh) (mlcommons/training_results_v0.7
// and _v1.0, NVIDIA/benchmarks/bert/implementations/pytorch, read 2026-12-05).
constexpr int mlperf_fmha_round = 100;  // v1.0, as major x 100 + minor x 10

// From round v2.0 on, NVIDIA's MLPerf BERT computes bias and GeLU in the epilogue of the
// feed-forward GEMM (--fused_gemm_gelu, apex's FusedDenseGeluDense on cuBLASLt's GELU_AUX_BIAS
// and DGELU_BGRAD epilogues). Every v2.0 config of the A100 rows passes it, NVIDIA's
// (config_DGXA100_1x8x56x1.sh), Azure's (ND96amsr_A100_v4 1x8x56x1 and 128x8x3x1) and H3C's
// (config_R5300G5x8A100-PCIE-80GB.sh), as v2.1's does (pytorch-preview); v1.0's do not
// (config_DGXA100_8x8x48x1.sh, 512x8x3x1) (mlcommons/training_results_v1.0, _v2.0 and _v2.1,
// read 2026-12-08).
constexpr int mlperf_gemm_gelu_round = 200;  // v2.0

// The MLPerf Training round of a row whose source is an MLCommons results repository
// ("mlcommons/training_results_vX.Y"), as X x 100 + Y x 10; 0 when none.
int mlperf_round(const std::string& source) {
    const std::string tag = "mlcommons/training_results_v";
    if (!source.starts_with(tag)) return 0;
    const std::string v = source.substr(tag.size(), 3);
    if (v.size() != 3 || v[1] != '.' || !std::isdigit(static_cast<unsigned char>(v[0])) ||
        !std::isdigit(static_cast<unsigned char>(v[2])))
        return 0;
    return (v[0] - '0') * 100 + (v[2] - '0') * 10;
}

bool contains(const std::string& text, std::string_view what) { return text.find(what) != std::string::npos; }

// MLPerf Training counts its quality evaluations in the time to train (training_rules.adoc,
// "Quality measure": "the time to evaluate the quality is included in the wallclock time";
// mlcommons/training_policies, read 2026-12-05). Their frequency, from the same table:
// ResNet-50 every 4 epochs, over ImageNet's validation images (data::imagenet_val_images); BERT from v1.0 every FLOOR(0.05 x (230.23 x global batch + 3,000,000),
// 25,000) samples (added with the v1.0 rules, April 2021), over 10,000 held-out samples
// (NVIDIA's run_and_time.sh: --num_eval_examples=10000). v0.7 states only the least frequency
// for BERT ("starting at 3M samples, then every 500K"), which NVIDIA's runs exceeded (they
// stop at 3.05M samples), so its rows carry no evaluation.
constexpr double mlperf_resnet_eval_epochs = 4;
constexpr double mlperf_bert_eval_samples = 10000;
constexpr int mlperf_bert_eval_rule_round = 100;  // v1.0

double mlperf_bert_eval_interval(double global_batch) {
    return std::floor(0.05 * (230.23 * global_batch + 3e6) / 25000.0) * 25000.0;
}

// torchtitan's "selective" activation checkpointing with a number k (selective_ac_option,
// default "2": "checkpoint every other layer"; torchtitan train.py's job_config of April 2024,
// read 2026-12-05) wraps every k-th transformer block in a full checkpoint. Rows that name
// the "selective layer" mode ran it so. Its option "op" is the op-level policy
// (compute::Recompute::op); rows name it "selective op", "per-op selective" or
// "selective_ac_option op".
constexpr int torchtitan_layer_ac_every = 2;

bool torchtitan_op_ac(const std::string& notes) {
    return contains(notes, "selective op") || contains(notes, "per-op selective") || contains(notes, "selective_ac_option op");
}

// DeepLearningExamples' SQuAD fine-tuning for PyTorch (run_squad.py, also in Lambda's fork:
// lambdal/deeplearning-benchmark, pytorch/scripts/patch/run_squad.py, read 2026-12-05) builds
// apex's FusedAdam under --fp16/--amp and otherwise BertAdam (optimization.py), a Python loop
// over the parameters that clips each tensor and runs one elementwise kernel per step of the
// update (compute::OptimizerKernel::bert_adam). Before either, every step, its
// GradientClipper clips the gradients by their global norm with apex's multi_tensor_l2norm
// and multi_tensor_scale (read 2026-12-07): `workload.grad_clip` "global".
std::string squad_optimizer_kernel(const std::string& precision) {
    return precision == "fp16" ? "fused" : "bert-adam";
}

// Lambda's benchmark scripts (lambdal/deeplearning-benchmark, pytorch/scripts/benchmark_pytorch.sh)
// export NCCL_P2P_DISABLE=1 before every multi-GPU run from commit 0a684b62 (2022-10-16) until
// commit aad0d1cd (2023-02-06) comments it out: NCCL then copies between the GPUs of a node
// through host memory, NVLink unused. A run's date is that of its log file, which the row cites
// as pytorch/results/<system>/<task>/<dd-mm-yyyy>_<hh-mm-ss>.txt (read 2026-12-05).
constexpr int lambda_p2p_disabled_from = 20221016, lambda_p2p_disabled_until = 20230206;  // YYYYMMDD

// The date (YYYYMMDD) of the first log file "/dd-mm-yyyy_" the text cites; 0 when none.
int cited_log_date(const std::string& text) {
    for (std::size_t at = text.find('/'); at != std::string::npos; at = text.find('/', at + 1)) {
        if (at + 12 > text.size()) break;
        const std::string_view d(text.data() + at + 1, 11);
        const auto digit = [&](std::size_t i) { return std::isdigit(static_cast<unsigned char>(d[i])) != 0; };
        if (!(digit(0) && digit(1) && d[2] == '-' && digit(3) && digit(4) && d[5] == '-' && digit(6) && digit(7) &&
              digit(8) && digit(9) && d[10] == '_'))
            continue;
        const int day = (d[0] - '0') * 10 + (d[1] - '0'), month = (d[3] - '0') * 10 + (d[4] - '0');
        const int year = (d[6] - '0') * 1000 + (d[7] - '0') * 100 + (d[8] - '0') * 10 + (d[9] - '0');
        if (day >= 1 && day <= 31 && month >= 1 && month <= 12) return year * 10000 + month * 100 + day;
    }
    return 0;
}

bool lambda_benchmark(const CsvRow& row) { return contains(row.at("framework"), "Lambda"); }

constexpr int last_ngc_with_pytorch_1 = 2212;  // YYMM

// The NGC PyTorch container release a row names as "PyTorch NGC YY.MM", as YYMM; 0 when none.
int ngc_pytorch_release(const std::string& framework) {
    const std::string tag = "PyTorch NGC ";
    const auto at = framework.find(tag);
    if (at == std::string::npos) return 0;
    const std::string v = framework.substr(at + tag.size(), 5);
    if (v.size() != 5 || v[2] != '.' || !std::isdigit(static_cast<unsigned char>(v[0])) ||
        !std::isdigit(static_cast<unsigned char>(v[1])) || !std::isdigit(static_cast<unsigned char>(v[3])) ||
        !std::isdigit(static_cast<unsigned char>(v[4])))
        return 0;
    return std::stoi(v.substr(0, 2)) * 100 + std::stoi(v.substr(3, 2));
}

// torch.optim's optimizers run one set of kernels per parameter tensor unless told otherwise
// until PyTorch 2.0, which defaults them to the multi-tensor (foreach) path on CUDA
// (pytorch/pytorch PR #92306, 2023-01-17, and #95862, 2023-03-02, which made the default reach
// nn.Parameters; read 2026-12-07). The release is read from the row's "PyTorch X.Y" or from
// its NGC container: every release up to 22.12 ships a PyTorch 1.x. Neither: the current one.
std::string torch_optim_kernel(const std::string& framework) {
    const std::string tag = "PyTorch ";
    for (auto at = framework.find(tag); at != std::string::npos; at = framework.find(tag, at + 1)) {
        const std::size_t v = at + tag.size();
        if (v + 1 < framework.size() && std::isdigit(static_cast<unsigned char>(framework[v])) && framework[v + 1] == '.')
            return framework[v] == '1' ? "for-loop" : "foreach";
    }
    const int ngc = ngc_pytorch_release(framework);
    if (ngc > 0 && ngc <= last_ngc_with_pytorch_1) return "for-loop";
    return "foreach";
}

// A count from the row; a cell that is not a whole number within int range refuses the row
// (the loader's ranges then check what the count means).
int int_cell(const CsvRow& row, const std::string& col) {
    const auto v = row.number(col);
    if (!v) return 0;
    if (!(std::abs(*v) <= 2147483647.0) || *v != std::floor(*v))
        throw RowSkip{"column '" + col + "' is not a whole number in range: " + row.at(col).substr(0, 32)};
    return static_cast<int>(*v);
}

// BERT fine-tuned on SQuAD: the rows at sequence length 384 (SQuAD's default; pretraining
// runs at 128 and 512).
bool squad_row(const CsvRow& row) {
    return (row.at("model") == "bert-large" || row.at("model") == "bert-base") && int_cell(row, "seq_len") == 384;
}

// The cluster of a published system: the presets of DGX-1, DGX A100, DGX H100 and HGX H200;
// DGX-2 (16 V100 SXM3 on NVSwitch, 8x 100 Gb/s EDR InfiniBand: 50 Gb/s per GPU; NVIDIA DGX-2
// datasheet, read 2026-11); other single-node systems by their GPUs' own links (NVLink on
// SXM boards, PCIe otherwise).
void cluster_for(const CsvRow& row, const compute::GpuSpec& gpu, int gpus, ScenarioDraft& d) {
    const std::string name(gpu.name);
    d.set("cluster.gpu", name).set("cluster.gpus", std::int64_t{gpus});
    // No stated node size: the row's GPUs are one machine (Lambda's benchmarks run on one
    // workstation or server).
    const int per_node = row.number("gpus_per_node") ? std::max(1, int_cell(row, "gpus_per_node")) : gpus;
    std::string topology;
    if (name.starts_with("v100-sxm2")) topology = "dgx1-v100";
    else if (name.starts_with("a100-sxm4")) topology = "dgx-a100";
    else if (name == "h100-sxm5-80gb") topology = "dgx-h100";
    else if (name == "h200-sxm-141gb") topology = "hgx-h200";
    if (!topology.empty()) {
        d.set("cluster.topology", topology);
        return;
    }
    d.set("cluster.gpus_per_node", std::int64_t{per_node});
    d.set("cluster.intra_node", std::string(gpu.nvlink_gbps > 0 ? "nvlink" : "pcie"));
    if (gpus > per_node) {
        if (name != "v100-sxm3-32gb") throw RowSkip{"multi-node system of " + name + " GPUs has no fabric in the row"};
        d.set("cluster.inter_node.fabric", std::string("infiniband"))
            .set("cluster.inter_node.gbps_per_gpu", std::int64_t{50})
            .set("cluster.inter_node.latency_us", std::int64_t{5});
    }
}

// A decoder LLM named by the row: a zoo preset of that name with the row's shape, or a GPT of
// the row's shape with its activation.
void llm_shape(const CsvRow& row, const std::string& model, ScenarioDraft& d) {
    const int layers = int_cell(row, "layers"), hidden = int_cell(row, "hidden"), heads = int_cell(row, "heads"),
              seq_len = int_cell(row, "seq_len"), vocab = int_cell(row, "vocab"), ffn = int_cell(row, "ffn_hidden"),
              kv = int_cell(row, "kv_heads");
    const bool preset = work::find_gpt_preset(model) != nullptr;
    if (!preset && (!layers || !hidden || !heads || !seq_len || !vocab))
        throw RowSkip{"incomplete model shape (layers, hidden, heads, seq_len and vocab are needed)"};
    d.set("workload.model", preset ? model : std::string("gpt"));
    if (layers) d.set("workload.layers", std::int64_t{layers});
    if (hidden) d.set("workload.hidden", std::int64_t{hidden});
    if (heads) d.set("workload.heads", std::int64_t{heads});
    if (vocab) d.set("workload.vocab", std::int64_t{vocab});
    if (seq_len) d.set("workload.seq_len", std::int64_t{seq_len});
    if (ffn) d.set("workload.ffn_hidden", std::int64_t{ffn});
    if (kv) d.set("workload.kv_heads", std::int64_t{kv});
    if (!preset && !row.at("activation").empty()) d.set("workload.activation", row.at("activation"));
}

}  // namespace

// DeepLearningExamples' run_squad.py as Lambda's benchmark runs it (--max_steps=100
// --num_train_epochs=2.0, the command line of every log under pytorch/results and
// pytorch/results_v2 of lambdal/deeplearning-benchmark, read 2026-12-06). The script times its
// whole training loop, which breaks once global_step > max_steps, and reports
// train_batch_size x max_steps x GPUs / time_to_train: a loop of max_steps + 1 steps, or of
// two epochs when those are fewer, plus the one-time cost of its first steps.
constexpr int lambda_squad_max_steps = 100;
constexpr int lambda_squad_epochs = 2;
// SQuAD v1.1 training features at max_seq_length 384, doc_stride 128 ("training_features :
// 88641" in the same logs, bert-base and bert-large alike): each rank reads ceil(88641 / GPUs)
// of them per epoch (DistributedSampler pads the ranks even), in batches of train_batch_size.
constexpr int squad_v11_train_features_384 = 88641;
// Warm-up of run_squad.py's first steps: fit_squad_warmup over
// models/compute/measurements/lambda-squad-warmup.csv (1,329 runs of systems that give no row
// of measured.csv, 2020-2025; tests/analysis/studies check that the fit still gives these).
constexpr WarmupFit squad_warmup{0.588, 0.452};

bool is_training_row(const CsvRow& row) {
    static constexpr std::string_view metrics[] = {"throughput_samples_per_s", "throughput_tokens_per_s", "iteration_s",
                                                   "time_to_train_s", "tflops_per_gpu", "mfu"};
    return !row.at("model").empty() &&
           std::find(std::begin(metrics), std::end(metrics), row.at("metric")) != std::end(metrics);
}

// Lambda's benchmark runs Transformer-XL's train.py under torch.distributed.launch without
// `--multi_gpu ddp` (pytorch/scripts/config_v1/config_pytorch_24GB.sh and the other configs,
// read 2026-12-05); DeepLearningExamples' train.py wraps the model in DistributedDataParallel
// only when that flag says so (its default is None) and sums the ranks' throughputs: each GPU
// trains a model of its own.
int independent_replicas(const CsvRow& row) {
    const int gpus = int_cell(row, "gpus");
    if (gpus > 1 && lambda_benchmark(row) && row.at("model").starts_with("transformer-xl")) return gpus;
    return 1;
}

std::string framework_of_row(const CsvRow& row) {
    const std::string& f = row.at("framework");
    if (row.at("source").starts_with("mlcommons/training_results")) return "mlperf-nvidia";
    if (contains(f, "NeMo")) return "nemo";
    if (contains(f, "Megatron")) return contains(f, "mcore") ? "megatron-core" : "megatron-lm";
    if (contains(f, "Composer")) return "composer";
    if (contains(f, "FSDP") && !contains(f, "torchtitan")) return "pytorch-fsdp";
    if (contains(f, "torchtitan")) return "torchtitan";
    if (contains(f, "DeepSpeed")) return "deepspeed";
    if (contains(f, "JAX")) return "jax-xla";
    // DeepLearningExamples' TensorFlow 2 BERT compiles with XLA unless told not to: its scripts
    // default to use_xla=true (run_pretraining_lamb.sh, run_squad.sh, every config in
    // scripts/configs), passed on as --enable_xla (auto-clustering), and its tables were made
    // with those scripts (TensorFlow2/LanguageModeling/BERT/README.md, read 2026-12-07).
    if (contains(f, "TensorFlow"))
        return contains(f, "XLA") || contains(row.at("source"), "TensorFlow2/LanguageModeling/BERT/") ? "tensorflow-xla"
                                                                                                    : "horovod-tensorflow";
    if (contains(f, "MXNet") || contains(f, "MxNet")) return "mxnet";
    if (contains(f, "Lambda")) return "pytorch-ddp";
    if (contains(f, "PyTorch NGC") || contains(f, "PyTorch NVIDIA Release")) return "nvidia-dle";
    return std::string(compute::default_framework);
}

ScenarioDraft training_draft(const CsvRow& row, const Overrides& what_if) {
    const std::string model = row.at("model");
    const std::string gpu_name = row.at("gpu");
    if (gpu_name.empty()) throw RowSkip{"GPU not named (a part outside the catalog)"};
    const compute::GpuSpec* gpu = compute::lookup_gpu(gpu_name);
    if (!gpu) throw RowSkip{"GPU '" + gpu_name + "' is not in the catalog"};
    if (!compute::parse_precision(row.at("precision"))) throw RowSkip{"no training precision"};
    const int replicas = independent_replicas(row);
    const int gpus = int_cell(row, "gpus") / replicas;
    if (gpus < 1) throw RowSkip{"no GPU count"};

    ScenarioDraft d;
    d.file = row.file;
    d.set("schema", std::int64_t{1}).set("name", row.at("id"));
    d.set("pricing.usd_per_gpu_hour", std::int64_t{0});
    d.set("workload.precision", row.at("precision"));
    const std::string framework = framework_of_row(row);
    d.set("workload.framework", framework);
    // The row states the compiler where the framework makes it optional.
    if (contains(row.at("framework"), "torch.compile")) d.set("workload.fused_elementwise", true);
    const int seq_len = int_cell(row, "seq_len");
    bool squad = false;
    const bool vision = model == "resnet50";
    const bool bert = model == "bert-large" || model == "bert-base";
    const bool txl = model.starts_with("transformer-xl");
    if (vision) {
        d.set("workload.model", model);
        // DeepLearningExamples' image classification (and Lambda's fork) builds torch.optim.SGD
        // with no implementation argument (image_classification/optimizers.py).
        if (framework == "nvidia-dle" || lambda_benchmark(row))
            d.set("workload.optimizer_kernel", torch_optim_kernel(row.at("framework")));
    } else if (bert) {
        if (seq_len == 0) throw RowSkip{"two-phase BERT pretraining (seq 128, then 512) is not one scenario"};
        squad = squad_row(row);
        d.set("workload.model", model).set("workload.seq_len", std::int64_t{seq_len});
        d.set("workload.task", std::string(squad ? "squad" : "pretraining"));
        // DeepLearningExamples' PyTorch pretraining from its 21.11 release: binned and scripted.
        const bool dle_2022_pretraining = !squad && ngc_pytorch_release(row.at("framework")) >= dle_bert_2022_release;
        // Wikipedia pretraining samples at 512 tokens are more than half padding (Krell et al.
        // 2021, "Efficient Sequence Packing without Cross-contamination", abstract): a fact of
        // the dataset; only frameworks that remove padding run faster for it.
        if (seq_len == 512) {
            d.set("workload.padding_fraction", wikipedia_padding_at_512);
            if (dle_2022_pretraining) d.set("workload.length_bin", std::int64_t{dle_bert_phase2_bin});
        }
        if (dle_2022_pretraining) d.set("workload.fused_elementwise", true);
        if (squad && (framework == "nvidia-dle" || lambda_benchmark(row))) {
            d.set("workload.optimizer_kernel", squad_optimizer_kernel(row.at("precision")));
            d.set("workload.grad_clip", std::string("global"));
            // Its fp16 path is apex amp O2 (amp.initialize(..., opt_level="O2")) under apex's
            // DDP: the model is cast to fp16 and its fp16 gradients are reduced.
            if (row.at("precision") == "fp16") d.set("workload.grad_reduce", std::string("param"));
        }
        if (const int round = mlperf_round(row.at("source")); round > 0 && round < mlperf_fmha_round)
            d.set("workload.attention", std::string("unfused"));
        else if (round >= mlperf_gemm_gelu_round)
            d.set("workload.gemm_epilogue", true);
    } else if (txl) {
        // The row's depth names the configuration (DeepLearningExamples: base 16 layers, large 18).
        std::string name = model;
        const int layers = int_cell(row, "layers");
        for (const std::string_view candidate : {"transformer-xl-base", "transformer-xl"})
            if (const auto* t = work::find_txl_preset(candidate); t && t->shape.layers == layers) name = candidate;
        if (!work::find_txl_preset(name)) throw RowSkip{"model '" + model + "' is not in the zoo"};
        d.set("workload.model", name);
        if (seq_len) d.set("workload.seq_len", std::int64_t{seq_len});
        // Lambda's benchmark fork runs train.py without --adaptive: its logs print
        // `adaptive=False, div_val=1` and 191,948,759 parameters for the base model (54.6M
        // outside the embedding), a full softmax over WikiText-103's 267,735 words
        // (lambdal/deeplearning-benchmark, pytorch/results/*/PyTorch_transformerxl*/*.txt, e.g.
        // A100_80GB_SXM4_v1 and 3090_v1, read 2026-12-02).
        // Its script passes `--fp16` and no `--amp`, so train.py's defaults hold: apex AMP at
        // O2 (`amp='apex', apex_amp_opt_level='O2'`, "patch_torch_functions: False" in the
        // same logs), a model cast to fp16 whose log_softmax runs on fp16 logits.
        // train.py's `--optim` defaults to 'jitlamb' (so do wt103_base.yaml and
        // wt103_large.yaml): lamb.py's JITLamb, a TorchScript function called once per
        // parameter tensor. Lambda's logs print optim='jitlamb' for the base model and
        // optim='adam' for the large one: torch.optim.Adam as its release runs it. The model
        // has no LAMB; it prices JITLamb's per-parameter kernels as the for-loop Adam's.
        const bool torch_adam = lambda_benchmark(row) && name == "transformer-xl";
        d.set("workload.optimizer_kernel", torch_adam ? torch_optim_kernel(row.at("framework")) : std::string("for-loop"));
        if (contains(row.at("framework"), "Lambda")) {
            d.set("workload.softmax", std::string("full"));
            d.set("workload.loss_kernel", std::string("eager"));
        }
    } else if (model == "transformer-big") {
        throw RowSkip{"model 'transformer-big' (encoder-decoder translation) is not in the zoo"};
    } else {
        llm_shape(row, model, d);
    }
    if (row.at("attention") == "flash") d.set("workload.attention", std::string("flash"));

    const int tp = std::max(1, int_cell(row, "tp")), pp = std::max(1, int_cell(row, "pp")),
              cp = std::max(1, int_cell(row, "cp"));
    const std::int64_t model_parallel = std::int64_t{tp} * pp * cp;
    if (gpus % model_parallel != 0) throw RowSkip{"tp x pp x cp does not divide the GPU count"};
    const int dp = static_cast<int>(gpus / model_parallel);
    d.set("workload.parallelism.tp", std::int64_t{tp}).set("workload.parallelism.pp", std::int64_t{pp});
    if (cp > 1) d.set("workload.parallelism.cp", std::int64_t{cp});
    if (const int v = int_cell(row, "virtual_stages"); v > 1) d.set("workload.parallelism.virtual_stages", std::int64_t{v});
    if (row.at("sequence_parallel") == "true") d.set("workload.parallelism.sequence_parallel", true);
    if (!row.at("recompute").empty()) d.set("workload.parallelism.recompute", row.at("recompute"));
    if (framework == "torchtitan" && row.at("recompute") == "selective") {
        if (contains(row.at("notes"), "AC \"selective layer\"")) {
            d.set("workload.parallelism.recompute", std::string("full"));
            d.set("workload.parallelism.recompute_every", std::int64_t{torchtitan_layer_ac_every});
        } else if (torchtitan_op_ac(row.at("notes"))) {
            d.set("workload.parallelism.recompute", std::string("op"));
        }
    }
    if (row.number("zero")) d.set("workload.parallelism.zero", std::int64_t{int_cell(row, "zero")});
    // torchao's float8 recipes gather fp8 casts of the shards when the run enables it
    // (enable_fsdp_float8_all_gather); rows that name it say "float8 all-gather".
    if (contains(row.at("notes"), "float8 all-gather")) d.set("workload.parallelism.fp8_all_gather", true);

    const int per_gpu = int_cell(row, "batch_per_gpu");
    const int global = int_cell(row, "global_batch") / replicas;
    const int micro = int_cell(row, "micro_batch");
    double step_samples = 0;
    if (!vision && !bert && !txl) {
        if (global < 1) throw RowSkip{"no global batch"};
        // Without a stated micro-batch: a whole replica's share without a pipeline, 1 with one.
        const int m = micro ? micro : per_gpu ? per_gpu : pp > 1 ? 1 : std::max(1, global / dp);
        if (global % (dp * m) != 0) throw RowSkip{"global batch is not a multiple of dp x micro-batch"};
        d.set("workload.global_batch", std::int64_t{global}).set("workload.micro_batch", std::int64_t{m});
        step_samples = global;
    } else {
        if (per_gpu < 1) throw RowSkip{"no batch per GPU"};
        // DLE tables reach their global batch by gradient accumulation over micro-batches of batch_per_gpu.
        if (global > per_gpu * gpus && global % gpus == 0 && (global / gpus) % per_gpu == 0) {
            d.set("workload.batch_per_gpu", std::int64_t{global / gpus}).set("workload.micro_batch", std::int64_t{per_gpu});
            step_samples = static_cast<double>(global / gpus) * gpus;
        } else {
            d.set("workload.batch_per_gpu", std::int64_t{per_gpu});
            step_samples = static_cast<double>(per_gpu) * gpus;
        }
    }
    if (row.at("metric") == "time_to_train_s") {
        if (const auto n = row.number("samples_to_train")) d.set("workload.samples", *n);
        else if (squad && contains(row.at("notes"), "2 epochs"))
            d.set("workload.samples", 2 * squad_v11_train_samples);
        else
            throw RowSkip{"the row states no amount of training"};
        const int round = mlperf_round(row.at("source"));
        if (round > 0 && vision) {
            d.set("workload.evaluation.every_samples", mlperf_resnet_eval_epochs * data::imagenet_train_images);
            d.set("workload.evaluation.samples", data::imagenet_val_images);
        } else if (vision && contains(row.at("source"), "PyTorch/Classification/ConvNets/")) {
            // DeepLearningExamples' image classification validates after every epoch unless
            // told not to (training.py's train_loop; main.py's --training-only skips it).
            d.set("workload.evaluation.every_samples", data::imagenet_train_images);
            d.set("workload.evaluation.samples", data::imagenet_val_images);
        } else if (round >= mlperf_bert_eval_rule_round && bert && !squad && int_cell(row, "global_batch") > 0) {
            d.set("workload.evaluation.every_samples", mlperf_bert_eval_interval(int_cell(row, "global_batch")));
            d.set("workload.evaluation.samples", mlperf_bert_eval_samples);
        }
    } else {
        d.set("workload.samples", step_samples * throughput_steps);
    }
    cluster_for(row, *gpu, gpus, d);
    if (gpus > 1 && lambda_benchmark(row)) {
        const int date = cited_log_date(row.at("source") + " " + row.at("notes"));
        if (date >= lambda_p2p_disabled_from && date < lambda_p2p_disabled_until && gpu->pcie_p2p)
            d.set("cluster.peer_to_peer", false);
    }
    for (const auto& [key, value] : what_if) d.set(key, value);
    return d;
}

double squad_warmup_s(int gpus) {
    return squad_warmup.base_s + squad_warmup.per_doubling_s * std::log2(static_cast<double>(std::max(gpus, 1)));
}

WarmupFit fit_squad_warmup(const std::string& file) {
    const CsvTable t = read_csv(file);
    std::vector<std::pair<int, double>> runs;
    for (const auto& r : t.rows) {
        const auto gpus = r.number("gpus");
        const auto warmup = r.number("warmup_s");
        if (!gpus || !(*gpus >= 1) || !warmup)
            throw InputError(file, "line " + std::to_string(r.line), "expected columns gpus (>= 1) and warmup_s");
        if (r.at("in_measured_csv") != "1") runs.emplace_back(static_cast<int>(*gpus), *warmup);
    }
    const auto median = [](std::vector<double> v) {
        if (v.empty()) return 0.0;
        const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
        std::nth_element(v.begin(), mid, v.end());
        if (v.size() % 2) return *mid;
        return (*mid + *std::max_element(v.begin(), mid)) / 2;
    };
    std::vector<double> single;
    for (const auto& [g, w] : runs)
        if (g == 1) single.push_back(w);
    WarmupFit fit;
    fit.base_s = median(single);
    std::vector<double> slopes;
    for (const auto& [g, w] : runs)
        if (g > 1) slopes.push_back((w - fit.base_s) / std::log2(static_cast<double>(g)));
    fit.per_doubling_s = median(slopes);
    return fit;
}

Harness harness_of_row(const CsvRow& row) {
    Harness h;
    h.replicas = independent_replicas(row);
    if (lambda_benchmark(row) && squad_row(row) && contains(row.at("notes"), "run_squad.py")) {
        const int gpus = std::max(1, int_cell(row, "gpus"));
        const int batch = int_cell(row, "batch_per_gpu");
        if (batch > 0) {
            const int per_rank = (squad_v11_train_features_384 + gpus - 1) / gpus;
            const int per_epoch = (per_rank + batch - 1) / batch;
            h.counted_steps = lambda_squad_max_steps;
            h.run_steps = std::min(lambda_squad_max_steps + 1, lambda_squad_epochs * per_epoch);
            h.warmup_s = squad_warmup_s(gpus);
        }
    }
    return h;
}

double training_metric(const std::string& metric, const Scenario& s, const Result& r, const Harness& harness) {
    // The share of the timed loop's rate the script reports (1 at steady state).
    double reported = 1.0;
    if (harness.counted_steps > 0 && r.iteration_s > 0)
        reported = harness.counted_steps * r.iteration_s / (harness.run_steps * r.iteration_s + harness.warmup_s);
    if (metric == "throughput_samples_per_s") return r.throughput_samples_per_s * harness.replicas * reported;
    if (metric == "throughput_tokens_per_s") return r.throughput_tokens_per_s * harness.replicas * reported;
    if (metric == "iteration_s") return r.iteration_s;
    if (metric == "time_to_train_s") return r.time_to_train_s;
    // Megatron's 2021 TFLOP/s count the recomputed forward (data README, Caveats): hardware FLOPs.
    if (metric == "tflops_per_gpu")
        return s.workload.parallelism.recompute == compute::Recompute::full ? r.hardware_tflops_per_gpu : r.tflops_per_gpu;
    if (metric == "mfu") return r.mfu;
    throw RowSkip{"metric '" + metric + "' is not predicted for training rows"};
}

}  // namespace rentsim::analysis
