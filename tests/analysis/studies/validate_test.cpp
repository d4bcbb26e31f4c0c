#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "analysis/scenario/csv.hpp"
#include "analysis/studies/measured_row.hpp"
#include "analysis/studies/validate.hpp"
#include "tests/readme_section.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace rentsim;

namespace {
const std::string measured = std::string(RENTSIM_SOURCE_DIR) + "/models/compute/measurements/measured.csv";

// The scenario validation makes of one row of measured.csv.
analysis::Scenario row_scenario(const std::string& id) {
    for (const auto& r : analysis::read_csv(measured).rows)
        if (r.at("id") == id) return analysis::compile_scenario(analysis::training_draft(r));
    throw std::runtime_error("no row " + id);
}

// Validation of the rows of measured.csv that `factor` names, each with its measured value
// rewritten to its prediction times its factor: the model's error on it is then 1 / factor - 1.
analysis::ValidationReport validate_rewritten(const std::map<std::string, double>& factor) {
    const auto table = analysis::read_csv(measured);
    std::map<std::string, double> predicted;
    for (const auto& v : analysis::validate_file(measured).rows)
        if (factor.contains(v.id)) predicted[v.id] = v.predicted;
    REQUIRE(predicted.size() == factor.size());
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / ("rentsim-rewritten-rows-" + std::to_string(::getpid()) + ".csv");
    {
        std::ofstream out(file);
        const auto quoted = [](const std::string& cell) {
            std::string q = "\"";
            for (char c : cell) q += c == '"' ? std::string("\"\"") : std::string(1, c);
            return q + "\"";
        };
        for (std::size_t i = 0; i < table.header.size(); ++i) out << (i ? "," : "") << table.header[i];
        out << "\n";
        for (const auto& r : table.rows) {
            if (!factor.contains(r.at("id"))) continue;
            for (std::size_t i = 0; i < table.header.size(); ++i) {
                const std::string& col = table.header[i];
                const std::string cell = col == "value" ? fmt::format("{:.17g}", predicted.at(r.at("id")) * factor.at(r.at("id")))
                                                        : r.at(col);
                out << (i ? "," : "") << quoted(cell);
            }
            out << "\n";
        }
    }
    auto rep = analysis::validate_file(file.string());
    fs::remove(file);
    return rep;
}
}  // namespace

TEST_CASE("validation keeps every row of the file: predicted, or skipped with a reason") {
    const auto rep = analysis::validate_file(measured);
    const auto table = analysis::read_csv(measured);
    REQUIRE(rep.rows.size() == table.rows.size());
    for (const auto& r : rep.rows) {
        INFO(r.id);
        if (r.skipped.empty()) CHECK(r.predicted > 0);
        else CHECK(r.skipped.size() > 5);
    }
}

// The accuracy README.md states ("Validation"), as a floor that a change must not lower.
// The fidelity targets (85% of check rows predicted, median 5%, every category 10%) are not
// all met yet; the README says where the model is weak.
TEST_CASE("the check rows of measured.csv are predicted no worse than the README states") {
    const auto rep = analysis::validate_file(measured);
    const auto& check = rep.summary.at("all").at("check");
    INFO("check rows: " << check.n << ", median " << check.median_abs_error << ", mean " << check.mean_abs_error);
    CHECK(rep.check_predicted >= 380);
    CHECK(check.median_abs_error <= 0.09);
    CHECK(rep.summary.at("llm_throughput").at("check").median_abs_error <= 0.065);
    // The fidelity target of every category (10%): 9.6% since the reduced gradients' width became
    // the framework's and the calibrations were refitted with it.
    CHECK(rep.summary.at("dle_throughput").at("check").median_abs_error <= 0.10);
    // The Megatron A100 rows, which Calculon reports at 3.65% mean error.
    CHECK(rep.summary.at("megatron_scaling").at("check").mean_abs_error <= 0.10);
    test::check_readme_section("validation", analysis::validation_markdown(rep), "build/ci/tests/analysis/studies/studies_tests");
}

