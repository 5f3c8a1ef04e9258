/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_WEIGHT_STREAMING_H
#define DLNET_WEIGHT_STREAMING_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/wafer-helper.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

class FredCollectives;

/**
 * \ingroup dlnet
 * \brief What a weight-streaming run did.
 */
struct StreamingRecord
{
    Time start;                 //!< streams started
    Time end;                   //!< the last NPU has every stream
    uint64_t bytesPerStream{0}; //!< each I/O controller's stream
    uint32_t streams{0};        //!< I/O controllers
    uint32_t receivers{0};      //!< NPUs
};

/**
 * \ingroup dlnet
 * \brief Weight streaming: every I/O controller streams the same amount of
 * weights, and every NPU needs every stream (data-parallel replicas hold the
 * whole model).
 *
 * On a mesh the routers cannot copy packets, so NPUs relay: each stream
 * spreads over a dimension-ordered tree rooted at its controller's NPU, first
 * away from the controller's edge (into the wafer), then along the other
 * dimension. Every stream crosses each tree link once; the links next to the
 * corners carry the most streams, 2 N - 1 = 9 of them on a 5 x 4 mesh
 * (1152 GB/s at 128 GB/s each against 750 GB/s: the edge hotspot). On FRED
 * the switches copy: one distribution flow per switch (FredCollectives): its
 * own, or one shared with in-switch collectives (fred-in-switch), whose engine
 * then runs the streams and the collectives side by side.
 *
 * At network=flow (the wafer's Cluster::flow set) no packet is sent: on the
 * mesh every controller's stream is one flow over its relay tree (each copy
 * an NPU relays loads the links of its route; the stream ends when its last
 * byte has left the controller and crossed the tree's longest path, every
 * relaying NPU storing the packet before it sends it on); on FRED the
 * FredCollectives run it as FredFlowEngine's flows.
 */
class WeightStreaming
{
public:
    /**
     * \param wafer a built wafer (mesh or FRED)
     * \param fred FRED only: the FredCollectives (engine and switch programs)
     *        the streams go through, shared with other users of the wafer's
     *        switches such as fred-in-switch; null: a FredCollectives of its own
     *        (then nothing else may program the switches or take the NPUs'
     *        FRED handlers). Must outlive the streams.
     */
    explicit WeightStreaming(Wafer& wafer, FredCollectives* fred = nullptr);
    ~WeightStreaming();

    /**
     * Start every controller's stream now.
     * \param bytes per controller
     * \param tc traffic class
     * \param done called once every NPU has every stream
     */
    void Start(uint64_t bytes, uint8_t tc, Callback<void, const StreamingRecord&> done);

    /**
     * Start every controller's stream now, to some NPUs only (the mesh
     * still relays through the other NPUs of the trees; done once every
     * receiver has every stream). One stream at a time per WeightStreaming.
     * \param bytes per controller
     * \param tc traffic class
     * \param receivers NPUs (distinct, below npus)
     * \param done called once every receiver has every stream
     */
    void Start(uint64_t bytes,
               uint8_t tc,
               const std::vector<uint32_t>& receivers,
               Callback<void, const StreamingRecord&> done);

    /**
     * Mesh: the relay tree of an I/O controller's stream.
     * \param io I/O index
     * \return children NPUs of every NPU (by rank)
     */
    std::vector<std::vector<uint32_t>> MeshTree(uint32_t io) const;

private:
    /// network=flow, mesh: every controller's stream as one flow over its relay tree.
    void StartMeshFlows(uint64_t bytes, uint64_t packets);

    struct State;
    Wafer& m_wafer;
    FredCollectives* m_shared; //!< shared FRED engine and programs (null: its own)
    std::shared_ptr<State> m_state;
};

} // namespace ns3

#endif /* DLNET_WEIGHT_STREAMING_H */
