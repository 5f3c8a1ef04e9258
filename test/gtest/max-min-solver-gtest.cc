/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pure logic: max-min fair rates (progressive filling) with caps, weighted
// (sprayed) uses and strict priority. Every expected rate is computed by hand
// in the comment above it.

#include "ns3/max-min-solver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

constexpr double EPS = 1e-9;

/// A flow over unit-weight links.
uint32_t
Flow(MaxMinSolver& s, const std::vector<uint32_t>& links, uint8_t priority = 0)
{
    uint32_t f = s.AddFlow(priority);
    for (uint32_t l : links)
    {
        s.AddUse(f, l);
    }
    return f;
}

} // namespace

// Parking lot: a chain of 3 links of 10, one long flow over all of them and
// one short flow per link. Every link carries 2 flows: all rise to 10 / 2 = 5
// and every link is full at once.
TEST(MaxMinSolver, ParkingLotEqualLinks)
{
    MaxMinSolver s;
    s.Reset(3);
    for (uint32_t l = 0; l < 3; ++l)
    {
        s.SetCapacity(l, 10);
    }
    uint32_t longFlow = Flow(s, {0, 1, 2});
    std::vector<uint32_t> shortFlows = {Flow(s, {0}), Flow(s, {1}), Flow(s, {2})};
    s.Solve();
    EXPECT_NEAR(s.GetRate(longFlow), 5, EPS);
    for (uint32_t f : shortFlows)
    {
        EXPECT_NEAR(s.GetRate(f), 5, EPS);
    }
}

// Parking lot with a narrow middle link: capacities 10, 6, 10. The middle
// link fills first at 6 / 2 = 3 (long flow and s1 frozen at 3); links 0 and 2
// then hold 10 - 3 = 7 for their short flow alone.
TEST(MaxMinSolver, ParkingLotNarrowMiddle)
{
    MaxMinSolver s;
    s.Reset(3);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 6);
    s.SetCapacity(2, 10);
    uint32_t longFlow = Flow(s, {0, 1, 2});
    uint32_t s0 = Flow(s, {0});
    uint32_t s1 = Flow(s, {1});
    uint32_t s2 = Flow(s, {2});
    s.Solve();
    EXPECT_NEAR(s.GetRate(longFlow), 3, EPS);
    EXPECT_NEAR(s.GetRate(s1), 3, EPS);
    EXPECT_NEAR(s.GetRate(s0), 7, EPS);
    EXPECT_NEAR(s.GetRate(s2), 7, EPS);
}

// Parking lot of n = 8 links of 12 with n short flows: the long flow and
// every short one get 12 / 2 = 6, whatever n.
TEST(MaxMinSolver, ParkingLotLong)
{
    const uint32_t n = 8;
    MaxMinSolver s;
    s.Reset(n);
    std::vector<uint32_t> all;
    for (uint32_t l = 0; l < n; ++l)
    {
        s.SetCapacity(l, 12);
        all.push_back(l);
    }
    uint32_t longFlow = Flow(s, all);
    for (uint32_t l = 0; l < n; ++l)
    {
        Flow(s, {l});
    }
    s.Solve();
    for (uint32_t f = 0; f < s.GetNFlows(); ++f)
    {
        EXPECT_NEAR(s.GetRate(f), 6, EPS) << "flow " << f;
    }
    EXPECT_NEAR(s.GetRate(longFlow), 6, EPS);
}

// Incast: k = 4 senders on their own links of 100 into one receiver link of
// 100: the receiver link fills at 100 / 4 = 25 each, the senders' links stay
// at a quarter.
TEST(MaxMinSolver, Incast)
{
    const uint32_t k = 4;
    MaxMinSolver s;
    s.Reset(k + 1);
    for (uint32_t l = 0; l <= k; ++l)
    {
        s.SetCapacity(l, 100);
    }
    for (uint32_t i = 0; i < k; ++i)
    {
        Flow(s, {i, k});
    }
    s.Solve();
    for (uint32_t f = 0; f < k; ++f)
    {
        EXPECT_NEAR(s.GetRate(f), 25, EPS);
    }
}

// Unequal capacities: A crosses link 0 (10) and link 1 (100); B and C use
// link 1 only. Link 0 fills first at level 10 (A alone); link 1 would fill at
// 100 / 3 = 33.3, so A freezes at 10 and B and C share the rest: (100 - 10) / 2
// = 45 each.
TEST(MaxMinSolver, BottleneckedElsewhere)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 100);
    uint32_t a = Flow(s, {0, 1});
    uint32_t b = Flow(s, {1});
    uint32_t c = Flow(s, {1});
    s.Solve();
    EXPECT_NEAR(s.GetRate(a), 10, EPS);
    EXPECT_NEAR(s.GetRate(b), 45, EPS);
    EXPECT_NEAR(s.GetRate(c), 45, EPS);
}

