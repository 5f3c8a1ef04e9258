/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Fuzz test of every option of every experiment's option table: thousands of
// generated values (empty, huge, negative, NaN/inf, units, junk, 5000-digit
// numbers, binary bytes, whitespace, repeated separators, lists...). Each
// value either sets the option or is refused with std::invalid_argument whose
// message starts with the option's name; a deterministic sample of the
// accepted values then goes through the config's Validate(), which either
// passes or throws std::invalid_argument. Deterministic (SplitMix64 from a
// constant seed) and fast: it is part of every test run.

#include "ns3/collective-experiment.h"
#include "ns3/experiment-options.h"
#include "ns3/sparse-experiment.h"
#include "ns3/splitmix64.h"
#include "ns3/traffic-experiment.h"
#include "ns3/training-experiment.h"
#include "ns3/wafer-experiment.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// A deterministic stream of 64-bit numbers.
class Stream
{
public:
    explicit Stream(uint64_t seed)
        : m_state(seed)
    {
    }

    uint64_t Next()
    {
        m_state += dlnet::SPLITMIX64_GAMMA;
        return dlnet::SplitMix64(m_state);
    }

    /// \return a number in [0, n)
    std::size_t Below(std::size_t n)
    {
        return static_cast<std::size_t>(Next() % n);
    }

    template <typename T>
    const T& Pick(const std::vector<T>& v)
    {
        return v[Below(v.size())];
    }

private:
    uint64_t m_state;
};

const std::vector<std::string> kUnits
    = {"",     "s",   "ms",  "us",   "ns",   "ps",   "fs",   "min",  "h",    "d",
       "bps",  "b/s", "Bps", "kbps", "Kbps", "Mbps", "Gbps", "GBps", "Gb/s", "GiBps",
       "Tbps", "B",   "KB",  "MB",   "GB",   "KiB",  "MiB",  "GiB",  "TiB",  "x",
       "sec",  "S",   " s",  "s ",   "ns0",  "e",    "e5",   "%",    "Gbps,"};

const std::vector<std::string> kWords = {"star",
                                         "leaf-spine",
                                         "hetero-leaf-spine",
                                         "2x25Gbps,1x100Gbps",
                                         "mesh",
                                         "torus",
                                         "ring",
                                         "direct",
                                         "omnireduce",
                                         "switchml",
                                         "auto",
                                         "allreduce",
                                         "groups",
                                         "fred-a",
                                         "fred-d",
                                         "lossless",
                                         "lossy",
                                         "flow",
                                         "packet",
                                         "true",
                                         "false",
                                         "yes",
                                         "off",
                                         "colocated",
                                         "servers",
                                         "switch",
                                         "random",
                                         "overlap",
                                         "disjoint",
                                         "fp32",
                                         "fp16",
                                         "incast",
                                         "permutation",
                                         "linear",
                                         "blocks",
                                         "nan",
                                         "NaN",
                                         "inf",
                                         "-inf",
                                         "infinity",
                                         "0x10",
                                         "ns3::Bogus",
                                         "/dev/null/dir/x",
                                         "0-3",
                                         "3-0",
                                         "0-",
                                         "-",
                                         "--",
                                         "="};

/// A number's text: digits, sign, point, exponent, sometimes very long.
std::string
Number(Stream& r)
{
    std::string s;
    switch (r.Below(8))
    {
        case 0:
            s += '-';
            break;
        case 1:
            s += '+';
            break;
        default:
            break;
    }
    std::size_t digits = r.Below(10) == 0 ? 5000 : r.Below(25);
    for (std::size_t i = 0; i < digits; ++i)
    {
        s += static_cast<char>('0' + r.Below(10));
    }
    if (r.Below(4) == 0)
    {
        s += '.';
        for (std::size_t i = r.Below(6); i > 0; --i)
        {
            s += static_cast<char>('0' + r.Below(10));
        }
    }
    if (r.Below(5) == 0)
    {
        s += r.Below(2) ? "e" : "E";
        s += r.Below(3) == 0 ? "-" : "";
        s += std::to_string(r.Below(400));
    }
    return s;
}

/// One generated value.
std::string
Generate(Stream& r)
{
    switch (r.Below(10))
    {
        case 0: // binary bytes
        {
            std::string s;
            for (std::size_t i = r.Below(40); i > 0; --i)
            {
                s += static_cast<char>(r.Next() & 0xff);
            }
            return s;
        }
        case 1: // a word, maybe padded
        {
            static const std::vector<std::string> pads = {"", " ", "\t", "  ", "\n"};
            return r.Pick(pads) + r.Pick(kWords) + r.Pick(pads);
        }
        case 2: // a list with separators, empties and repeats
        {
            std::string s;
            for (std::size_t i = r.Below(5); i > 0; --i)
            {
                static const std::vector<std::string> seps = {",", ",,", ", ", ";", ""};
                s += (r.Below(3) ? r.Pick(kWords) : Number(r)) + r.Pick(seps);
            }
            return s;
        }
        case 3: // whitespace inside
            return Number(r) + " " + r.Pick(kUnits);
        default: // a number with a unit
            return Number(r) + r.Pick(kUnits);
    }
}

