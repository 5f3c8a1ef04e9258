/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_CONFIG_PARSE_H
#define DLNET_CONFIG_PARSE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace dlnet
{

/**
 * Strict parsers for user input. Each throws std::invalid_argument whose
 * message names the field, the text it got and what is allowed; none
 * aborts, wraps a negative number or accepts trailing junk.
 */

/// \return an unsigned integer in [min, max]
uint64_t ParseUnsigned(const std::string& field,
                       const std::string& text,
                       uint64_t min = 0,
                       uint64_t max = UINT64_MAX);
/// \return a real number in [min, max]
double ParseReal(const std::string& field, const std::string& text, double min, double max);
/// \return a byte count: a number with an optional unit B, KB, MB, GB, KiB, MiB, GiB
uint64_t ParseBytes(const std::string& field, const std::string& text, uint64_t min = 1);
/// \return a strictly positive data rate in ns-3 syntax (e.g. 100Gbps, 750GBps)
DataRate ParseRate(const std::string& field, const std::string& text);
/// \return a non-negative time in ns-3 syntax (e.g. 500ns, 1us)
Time ParseTime(const std::string& field, const std::string& text);
/// \return true/false from true/false/1/0/yes/no/on/off
bool ParseBool(const std::string& field, const std::string& text);
/// \return text, if it is one of allowed
std::string ParseChoice(const std::string& field,
                        const std::string& text,
                        const std::vector<std::string>& allowed);

/// \return "a, b or c"
std::string JoinChoices(const std::vector<std::string>& allowed);

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_CONFIG_PARSE_H */
