/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "reduction.h"

#include "ns3/log.h"

#include <cmath>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Reduction");

namespace
{

uint32_t
FloatBits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float
BitsFloat(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

template <typename T>
T
Load(const uint8_t* p, uint64_t i)
{
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    return v;
}

template <typename T>
void
Store(uint8_t* p, uint64_t i, T v)
{
    std::memcpy(p + i * sizeof(T), &v, sizeof(T));
}

} // namespace

float
HalfToFloat(uint16_t h)
{
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ff;
    if (exp == 0)
    {
        // zero or subnormal: man * 2^-24
        float v = std::ldexp(float(man), -24);
        return sign ? -v : v;
    }
    if (exp == 31)
    {
        return BitsFloat(sign | 0x7f800000 | (man << 13));
    }
    return BitsFloat(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t
FloatToHalf(float f)
{
    uint32_t u = FloatBits(f);
    uint16_t sign = (u >> 16) & 0x8000;
    float a = std::fabs(f);
    if (std::isnan(f))
    {
        return sign | 0x7e00;
    }
    if (a >= 65520.0f)
    {
        return sign | 0x7c00; // rounds to infinity
    }
    if (a < 6.103515625e-05f)
    {
        // subnormal range: quantum 2^-24, nearest even by the FPU's rint
        return sign | uint16_t(std::nearbyint(a * 16777216.0f));
    }
    uint32_t abits = FloatBits(a);
    uint32_t exp = (abits >> 23) - 112;
    uint32_t man = abits & 0x7fffff;
    uint32_t half = (exp << 10) | (man >> 13);
    uint32_t rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    {
        ++half; // may carry into the exponent, which is still right
    }
    return sign | uint16_t(half);
}

float
Bf16ToFloat(uint16_t b)
{
    return BitsFloat(uint32_t(b) << 16);
}

uint16_t
FloatToBf16(float f)
{
    uint32_t u = FloatBits(f);
    if (std::isnan(f))
    {
        return uint16_t((u >> 16) | 0x40);
    }
    u += 0x7fff + ((u >> 16) & 1);
    return uint16_t(u >> 16);
}

double
ElementValue(DataType type, const uint8_t* p, uint64_t i)
{
    switch (type)
    {
        case DataType::FP32:
            return Load<float>(p, i);
        case DataType::FP16:
            return HalfToFloat(Load<uint16_t>(p, i));
        case DataType::BF16:
            return Bf16ToFloat(Load<uint16_t>(p, i));
        default:
            return Load<int32_t>(p, i);
    }
}

void
SetElementValue(DataType type, uint8_t* p, uint64_t i, double v)
{
    switch (type)
    {
        case DataType::FP32:
            Store<float>(p, i, float(v));
            break;
        case DataType::FP16:
            Store<uint16_t>(p, i, FloatToHalf(float(v)));
            break;
        case DataType::BF16:
            Store<uint16_t>(p, i, FloatToBf16(float(v)));
            break;
        default:
            Store<int32_t>(p, i, int32_t(v));
    }
}

void
ReduceSum(DataType type, uint8_t* dst, const uint8_t* src, uint64_t bytes)
{
    uint64_t n = bytes / ElementSize(type);
    switch (type)
    {
        case DataType::FP32:
            for (uint64_t i = 0; i < n; ++i)
            {
                Store<float>(dst, i, Load<float>(dst, i) + Load<float>(src, i));
            }
            break;
        case DataType::INT32:
            for (uint64_t i = 0; i < n; ++i)
            {
                uint32_t a = Load<uint32_t>(dst, i);
                Store<uint32_t>(dst, i, a + Load<uint32_t>(src, i)); // wraps, as int32 sums on GPUs
            }
            break;
        case DataType::FP16:
            for (uint64_t i = 0; i < n; ++i)
            {
                float s = HalfToFloat(Load<uint16_t>(dst, i)) + HalfToFloat(Load<uint16_t>(src, i));
                Store<uint16_t>(dst, i, FloatToHalf(s));
            }
            break;
        case DataType::BF16:
            for (uint64_t i = 0; i < n; ++i)
            {
                float s = Bf16ToFloat(Load<uint16_t>(dst, i)) + Bf16ToFloat(Load<uint16_t>(src, i));
                Store<uint16_t>(dst, i, FloatToBf16(s));
            }
            break;
    }
}

} // namespace ns3
