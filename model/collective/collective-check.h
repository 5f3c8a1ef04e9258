/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_CHECK_H
#define DLNET_COLLECTIVE_CHECK_H

#include "collective-request.h"
#include "collective-types.h"

#include <cstdint>

namespace ns3
{

/**
 * Functional mode: element i of communicator index `index`'s input. Small
 * integers, so that every sum is exact in every element type.
 * \param index communicator index \param i element \param seed the run's seed
 * \param n communicator size
 * \return the value
 */
double CollectiveInputValue(uint32_t index, uint64_t i, uint32_t seed, uint32_t n);

/**
 * Functional mode: the value communicator index `index` must hold at element
 * i after a collective whose inputs came from CollectiveInputValue.
 * \return the value, or NaN where the operation leaves the element unspecified
 */
double CollectiveExpectedValue(CollectiveOp op,
                               uint32_t n,
                               uint32_t index,
                               uint32_t root,
                               uint64_t i,
                               uint64_t elements,
                               uint32_t seed);

/**
 * Functional mode: compare every member's output with
 * CollectiveExpectedValue (inputs from CollectiveInputValue).
 * \param request the collective (op, type, bytes, root)
 * \param record its record, with the outputs
 * \param n members \param seed the run's seed
 * \param[out] maxError the largest |output - expected| of any element
 * \return true when every element is exact
 */
bool CheckCollectiveOutputs(const CollectiveRequest& request,
                            const CollectiveRecord& record,
                            uint32_t n,
                            uint32_t seed,
                            double& maxError);

} // namespace ns3

#endif /* DLNET_COLLECTIVE_CHECK_H */
