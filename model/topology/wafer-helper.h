/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_WAFER_HELPER_H
#define DLNET_WAFER_HELPER_H

#include "cluster.h"
#include "topology-helper.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// NPUs on the wafer (ranks 0..19); the I/O controllers follow them.
constexpr uint32_t WAFER_NPUS = 20;
/// The mesh's rows (Y) and columns (X): NPU rank = y * WAFER_MESH_COLS + x.
constexpr uint32_t WAFER_MESH_ROWS = 5;
constexpr uint32_t WAFER_MESH_COLS = 4; //!< see WAFER_MESH_ROWS
/// I/O controllers on the wafer (ranks 20..37 of the cluster).
constexpr uint32_t WAFER_IOS = 18;
/// FRED: L1 switches, L2 switches, NPUs under one L1.
constexpr uint32_t FRED_L1 = 5;
constexpr uint32_t FRED_L2 = 4;          //!< see FRED_L1
constexpr uint32_t FRED_NPUS_PER_L1 = 4; //!< see FRED_L1
/// The lowest npu-bandwidth, bit/s: a FRED-A/B uplink carries an eighth of it
constexpr uint64_t WAFER_MIN_NPU_BPS = 8;

/**
 * \ingroup dlnet
 * \brief The wafer presets, parsed once from their names (ParseWaferVariant).
 */
enum class WaferVariant
{
    MESH,   //!< "mesh": 5 x 4 mesh, X-Y routing
    FRED_A, //!< "fred-a": FRED fat tree, 375 GB/s uplinks, endpoint collectives
    FRED_B, //!< "fred-b": as A, collectives in the switches
    FRED_C, //!< "fred-c": FRED fat tree, 3 TB/s uplinks, endpoint collectives
    FRED_D, //!< "fred-d": as C, collectives in the switches
};

/**
 * The boundary: a variant's name to the variant.
 * \param field the option, for the message \param text mesh, fred-a .. fred-d
 * \return the variant (std::invalid_argument naming field and the allowed names)
 */
WaferVariant ParseWaferVariant(const std::string& field, const std::string& text);
/// \return the variant's name as WaferConfig::variant spells it (mesh, fred-a, ...)
std::string ToString(WaferVariant variant);
/// \return the topology kind the variant is registered as (wafer-mesh, fred-a, ...)
std::string WaferKindName(WaferVariant variant);
/// \return true for fred-a .. fred-d
bool IsFred(WaferVariant variant);
/// \return true when collectives run in the switches (fred-b, fred-d)
bool InSwitch(WaferVariant variant);
/// \return true when the FRED uplinks are tapered to an eighth (fred-a, fred-b)
bool IsTapered(WaferVariant variant);

/// The smallest payload of a wafer packet (WaferConfig::payloadBytes), bytes.
constexpr uint32_t WAFER_MIN_PAYLOAD = 64;

/**
 * \ingroup dlnet
 * \brief A wafer-scale system as the FRED paper evaluates it: 20 NPUs with
 * 3 TB/s of network bandwidth each and 18 I/O controllers at 128 GB/s.
 *
 * Variants:
 * - "mesh": 5 rows x 4 columns (rank = 4 y + x), 750 GB/s per link and
 *   direction (3 TB/s over four links), X-Y routing; each NPU reaches its
 *   router through a 3 TB/s local link; one I/O controller on every outer
 *   side of an edge NPU (corners carry two): 2 x (5 + 4) = 18, in the
 *   order north (y = 0) x = 0..3, south (y = 4) x = 0..3, west (x = 0)
 *   y = 0..4, east (x = 3) y = 0..4. An I/O controller links to its NPU's
 *   router; routes to it follow X-Y to that router.
 * - "fred-a" .. "fred-d": a two-level fat tree. L1 switch k serves NPUs
 *   4k .. 4k+3 (3 TB/s links) and up to four I/O controllers (18 spread
 *   4, 4, 4, 3, 3); four L2 switches, L2 j linked to every L1 (uplink j of
 *   an L1). Uplinks run at 375 GB/s (A, B: 1.5 TB/s per L1) or 3 TB/s (C, D:
 *   12 TB/s per L1). B and D run collectives in the switches.
 *   Unicast routes are destination-mod-k: traffic to NPU 4k+i leaves every
 *   other L1 on uplink i, so groups of the same local index never share an
 *   uplink. I/O controllers 0-3 hang off L1 0, 4-7 L1 1, 8-11 L1 2, 12-14
 *   L1 3, 15-17 L1 4; the j-th of an L1 is reached from the other L1s
 *   through L2 j.
 *
 * Cluster ranks 0..19 are the NPUs, 20..37 the I/O controllers (links of
 * tier "io", named io0..io17). Every link is lossless with credit flow
 * control, 4 traffic classes, switch latency 0; the time resolution is
 * switched to picoseconds.
 */
