#include "models/network/network.hpp"

#include <doctest/doctest.h>

using namespace rentsim;
using namespace rentsim::net;

TEST_CASE("smoke") {
    TopologySpec s;
    s.preset = "dgx-a100";
    s.gpus = 64;
    const Network net(build_topology(s));
    for (double size : {32768.0, 1048576.0, 16777216.0, 134217728.0, 1073741824.0, 17179869184.0}) {
        for (int g : {8, 16, 64}) {
            const auto e = net.collective(Collective::all_reduce, units::bytes(size), g);
            MESSAGE(size << " " << g << " " << to_string(e.algorithm) << "/" << to_string(e.protocol) << " t=" << e.time.value*1e6 << "us busbw=" << e.busbw_gbps << " ch=" << e.channels);
        }
    }
}
