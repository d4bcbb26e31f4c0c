// PointNet++ SSG semantic segmentation (ScanNet configuration) against hand counts.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string_view>

#include "models/workloads/zoo.hpp"

using namespace rentsim::work;

namespace {

const Layer& find_layer(const Workload& w, std::string_view name) {
    for (const Layer& l : w.layers)
        if (l.name == name) return l;
    FAIL("no layer " << name);
    return w.layers.front();
}

const Op& find_op(const Layer& l, std::string_view name) {
    for (const Op& o : l.ops)
        if (o.name == name) return o;
    FAIL("no op " << name << " in " << l.name);
    return l.ops.front();
}

}  // namespace

TEST_CASE("PointNet++ SSG for ScanNet has 969,013 parameters by hand count") {
    // Each 1x1 conv k x n + n bias, each BatchNorm 2 n (tf_util.conv2d with bn = True):
    // sa1 3-32-32-64: 128 + 1056 + 2112 + 256 = 3552; sa2 67-64-64-128: 4352 + 4160 + 8320 + 512
    // = 17344; sa3 131-128-128-256: 16896 + 16512 + 33024 + 1024 = 67456; sa4 259-256-256-512:
    // 66560 + 65792 + 131584 + 2048 = 265984; fp4 768-256-256: 196864 + 65792 + 1024 = 263680;
    // fp3 384-256-256: 98560 + 65792 + 1024 = 165376; fp2 320-256-128: 82176 + 32896 + 768 =
    // 115840; fp1 128-128-128-128: 3 x 16512 + 768 = 50304; head fc1 16512 + 256, fc2 128 x 21
    // + 21 = 2709: 19477. Sum 969,013.
    const Workload w = pointnet2_semseg();
    CHECK(find_layer(w, "sa1").params == 3552);
    CHECK(find_layer(w, "sa4").params == 265984);
    CHECK(find_layer(w, "fp4").params == 263680);
    CHECK(find_layer(w, "head").params == 19477);
    CHECK(w.params() == 969013);
    CHECK(w.adam);
    CHECK(model_registry().find("pointnet2-ssg-scannet") != nullptr);
}

TEST_CASE("PointNet++ first set abstraction: FLOPs per sample by hand") {
    // 8192 points -> 1024 centres x 32 neighbours = 32768 rows, MLP 3-32-32-64.
    const Workload w = pointnet2_semseg();
    const Layer& sa1 = find_layer(w, "sa1");
    const double rows = 1024.0 * 32;
    // Convs: 2 x 32768 x (3 x 32 + 32 x 32 + 32 x 64) = 2 x 32768 x 3168.
    CHECK(find_op(sa1, "mlp1_conv").fwd_flops + find_op(sa1, "mlp2_conv").fwd_flops +
              find_op(sa1, "mlp3_conv").fwd_flops == 207618048.0);
    // FPS: 1024 rounds x 8192 points x 10 (distance 8, running min, arg-max compare).
    CHECK(find_op(sa1, "fps").fwd_flops == 83886080.0);
    CHECK(find_op(sa1, "fps").serial_rounds == 1024);
    // Ball query: 1024 centres x 8192 points x 9.
    CHECK(find_op(sa1, "ball_query").fwd_flops == 75497472.0);
    double total = 0;
    for (const Op& o : sa1.ops) total += o.fwd_flops;
    // + BN 7 x 32768 x 128 = 29360128, ReLU 32768 x 128 = 4194304, group 3 x 32768 = 98304,
    // max-pool 1024 x 64 x 31 = 2031616.
    CHECK(total == 207618048.0 + 83886080.0 + 75497472.0 + 29360128.0 + 4194304.0 + 98304.0 + 2031616.0);
    CHECK(find_op(sa1, "mlp1_conv").m == rows);
}

TEST_CASE("PointNet++ index ops have no backward, and the xyz input no gradient") {
    const Workload w = pointnet2_semseg();
    const Layer& sa1 = find_layer(w, "sa1");
    CHECK(backward_ops(find_op(sa1, "fps")).empty());
    CHECK(backward_ops(find_op(sa1, "ball_query")).empty());
    CHECK(backward_ops(find_op(sa1, "group")).empty());
    CHECK(backward_ops(find_op(find_layer(w, "fp1"), "three_nn")).empty());
    // The first conv sees relative xyz only: a weight gradient and no dgrad.
    const auto b = backward_ops(find_op(sa1, "mlp1_conv"));
    REQUIRE(b.size() == 1);
    CHECK(b[0].name == "wgrad");
    // Level 2 groups level-1 features: their gradient flows back through the gather.
    CHECK(backward_ops(find_op(find_layer(w, "sa2"), "group")).size() == 1);
    CHECK(backward_ops(find_op(find_layer(w, "fp1"), "interpolate")).size() == 1);
}

TEST_CASE("PointNet++ rejects too few points or classes") {
    CHECK_THROWS_WITH_AS(pointnet2_semseg({.points = 1000}), "pointnet2: 1000 points per sample, expected at least 1024 (the first level's centres)",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(pointnet2_semseg({.classes = 1}), "pointnet2: expected at least 2 classes, got 1",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(pointnet2_semseg({.centres = {1024, 256, 300, 16}}),
                         "pointnet2: expected decreasing positive centres per level, got 300 at level 3",
                         std::invalid_argument);
    // Fewer points shrink the first level's search but not its MLP.
    const Workload small = pointnet2_semseg({.points = 4096});
    CHECK(find_op(find_layer(small, "sa1"), "fps").fwd_flops == 1024.0 * 4096 * 10);
}

TEST_CASE("PointNet++ as PointNeXt configures it for S3DIS has its published 0.965M parameters") {
    // guochengqian/PointNeXt cfgs/s3dis/pointnet++.yaml (read 2026-12-02): in_channels 4, strides
    // 4 (15000 points -> 3750, 937, 234, 58 centres), the same widths, 13 classes, convs without
    // bias before a norm; its header lists 0.965M parameters. By hand from the ScanNet count:
    // 969,013 + 4 x 32 (sa1 reads 4 + 3 channels) + 4 x 128 (fp1 concatenates the 4 input
    // features) - 8 x 128 - 8 (13 classes instead of 21) - 3840 conv biases = 964,781.
    const Workload w = pointnet2_semseg(
        {.points = 15000, .in_features = 4, .classes = 13, .centres = {3750, 937, 234, 58}, .conv_bias = false});
    CHECK(w.params() == 964781);
    CHECK(std::abs(w.params() / 0.965e6 - 1) < 0.001);
}
