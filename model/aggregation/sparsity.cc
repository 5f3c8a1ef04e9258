/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "sparsity.h"

#include "ns3/ceil-divide.h"
#include "ns3/config-parse.h"
#include "ns3/file-io.h"
#include "ns3/log.h"
#include "ns3/splitmix64.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Sparsity");

namespace
{

const std::vector<SparsityPlacement> g_placements
    = {SparsityPlacement::RANDOM, SparsityPlacement::OVERLAP, SparsityPlacement::DISJOINT};

/// Independent stream tags, so that the draws of one use never shift another's.
enum StreamTag : uint64_t
{
    TAG_RANDOM = 1,
    TAG_OVERLAP = 2,
    TAG_DISJOINT = 3,
    TAG_VALUES = 4,
};

using dlnet::SplitMix64;

/// \return a seed for the stream (seed, tag, index)
uint64_t
StreamSeed(uint64_t seed, uint64_t tag, uint64_t index)
{
    return SplitMix64(SplitMix64(SplitMix64(seed) ^ tag) ^ index);
}

/**
 * \return a uniform draw in [0, range), range >= 1: rejection on whole
 * buckets of range values, so every platform gives the same sequence.
 */
uint64_t
UniformBelow(std::mt19937_64& g, uint64_t range)
{
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    while (true)
    {
        uint64_t x = g();
        uint64_t r = x % range;
        // accept when the whole bucket [x - r, x - r + range - 1] fits below max
        if (x - r <= max - (range - 1))
        {
            return r;
        }
    }
}

/// Mark k distinct blocks of n, uniformly at random (Floyd's algorithm).
void
PickDistinct(std::mt19937_64& g, uint64_t n, uint64_t k, std::vector<bool>& out)
{
    for (uint64_t j = n - k; j < n; ++j)
    {
        uint64_t t = UniformBelow(g, j + 1);
        if (out[t])
        {
            out[j] = true;
        }
        else
        {
            out[t] = true;
        }
    }
}

std::string
FormatReal(double v)
{
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

void
CheckDensity(double d)
{
    if (!(d >= 0.0 && d <= 1.0))
    {
        throw std::invalid_argument("density: got " + FormatReal(d)
                                    + "; expected a number from 0 to 1");
    }
}

void
CheckWorkers(uint64_t workers)
{
    if (workers == 0)
    {
        throw std::invalid_argument("workers: got 0; expected at least 1");
    }
}

void
CheckBlocks(uint64_t blocks)
{
    if (blocks == 0)
    {
        throw std::invalid_argument("blocks: got 0; expected at least 1");
    }
}

/// workers x blocks flags within MAX_SPARSITY_FLAGS
bool
FitsFlags(uint64_t workers, uint64_t blocks)
{
    return workers == 0 || blocks <= MAX_SPARSITY_FLAGS / workers;
}

/// The message for a pattern of more than MAX_SPARSITY_FLAGS flags (a generated or read one).
std::string
TooManyFlags(uint64_t workers, uint64_t blocks)
{
    return "blocks: " + std::to_string(blocks) + " on " + std::to_string(workers)
           + " workers are more flags than a pattern may hold (2^29)";
}

/// The reader's position, for messages "path:line: ...".
class FileError
{
public:
    FileError(const std::string& path)
        : m_path(path)
    {
    }

    [[noreturn]] void Fail(uint64_t line, const std::string& what) const
    {
        // the file may hold any bytes: the message shows them as \xNN
        throw std::invalid_argument(m_path + ":" + std::to_string(line) + ": "
                                    + dlnet::PrintableText(what));
    }

private:
    std::string m_path;
};

/// \return the whitespace-separated tokens of s
std::vector<std::string>
Tokens(const std::string& s)
{
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size())
    {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
        {
            ++i;
        }
        std::size_t b = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t')
        {
            ++i;
        }
        if (i > b)
        {
            out.push_back(s.substr(b, i - b));
        }
    }
    return out;
}

/// \return true and the value when t is a plain decimal number that fits 64 bits
bool
ToUnsigned(const std::string& t, uint64_t& value)
{
    if (t.empty() || t.size() > 20)
    {
        return false;
    }
    uint64_t v = 0;
    for (char c : t)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
        uint64_t digit = uint64_t(c - '0');
        if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10)
        {
            return false;
        }
        v = v * 10 + digit;
    }
    value = v;
    return true;
}

} // namespace