TEST_CASE("the README's ablation table is what switching each mechanism off gives") {
    test::check_readme_section("ablation", analysis::ablation_markdown(measured), "build/ci/tests/analysis/studies/studies_tests");
}

TEST_CASE("NVIDIA's MLPerf BERT runs attention as separate kernels in round v0.7, apex fmha from v1.0") {
    CHECK(row_scenario("MLP-042").workload.attention == work::AttentionKind::unfused);  // v0.7, DGX A100
    CHECK(row_scenario("MLP-045").workload.attention == work::AttentionKind::fmha);     // v1.0, DGX A100
    CHECK(row_scenario("MLP-054").workload.attention == work::AttentionKind::fmha);     // v2.1
}

TEST_CASE("DeepLearningExamples' BERT fuses as its scripts run it: TF2 under XLA, PyTorch pretraining under NVFuser") {
    // TensorFlow 2 (use_xla=true by default), pretraining and SQuAD alike.
    CHECK(row_scenario("DLE-090").workload.framework == "tensorflow-xla");
    CHECK(row_scenario("DLE-090").workload.fused_elementwise);
    CHECK(row_scenario("DLE-117").workload.framework == "tensorflow-xla");
    // PyTorch 21.11 pretraining is scripted (torch.jit.script, NVFuser); its SQuAD runs eagerly.
    CHECK(row_scenario("DLE-028").workload.framework == "nvidia-dle");
    CHECK(row_scenario("DLE-028").workload.fused_elementwise);
    CHECK_FALSE(row_scenario("DLE-054").workload.fused_elementwise);
    // TensorFlow 1 ResNet-50 keeps what its framework column says (XLA named there).
    CHECK(row_scenario("DLE-015").workload.framework == "tensorflow-xla");
}

TEST_CASE("MLPerf BERT computes GeLU in the GEMM's epilogue from round v2.0, as its configs pass --fused_gemm_gelu") {
    // v2.0 (NGC 22.04): NVIDIA's, Azure's and H3C's rows; v2.1 (22.09).
    for (const char* id : {"MLP-047", "MLP-048", "MLP-051", "MLP-052", "MLP-053", "MLP-054", "MLP-055"})
        CHECK_MESSAGE(row_scenario(id).workload.gemm_epilogue, id);
    // v1.0 (21.05) and v0.7 (20.06) ran the GeLU as a kernel of its own; so does every other stack.
    for (const char* id : {"MLP-045", "MLP-046", "MLP-042", "DLE-028", "SMX-001", "MLP-013"})
        CHECK_FALSE_MESSAGE(row_scenario(id).workload.gemm_epilogue, id);
}

TEST_CASE("MLPerf rows evaluate as the rules of their round say, DeepLearningExamples' PyTorch ResNet-50 every epoch") {
    const auto every = [](const std::string& id) { return row_scenario(id).workload.evaluation.every_samples; };
    const auto samples = [](const std::string& id) { return row_scenario(id).workload.evaluation.samples; };
    // ResNet-50: every 4 epochs of 1,281,167 images, over 50,000 validation images.
    CHECK(every("MLP-010") == 4 * 1281167.0);
    CHECK(samples("MLP-010") == 50000.0);
    // BERT from v1.0: FLOOR(0.05 x (230.23 x 448 + 3e6), 25,000) = FLOOR(155,157.2) = 150,000
    // (NVIDIA's 1-node configs: EVAL_ITER_SAMPLES=150000); at 3,072: FLOOR(185,363.3) = 175,000.
    CHECK(every("MLP-054") == 150000.0);
    CHECK(every("MLP-055") == 175000.0);
    CHECK(samples("MLP-054") == 10000.0);
    // v0.7 BERT states only a least frequency.
    CHECK(every("MLP-042") == 0.0);
    // DeepLearningExamples' PyTorch image classification validates after every epoch, over
    // the 50,000 validation images; its TensorFlow README estimates its times from its
    // throughput tables, so those rows train alone.
    CHECK(every("DLT-001") == 1281167.0);
    CHECK(samples("DLT-001") == 50000.0);
    CHECK(every("DLT-007") == 0.0);
}