// Caps: three flows on a link of 30, the first capped at 4. It freezes at 4
// (below 30 / 3 = 10); the other two share 30 - 4 = 26: 13 each. A flow with a
// cap and no link runs at its cap; one with neither is unbounded.
TEST(MaxMinSolver, Caps)
{
    MaxMinSolver s;
    s.Reset(1);
    s.SetCapacity(0, 30);
    uint32_t capped = s.AddFlow(0, 4);
    s.AddUse(capped, 0);
    uint32_t b = Flow(s, {0});
    uint32_t c = Flow(s, {0});
    uint32_t alone = s.AddFlow(0, 7);
    uint32_t free = s.AddFlow(0);
    s.Solve();
    EXPECT_NEAR(s.GetRate(capped), 4, EPS);
    EXPECT_NEAR(s.GetRate(b), 13, EPS);
    EXPECT_NEAR(s.GetRate(c), 13, EPS);
    EXPECT_NEAR(s.GetRate(alone), 7, EPS);
    EXPECT_EQ(s.GetRate(free), MaxMinSolver::NO_CAP);
}

// A cap above the fair share does not bind: two flows on 30, one capped at 20,
// both get 15.
TEST(MaxMinSolver, CapAboveShare)
{
    MaxMinSolver s;
    s.Reset(1);
    s.SetCapacity(0, 30);
    uint32_t a = s.AddFlow(0, 20);
    s.AddUse(a, 0);
    uint32_t b = Flow(s, {0});
    s.Solve();
    EXPECT_NEAR(s.GetRate(a), 15, EPS);
    EXPECT_NEAR(s.GetRate(b), 15, EPS);
}

// Weighted uses (spraying): S is split evenly over links 0 and 1 (weight 1/2
// each, capacity 10 each); X uses link 0 alone. Link 0 carries X + S/2: it
// fills at level 10 / 1.5 = 6.667, link 1 would only at 10 / 0.5 = 20. Both
// freeze at 20/3; link 1 carries 10/3.
TEST(MaxMinSolver, SprayedFlow)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 10);
    uint32_t sprayed = s.AddFlow(0);
    s.AddUse(sprayed, 0, 0.5);
    s.AddUse(sprayed, 1, 0.5);
    uint32_t x = Flow(s, {0});
    s.Solve();
    EXPECT_NEAR(s.GetRate(sprayed), 20.0 / 3, EPS);
    EXPECT_NEAR(s.GetRate(x), 20.0 / 3, EPS);
}

// A sprayed flow alone over two links of 10 gets 20 (each path takes half).
// Two uses of one link by one flow add up: paths that meet again (weights
// 0.5 + 0.5 on link 2 of 10) bound it to 10.
TEST(MaxMinSolver, SprayedPathsMeetAgain)
{
    MaxMinSolver s;
    s.Reset(3);
    for (uint32_t l = 0; l < 3; ++l)
    {
        s.SetCapacity(l, 10);
    }
    uint32_t f = s.AddFlow(0);
    s.AddUse(f, 0, 0.5);
    s.AddUse(f, 1, 0.5);
    s.Solve();
    EXPECT_NEAR(s.GetRate(f), 20, EPS);

    s.Reset(3);
    for (uint32_t l = 0; l < 3; ++l)
    {
        s.SetCapacity(l, 10);
    }
    f = s.AddFlow(0);
    s.AddUse(f, 0, 0.5);
    s.AddUse(f, 1, 0.5);
    s.AddUse(f, 2, 0.5);
    s.AddUse(f, 2, 0.5);
    s.Solve();
    EXPECT_NEAR(s.GetRate(f), 10, EPS);
}

// Strict priority: on a link of 10, a priority-0 flow capped at 4 takes 4;
// the two priority-1 flows share what is left: (10 - 4) / 2 = 3 each.
TEST(MaxMinSolver, PriorityTakesWhatItNeeds)
{
    MaxMinSolver s;
    s.Reset(1);
    s.SetCapacity(0, 10);
    uint32_t high = s.AddFlow(0, 4);
    s.AddUse(high, 0);
    uint32_t low1 = Flow(s, {0}, 1);
    uint32_t low2 = Flow(s, {0}, 1);
    s.Solve();
    EXPECT_NEAR(s.GetRate(high), 4, EPS);
    EXPECT_NEAR(s.GetRate(low1), 3, EPS);
    EXPECT_NEAR(s.GetRate(low2), 3, EPS);
}