std::string
ToString(SparsityPlacement placement)
{
    return SparsityPlacementNames().at(static_cast<std::size_t>(placement));
}

const std::vector<std::string>&
SparsityPlacementNames()
{
    static const std::vector<std::string> names = {"random", "overlap", "disjoint"};
    return names;
}

SparsityPlacement
ParseSparsityPlacement(const std::string& field, const std::string& text)
{
    const auto& names = SparsityPlacementNames();
    std::string t = dlnet::ParseChoice(field, text, names);
    return g_placements[std::find(names.begin(), names.end(), t) - names.begin()];
}

uint64_t
SparsityPattern::NonZeroBlocks(uint32_t w) const
{
    const auto& row = nonZero.at(w);
    return uint64_t(std::count(row.begin(), row.end(), true));
}

double
SparsityPattern::Density(uint32_t w) const
{
    return blocks == 0 ? 0.0 : double(NonZeroBlocks(w)) / double(blocks);
}

double
SparsityPattern::UnionDensity() const
{
    if (blocks == 0)
    {
        return 0.0;
    }
    uint64_t count = 0;
    for (uint64_t b = 0; b < blocks; ++b)
    {
        for (const auto& row : nonZero)
        {
            if (row[b])
            {
                ++count;
                break;
            }
        }
    }
    return double(count) / double(blocks);
}

uint64_t
SparsityPattern::NextNonZero(uint32_t w, uint64_t from, uint64_t stride) const
{
    NS_ASSERT_MSG(stride > 0, "NextNonZero: stride must be at least 1");
    const auto& row = nonZero.at(w);
    uint64_t n = row.size();
    for (uint64_t b = from; b < n;)
    {
        if (row[b])
        {
            return b;
        }
        if (stride > n - b)
        {
            break;
        }
        b += stride;
    }
    return UINT64_MAX;
}

uint64_t
SparsityBlocks(uint64_t bytes, uint64_t blockElements)
{
    if (blockElements == 0)
    {
        return 0;
    }
    return dlnet::CeilDivide(bytes / 4, blockElements);
}

void
CheckSparsitySize(const std::string& field,
                  uint64_t bytes,
                  uint64_t blockElements,
                  uint64_t workers)
{
    uint64_t blocks = SparsityBlocks(bytes, blockElements);
    if (!FitsFlags(workers, blocks))
    {
        throw std::invalid_argument(
            field + ": " + std::to_string(bytes) + " bytes in blocks of "
            + std::to_string(blockElements) + " float32 elements on " + std::to_string(workers)
            + " workers make " + std::to_string(blocks) + " x " + std::to_string(workers)
            + " block flags; omnireduce's sparsity pattern holds at most 2^29 (536870912): "
              "lower the bytes or the workers, or raise block-elements");
    }
}

