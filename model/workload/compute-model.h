/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COMPUTE_MODEL_H
#define DLNET_COMPUTE_MODEL_H

#include "ns3/collective-types.h"
#include "ns3/model-layer.h"
#include "ns3/nstime.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief An accelerator (or CPU server) as the compute model sees it: peak
 * FLOP/s per data type, memory bandwidth, and the fraction of peak its
 * kernels achieve.
 */
struct DeviceSpec
{
    std::string name;
    double peakFp32{0};        //!< FLOP/s
    double peakFp16{0};        //!< FLOP/s
    double peakBf16{0};        //!< FLOP/s
    double memoryBandwidth{0}; //!< bytes/s
    double efficiency{1};      //!< achieved fraction of peak FLOP/s, in (0, 1]

    /// \return the peak for the type (INT32: the fp32 peak)
    double PeakFlops(DataType type) const;
    /// Throw std::invalid_argument naming the field (device.<field>) for a number not > 0
    /// (efficiency: not in (0, 1]).
    void Validate() const;
};

/// \return the preset names: a100, h100, fred-npu, cpu
const std::vector<std::string>& DevicePresetNames();

/// \return the preset; std::invalid_argument naming "device" and the names otherwise
DeviceSpec MakeDevice(const std::string& name);

/**
 * Roofline time: max(flops / (peak x efficiency), bytes / memory bandwidth).
 * \param flops floating-point operations \param bytes memory traffic
 * \param device the device \param type the arithmetic's type
 */
Time RooflineTime(double flops, double bytes, const DeviceSpec& device, DataType type);

/**
 * The roofline time of one pass of a layer over `samples` samples, its
 * FLOPs and weights divided over `shards` tensor-parallel ranks. Memory
 * traffic: the layer's weights (and, for the weight gradient, the gradient
 * written) plus its input and output activations. A layer with kernels
 * instead takes the sum of its pass's kernels' roofline times (each kernel's
 * sharded FLOPs, sharded and whole traffic as LayerKernel says).
 */
Time LayerPassTime(const ModelLayer& layer,
                   LayerPass pass,
                   const DeviceSpec& device,
                   DataType type,
                   double samples,
                   uint32_t shards = 1);

/**
 * The part of LayerPassTime(layer, WEIGHT_GRADIENT, ...) that the first
 * microbatch of an iteration does not run: its kernels marked
 * accumulatesGradient, and with `tiedUsesApart` (the tied weights' two uses on
 * different pipeline stages) those marked sumsTiedGradients too (zero for a
 * layer without kernels).
 */
Time GradientAccumulationTime(const ModelLayer& layer,
                              const DeviceSpec& device,
                              DataType type,
                              double samples,
                              uint32_t shards = 1,
                              bool tiedUsesApart = false);

} // namespace ns3

#endif /* DLNET_COMPUTE_MODEL_H */