struct WaferConfig
{
    std::string variant{"mesh"};          //!< mesh, fred-a, fred-b, fred-c or fred-d
    std::string npuBandwidth{"3000GBps"}; //!< per NPU and direction (mesh: over its four links)
    std::string ioRate{"128GBps"};        //!< per I/O controller link
    std::string linkDelay{"20ns"};        //!< every wafer link but the mesh NPU-router ones (0)
    uint32_t payloadBytes{4096};          //!< behind the 24-byte header (FRED: 12 its own)
    uint32_t middleStages{3};             //!< FRED switches: middle subnetworks m of Fred_m(P)
    std::string network{"packet"};        //!< packet (the fabric) or flow (FlowNetwork)

    /// Throw std::invalid_argument naming the first bad field and its allowed values; the
    /// fields are named as options: variant, npu-bandwidth, io-rate, link-delay,
    /// payload-bytes (64 to 1 MiB - 24), middle-stages (at least 1), network (packet, flow).
    void Validate() const;
};

/// \return the allowed wafer variants
const std::vector<std::string>& WaferVariants();

/**
 * \ingroup dlnet
 * \brief A built wafer: the cluster and where its parts are.
 */
struct Wafer
{
    WaferVariant variant{WaferVariant::MESH}; //!< as configured
    Cluster cluster;                          //!< NPUs then I/O controllers, by rank
    uint32_t npus{WAFER_NPUS};                //!< ranks 0 .. npus-1 are NPUs
    uint32_t middleStages{3};                 //!< FRED switches' m
    std::vector<uint32_t> ioRanks;            //!< cluster ranks of the I/O controllers

    // mesh
    uint32_t rows{0}; //!< mesh rows (Y)
    uint32_t cols{0}; //!< mesh columns (X); NPU rank = y * cols + x
    /// mesh: the NPU each I/O controller hangs off, by I/O index
    std::vector<uint32_t> ioNpu;
    /// mesh: the side of its NPU each I/O controller sits on: 'N', 'S', 'W' or 'E'
    std::vector<char> ioSide;

    // FRED
    uint32_t npusPerL1{4};                     //!< NPUs under one L1 switch
    std::vector<Ptr<FabricSwitch>> l1;         //!< L1 switches, by index
    std::vector<Ptr<FabricSwitch>> l2;         //!< L2 switches, by index (= uplink index)
    std::vector<std::vector<uint32_t>> l1Npu;  //!< [k][i]: port of L1 k toward NPU 4k+i
    std::vector<std::vector<uint32_t>> l1Up;   //!< [k][j]: port of L1 k toward L2 j
    std::vector<std::vector<uint32_t>> l2Down; //!< [j][k]: port of L2 j toward L1 k
    std::vector<uint32_t> ioL1;                //!< FRED: the L1 each I/O controller hangs off
    std::vector<uint32_t> ioL1Port;            //!< FRED: its port on that L1

    /// \return true for fred-a .. fred-d
    bool IsFred() const;
    /// \return true when collectives run in the switches (fred-b, fred-d)
    bool InSwitch() const;
    /// \return the L1 of an NPU (FRED)
    uint32_t L1Of(uint32_t npu) const
    {
        return npu / npusPerL1;
    }
};

/**
 * Build a wafer (validates first: std::invalid_argument naming the field):
 * WaferScaleTopology(config).BuildWafer().
 * \param config the wafer
 * \return the wafer
 */
Wafer BuildWafer(const WaferConfig& config);

/**
 * The topology BuildWafer builds the NPUs from, before it adds the I/O
 * controllers and (FRED) replaces the L1 routes: mesh 5 x 4 (fabric links
 * npuBandwidth / 4, local links npuBandwidth) or leaf-spine 5 leaves x 4
 * hosts, 4 spines (uplinks npuBandwidth / 8 for fred-a/b, npuBandwidth for
 * fred-c/d); mtu payloadBytes + 24, 4 traffic classes, lossless, switch
 * latency 0, every link linkDelay (mesh local links 0).
 * \param config the wafer (validated first)
 * \return the topology
 */
TopologyConfig WaferTopology(const WaferConfig& config);

} // namespace ns3

#endif /* DLNET_WAFER_HELPER_H */