SparsityPattern
GenerateSparsity(
    uint32_t workers, uint64_t blocks, double density, SparsityPlacement placement, uint64_t seed)
{
    NS_LOG_FUNCTION(workers << blocks << density << ToString(placement) << seed);
    CheckDensity(density);
    CheckWorkers(workers);
    CheckBlocks(blocks);
    if (!FitsFlags(workers, blocks))
    {
        throw std::invalid_argument(TooManyFlags(workers, blocks));
    }

    // k = round(d blocks), halves away from zero; double(blocks) may round up, so cap at blocks
    double exact = std::round(density * double(blocks));
    uint64_t k = (exact >= double(blocks)) ? blocks : uint64_t(exact);
    SparsityPattern p;
    p.workers = workers;
    p.blocks = blocks;
    p.nonZero.assign(workers, std::vector<bool>(blocks, false));

    switch (placement)
    {
        case SparsityPlacement::RANDOM:
            for (uint32_t w = 0; w < workers; ++w)
            {
                std::mt19937_64 g(StreamSeed(seed, TAG_RANDOM, w));
                PickDistinct(g, blocks, k, p.nonZero[w]);
            }
            break;
        case SparsityPlacement::OVERLAP:
        {
            std::mt19937_64 g(StreamSeed(seed, TAG_OVERLAP, 0));
            PickDistinct(g, blocks, k, p.nonZero[0]);
            for (uint32_t w = 1; w < workers; ++w)
            {
                p.nonZero[w] = p.nonZero[0];
            }
            break;
        }
        case SparsityPlacement::DISJOINT:
        {
            if (k == 0)
            {
                break;
            }
            // shuffle only the prefix the workers will use (all of it when they wrap)
            uint64_t used = (uint64_t(workers) > blocks / k) ? blocks : uint64_t(workers) * k;
            std::vector<uint64_t> order(blocks);
            for (uint64_t b = 0; b < blocks; ++b)
            {
                order[b] = b;
            }
            std::mt19937_64 g(StreamSeed(seed, TAG_DISJOINT, 0));
            for (uint64_t i = 0; i < used && i + 1 < blocks; ++i)
            {
                std::swap(order[i], order[i + UniformBelow(g, blocks - i)]);
            }
            uint64_t pos = 0;
            for (uint32_t w = 0; w < workers; ++w)
            {
                for (uint64_t i = 0; i < k; ++i)
                {
                    p.nonZero[w][order[pos]] = true;
                    pos = (pos + 1 == blocks) ? 0 : pos + 1;
                }
            }
            break;
        }
    }
    NS_LOG_INFO("sparsity " << ToString(placement) << ": " << workers << " workers, " << blocks
                            << " blocks, " << k << " non-zero each");
    return p;
}

