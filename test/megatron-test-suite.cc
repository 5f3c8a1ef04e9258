/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Megatron-LM's weak-scaling table (SC'21, Table 1) against the simulation:
// its two smallest rows (1.7B on 32 GPUs, 3.6B on 64) at flow level, with the
// A100's maximum achievable matmul efficiency (the one setting, from a source
// independent of the table). doc/megatron-validation.md explains the figures.

#include "ns3/dlnet-module.h"
#include "ns3/test.h"

#include <cmath>
#include <iostream>

using namespace ns3;

namespace
{

/// The two smallest rows: FLOP count, throughput against the published, and the row-to-row
/// difference.
class MegatronSmallRowsTestCase : public TestCase
{
public:
    MegatronSmallRowsTestCase()
        : TestCase("1.7B on 32 GPUs and 3.6B on 64 at flow level: the paper's FLOP count, "
                   "TFLOPS per GPU against the published 137 and 138")
    {
    }

private:
    void DoRun() override
    {
        std::vector<MegatronRow> rows = ParseMegatronRows("rows", "1.7B,3.6B");
        std::vector<MegatronRowResult> results;
        for (const auto& row : rows)
        {
            MegatronRowResult r = RunMegatronRow(row, A100_MAMF_EFFICIENCY, "flow");
            // the paper's count (section 5.1), written out here: 96·B·s·l·h²(1 + s/6h + V/16lh)
            const double b = row.batch;
            const double s = 2048;
            const double l = row.layers;
            const double h = row.hidden;
            const double v = 51200;
            const double flops = 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
            NS_TEST_EXPECT_MSG_EQ_TOL(r.simulatorFlops / flops,
                                      1.0,
                                      1e-9,
                                      row.name << ": the training graph counts the paper's FLOPs");
            NS_TEST_EXPECT_MSG_EQ_TOL(r.tflopsPerGpu,
                                      flops / (r.iterationSeconds * row.gpus) / 1e12,
                                      1e-9,
                                      row.name << ": TFLOP/s per GPU from the formula");
            std::cout << row.name << ": " << r.tflopsPerGpu << " TFLOP/s per GPU simulated, "
                      << row.published << " published (" << 100 * r.deviation << "%), iteration "
                      << r.iterationSeconds << " s" << std::endl;
            // doc/megatron-validation.md: with the maximum achievable matmul efficiency the
            // simulation is 25-30% above the published throughput on every row (the acceptance
            // target of 10% is not met; the doc says why). This checks that documented figure.
            NS_TEST_EXPECT_MSG_GT(r.deviation, 0.20, row.name << ": deviation as documented");
            NS_TEST_EXPECT_MSG_LT(r.deviation, 0.35, row.name << ": deviation as documented");
            results.push_back(r);
        }
        // the difference between the rows (the network, TP 2 and its collectives) as published:
        // 138 / 137 per GPU, within 2%
        const double simulated = results[1].tflopsPerGpu / results[0].tflopsPerGpu;
        const double published = rows[1].published / rows[0].published;
        NS_TEST_EXPECT_MSG_EQ_TOL(
            simulated / published, 1.0, 0.02, "3.6B / 1.7B throughput as published");
    }
};

/// The suite.
class MegatronTestSuite : public TestSuite
{
public:
    MegatronTestSuite()
        : TestSuite("dlnet-megatron", UNIT)
    {
        AddTestCase(new MegatronSmallRowsTestCase, TestCase::QUICK);
    }
};

MegatronTestSuite g_megatronTestSuite;

} // namespace