TEST_CASE("Lambda's benchmark: Transformer-XL trains a model per GPU, and NCCL ran without peer-to-peer in late 2022") {
    const auto table = analysis::read_csv(measured);
    const auto row = [&](const std::string& id) -> const analysis::CsvRow& {
        for (const auto& r : table.rows)
            if (r.at("id") == id) return r;
        throw std::runtime_error("no row " + id);
    };
    const auto scenario = [&](const std::string& id) { return analysis::compile_scenario(analysis::training_draft(row(id))); };
    // 2 x RTX 4090, train.py without --multi_gpu: two single-GPU runs, their rates summed.
    CHECK(analysis::independent_replicas(row("LMB-220")) == 2);
    CHECK(scenario("LMB-220").cluster.gpus == 1);
    CHECK(analysis::independent_replicas(row("LMB-210")) == 1);  // the single-GPU run
    CHECK(analysis::independent_replicas(row("LMB-035")) == 1);  // BERT runs DDP
    // Logged 16-12-2022, inside the weeks the script exported NCCL_P2P_DISABLE=1.
    CHECK_FALSE(scenario("LMB-035").cluster.topology.peer_to_peer);
    // Logged 22-03-2023 and 2023-02-14: after it was commented out.
    CHECK(scenario("LMB-175").cluster.topology.peer_to_peer);
    CHECK(scenario("LAM-013").cluster.topology.peer_to_peer);
}

TEST_CASE("Lambda's SQuAD figures count 100 steps over a timed loop of up to 101 and its warm-up") {
    const auto table = analysis::read_csv(measured);
    const auto harness = [&](const std::string& id) {
        for (const auto& r : table.rows)
            if (r.at("id") == id) return analysis::harness_of_row(r);
        throw std::runtime_error("no row " + id);
    };
    // 8 x H200 NVL, BERT-base at 592 per GPU: ceil(ceil(88641 / 8) / 592) = 19 steps an epoch,
    // two epochs end the loop after 38 steps, the script still counts 100.
    const auto h200 = harness("LMB-313");
    CHECK(h200.counted_steps == 100);
    CHECK(h200.run_steps == 38);
    CHECK(h200.warmup_s == doctest::Approx(0.588 + 0.452 * 3));
    // 2 x V100, BERT-large at 8 per GPU: 5,541 steps an epoch; the loop breaks after 101.
    const auto v100 = harness("LMB-014");
    CHECK(v100.run_steps == 101);
    CHECK(v100.warmup_s == doctest::Approx(0.588 + 0.452));
    // The one-GPU run: the base warm-up alone.
    CHECK(harness("LMB-004").warmup_s == doctest::Approx(0.588));
    // Other scripts report their steady rate: NVIDIA's own SQuAD table, Lambda's ResNet-50.
    CHECK(harness("DLE-053").counted_steps == 0);
    CHECK(harness("LMB-101").counted_steps == 0);

    // The rate reported: 100 x step / (38 x step + warm-up) of the steady rate, by hand.
    analysis::Scenario s = row_scenario("LMB-313");
    analysis::Result r;
    r.iteration_s = 0.6;
    r.throughput_samples_per_s = 4736 / 0.6;
    CHECK(analysis::training_metric("throughput_samples_per_s", s, r, h200) ==
          doctest::Approx(4736 * 100 / (38 * 0.6 + 0.588 + 0.452 * 3)));
    CHECK(analysis::training_metric("throughput_samples_per_s", s, r) == doctest::Approx(4736 / 0.6));
}

TEST_CASE("the SQuAD warm-up constants are the fit of the Lambda logs they cite") {
    const auto fit = analysis::fit_squad_warmup(std::string(RENTSIM_SOURCE_DIR) +
                                                "/models/compute/measurements/lambda-squad-warmup.csv");
    CHECK(fit.base_s == doctest::Approx(0.588).epsilon(0.001));
    CHECK(fit.per_doubling_s == doctest::Approx(0.452).epsilon(0.002));
    CHECK(analysis::squad_warmup_s(1) == doctest::Approx(fit.base_s).epsilon(0.001));
    CHECK(analysis::squad_warmup_s(8) == doctest::Approx(fit.base_s + 3 * fit.per_doubling_s).epsilon(0.002));
}