SparsityPattern
ReadSparsityFile(const std::string& path, uint32_t expectedWorkers, uint64_t expectedBlocks)
{
    NS_LOG_FUNCTION(path << expectedWorkers << expectedBlocks);
    std::istringstream in(dlnet::ReadInputFile("sparsity-file", path));
    FileError err(path);
    const std::string magicHelp = "expected the first line 'dlnet-sparsity 1'";
    const std::string headerHelp = "expected the header 'workers N blocks B'";
    const std::string workerHelp = "expected a worker line 'w: i j k-l ...'";

    enum
    {
        MAGIC,
        HEADER,
        WORKERS
    } state = MAGIC;

    SparsityPattern p;
    std::vector<uint64_t> workerLine; // line of each worker's entry, 0 if none yet
    std::string raw;
    uint64_t line = 0;
    while (std::getline(in, raw))
    {
        ++line;
        std::string text = raw.substr(0, raw.find('#'));
        if (!text.empty() && text.back() == '\r')
        {
            text.pop_back();
        }
        std::vector<std::string> tokens = Tokens(text);
        if (tokens.empty())
        {
            continue;
        }
        if (state == MAGIC)
        {
            if (tokens[0] != "dlnet-sparsity" || tokens.size() != 2)
            {
                err.Fail(line, magicHelp + "; got '" + dlnet::JoinList(tokens, " ") + "'");
            }
            if (tokens[1] != "1")
            {
                err.Fail(line,
                         "unsupported version '" + tokens[1] + "'; " + magicHelp
                             + " (the only version)");
            }
            state = HEADER;
            continue;
        }
        if (state == HEADER)
        {
            uint64_t n = 0;
            uint64_t b = 0;
            if (tokens.size() != 4 || tokens[0] != "workers" || tokens[2] != "blocks"
                || !ToUnsigned(tokens[1], n) || !ToUnsigned(tokens[3], b))
            {
                err.Fail(line,
                         headerHelp + " with whole numbers; got '" + dlnet::JoinList(tokens, " ")
                             + "'");
            }
            if (n == 0 || n > std::numeric_limits<uint32_t>::max())
            {
                err.Fail(line,
                         "workers: got " + tokens[1] + "; expected a whole number from 1 to "
                             + std::to_string(std::numeric_limits<uint32_t>::max()));
            }
            if (b == 0)
            {
                err.Fail(line, "blocks: got 0; expected at least 1");
            }
            if (expectedWorkers != 0 && n != expectedWorkers)
            {
                err.Fail(line,
                         "workers: the file has " + std::to_string(n) + " workers; expected "
                             + std::to_string(expectedWorkers) + " (the run's worker count)");
            }
            if (expectedBlocks != 0 && b != expectedBlocks)
            {
                err.Fail(line,
                         "blocks: the file has " + std::to_string(b) + " blocks; expected "
                             + std::to_string(expectedBlocks) + " (the tensor's block count)");
            }
            if (!FitsFlags(n, b))
            {
                err.Fail(line, TooManyFlags(n, b));
            }
            p.workers = uint32_t(n);
            p.blocks = b;
            p.nonZero.assign(p.workers, std::vector<bool>(p.blocks, false));
            workerLine.assign(p.workers, 0);
            state = WORKERS;
            continue;
        }

        // a worker line: "w: indices"
        std::size_t colon = text.find(':');
        if (colon == std::string::npos)
        {
            err.Fail(line, workerHelp + "; got '" + dlnet::JoinList(tokens, " ") + "'");
        }
        std::vector<std::string> head = Tokens(text.substr(0, colon));
        uint64_t w = 0;
        if (head.size() != 1 || !ToUnsigned(head[0], w))
        {
            err.Fail(line,
                     workerHelp + " starting with a worker number; got '"
                         + dlnet::JoinList(head, " ") + ":'");
        }
        if (w >= p.workers)
        {
            err.Fail(line,
                     "worker " + head[0] + " is out of range; expected 0 to "
                         + std::to_string(p.workers - 1) + " (workers " + std::to_string(p.workers)
                         + ")");
        }
        if (workerLine[w] != 0)
        {
            err.Fail(line,
                     "worker " + head[0] + " already has a line (line "
                         + std::to_string(workerLine[w]) + "); expected one line per worker");
        }
        workerLine[w] = line;
        auto& row = p.nonZero[w];
        const std::string range = "; expected 0 to " + std::to_string(p.blocks - 1) + " (blocks "
                                  + std::to_string(p.blocks) + ")";
        for (const auto& t : Tokens(text.substr(colon + 1)))
        {
            uint64_t first = 0;
            uint64_t last = 0;
            std::size_t dash = t.find('-');
            bool ok = (dash == std::string::npos) ? ToUnsigned(t, first)
                                                  : ToUnsigned(t.substr(0, dash), first)
                                                        && ToUnsigned(t.substr(dash + 1), last);
            if (!ok)
            {
                err.Fail(line,
                         "worker " + head[0] + ": expected a block index or a range i-j; got '" + t
                             + "'");
            }
            if (dash == std::string::npos)
            {
                last = first;
            }
            else if (first > last)
            {
                err.Fail(line,
                         "worker " + head[0] + ": range '" + t
                             + "' is reversed; expected i-j with i <= j");
            }
            if (last >= p.blocks)
            {
                err.Fail(line,
                         "worker " + head[0] + ": block index "
                             + std::to_string(first >= p.blocks ? first : last) + " is out of range"
                             + range);
            }
            for (uint64_t b = first;; ++b)
            {
                if (row[b])
                {
                    err.Fail(line,
                             "worker " + head[0] + ": block " + std::to_string(b)
                                 + " is listed twice; expected each block at most once");
                }
                row[b] = true;
                if (b == last)
                {
                    break;
                }
            }
        }
    }
    if (in.bad())
    {
        err.Fail(line, "read error");
    }
    uint64_t end = std::max<uint64_t>(line, 1);
    if (state == MAGIC)
    {
        err.Fail(end, "end of file; " + magicHelp);
    }
    if (state == HEADER)
    {
        err.Fail(end, "end of file; " + headerHelp + " after the first line");
    }
    for (uint32_t w = 0; w < p.workers; ++w)
    {
        if (workerLine[w] == 0)
        {
            err.Fail(end,
                     "end of file: worker " + std::to_string(w)
                         + " has no line; expected one line for each worker 0 to "
                         + std::to_string(p.workers - 1));
        }
    }
    return p;
}