// Starvation: an uncapped priority-0 flow takes the whole link of 10; the
// priority-1 flow on it gets 0 even though its other link (1, of 10) is idle,
// and a priority-1 flow on link 1 alone gets all 10 of it.
TEST(MaxMinSolver, PriorityStarves)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 10);
    uint32_t low = Flow(s, {1, 0}, 1); // added before the high one: order does not matter
    uint32_t high = Flow(s, {0}, 0);
    uint32_t other = Flow(s, {1}, 1);
    s.Solve();
    EXPECT_NEAR(s.GetRate(high), 10, EPS);
    EXPECT_NEAR(s.GetRate(low), 0, EPS);
    EXPECT_NEAR(s.GetRate(other), 10, EPS);
}

// Priority and a bottleneck elsewhere: the priority-0 flow crosses link 0 (10)
// and link 1 (2): it runs at 2 and leaves 8 of link 0 to the two priority-1
// flows there (4 each).
TEST(MaxMinSolver, PriorityBottleneckedElsewhere)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 2);
    uint32_t high = Flow(s, {0, 1}, 0);
    uint32_t a = Flow(s, {0}, 1);
    uint32_t b = Flow(s, {0}, 1);
    s.Solve();
    EXPECT_NEAR(s.GetRate(high), 2, EPS);
    EXPECT_NEAR(s.GetRate(a), 4, EPS);
    EXPECT_NEAR(s.GetRate(b), 4, EPS);
}

// Three priorities on a link of 12: class 0 capped at 3 (3), class 1 capped
// at 5 (5), class 2 takes the rest: 12 - 3 - 5 = 4.
TEST(MaxMinSolver, ThreePriorities)
{
    MaxMinSolver s;
    s.Reset(1);
    s.SetCapacity(0, 12);
    uint32_t c2 = Flow(s, {0}, 2);
    uint32_t c1 = s.AddFlow(1, 5);
    s.AddUse(c1, 0);
    uint32_t c0 = s.AddFlow(0, 3);
    s.AddUse(c0, 0);
    s.Solve();
    EXPECT_NEAR(s.GetRate(c0), 3, EPS);
    EXPECT_NEAR(s.GetRate(c1), 5, EPS);
    EXPECT_NEAR(s.GetRate(c2), 4, EPS);
}

// Two bottlenecks at the same level: link 0 (10) carries a and L, link 1 (10)
// carries b and L, link 2 (30) carries L and c. Links 0 and 1 both fill at 5:
// a = b = L = 5; link 2 then leaves 30 - 5 = 25 to c.
TEST(MaxMinSolver, TwoEqualBottlenecks)
{
    MaxMinSolver s;
    s.Reset(3);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 10);
    s.SetCapacity(2, 30);
    uint32_t a = Flow(s, {0});
    uint32_t l = Flow(s, {0, 1, 2});
    uint32_t b = Flow(s, {1});
    uint32_t c = Flow(s, {2});
    s.Solve();
    EXPECT_NEAR(s.GetRate(a), 5, EPS);
    EXPECT_NEAR(s.GetRate(b), 5, EPS);
    EXPECT_NEAR(s.GetRate(l), 5, EPS);
    EXPECT_NEAR(s.GetRate(c), 25, EPS);
}

// Equal levels reached one after the other: link 0 (6) carries a, b, c; link 1
// (4) carries c and d. Link 0 fills at 2 and link 1 at 2 too: all four get 2,
// and both links are full (6 = 3 x 2, 4 = 2 x 2).
TEST(MaxMinSolver, EqualLevelsThroughSharedFlow)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 6);
    s.SetCapacity(1, 4);
    uint32_t a = Flow(s, {0});
    uint32_t b = Flow(s, {0});
    uint32_t c = Flow(s, {0, 1});
    uint32_t d = Flow(s, {1});
    s.Solve();
    for (uint32_t f : {a, b, c, d})
    {
        EXPECT_NEAR(s.GetRate(f), 2, EPS) << "flow " << f;
    }
}

// Max-min, not proportional: link 0 (10) carries a and L, link 1 (4) carries L
// and d. Link 1 fills first at 2 (L = d = 2); link 0 then gives a 10 - 2 = 8.
TEST(MaxMinSolver, LevelsRiseAfterFreezing)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 4);
    uint32_t a = Flow(s, {0});
    uint32_t l = Flow(s, {0, 1});
    uint32_t d = Flow(s, {1});
    s.Solve();
    EXPECT_NEAR(s.GetRate(l), 2, EPS);
    EXPECT_NEAR(s.GetRate(d), 2, EPS);
    EXPECT_NEAR(s.GetRate(a), 8, EPS);
}

