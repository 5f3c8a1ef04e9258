/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "compute-model.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ComputeModel");

double
DeviceSpec::PeakFlops(DataType type) const
{
    switch (type)
    {
        case DataType::FP16:
            return peakFp16;
        case DataType::BF16:
            return peakBf16;
        case DataType::FP32:
        case DataType::INT32:
            return peakFp32;
    }
    return peakFp32;
}

void
DeviceSpec::Validate() const
{
    auto positive = [this](const std::string& field, double value)
    {
        if (!(value > 0) || !std::isfinite(value))
        {
            throw std::invalid_argument("device." + field + ": " + dlnet::ShortestText(value)
                                        + " must be a positive number (device "
                                        + dlnet::PrintableText(name) + ")");
        }
    };
    positive("peakFp32", peakFp32);
    positive("peakFp16", peakFp16);
    positive("peakBf16", peakBf16);
    positive("memoryBandwidth", memoryBandwidth);
    if (!(efficiency > 0 && efficiency <= 1))
    {
        throw std::invalid_argument("device.efficiency: " + dlnet::ShortestText(efficiency)
                                    + " must be in (0, 1] (device " + dlnet::PrintableText(name)
                                    + ")");
    }
}

const std::vector<std::string>&
DevicePresetNames()
{
    static const std::vector<std::string> names = {"a100", "h100", "fred-npu", "cpu"};
    return names;
}

DeviceSpec
MakeDevice(const std::string& name)
{
    std::string n = dlnet::ParseChoice("device", name, DevicePresetNames());
    DeviceSpec d;
    d.name = n;
    // Assumption: kernels reach 75% of the dense peak on accelerators (the
    // workloads reference: large-GEMM efficiency is 70-85% of peak), 50% on CPUs.
    d.efficiency = 0.75;
    if (n == "a100")
    {
        // A100 SXM data sheet: 312 TFLOP/s dense fp16/bf16 tensor cores;
        // fp32 without tensor cores 19.5 TFLOP/s (tf32 tensor cores would give
        // 156 TFLOP/s); HBM2e 2.0 TB/s (80 GB).
        d.peakFp16 = 312e12;
        d.peakBf16 = 312e12;
        d.peakFp32 = 19.5e12;
        d.memoryBandwidth = 2.0e12;
    }
    else if (n == "h100")
    {
        // H100 SXM data sheet: 989 TFLOP/s dense fp16/bf16, 67 TFLOP/s fp32, 3.35 TB/s HBM3.
        d.peakFp16 = 989e12;
        d.peakBf16 = 989e12;
        d.peakFp32 = 67e12;
        d.memoryBandwidth = 3.35e12;
    }
    else if (n == "fred-npu")
    {
        // FRED (arXiv 2406.19580): "H100-like compute + 5 HBM3 stacks": the
        // H100 SXM's compute, and 5 x 819.2 GB/s (one HBM3 stack) = 4.096 TB/s.
        d.peakFp16 = 989e12;
        d.peakBf16 = 989e12;
        d.peakFp32 = 67e12;
        d.memoryBandwidth = 5 * 819.2e9;
    }
    else
    {
        // Assumed 2-socket server: 2 x 32 cores x 2.5 GHz x 32 fp32 FLOP/cycle
        // (two AVX-512 FMA units) = 5.12 TFLOP/s; fp16/bf16 no faster than
        // fp32; 0.4 TB/s of DRAM bandwidth (about 8 DDR5 channels per socket);
        // 50% of peak achieved.
        d.peakFp32 = 2 * 32 * 2.5e9 * 32;
        d.peakFp16 = d.peakFp32;
        d.peakBf16 = d.peakFp32;
        d.memoryBandwidth = 0.4e12;
        d.efficiency = 0.5;
    }
    return d;
}

namespace
{

/// \return seconds as a Time, rounded to the nearest tick of the simulator's resolution
Time
RoundedSeconds(double seconds)
{
    const double ticksPerSecond = static_cast<double>(Seconds(1).GetTimeStep());
    if (!(seconds <= 1e6))
    {
        // llround of a value beyond int64 is undefined (it gave negative durations)
        throw std::invalid_argument("device: a layer pass takes " + dlnet::ShortestText(seconds)
                                    + " s, more than 1e6 s (one task's limit); a faster device "
                                      "(peak-tflops, memory-gbps, efficiency), a smaller model "
                                      "or microbatch-size");
    }
    return TimeStep(static_cast<uint64_t>(std::llround(seconds * ticksPerSecond)));
}

} // namespace

