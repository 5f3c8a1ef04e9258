/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_FUZZ_MUTATE_H
#define DLNET_FUZZ_MUTATE_H

// What the in-process fuzz tests share: a seeded generator and the token
// spans their mutations pick from.

#include "ns3/splitmix64.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace
{

class Rng
{
public:
    explicit Rng(uint64_t seed)
        : m_state(seed)
    {
    }

    uint64_t Next()
    {
        m_state += ns3::dlnet::SPLITMIX64_GAMMA;
        return ns3::dlnet::SplitMix64(m_state);
    }

    uint64_t Below(uint64_t n)
    {
        return n == 0 ? 0 : Next() % n;
    }

private:
    uint64_t m_state;
};

/// Token spans (start, length) of whitespace- or punctuation-separated words.
std::vector<std::pair<std::size_t, std::size_t>>
Tokens(const std::string& s)
{
    std::vector<std::pair<std::size_t, std::size_t>> v;
    std::size_t i = 0;
    auto sep = [](char c)
    {
        return std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == ':' || c == '['
               || c == ']' || c == '{' || c == '}';
    };
    while (i < s.size())
    {
        while (i < s.size() && sep(s[i]))
        {
            ++i;
        }
        std::size_t j = i;
        while (j < s.size() && !sep(s[j]))
        {
            ++j;
        }
        if (j > i)
        {
            v.emplace_back(i, j - i);
        }
        i = j;
    }
    return v;
}

/// Flip one to four random bits of s (not empty).
void
FlipBits(std::string& s, Rng& rng)
{
    for (uint32_t n = 1 + rng.Below(4); n > 0; --n)
    {
        s[rng.Below(s.size())] ^= static_cast<char>(1u << rng.Below(8));
    }
}

/// The tokens of s that start with a digit.
std::vector<std::pair<std::size_t, std::size_t>>
DigitTokens(const std::string& s, const std::vector<std::pair<std::size_t, std::size_t>>& toks)
{
    std::vector<std::pair<std::size_t, std::size_t>> nums;
    for (auto t : toks)
    {
        if (std::isdigit(static_cast<unsigned char>(s[t.first])))
        {
            nums.push_back(t);
        }
    }
    return nums;
}

/// Duplicate or delete a random line of s (not empty).
void
DuplicateOrDeleteLine(std::string& s, Rng& rng)
{
    std::size_t a = s.rfind('\n', rng.Below(s.size()));
    a = a == std::string::npos ? 0 : a + 1;
    std::size_t b = s.find('\n', a);
    b = b == std::string::npos ? s.size() : b + 1;
    std::string line = s.substr(a, b - a);
    if (rng.Below(2) == 0)
    {
        s.insert(a, line);
    }
    else
    {
        s.erase(a, b - a);
    }
}

} // namespace

#endif /* DLNET_FUZZ_MUTATE_H */