/// Fixed edge cases every option gets.
std::vector<std::string>
EdgeCases()
{
    std::vector<std::string> v = {"",
                                  " ",
                                  "0",
                                  "1",
                                  "-1",
                                  "-0",
                                  "+1",
                                  "007",
                                  "4294967295",
                                  "4294967296",
                                  "18446744073709551615",
                                  "18446744073709551616",
                                  "1e308",
                                  "1e-400",
                                  "nan",
                                  "inf",
                                  "500",
                                  "100",
                                  "500ns",
                                  "1us",
                                  "9e9s",
                                  "1e30s",
                                  "2562047h",
                                  "1e6s",
                                  "100Gbps",
                                  "0bps",
                                  "1bps",
                                  "18446744073709551615bps",
                                  "1e30Gbps",
                                  "1KiB",
                                  "1TiB",
                                  "ring,",
                                  ",ring",
                                  "ring,,direct",
                                  "ring,ring",
                                  "mesh,",
                                  "mesh,mesh",
                                  std::string(5000, '9'),
                                  std::string(5000, '9') + "bps",
                                  std::string(5000, '9') + "s",
                                  "0." + std::string(5000, '0') + "1s",
                                  std::string("\x00\xff\x80", 3),
                                  "\xc3\x28",
                                  "\t1\t",
                                  "1 2",
                                  ",,,,"};
    return v;
}

struct Outcome
{
    std::size_t accepted{0};
    std::size_t refused{0};
    std::size_t validated{0};
};

/**
 * Feed values to every option of a table; then Validate a sample of the
 * accepted ones on each base config.
 * \param table the option table
 * \param bases option assignments to start from (each validated first)
 * \param seed the generator's seed
 * \param generated how many generated values per option
 */
template <typename Config>
Outcome
Fuzz(const std::vector<ExperimentOption<Config>>& table,
     const std::vector<std::vector<std::pair<std::string, std::string>>>& bases,
     uint64_t seed,
     std::size_t generated)
{
    Outcome out;
    Stream r(seed);
    std::vector<std::pair<const ExperimentOption<Config>*, std::string>> accepted;
    std::vector<std::string> values = EdgeCases();
    for (const auto& o : table)
    {
        std::vector<std::string> mine = values;
        mine.push_back(o.get(Config()));
        for (std::size_t i = 0; i < generated; ++i)
        {
            mine.push_back(Generate(r));
        }
        for (const auto& v : mine)
        {
            Config c;
            try
            {
                o.set(c, v);
                ++out.accepted;
                accepted.emplace_back(&o, v);
                // what get() shows must be taken back
                Config again;
                o.set(again, o.get(c));
                EXPECT_EQ(o.get(again), o.get(c)) << o.name << " = '" << v << "'";
            }
            catch (const std::invalid_argument& e)
            {
                ++out.refused;
                std::string what = e.what();
                EXPECT_EQ(what.rfind(o.name + ":", 0), 0u)
                    << o.name << " = '" << v << "' gave '" << what << "'";
            }
            catch (const std::exception& e)
            {
                ADD_FAILURE() << o.name << " = '" << v << "' threw " << e.what();
            }
        }
    }
    // Validate a deterministic sample of the accepted values on each base.
    for (const auto& base : bases)
    {
        Config start;
        for (const auto& [name, value] : base)
        {
            SetOption(table, start, name, value);
        }
        EXPECT_NO_THROW(start.Validate());
        for (std::size_t i = r.Below(7); i < accepted.size(); i += 7)
        {
            Config c = start;
            accepted[i].first->set(c, accepted[i].second);
            try
            {
                c.Validate();
                ++out.validated;
            }
            catch (const std::invalid_argument&)
            {
                ++out.refused;
            }
            catch (const std::exception& e)
            {
                ADD_FAILURE() << accepted[i].first->name << " = '" << accepted[i].second
                              << "': Validate threw " << e.what();
            }
        }
    }
    return out;
}

/// Every table has options, and the fuzzer both accepted and refused values.
void
ExpectBoth(const Outcome& o)
{
    EXPECT_GT(o.accepted, 100u);
    EXPECT_GT(o.refused, 100u);
    EXPECT_GT(o.validated, 10u);
}

} // namespace

TEST(OptionFuzz, Topology)
{
    ExpectBoth(Fuzz(TopologyOptions(), {{}, {{"topology", "leaf-spine"}}}, 1, 200));
}

TEST(OptionFuzz, HeteroTopology)
{
    ExpectBoth(Fuzz(TopologyOptions(),
                    {{{"topology", "hetero-leaf-spine"}, {"host-groups", "3x25Gbps,2x100Gbps"}}},
                    11,
                    200));
}

TEST(OptionFuzz, Traffic)
{
    ExpectBoth(Fuzz(TrafficOptions(), {{}, {{"flow-control", "lossy"}}}, 2, 100));
}

TEST(OptionFuzz, Collective)
{
    ExpectBoth(Fuzz(CollectiveOptions(),
                    {{},
                     {{"algorithm", "switchml"}},
                     {{"algorithm", "omnireduce"}, {"aggregator-placement", "colocated"}}},
                    3,
                    100));
}

TEST(OptionFuzz, Wafer)
{
    ExpectBoth(Fuzz(WaferOptions(), {{{"variants", "mesh"}, {"scenarios", "allreduce"}}}, 4, 200));
}

TEST(OptionFuzz, Sparse)
{
    ExpectBoth(Fuzz(SparseOptions(), {{{"quick", "true"}}}, 5, 100));
}

TEST(OptionFuzz, Training)
{
    ExpectBoth(Fuzz(TrainingOptions(),
                    {{{"model", "bert-large"}},
                     {{"model", "transformer"},
                      {"layers", "2"},
                      {"hidden", "64"},
                      {"heads", "4"},
                      {"sequence", "16"},
                      {"vocabulary", "32"},
                      {"tp", "2"},
                      {"pp", "2"},
                      {"dp", "2"}}},
                    6,
                    100));
}