// The solver keeps its buffers between problems: a smaller problem after a
// larger one gives its own answer (one flow alone on a link of 3: 3).
TEST(MaxMinSolver, ResetBetweenProblems)
{
    MaxMinSolver s;
    s.Reset(4);
    for (uint32_t l = 0; l < 4; ++l)
    {
        s.SetCapacity(l, 8);
    }
    for (uint32_t i = 0; i < 4; ++i)
    {
        Flow(s, {0, 1, 2, 3});
    }
    s.Solve();
    EXPECT_NEAR(s.GetRate(0), 2, EPS);
    s.Reset(1);
    s.SetCapacity(0, 3);
    uint32_t f = Flow(s, {0});
    s.Solve();
    EXPECT_EQ(s.GetNFlows(), 1u);
    EXPECT_NEAR(s.GetRate(f), 3, EPS);
}

// Per-link priorities (a torus's dateline moves a flow to virtual channel 1 on
// the way): a flow low (1) on link 0 and high (0) on link 1, both of 10. On
// link 0 a high flow capped at 4 takes 4 and leaves 6: the mixed flow runs at
// 6. On link 1 it goes first, and the low flow there gets 10 - 6 = 4. (One
// priority per flow, its first link's, would put both on link 1 in class 1:
// 5 each.)
TEST(MaxMinSolver, MixedLowThenHigh)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 10);
    uint32_t mixed = s.AddFlow(1);
    s.AddUse(mixed, 0, 1.0, 1);
    s.AddUse(mixed, 1, 1.0, 0);
    uint32_t high = s.AddFlow(0, 4);
    s.AddUse(high, 0);
    uint32_t low = Flow(s, {1}, 1);
    s.Solve();
    EXPECT_NEAR(s.GetRate(high), 4, 1e-6);
    EXPECT_NEAR(s.GetRate(mixed), 6, 1e-6);
    EXPECT_NEAR(s.GetRate(low), 4, 1e-6);
    EXPECT_GT(s.GetIterations(), 0u);
    EXPECT_LE(s.GetIterations(), MaxMinSolver::MAX_ITERATIONS);
}

// Three classes on one link, the lowest of them mixed: link 0 (10) carries a
// (class 0, capped at 5), b (class 1, capped at 3) and c, class 2 there and
// class 0 on link 1 (100). a takes 5, b 3 of the 5 left, c the last 2 (link
// 1 holds it at no less). Each class gets what every class above it leaves;
// one class for all would give 3.5, 3 and 3.5.
TEST(MaxMinSolver, MixedThreeClassesOnOneLink)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 100);
    uint32_t a = s.AddFlow(0, 5);
    s.AddUse(a, 0, 1.0, 0);
    uint32_t b = s.AddFlow(1, 3);
    s.AddUse(b, 0, 1.0, 1);
    uint32_t c = s.AddFlow(2);
    s.AddUse(c, 0, 1.0, 2);
    s.AddUse(c, 1, 1.0, 0);
    s.Solve();
    EXPECT_NEAR(s.GetRate(a), 5, 1e-6);
    EXPECT_NEAR(s.GetRate(b), 3, 1e-6);
    EXPECT_NEAR(s.GetRate(c), 2, 1e-6);
}

// High on its first link, low on its second: links 0 and 1 of 10. On link 0
// the mixed flow (high) shares with nothing of its class; a low flow there
// gets what it leaves. On link 1 an uncapped high flow and the mixed flow
// (low): the high flow takes all 10, the mixed flow starves (0), and the low
// flow on link 0 gets all 10.
TEST(MaxMinSolver, MixedHighThenStarved)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 10);
    uint32_t mixed = s.AddFlow(0);
    s.AddUse(mixed, 0, 1.0, 0);
    s.AddUse(mixed, 1, 1.0, 1);
    uint32_t lowOn0 = Flow(s, {0}, 1);
    uint32_t highOn1 = Flow(s, {1}, 0);
    s.Solve();
    EXPECT_NEAR(s.GetRate(highOn1), 10, 1e-6);
    EXPECT_NEAR(s.GetRate(mixed), 0, 1e-6);
    EXPECT_NEAR(s.GetRate(lowOn0), 10, 1e-6);
}

