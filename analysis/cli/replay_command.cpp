#include "analysis/cli/replay_command.hpp"

#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "analysis/replay/graph.hpp"
#include "analysis/replay/load.hpp"
#include "analysis/replay/output.hpp"
#include "analysis/replay/replay.hpp"
#include "analysis/replay/retarget.hpp"
#include "analysis/replay/timeline.hpp"
#include "analysis/report/atomic_file.hpp"
#include "analysis/scenario/input_error.hpp"

namespace rentsim::cli {

CLI::App* add_replay_command(CLI::App& app, ReplayOptions& o) {
    auto* cmd = app.add_subcommand("replay", "replay recorded traces (Kineto, Chakra) on the event engine, as recorded or "
                                             "retargeted to another GPU, precision or cluster size");
    cmd->add_option("traces", o.paths, "trace files, one per rank, or a folder of them")->required();
    cmd->add_option("--step", o.step, "the ProfilerStep number to replay (default: the last one every rank recorded)");
    cmd->add_option("--gpu", o.gpu, "retarget to this GPU (`rentsim list gpus`)");
    cmd->add_option("--gpus", o.gpus, "retarget to this many GPUs (data-parallel degree; collectives re-costed)");
    cmd->add_option("--precision", o.precision, "retarget the compute to this precision: fp32, tf32, fp16, bf16, fp8, fp4");
    cmd->add_option("--topology", o.topology, "topology preset of the target (default: the target GPU's usual server)");
    cmd->add_option("--recorded-gpu", o.recorded_gpu, "the GPU the trace was recorded on, when the trace does not say");
    cmd->add_option("--scale", o.scale, "with --gpus: weak (keep each GPU's work, the default) or strong (divide it)")
        ->check(CLI::IsMember({"weak", "strong"}));
    cmd->add_option("--out", o.out, "write the result as JSON");
    cmd->add_option("--timeline", o.timeline, "write the replay as Chrome trace JSON (Perfetto, chrome://tracing)");
    cmd->add_option("--timeline-max-spans", o.timeline_max_spans, "refuse a timeline of more spans (default 2000000)");
    return cmd;
}

int replay_command(const ReplayOptions& o) {
    if (o.step < -1) throw analysis::InputError("--step", "", fmt::format("expected a step number >= 0, got {}", o.step));
    if (o.gpus < 0) throw analysis::InputError("--gpus", "", fmt::format("expected a positive number of GPUs, got {}", o.gpus));
    const trace::Trace t = replay::load_trace(o.paths);
    replay::GraphOptions go;
    go.step = o.step;
    replay::ReplayGraph g = replay::build_graph(t, go);
    replay::RetargetOptions ro;
    ro.gpu = o.gpu;
    ro.recorded_gpu = o.recorded_gpu;
    ro.precision = o.precision;
    ro.gpus = o.gpus;
    ro.topology = o.topology;
    ro.strong = o.scale == "strong";
    std::optional<replay::RetargetSummary> summary;
    if (ro.any()) summary = replay::retarget(g, ro);
    const replay::ReplayResult r = replay::run_replay(g);
    std::vector<analysis::OutputFile> files;
    if (!o.out.empty()) files.push_back({o.out, replay::replay_json(g, r, summary)});
    if (!o.timeline.empty()) {
        const report::Timeline tl = replay::replay_timeline(g, r);
        report::TimelineLimits limits;
        limits.max_spans = o.timeline_max_spans;
        report::write_timeline(tl, o.timeline, limits);
    }
    if (!files.empty()) analysis::write_files_together(files);
    std::cout << replay::replay_table(g, r, summary);
    return 0;
}

}  // namespace rentsim::cli
