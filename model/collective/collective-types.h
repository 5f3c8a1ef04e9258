/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_TYPES_H
#define DLNET_COLLECTIVE_TYPES_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// \ingroup dlnet Collective operations.
enum class CollectiveOp
{
    ALL_REDUCE,
    REDUCE_SCATTER,
    ALL_GATHER,
    ALL_TO_ALL,
    BROADCAST,
    REDUCE,
    SEND_RECV, //!< point to point: comm rank 0 sends the buffer to comm rank 1
};

/// \ingroup dlnet Element types.
enum class DataType
{
    FP32,
    FP16,
    BF16,
    INT32,
};

/// \ingroup dlnet The step schedules the CollectiveEngine runs (each one a registered
/// CollectiveBackend; the registry lists every algorithm).
enum class CollectiveAlgorithm
{
    RING,
    DIRECT,
    HALVING_DOUBLING,
    DOUBLE_BINARY_TREE,
    HIERARCHICAL,                //!< RS along dim 1, AllReduce along dim 2 on 1/n, AG along dim 1
    HIERARCHICAL_LOCAL_BW_AWARE, //!< ASTRA-sim's localBWAware order: RS dim 1, RS dim 2, AG dim 2,
                                 //!< AG dim 1
};

/// \return the name of an operation (allreduce, reducescatter, ...)
std::string ToString(CollectiveOp op);
/// \return the name of a type (fp32, fp16, bf16, int32)
std::string ToString(DataType type);
/// \return the name of an algorithm (ring, direct, halving-doubling, ...)
std::string ToString(CollectiveAlgorithm algorithm);

/// Parse, or throw std::invalid_argument naming the field and the choices.
CollectiveOp ParseCollectiveOp(const std::string& field, const std::string& text);
/// Parse, or throw std::invalid_argument naming the field and the choices.
DataType ParseDataType(const std::string& field, const std::string& text);
/// Parse, or throw std::invalid_argument naming the field and the choices.
CollectiveAlgorithm ParseCollectiveAlgorithm(const std::string& field, const std::string& text);

/// \return every operation, algorithm (auto last) and type name
const std::vector<std::string>& CollectiveOpNames();
const std::vector<std::string>& CollectiveAlgorithmNames();
const std::vector<std::string>& DataTypeNames();

/// \return bytes per element
uint32_t ElementSize(DataType type);

/// \return nccl-tests' bus bandwidth factor: busbw = algbw x factor
double BusBandwidthFactor(CollectiveOp op, uint32_t ranks);

} // namespace ns3

#endif /* DLNET_COLLECTIVE_TYPES_H */