// A chain through both classes: link 0 (10) carries d (high, capped at 7) and
// the mixed flow a (low): a <= 3. On link 1 (10) a is high and takes its 3;
// the two low flows e and f share 10 - 3 = 7: 3.5 each.
TEST(MaxMinSolver, MixedChain)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 10);
    uint32_t d = s.AddFlow(0, 7);
    s.AddUse(d, 0);
    uint32_t a = s.AddFlow(1);
    s.AddUse(a, 0, 1.0, 1);
    s.AddUse(a, 1, 1.0, 0);
    uint32_t e = Flow(s, {1}, 1);
    uint32_t f = Flow(s, {1}, 1);
    s.Solve();
    EXPECT_NEAR(s.GetRate(d), 7, 1e-6);
    EXPECT_NEAR(s.GetRate(a), 3, 1e-6);
    EXPECT_NEAR(s.GetRate(e), 3.5, 1e-6);
    EXPECT_NEAR(s.GetRate(f), 3.5, 1e-6);
}

// Two mixed flows, each the other's low-priority competitor: a is high on
// link 0 and low on link 1, b the other way round, both links of 10. Each link
// carries both, so a + b <= 10 on each; every split is a fixed point of strict
// priority and the max-min fair one is 5 and 5 (the iteration swings between
// 10 and 0 undamped; averaged it settles there).
TEST(MaxMinSolver, MixedCycle)
{
    MaxMinSolver s;
    s.Reset(2);
    s.SetCapacity(0, 10);
    s.SetCapacity(1, 10);
    uint32_t a = s.AddFlow(0);
    s.AddUse(a, 0, 1.0, 0);
    s.AddUse(a, 1, 1.0, 1);
    uint32_t b = s.AddFlow(0);
    s.AddUse(b, 1, 1.0, 0);
    s.AddUse(b, 0, 1.0, 1);
    s.Solve();
    EXPECT_NEAR(s.GetRate(a), 5, 1e-6);
    EXPECT_NEAR(s.GetRate(b), 5, 1e-6);
}

// Without a flow of two priorities nothing changes: the classes are solved
// one after another (no iteration), and the same problem with every use given
// its flow's priority explicitly gives the same rates (parking lot of three
// links 10, 6, 10: long flow priority 1, a short flow of priority 0 capped at
// 2 on the middle link, short flows of priority 1 on each link).
TEST(MaxMinSolver, UniformUsePrioritiesUnchanged)
{
    std::vector<double> rates[2];
    for (int explicitUses = 0; explicitUses < 2; ++explicitUses)
    {
        MaxMinSolver s;
        s.Reset(3);
        s.SetCapacity(0, 10);
        s.SetCapacity(1, 6);
        s.SetCapacity(2, 10);
        auto add = [&](uint8_t priority, double cap, const std::vector<uint32_t>& links)
        {
            uint32_t f = s.AddFlow(priority, cap);
            for (uint32_t l : links)
            {
                if (explicitUses)
                {
                    s.AddUse(f, l, 1.0, priority);
                }
                else
                {
                    s.AddUse(f, l);
                }
            }
        };
        add(1, MaxMinSolver::NO_CAP, {0, 1, 2});
        add(0, 2, {1});
        add(1, MaxMinSolver::NO_CAP, {0});
        add(1, MaxMinSolver::NO_CAP, {1});
        add(1, MaxMinSolver::NO_CAP, {2});
        s.Solve();
        EXPECT_EQ(s.GetIterations(), 0u);
        for (uint32_t f = 0; f < s.GetNFlows(); ++f)
        {
            rates[explicitUses].push_back(s.GetRate(f));
        }
    }
    // middle link: 2 to the high flow, 4 left for long and s1: 2 each; links 0
    // and 2: 10 - 2 = 8 for their short flow
    std::vector<double> expected = {2, 2, 8, 2, 8};
    for (uint32_t f = 0; f < 5; ++f)
    {
        EXPECT_NEAR(rates[0][f], expected[f], EPS);
        EXPECT_EQ(rates[0][f], rates[1][f]);
    }
}