Time
RooflineTime(double flops, double bytes, const DeviceSpec& device, DataType type)
{
    device.Validate();
    if (!(flops >= 0) || !(bytes >= 0) || !std::isfinite(flops) || !std::isfinite(bytes))
    {
        throw std::invalid_argument("roofline: flops and bytes must be finite and >= 0");
    }
    double compute = flops / (device.PeakFlops(type) * device.efficiency);
    double memory = bytes / device.memoryBandwidth;
    return RoundedSeconds(std::max(compute, memory));
}

namespace
{

void
CheckSamplesAndShards(double samples, uint32_t shards)
{
    if (shards == 0)
    {
        throw std::invalid_argument("shards: 0 must be at least 1");
    }
    if (!(samples >= 0) || !std::isfinite(samples))
    {
        throw std::invalid_argument("samples: must be finite and >= 0");
    }
}

/// The kernels the predicate selects run one after another on the device: the sum of their
/// rooflines.
template <typename Select>
Time
KernelsTime(const ModelLayer& layer,
            Select select,
            const DeviceSpec& device,
            DataType type,
            double samples,
            uint32_t shards)
{
    const double n = static_cast<double>(shards);
    Time total(0);
    for (const LayerKernel& k : layer.kernels)
    {
        if (!select(k))
        {
            continue;
        }
        const double flops = k.flops * samples / n;
        const double bytes = (k.shardedBytes / n + k.wholeBytes) * samples + k.weightBytes / n;
        total += RooflineTime(flops, bytes, device, type);
    }
    return total;
}

} // namespace

Time
LayerPassTime(const ModelLayer& layer,
              LayerPass pass,
              const DeviceSpec& device,
              DataType type,
              double samples,
              uint32_t shards)
{
    CheckSamplesAndShards(samples, shards);
    const double n = static_cast<double>(shards);
    if (!layer.kernels.empty())
    {
        return KernelsTime(
            layer,
            [pass](const LayerKernel& k)
            {
                return k.pass == pass;
            },
            device,
            type,
            samples,
            shards);
    }
    double perSample = 0;
    switch (pass)
    {
        case LayerPass::FORWARD:
            perSample = layer.forwardFlops;
            break;
        case LayerPass::INPUT_GRADIENT:
            perSample = layer.inputGradientFlops;
            break;
        case LayerPass::WEIGHT_GRADIENT:
            perSample = layer.weightGradientFlops;
            break;
    }
    const double elem = ElementSize(type);
    double flops = perSample * samples / n;
    // Memory traffic (an estimate): the shard's weights read once per pass,
    // plus the weight gradient written in the weight-gradient pass, plus the
    // activations read and written (the layer's input is taken to be as
    // large as its output) for every sample, divided over the shards.
    double weights = static_cast<double>(layer.parameters) * elem / n;
    if (pass == LayerPass::WEIGHT_GRADIENT)
    {
        weights *= 2;
    }
    double activations = 2.0 * static_cast<double>(layer.activationElements) * elem * samples / n;
    if (flops == 0 && pass != LayerPass::FORWARD)
    {
        // a pass that does not exist (no input gradient of the first layer,
        // no weight gradient of a layer without weights) costs nothing
        return Time(0);
    }
    return RooflineTime(flops, weights + activations, device, type);
}

Time
GradientAccumulationTime(const ModelLayer& layer,
                         const DeviceSpec& device,
                         DataType type,
                         double samples,
                         uint32_t shards,
                         bool tiedUsesApart)
{
    CheckSamplesAndShards(samples, shards);
    return KernelsTime(
        layer,
        [tiedUsesApart](const LayerKernel& k)
        {
            return k.pass == LayerPass::WEIGHT_GRADIENT
                   && (k.accumulatesGradient || (tiedUsesApart && k.sumsTiedGradients));
        },
        device,
        type,
        samples,
        shards);
}

} // namespace ns3
