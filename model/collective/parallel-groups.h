/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_PARALLEL_GROUPS_H
#define DLNET_PARALLEL_GROUPS_H

#include "communicator.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The communicators of a 3D-parallel job: model (MP), pipeline (PP)
 * and data (DP) parallelism.
 *
 * Ranks are placed as the wafer-scale study places them (shared/reference):
 * MP groups on consecutive NPUs, then PP, then DP, so rank (m, p, d) is
 * npu[m + MP (p + PP d)]. Each kind of group has its own traffic class, in
 * the priority order of that study's virtual channels: MP (class 0) before
 * PP (1) before DP (2).
 */
struct ParallelGroups
{
    uint32_t mp{1};                     //!< model-parallel degree
    uint32_t dp{1};                     //!< data-parallel degree
    uint32_t pp{1};                     //!< pipeline-parallel degree
    std::vector<uint32_t> npus;         //!< the ranks the job runs on, in placement order
    std::vector<Communicator> mpGroups; //!< dp x pp groups of mp ranks
    std::vector<Communicator> ppGroups; //!< mp x dp groups of pp ranks
    std::vector<Communicator> dpGroups; //!< mp x pp groups of dp ranks

    /// \return the rank of model shard m, pipeline stage p, data replica d
    uint32_t RankOf(uint32_t m, uint32_t p, uint32_t d) const;
};

/// Traffic classes of the groups (MP > PP > DP), and of control messages.
enum ParallelClass : uint8_t
{
    MP_CLASS = 0,
    PP_CLASS = 1,
    DP_CLASS = 2,
    CONTROL_CLASS = 3,
};

/**
 * Place a MP x DP x PP job on NPUs and build its communicators. Throws
 * std::invalid_argument naming "parallelism" when a degree is 0 or their
 * product differs from the number of NPUs.
 * \param mp model-parallel degree
 * \param dp data-parallel degree
 * \param pp pipeline-parallel degree
 * \param npus the ranks, in placement order (e.g. 0..19 on the wafer)
 * \return the groups
 */
ParallelGroups MakeParallelGroups(uint32_t mp,
                                  uint32_t dp,
                                  uint32_t pp,
                                  const std::vector<uint32_t>& npus);

} // namespace ns3

#endif /* DLNET_PARALLEL_GROUPS_H */