// One solve of the torus 4x4 double binary tree (1 MiB all-reduce, flow level,
// at 23.2 us), ring links only (100 each; the NPU links, 400, carry at most
// 100 here and never bind). Level 0 is virtual channel 1 (past a dateline),
// level 1 virtual channel 0. The strict-priority max-min rates by hand:
// 14>2 and 2>6 carry 14->6 and 13->6 at level 0: 50 each, and 3->10 (level 1
// on 2>6) starves. 13->6 is at level 1 on 13>14 with 12->14 (50 left for it),
// and 12->14 shares 12>13 with 12->5: 50 each. 12->5 goes first on 1>5 (50),
// 1->9 and 2->9 share the other 50 there: 25 each. 11>8 carries 11->5 and
// 10->4 at level 0: 50 each; 10->4 and 9->4 fill 8>4 at level 1: 50. 5>6
// carries 4->10, 5->11 and 5->2 at level 1: 100/3 each; 6->11 takes the rest
// of 6>7: 200/3. Every link named is then full or its flows are held
// elsewhere: the allocation the definition asks for (a fixed point that the
// iteration reaches; checked on every solve of that run with a script, not
// kept).
TEST(MaxMinSolver, MixedTorusTreeStep)
{
    // ring links, "a>b" router a to router b
    const std::vector<std::pair<int, int>> links = {
        {3, 2},  {2, 6}, {6, 10}, {12, 13}, {13, 1},  {1, 5},  {13, 14},
        {14, 2}, {4, 5}, {5, 6},  {5, 9},   {2, 1},   {11, 8}, {8, 9},
        {9, 5},  {6, 7}, {7, 11}, {6, 2},   {10, 11}, {8, 4},  {9, 8},
    };
    auto link = [&links](int a, int b) -> uint32_t
    {
        for (uint32_t i = 0; i < links.size(); ++i)
        {
            if (links[i].first == a && links[i].second == b)
            {
                return i;
            }
        }
        ADD_FAILURE() << a << ">" << b;
        return 0;
    };
    MaxMinSolver s;
    s.Reset(links.size());
    for (uint32_t l = 0; l < links.size(); ++l)
    {
        s.SetCapacity(l, 100);
    }
    // a flow over routers: each hop's level (0: VC 1, 1: VC 0)
    auto flow = [&](const std::vector<int>& routers, const std::vector<uint8_t>& levels)
    {
        uint32_t f = s.AddFlow(levels[0]);
        for (std::size_t h = 0; h + 1 < routers.size(); ++h)
        {
            s.AddUse(f, link(routers[h], routers[h + 1]), 1.0, levels[h]);
        }
        return f;
    };
    uint32_t f3to10 = flow({3, 2, 6, 10}, {1, 1, 1});
    uint32_t f12to5 = flow({12, 13, 1, 5}, {1, 0, 0});
    uint32_t f12to14 = flow({12, 13, 14}, {1, 1});
    uint32_t f14to6 = flow({14, 2, 6}, {0, 0});
    uint32_t f13to6 = flow({13, 14, 2, 6}, {1, 0, 0});
    uint32_t f4to10 = flow({4, 5, 6, 10}, {1, 1, 1});
    uint32_t f1to9 = flow({1, 5, 9}, {1, 1});
    uint32_t f2to9 = flow({2, 1, 5, 9}, {1, 1, 1});
    uint32_t f11to5 = flow({11, 8, 9, 5}, {0, 0, 1});
    uint32_t f5to11 = flow({5, 6, 7, 11}, {1, 1, 1});
    uint32_t f5to2 = flow({5, 6, 2}, {1, 1});
    uint32_t f10to4 = flow({10, 11, 8, 4}, {1, 0, 1});
    uint32_t f6to11 = flow({6, 7, 11}, {1, 1});
    uint32_t f9to4 = flow({9, 8, 4}, {1, 1});
    s.Solve();
    EXPECT_GT(s.GetIterations(), 0u);
    EXPECT_LT(s.GetIterations(), MaxMinSolver::MAX_ITERATIONS); // converged
    EXPECT_NEAR(s.GetRate(f3to10), 0, 1e-6);
    EXPECT_NEAR(s.GetRate(f12to5), 50, 1e-6);
    EXPECT_NEAR(s.GetRate(f12to14), 50, 1e-6);
    EXPECT_NEAR(s.GetRate(f14to6), 50, 1e-6);
    EXPECT_NEAR(s.GetRate(f13to6), 50, 1e-6);
    EXPECT_NEAR(s.GetRate(f1to9), 25, 1e-6);
    EXPECT_NEAR(s.GetRate(f2to9), 25, 1e-6);
    EXPECT_NEAR(s.GetRate(f11to5), 50, 1e-6);
    EXPECT_NEAR(s.GetRate(f10to4), 50, 1e-6);
    EXPECT_NEAR(s.GetRate(f9to4), 50, 1e-6);
    EXPECT_NEAR(s.GetRate(f4to10), 100.0 / 3, 1e-6);
    EXPECT_NEAR(s.GetRate(f5to11), 100.0 / 3, 1e-6);
    EXPECT_NEAR(s.GetRate(f5to2), 100.0 / 3, 1e-6);
    EXPECT_NEAR(s.GetRate(f6to11), 200.0 / 3, 1e-6);
}

