/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COMMUNICATOR_H
#define DLNET_COMMUNICATOR_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief A group of ranks that run collectives together, in the order of
 * their communicator index (the ring order), with a traffic class of its own.
 */
struct Communicator
{
    std::string name{"world"};   //!< for records and errors
    std::vector<uint32_t> ranks; //!< cluster ranks by communicator index
    uint8_t tc{0};               //!< traffic class of its messages

    /// \return size
    uint32_t GetSize() const
    {
        return ranks.size();
    }

    /**
     * Throw std::invalid_argument if a rank appears twice, is not below
     * clusterRanks, or the group is empty.
     */
    void Validate(uint32_t clusterRanks) const;

    /// \return a communicator of ranks 0..n-1
    static Communicator World(uint32_t n);

    /**
     * Cut into sub-communicators of `size` members. Consecutive: members
     * i*size .. i*size+size-1 (the rows of a grid, ranks under one leaf);
     * strided: members j, j+G, j+2G, ... with G = GetSize()/size groups
     * (the columns of a grid). Throws std::invalid_argument if size does
     * not divide the communicator.
     * \param size members per sub-communicator
     * \param strided pick members with a stride instead of consecutively
     * \return the sub-communicators, named "<name>/row<i>" or "<name>/col<j>"
     */
    std::vector<Communicator> Split(uint32_t size, bool strided) const;
};

} // namespace ns3

#endif /* DLNET_COMMUNICATOR_H */
