/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_REDUCTION_H
#define DLNET_REDUCTION_H

#include "collective-types.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup dlnet
 * Element-wise sum of src into dst (functional mode). fp16 and bf16 are
 * widened to float, added and rounded back to nearest even; int32 wraps.
 * \param type element type
 * \param dst accumulator
 * \param src addend
 * \param bytes a multiple of the element size
 */
void ReduceSum(DataType type, uint8_t* dst, const uint8_t* src, uint64_t bytes);

/// \return an IEEE binary16 value as float
float HalfToFloat(uint16_t h);
/// \return a float rounded to IEEE binary16 (nearest even)
uint16_t FloatToHalf(float f);
/// \return a bfloat16 value as float
float Bf16ToFloat(uint16_t b);
/// \return a float rounded to bfloat16 (nearest even)
uint16_t FloatToBf16(float f);

/// \return element i of a buffer, as a double
double ElementValue(DataType type, const uint8_t* buffer, uint64_t i);
/// Store a value (rounded to the type) as element i of a buffer.
void SetElementValue(DataType type, uint8_t* buffer, uint64_t i, double value);

} // namespace ns3

#endif /* DLNET_REDUCTION_H */