namespace
{
/// A random problem: links of a few capacities, flows over a few of them (sprayed
/// weights, caps, priorities, and with `mixed` uses at another priority than the flow's).
void
RandomProblem(MaxMinSolver& s, uint64_t seed, bool mixed)
{
    uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
    auto next = [&state]()
    {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return uint32_t(state >> 33);
    };
    uint32_t links = 1 + next() % 12;
    s.Reset(links);
    for (uint32_t l = 0; l < links; ++l)
    {
        s.SetCapacity(l, 25.0 * (1 + next() % 4));
    }
    uint32_t flows = 1 + next() % 10;
    for (uint32_t i = 0; i < flows; ++i)
    {
        uint8_t priority = next() % 3;
        double cap = next() % 4 == 0 ? 5.0 + next() % 40 : MaxMinSolver::NO_CAP;
        uint32_t f = s.AddFlow(priority, cap);
        uint32_t uses = next() % 4;
        for (uint32_t u = 0; u < uses; ++u)
        {
            double weight = next() % 3 == 0 ? 1.0 / (2 + next() % 3) : 1.0;
            uint8_t at = mixed && next() % 4 == 0 ? next() % 3 : priority;
            s.AddUse(f, next() % links, weight, at);
        }
    }
}
} // namespace

// SetMemory: a solver that remembers its problems gives every problem the rates, bit for bit,
// of one that does not, whether a problem is new, kept (the second time it comes), taken
// from memory (the third time and after), or forgotten (a budget of 4 KiB fills and
// empties over and over). 300 random problems of which 60 different ones, in a scrambled
// order, with and without mixed use priorities (the fixed point); the memory must be used.
TEST(MaxMinSolver, MemoryGivesTheSameRates)
{
    for (bool mixed : {false, true})
    {
        for (std::size_t budget : {std::size_t(4096), std::size_t(1) << 20})
        {
            MaxMinSolver fresh;
            MaxMinSolver remembering;
            remembering.SetMemory(budget);
            for (uint32_t i = 0; i < 300; ++i)
            {
                uint64_t seed = (i * 37) % 60;
                RandomProblem(fresh, seed, mixed);
                RandomProblem(remembering, seed, mixed);
                fresh.Solve();
                remembering.Solve();
                ASSERT_EQ(fresh.GetNFlows(), remembering.GetNFlows());
                EXPECT_EQ(fresh.GetIterations(), remembering.GetIterations());
                for (uint32_t f = 0; f < fresh.GetNFlows(); ++f)
                {
                    double a = fresh.GetRate(f);
                    double b = remembering.GetRate(f);
                    ASSERT_EQ(std::memcmp(&a, &b, sizeof(double)), 0)
                        << "problem " << seed << " flow " << f << ": " << a << " vs " << b;
                }
            }
            EXPECT_GT(remembering.GetMemoryHits(), budget > 4096 ? 150u : 0u);
            EXPECT_EQ(fresh.GetMemoryHits(), 0u);
        }
    }
}

// Problems that differ in one field only (a capacity, a cap, a weight, a use's priority or
// link, a use more) are different problems: none takes another's rates.
TEST(MaxMinSolver, MemoryTellsProblemsApart)
{
    MaxMinSolver s;
    s.SetMemory(1 << 20);
    auto solve =
        [&s](double capacity, double cap, double weight, uint8_t priority, uint32_t link, bool more)
    {
        s.Reset(2);
        s.SetCapacity(0, capacity);
        s.SetCapacity(1, 10);
        uint32_t a = s.AddFlow(0, cap);
        s.AddUse(a, link, weight, priority);
        if (more)
        {
            s.AddUse(a, 1 - link, 1.0, 0);
        }
        uint32_t b = s.AddFlow(0);
        s.AddUse(b, 0, 1.0, 0);
        s.Solve();
        return std::make_pair(s.GetRate(a), s.GetRate(b));
    };
    for (int round = 0; round < 3; ++round) // (kept the second time, recalled the third)
    {
        // link 0 of 10 shared evenly: 5 each
        EXPECT_NEAR(solve(10, MaxMinSolver::NO_CAP, 1.0, 0, 0, false).first, 5, EPS);
        // of 20: 10 each
        EXPECT_NEAR(solve(20, MaxMinSolver::NO_CAP, 1.0, 0, 0, false).first, 10, EPS);
        // a capped at 2: b takes the other 8
        EXPECT_NEAR(solve(10, 2, 1.0, 0, 0, false).second, 8, EPS);
        // a at weight 1/2 on link 0: level 10 / 1.5, a and b at 20/3
        EXPECT_NEAR(solve(10, MaxMinSolver::NO_CAP, 0.5, 0, 0, false).second, 20.0 / 3, EPS);
        // a at priority 1 on link 0 (mixed: the fixed point): b first, 10, a starves
        EXPECT_NEAR(solve(10, MaxMinSolver::NO_CAP, 1.0, 1, 0, false).second, 10, EPS);
        // a on link 1 alone: 10, and b alone on link 0: 10
        EXPECT_NEAR(solve(10, MaxMinSolver::NO_CAP, 1.0, 0, 1, false).first, 10, EPS);
        // a on links 1 and 0 (of 4): 2 each
        EXPECT_NEAR(solve(4, MaxMinSolver::NO_CAP, 1.0, 0, 1, true).first, 2, EPS);
    }
    EXPECT_EQ(s.GetMemoryHits(), 7u);
}

