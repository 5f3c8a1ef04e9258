/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_OMNIREDUCE_BACKEND_H
#define DLNET_OMNIREDUCE_BACKEND_H

#include "omnireduce-helper.h"
#include "sparsity.h"

#include "ns3/collective-backend.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief OmniReduce-style sparse block AllReduce as a collective backend:
 * workers send only their non-zero blocks to aggregators (dedicated servers,
 * colocated on the workers, or the switch of a star). Timing mode draws
 * each size's block pattern from Density and SparsityPlacement (or reads
 * SparsityFile); functional mode carries sparse tensors made from it and
 * checks the sums itself.
 */
class OmniReduceBackend : public CollectiveBackend
{
public:
    static TypeId GetTypeId();

    std::string GetName() const override;
    bool Implements(CollectiveOp op) const override;
    std::string CheckTopology(const Topology& topology, const Communicator& comm) const override;
    void Validate(const CollectiveRequest& request,
                  const Topology& topology,
                  const Communicator& comm) const override;
    double Bound(const CollectiveRequest& request,
                 const Communicator& comm,
                 const NetworkModel& model) const override;
    void MakeInputs(CollectiveRequest& request, uint32_t n, uint32_t seed) const override;
    void Start(const Cluster& cluster,
               const Topology& topology,
               const Communicator& comm,
               CollectiveRequest request,
               DoneCallback done) override;

    /// \return the block pattern of a buffer of `bytes` over n workers
    SparsityPattern PatternOf(uint32_t n, uint64_t bytes) const;

    /**
     * The elements the workers send for a buffer of `bytes`: a whole number of
     * blocks, the last one padded with zeros (a model's gradient bucket is
     * rarely a multiple of the block size).
     * \param bytes the buffer
     * \return bytes / 4 rounded up to a multiple of BlockElements
     */
    uint64_t PaddedElements(uint64_t bytes) const;

private:
    OmniReduceSettings Settings() const;

    uint32_t m_blockElements;
    uint32_t m_messageBlocks;
    uint32_t m_slots;
    std::string m_placement;
    uint32_t m_aggregators;
    Time m_timeout;
    double m_threshold;
    Time m_packetTime;
    double m_density;
    std::string m_sparsityPlacement;
    std::string m_sparsityFile;
    uint32_t m_seed;
};

} // namespace ns3

#endif /* DLNET_OMNIREDUCE_BACKEND_H */
