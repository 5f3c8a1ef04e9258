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
 * message names the field, the text it got (non-printable bytes as \xNN) and
 * what is allowed; none aborts, wraps a negative number, accepts trailing
 * junk or takes a time or a rate without its unit.
 *
 * Bounds (what the model can hold; ns-3's Time is int64 picoseconds, about
 * 106 days):
 * - rates: 1 bit/s to MAX_RATE_BPS (40 Tbit/s). The smallest packet, a bare
 *   24-byte FabricHeader (192 bits), must take at least 1 ps even on a link of
 *   4 x the largest rate (a mesh's derived NPU-router link): 192 bits at
 *   160 Tbit/s is 1.2 ps. Faster links would send packets in zero time.
 * - delays of a link or a switch, per-packet processing times: 0 to
 *   MAX_DELAY_SECONDS (1 s, a million times a data centre's); a run crosses
 *   at most millions of them in sequence, far from Time's limit.
 * - timeouts: up to MAX_TIMEOUT_SECONDS (10 s); they double up to the larger
 *   of 100 ms and the timeout itself, so even 10^5 expiries in a row stay
 *   within Time's range.
 * - other times (a simulated-time limit): up to MAX_TIME_SECONDS (1 day).
 */

/// The largest data rate an option takes, bit/s (40 Tbit/s)
constexpr uint64_t MAX_RATE_BPS = 40000000000000ULL;
/// The longest link delay, switch latency or per-packet time, seconds
constexpr double MAX_DELAY_SECONDS = 1;
/// The longest timeout, seconds
constexpr double MAX_TIMEOUT_SECONDS = 10;
/// The longest time of any kind, seconds (1 day)
constexpr double MAX_TIME_SECONDS = 86400;
/// The largest seed ns-3's generator takes: MRG32k3a's seeds must be below its second modulus,
/// 4294944443 (a larger one aborts the first random draw)
constexpr uint32_t MAX_RNG_SEED = 4294944442U;

/// \return an unsigned integer in [min, max]
uint64_t ParseUnsigned(const std::string& field,
                       const std::string& text,
                       uint64_t min = 0,
                       uint64_t max = UINT64_MAX);
/// \return a real number in [min, max], or [min, max) when belowMax (a loss rate: at 1
/// nothing arrives)
double ParseReal(const std::string& field,
                 const std::string& text,
                 double min,
                 double max,
                 bool belowMax = false);
/// \return a byte count in [min, max]: a number with an optional unit B, KB, MB, GB, KiB, MiB,
/// GiB, TiB
uint64_t ParseBytes(const std::string& field,
                    const std::string& text,
                    uint64_t min = 1,
                    uint64_t max = UINT64_MAX);
/// \return a data rate from 1 bit/s to MAX_RATE_BPS with its unit (e.g. 100Gbps, 750GBps)
DataRate ParseRate(const std::string& field, const std::string& text);
/**
 * \return a data rate from minBps to maxBps with its unit; the message of any
 * refusal (no unit aside) gives that range
 */
DataRate ParseRate(const std::string& field,
                   const std::string& text,
                   uint64_t minBps,
                   uint64_t maxBps = MAX_RATE_BPS);
/**
 * \return a time from minSeconds (0 unless said) to maxSeconds with its unit
 * (e.g. 500ns, 1us); the message of any refusal gives that range
 */
Time ParseTime(const std::string& field,
               const std::string& text,
               double maxSeconds = MAX_TIME_SECONDS,
               double minSeconds = 0);
/// The least positive time a timeout or a stop-time takes (a nanosecond).
constexpr double MIN_POSITIVE_TIME_SECONDS = 1e-9;
/**
 * Throws unless time lies from minSeconds to maxSeconds, with ParseTime's
 * message: for a time set other than from text (an attribute).
 */
void CheckTime(const std::string& field, Time time, double minSeconds, double maxSeconds);
/// \return true/false from true/false/1/0/yes/no/on/off
bool ParseBool(const std::string& field, const std::string& text);
/// \return text, if it is exactly one of allowed (no surrounding spaces)
std::string ParseChoice(const std::string& field,
                        const std::string& text,
                        const std::vector<std::string>& allowed);
/**
 * The one parser of comma-separated lists: at least one item, no empty
 * item, no item twice, each one of allowed (any text when allowed is empty).
 * ignoreCase: an item matches allowed in any case and is returned as allowed
 * spells it (1.7b -> 1.7B).
 * \return the items, trimmed
 */
std::vector<std::string> ParseList(const std::string& field,
                                   const std::string& text,
                                   const std::vector<std::string>& allowed = {},
                                   bool ignoreCase = false);
/// \return the items between separators; by default "a,b,c", as ParseList reads them back
std::string JoinList(const std::vector<std::string>& items, const std::string& separator = ",");

/// \return a real number as the shortest text that reads back as the same double
std::string ShortestText(double value);

/// \return "a, b or c" (with last " and ": "a, b and c")
std::string JoinChoices(const std::vector<std::string>& allowed, const std::string& last = " or ");
/// \return text with every byte outside printable ASCII as \xNN, cut after 80 characters
std::string PrintableText(const std::string& text);
/**
 * A file name in a message: every byte outside printable ASCII as \xNN, cut
 * only beyond PATH_MAX (4096) characters, so that the name the user gave
 * is there whole, however deep its folder.
 * \param path the file name as given
 * \return it, printable
 */
std::string PrintablePath(const std::string& path);
/**
 * The one way an output file's missing folders are made: create the folders
 * of path's parent, if it has one (a --timeline file, a --pcap prefix). Throws
 * std::invalid_argument naming the field when they cannot be created.
 * \param field the option, for the message
 * \param path the file (or file name prefix)
 */
void MakeParentFolders(const std::string& field, const std::string& path);
/**
 * What validation may do instead, touching nothing: check that MakeParentFolders
 * could make path's folder and that a file could be written in it. The nearest
 * folder of path that exists must be a writable folder (the missing ones are
 * made in it). Throws std::invalid_argument naming the field otherwise, with
 * MakeParentFolders' message ("cannot create the folder of ...") or, when the
 * folder exists, "got 'PATH'; cannot write in its folder 'FOLDER'".
 * \param field the option, for the message
 * \param path the file (or file name prefix)
 */
void CheckParentFolders(const std::string& field, const std::string& path);

/// What CheckFolder found.
struct FolderCheck
{
    int error{0}; //!< 0: it can be written or made; else ENOTDIR, EEXIST, EACCES, the probe's errno
                  //!< or a path's own (ENAMETOOLONG, ELOOP)
    bool exists{false}; //!< the folder itself exists (a file, when error is EEXIST)
};
/**
 * Could folder be made (create_directories) and a file be written in it? The
 * nearest of its folders that exists must be a writable folder in which a folder
 * can be made (a probe made and removed at once: access() says yes to root in
 * /proc and /sys); nothing is left behind. The one check behind
 * CheckParentFolders and CheckResultsDir.
 * \param folder the folder ("" is the working folder)
 */
FolderCheck CheckFolder(const std::string& folder);

/// \return seconds as short text in the largest unit that keeps them at least 1: 1d, 10s, 100us,
/// 1ns
std::string TimeText(double seconds);

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_CONFIG_PARSE_H */
