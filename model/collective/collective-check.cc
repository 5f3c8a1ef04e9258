/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-check.h"

#include "reduction.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveCheck");

double
CollectiveInputValue(uint32_t rank, uint64_t i, uint32_t seed, uint32_t n)
{
    int64_t amplitude = std::max<int64_t>(1, std::min<int64_t>(4, 128 / n));
    return double(int64_t((rank * 131ULL + i * 7ULL + seed) % (2 * amplitude + 1)) - amplitude);
}

double
CollectiveExpectedValue(CollectiveOp op,
                        uint32_t n,
                        uint32_t rank,
                        uint32_t root,
                        uint64_t i,
                        uint64_t elements,
                        uint32_t seed)
{
    auto sum = [&]()
    {
        double s = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            s += CollectiveInputValue(r, i, seed, n);
        }
        return s;
    };
    auto partOf = [&](uint64_t e)
    {
        // inverse of the element-aligned split: the part whose [lo, hi) holds e
        uint32_t p = static_cast<uint32_t>(e * n / elements);
        while (p + 1 < n && elements * (p + 1) / n <= e)
        {
            ++p;
        }
        while (p > 0 && elements * p / n > e)
        {
            --p;
        }
        return p;
    };
    switch (op)
    {
        case CollectiveOp::ALL_REDUCE:
            return sum();
        case CollectiveOp::REDUCE_SCATTER:
            return partOf(i) == rank ? sum() : NAN;
        case CollectiveOp::ALL_GATHER:
            return CollectiveInputValue(partOf(i), i, seed, n);
        case CollectiveOp::ALL_TO_ALL:
        {
            // part j of rank `rank` came from rank j's part `rank`
            uint64_t part = elements / n;
            uint32_t j = static_cast<uint32_t>(i / part);
            return CollectiveInputValue(j, rank * part + i % part, seed, n);
        }
        case CollectiveOp::BROADCAST:
            return CollectiveInputValue(root, i, seed, n);
        case CollectiveOp::REDUCE:
            return rank == root ? sum() : NAN;
        case CollectiveOp::SEND_RECV:
            return rank == 1 ? CollectiveInputValue(0, i, seed, n) : NAN;
    }
    return NAN;
}

bool
CheckCollectiveOutputs(const CollectiveRequest& req,
                       const CollectiveRecord& rec,
                       uint32_t n,
                       uint32_t seed,
                       double& maxError)
{
    maxError = 0;
    uint64_t elements = req.bytes / ElementSize(req.type);
    if (rec.outputs.size() != n)
    {
        return false;
    }
    bool correct = true;
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint64_t i = 0; i < elements; ++i)
        {
            double want = CollectiveExpectedValue(req.op, n, r, req.root, i, elements, seed);
            if (std::isnan(want))
            {
                continue;
            }
            double got = ElementValue(req.type, rec.outputs[r].data(), i);
            maxError = std::max(maxError, std::fabs(got - want));
            if (got != want && correct)
            {
                NS_LOG_WARN("rank " << r << " element " << i << ": " << got << " != " << want);
                correct = false;
            }
        }
    }
    return correct;
}

} // namespace ns3