void
WriteSparsityFile(const SparsityPattern& p, const std::string& path)
{
    NS_LOG_FUNCTION(path);
    CheckWorkers(p.workers);
    CheckBlocks(p.blocks);
    if (p.nonZero.size() != p.workers)
    {
        throw std::invalid_argument("workers: the pattern has " + std::to_string(p.workers)
                                    + " workers but " + std::to_string(p.nonZero.size())
                                    + " rows; expected one row per worker");
    }
    for (uint32_t w = 0; w < p.workers; ++w)
    {
        if (p.nonZero[w].size() != p.blocks)
        {
            throw std::invalid_argument("blocks: worker " + std::to_string(w) + "'s row has "
                                        + std::to_string(p.nonZero[w].size()) + " blocks; expected "
                                        + std::to_string(p.blocks));
        }
    }
    std::ofstream out = dlnet::OpenOutputFile("sparsity-file", path);
    out << "# dlnet sparsity pattern: one line per worker, 'w:' then its non-zero blocks\n"
        << "# (i-j is every block from i to j inclusive)\n"
        << "dlnet-sparsity 1\n"
        << "workers " << p.workers << " blocks " << p.blocks << "\n";
    for (uint32_t w = 0; w < p.workers; ++w)
    {
        const auto& row = p.nonZero[w];
        out << w << ":";
        for (uint64_t b = 0; b < p.blocks;)
        {
            if (!row[b])
            {
                ++b;
                continue;
            }
            uint64_t e = b;
            while (e + 1 < p.blocks && row[e + 1])
            {
                ++e;
            }
            out << ' ' << b;
            if (e > b)
            {
                out << '-' << e;
            }
            b = e + 1;
        }
        out << "\n";
    }
    dlnet::CloseOutputFile("sparsity-file", path, out);
}

std::vector<float>
MakeSparseTensor(const SparsityPattern& p, uint32_t w, uint32_t blockElements, uint64_t seed)
{
    NS_LOG_FUNCTION(w << blockElements << seed);
    if (w >= p.workers || w >= p.nonZero.size())
    {
        throw std::invalid_argument("worker: got " + std::to_string(w) + "; expected 0 to "
                                    + std::to_string(int64_t(p.workers) - 1));
    }
    if (blockElements == 0)
    {
        throw std::invalid_argument("block-elements: got 0; expected at least 1");
    }
    const auto& row = p.nonZero[w];
    uint64_t blocks = row.size();
    uint64_t maxElements = std::min<uint64_t>(std::numeric_limits<std::size_t>::max(),
                                              std::vector<float>().max_size());
    if (blocks > maxElements / blockElements)
    {
        throw std::invalid_argument("block-elements: " + std::to_string(blocks) + " blocks of "
                                    + std::to_string(blockElements)
                                    + " elements do not fit in memory");
    }
    std::vector<float> tensor(blocks * blockElements, 0.0f);
    uint64_t base = StreamSeed(seed, TAG_VALUES, w);
    for (uint64_t b = 0; b < blocks; ++b)
    {
        if (!row[b])
        {
            continue;
        }
        for (uint64_t i = b * blockElements; i < (b + 1) * blockElements; ++i)
        {
            // 16 values: 0..7 -> -8..-1, 8..15 -> 1..8
            int v = int(SplitMix64(base + i * dlnet::SPLITMIX64_GAMMA) >> 60);
            tensor[i] = float(v < 8 ? v - 8 : v - 7);
        }
    }
    return tensor;
}

double
ExpectedUnionDensity(double d, uint32_t workers, SparsityPlacement placement)
{
    CheckDensity(d);
    CheckWorkers(workers);
    switch (placement)
    {
        case SparsityPlacement::RANDOM:
            return 1.0 - std::pow(1.0 - d, double(workers));
        case SparsityPlacement::OVERLAP:
            return d;
        case SparsityPlacement::DISJOINT:
            return std::min(1.0, double(workers) * d);
    }
    return 0.0;
}

} // namespace ns3