TEST_CASE("a warm-up file with a row that is not a number is refused with its line") {
    const auto dir = std::filesystem::temp_directory_path() / ("rentsim_warmup_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = (dir / "bad.csv").string();
    std::ofstream(file) << "gpus,warmup_s,in_measured_csv\n1,0.5,0\n2,soon,0\n";
    try {
        (void)analysis::fit_squad_warmup(file);
        FAIL("expected an InputError");
    } catch (const std::exception& e) {
        const std::string what = e.what();
        CHECK(what.find("bad.csv") != std::string::npos);
        CHECK(what.find("line 3") != std::string::npos);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("DeepLearningExamples' SQuAD script updates with BertAdam in fp32 and TF32, apex FusedAdam in fp16") {
    const auto kernel = [](const std::string& id) { return row_scenario(id).workload.optimizer_kernel; };
    CHECK(kernel("LMB-104") == compute::OptimizerKernel::bert_adam);  // Lambda, A100, TF32
    CHECK(kernel("LMB-103") == compute::OptimizerKernel::fused);      // Lambda, A100, fp16
    CHECK(kernel("DLE-065") == compute::OptimizerKernel::bert_adam);  // NVIDIA, V100, fp32
    CHECK(kernel("DLE-066") == compute::OptimizerKernel::fused);      // NVIDIA, V100, fp16
    CHECK(kernel("DLE-061") == compute::OptimizerKernel::fused);      // pretraining: FusedLAMB
    // run_squad.py's GradientClipper clips by the global norm in every precision; the
    // pretraining script leaves it to FusedLAMB.
    const auto clip = [](const std::string& id) { return row_scenario(id).workload.grad_clip; };
    CHECK(clip("LMB-104") == compute::GradClip::global);
    CHECK(clip("DLE-066") == compute::GradClip::global);
    CHECK(clip("DLE-061") == compute::GradClip::none);
}

TEST_CASE("torch.optim updates one parameter at a time before PyTorch 2.0, and Transformer-XL's JITLamb always") {
    const auto kernel = [](const std::string& id) { return row_scenario(id).workload.optimizer_kernel; };
    // ResNet-50's torch.optim.SGD, no implementation argument: the release's default.
    CHECK(kernel("LMB-101") == compute::OptimizerKernel::for_loop);  // Lambda, PyTorch 1.13
    CHECK(kernel("DLE-002") == compute::OptimizerKernel::for_loop);  // NVIDIA, NGC 21.03
    CHECK(kernel("LMB-261") == compute::OptimizerKernel::foreach);   // Lambda on B200, PyTorch 2.x
    // Transformer-XL: train.py's --optim jitlamb (base), Lambda's large model on torch.optim.Adam.
    CHECK(kernel("LMB-107") == compute::OptimizerKernel::for_loop);
    CHECK(kernel("DLE-132") == compute::OptimizerKernel::for_loop);
    CHECK(kernel("LMB-009") == compute::OptimizerKernel::for_loop);  // PyTorch 1.13
}

TEST_CASE("each row's loss runs as its framework's loss kernel, Lambda's apex O2 Transformer-XL in fp16") {
    const auto loss = [](const std::string& id) { return row_scenario(id).workload.loss_kernel; };
    CHECK(loss("LFO-016") == compute::LossKernel::fused);  // llm-foundry: flash-attn's CrossEntropyLoss
    CHECK(loss("TTN-036") == compute::LossKernel::fp32);   // torchtitan: cross_entropy(pred.float())
    CHECK(loss("SMX-001") == compute::LossKernel::fp32);   // Megatron-Core: VocabParallelCrossEntropy
    CHECK(loss("LMB-107") == compute::LossKernel::eager);  // Lambda's Transformer-XL: apex O2, fp16 logits
    CHECK(loss("DLE-132") == compute::LossKernel::eager);  // DeepLearningExamples' Transformer-XL: the same
}

TEST_CASE("each row reduces its gradients as its framework does, apex O2's SQuAD runs in fp16") {
    const auto grad = [](const std::string& id) { return row_scenario(id).workload.grad_reduce; };
    CHECK(grad("LMB-113") == compute::GradReduce::param);  // Lambda's SQuAD, fp16: apex amp O2
    CHECK(grad("LMB-118") == compute::GradReduce::fp32);   // Lambda, tf32: 4-byte gradients
    CHECK(grad("TTN-036") == compute::GradReduce::fp32);   // torchtitan: mixed_precision_reduce float32
    CHECK(grad("LFO-001") == compute::GradReduce::param);  // llm-foundry: FSDP PURE
    CHECK(grad("MEG-001") == compute::GradReduce::param);  // Megatron-LM in fp16
    CHECK(grad("SMX-001") == compute::GradReduce::fp32);   // Megatron-Core in bf16
}

TEST_CASE("torchtitan's selective layer checkpointing replays every other block in full, its op mode every second matmul") {
    const auto layer = row_scenario("TTN-036").workload.parallelism;  // AC "selective layer"
    CHECK(layer.recompute == compute::Recompute::full);
    CHECK(layer.recompute_every == 2);
    const auto op = row_scenario("TTN-037").workload.parallelism;  // AC "selective op"
    CHECK(op.recompute == compute::Recompute::op);
    CHECK(op.recompute_every == 1);
    CHECK(row_scenario("TTN-031").workload.parallelism.recompute == compute::Recompute::op);  // "selective op AC"
    CHECK(row_scenario("TTN-038").workload.parallelism.recompute == compute::Recompute::full);
}

TEST_CASE("error statistics: mean, median of an even count and maximum") {
    const auto s = analysis::error_stats({0.3, 0.1, 0.2, 0.4});
    CHECK(s.n == 4);
    CHECK(s.mean_abs_error == doctest::Approx(0.25));
    CHECK(s.median_abs_error == doctest::Approx(0.25));
    CHECK(s.max_abs_error == doctest::Approx(0.4));
}

TEST_CASE("measurement rows with absurd shapes are skipped with their reasons, never run into the wall") {
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / ("rentsim-absurd-rows-" + std::to_string(::getpid()) + ".csv");
    const std::string header =
        "id,role,category,model,layers,hidden,heads,seq_len,vocab,ffn_hidden,gpu,gpus,gpus_per_node,precision,batch_per_gpu,"
        "global_batch,micro_batch,tp,pp,dp,sequence_parallel,recompute,zero,samples_to_train,metric,value,unit\n";
    const std::string gpt = "check,megatron_scaling,gpt,";
    {
        std::ofstream out(file);
        out << header
            // tp = pp = 65536: their product overflowed an int (was a division by zero).
            << "A1," << gpt << "24,2048,16,2048,51200,,a100-sxm4-80gb,64,8,fp16,,512,1,65536,65536,,,,,,tflops_per_gpu,100,TFLOP/s\n"
            // micro_batch 2^31: not an int (was a division by zero).
            << "A2," << gpt << "24,2048,16,2048,51200,,a100-sxm4-80gb,8,8,fp16,,512,2147483648,1,1,,,,,,tflops_per_gpu,100,TFLOP/s\n"
            // layers 1e9: beyond the range of layers (was a hang).
            << "A3," << gpt << "1000000000,2048,16,2048,51200,,a100-sxm4-80gb,8,8,fp16,,512,1,1,1,,,,,,tflops_per_gpu,100,TFLOP/s\n"
            // A value of 10,000 digits (was an internal error).
            << "A4," << gpt << "24,2048,16,2048,51200,,a100-sxm4-80gb,8,8,fp16,,512,1,1,1,,,,,,tflops_per_gpu,"
            << std::string(4000, '9') << ",TFLOP/s\n";
    }
    const auto rep = analysis::validate_file(file.string());
    fs::remove(file);
    REQUIRE(rep.rows.size() == 4);
    CHECK(rep.rows[0].skipped == "tp x pp x cp does not divide the GPU count");
    CHECK(rep.rows[1].skipped.starts_with("column 'micro_batch' is not a whole number in range"));
    CHECK(rep.rows[2].skipped == "expected at most 4096 layers, got 1000000000");
    CHECK(rep.rows[3].skipped.starts_with("column 'value': expected a finite number, got '9999"));
}

TEST_CASE("training rows are grouped by GPU count, with the signed error of the predicted rate") {
    CHECK(analysis::scale_group(1) == "1 GPU");
    CHECK(analysis::scale_group(2) == "2-8 GPUs");
    CHECK(analysis::scale_group(8) == "2-8 GPUs");
    CHECK(analysis::scale_group(9) == "9-64 GPUs");
    CHECK(analysis::scale_group(64) == "9-64 GPUs");
    CHECK(analysis::scale_group(65) == "65+ GPUs");

    // Four rows of measured.csv whose measured values are rewritten from their predictions:
    // the 512-GPU throughput at predicted / 1.25 (the model 25% faster), the 8-GPU time to
    // train at predicted / 1.25 (the model's time 25% longer: its rate 20% lower).
    const auto rep = validate_rewritten({{"LFO-016", 1 / 1.25}, {"MLP-001", 1 / 1.25}, {"LFO-052", 1.0}, {"DLE-002", 1.0}});
    REQUIRE(rep.rows.size() == 4);
    CHECK(rep.by_scale.at("65+ GPUs").at("check").n == 1);
    CHECK(rep.by_scale.at("65+ GPUs").at("check").median_abs_error == doctest::Approx(0.25));
    CHECK(rep.scale_rate_bias.at("65+ GPUs").at("check") == doctest::Approx(0.25));
    CHECK(rep.by_scale.at("2-8 GPUs").at("check").median_abs_error == doctest::Approx(0.25));
    CHECK(rep.scale_rate_bias.at("2-8 GPUs").at("check") == doctest::Approx(-0.2));
    CHECK(rep.by_scale.at("9-64 GPUs").at("check").median_abs_error == doctest::Approx(0.0).epsilon(1e-9));
    CHECK(rep.by_scale.at("1 GPU").at("calibrate").n == 1);
    CHECK(analysis::validation_text(rep).find("2-8 GPUs             check        1      25.0%      25.0%      25.0%      25.0%     -20.0%") !=
          std::string::npos);
}

TEST_CASE("a multi-GPU row is scored against the same run on one GPU: the speed-up the model predicts") {
    // DLE-002 and DLE-004 are one ResNet-50 fp16 recipe on one and on eight A100s; DLE-003 is
    // the TF32 recipe on eight, whose one-GPU row (DLE-001) is left out. The one-GPU rate is
    // rewritten 10% below its prediction, the eight-GPU rate 21% below: the model's speed-up
    // from one GPU is 1.21 / 1.1 = 1.1 times the measured one.
    const auto rep = validate_rewritten({{"DLE-002", 1 / 1.1}, {"DLE-004", 1 / 1.21}, {"DLE-003", 1.0}});
    REQUIRE(rep.rows.size() == 3);
    const auto& t = rep.twin_scaling;
    CHECK(t.rows.n == 1);
    CHECK(t.rows.median_abs_error == doctest::Approx(0.21));
    CHECK(t.twins.median_abs_error == doctest::Approx(0.1));
    CHECK(t.scaling.median_abs_error == doctest::Approx(0.1));
    CHECK(analysis::validation_text(rep).find("  speed-up from 1 GPU             1      10.0%      10.0%      10.0%      10.0%") !=
          std::string::npos);
    CHECK(analysis::validation_markdown(rep).find("| the speed-up from one GPU | 10.0% | 10.0% | 10.0% | 10.0% |") !=
          std::string::npos);
    // Without its twin a row is not scored this way.
    CHECK(validate_rewritten({{"DLE-004", 1.0}, {"DLE-003", 1.0}}).twin_scaling.rows.n == 0);
}