/// A key of the heap tests: a level, ties broken by id (a strict total order, as the
/// solver's).
struct HeapKey
{
    uint32_t level;
    uint32_t id;

    bool operator<(const HeapKey& o) const
    {
        return level != o.level ? level < o.level : id < o.id;
    }
};

// The indexed heap the solver's progressive filling and the flow network's finish times run
// on: entries come out in key order whatever the order keys were set, moved and removed in
// (checked against a sorted reference over 20000 random operations on 200 ids, keys from a
// small range so that many move to a key another entry had).
TEST(IndexedHeap, MatchesASortedReference)
{
    using Key = HeapKey;
    const uint32_t ids = 200;
    IndexedHeap<Key> heap;
    heap.Reset(ids);
    std::vector<int64_t> reference(ids, -1); // by id: its level, or -1
    uint64_t state = 12345;
    auto next = [&state]()
    {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return uint32_t(state >> 33);
    };
    auto least = [&reference]()
    {
        uint32_t best = UINT32_MAX;
        for (uint32_t id = 0; id < reference.size(); ++id)
        {
            if (reference[id] >= 0 && (best == UINT32_MAX || reference[id] < reference[best]))
            {
                best = id; // (ties: the lower id, as Key orders them)
            }
        }
        return best;
    };
    uint32_t entries = 0;
    for (int step = 0; step < 20000; ++step)
    {
        uint32_t id = next() % ids;
        uint32_t op = next() % 4;
        if (op < 2)
        {
            uint32_t level = next() % 50;
            entries += reference[id] < 0;
            heap.Set(id, Key{level, id});
            reference[id] = level;
        }
        else if (op == 2)
        {
            entries -= reference[id] >= 0;
            heap.Remove(id);
            reference[id] = -1;
        }
        else if (!heap.Empty())
        {
            uint32_t top = least();
            ASSERT_EQ(heap.Top(), top);
            ASSERT_EQ(heap.TopKey().level, reference[top]);
            heap.Pop();
            reference[top] = -1;
            --entries;
        }
        ASSERT_EQ(heap.Size(), entries);
        ASSERT_EQ(heap.Contains(id), reference[id] >= 0);
    }
    while (!heap.Empty()) // the rest in order
    {
        uint32_t top = least();
        ASSERT_EQ(heap.Top(), top);
        heap.Pop();
        reference[top] = -1;
    }
    EXPECT_EQ(least(), UINT32_MAX);
}

// The heap built in one go (Add, then Heapify) gives its entries in key order, and
// moves and removals after it keep that order (the solver builds its level heap so).
TEST(IndexedHeap, HeapifyMatchesASortedReference)
{
    using Key = HeapKey;
    uint64_t state = 777;
    auto next = [&state]()
    {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return uint32_t(state >> 33);
    };
    for (uint32_t size : {0u, 1u, 2u, 7u, 64u, 333u})
    {
        IndexedHeap<Key> heap;
        heap.Reset(size);
        std::vector<int64_t> reference(size, -1);
        for (uint32_t id = 0; id < size; ++id)
        {
            if (next() % 5 != 0)
            {
                uint32_t level = next() % 20;
                heap.Add(id, Key{level, id});
                reference[id] = level;
            }
        }
        heap.Heapify();
        for (uint32_t k = 0; k < size / 3; ++k) // some moves and removals
        {
            uint32_t id = next() % size;
            if (next() % 2)
            {
                uint32_t level = next() % 20;
                heap.Set(id, Key{level, id});
                reference[id] = level;
            }
            else
            {
                heap.Remove(id);
                reference[id] = -1;
            }
        }
        std::vector<std::pair<int64_t, uint32_t>> sorted;
        for (uint32_t id = 0; id < size; ++id)
        {
            if (reference[id] >= 0)
            {
                sorted.emplace_back(reference[id], id);
                EXPECT_EQ(heap.KeyOf(id).level, reference[id]);
            }
        }
        std::sort(sorted.begin(), sorted.end());
        ASSERT_EQ(heap.Size(), sorted.size());
        for (const auto& [level, id] : sorted)
        {
            ASSERT_EQ(heap.Top(), id);
            heap.Pop();
        }
        EXPECT_TRUE(heap.Empty());
    }
}
