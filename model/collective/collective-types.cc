/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-types.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveTypes");

namespace
{

template <typename E>
E
ParseEnum(const std::string& field,
          const std::string& text,
          const std::vector<std::string>& names,
          const std::vector<E>& values)
{
    std::string t = dlnet::ParseChoice(field, text, names);
    auto it = std::find(names.begin(), names.end(), t);
    return values[it - names.begin()];
}

const std::vector<CollectiveOp> g_ops = {CollectiveOp::ALL_REDUCE,
                                         CollectiveOp::REDUCE_SCATTER,
                                         CollectiveOp::ALL_GATHER,
                                         CollectiveOp::ALL_TO_ALL,
                                         CollectiveOp::BROADCAST,
                                         CollectiveOp::REDUCE,
                                         CollectiveOp::SEND_RECV};
const std::vector<CollectiveAlgorithm> g_algorithms
    = {CollectiveAlgorithm::RING,
       CollectiveAlgorithm::DIRECT,
       CollectiveAlgorithm::HALVING_DOUBLING,
       CollectiveAlgorithm::DOUBLE_BINARY_TREE,
       CollectiveAlgorithm::HIERARCHICAL,
       CollectiveAlgorithm::HIERARCHICAL_LOCAL_BW_AWARE};
const std::vector<DataType> g_types
    = {DataType::FP32, DataType::FP16, DataType::BF16, DataType::INT32};

} // namespace

const std::vector<std::string>&
CollectiveOpNames()
{
    static const std::vector<std::string> names = {
        "allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "reduce", "sendrecv"};
    return names;
}

const std::vector<std::string>&
CollectiveAlgorithmNames()
{
    static const std::vector<std::string> names = {"ring",
                                                   "direct",
                                                   "halving-doubling",
                                                   "double-binary-tree",
                                                   "hierarchical",
                                                   "hierarchical-local-bw-aware"};
    return names;
}

const std::vector<std::string>&
DataTypeNames()
{
    static const std::vector<std::string> names = {"fp32", "fp16", "bf16", "int32"};
    return names;
}

std::string
ToString(CollectiveOp op)
{
    return CollectiveOpNames()[std::find(g_ops.begin(), g_ops.end(), op) - g_ops.begin()];
}

std::string
ToString(DataType type)
{
    return DataTypeNames()[std::find(g_types.begin(), g_types.end(), type) - g_types.begin()];
}

std::string
ToString(CollectiveAlgorithm algorithm)
{
    return CollectiveAlgorithmNames()[std::find(g_algorithms.begin(), g_algorithms.end(), algorithm)
                                      - g_algorithms.begin()];
}

CollectiveOp
ParseCollectiveOp(const std::string& field, const std::string& text)
{
    return ParseEnum(field, text, CollectiveOpNames(), g_ops);
}

DataType
ParseDataType(const std::string& field, const std::string& text)
{
    return ParseEnum(field, text, DataTypeNames(), g_types);
}

CollectiveAlgorithm
ParseCollectiveAlgorithm(const std::string& field, const std::string& text)
{
    return ParseEnum(field, text, CollectiveAlgorithmNames(), g_algorithms);
}

uint32_t
ElementSize(DataType type)
{
    return (type == DataType::FP16 || type == DataType::BF16) ? 2 : 4;
}

double
BusBandwidthFactor(CollectiveOp op, uint32_t n)
{
    switch (op)
    {
        case CollectiveOp::ALL_REDUCE:
            return 2.0 * (n - 1) / n;
        case CollectiveOp::REDUCE_SCATTER:
        case CollectiveOp::ALL_GATHER:
        case CollectiveOp::ALL_TO_ALL:
            return double(n - 1) / n;
        default:
            return 1.0;
    }
}

} // namespace ns3
