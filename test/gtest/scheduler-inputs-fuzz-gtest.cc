/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * In-process fuzzing of the scheduler's input parsers: mutations of the
 * example catalogue and profiles of heterps/ and of the preset's JSON, from
 * a fixed seed. Every case either parses (and then passes Validate) or
 * throws std::invalid_argument naming the source; anything else fails.
 */
#include "fuzz-mutate.h"

#include "ns3/layer-profile.h"
#include "ns3/resource-catalogue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace ns3;

namespace
{

std::string
ReadExample(const std::string& name)
{
    std::ifstream in(std::string(DLNET_SOURCE_DIR) + "/heterps/" + name);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// One to three edits of the kinds a hand-edited CSV or JSON file suffers
std::string
Mutate(const std::string& in, Rng& rng)
{
    static const std::vector<std::string> values
        = {"-1",         "0",  "nan",         "inf",   "1e999", "1e-320", "18446744073709551616",
           "4294967297", "",   "0x10",        "1.5",   "\"x\"", "null",   "true",
           "[]",         "{}", "seconds:tpu", "batch", "#",     ",",      "\n"};
    std::string s = in;
    for (uint32_t k = 1 + rng.Below(3); k > 0 && !s.empty(); --k)
    {
        auto toks = Tokens(s);
        switch (rng.Below(8))
        {
            case 0: // truncate
                s.resize(rng.Below(s.size()));
                break;
            case 1: // flip bits
                FlipBits(s, rng);
                break;
            case 2: // a token replaced by a bad value
            case 3:
                if (!toks.empty())
                {
                    auto t = toks[rng.Below(toks.size())];
                    s.replace(t.first, t.second, values[rng.Below(values.size())]);
                }
                break;
            case 4: // a token deleted
                if (!toks.empty())
                {
                    auto t = toks[rng.Below(toks.size())];
                    s.erase(t.first, t.second);
                }
                break;
            case 5: // a token copied over another
                if (toks.size() > 1)
                {
                    auto a = toks[rng.Below(toks.size())];
                    auto b = toks[rng.Below(toks.size())];
                    s.replace(b.first, b.second, s.substr(a.first, a.second));
                }
                break;
            case 6: // a number replaced by a small valid one (keeps more cases parsable)
            {
                auto nums = DigitTokens(s, toks);
                if (!nums.empty())
                {
                    auto t = nums[rng.Below(nums.size())];
                    s.replace(t.first, t.second, std::to_string(1 + rng.Below(9)));
                }
                break;
            }
            default: // duplicate or delete a line
                DuplicateOrDeleteLine(s, rng);
                break;
        }
    }
    return s;
}

} // namespace

TEST(SchedulerInputsFuzz, MutatedInputsParseOrThrowInvalidArgument)
{
    const ResourceCatalogue catalogue
        = ParseCatalogueJson(ReadExample("catalogue-example.json"), "catalogue-example.json");
    struct Example
    {
        std::string name;
        std::string text;
        uint32_t cases;
    };
    const std::vector<Example> examples
        = {{"catalogue-example.json", ReadExample("catalogue-example.json"), 1500},
           {"aws-2026.json", CatalogueToJson(MakeCataloguePreset("aws-2026")), 1000},
           {"profile-example.csv", ReadExample("profile-example.csv"), 2000},
           {"profile-example.json", ReadExample("profile-example.json"), 1500}};
    const char* seed = std::getenv("DLNET_FUZZ_SEED");
    Rng rng(seed != nullptr ? std::strtoull(seed, nullptr, 10) : 20261130);
    uint32_t total = 0, parsed = 0, refused = 0;
    auto start = std::chrono::steady_clock::now();
    for (const Example& ex : examples)
    {
        ASSERT_FALSE(ex.text.empty()) << ex.name;
        const bool isCatalogue = ex.name.find("catalogue") != std::string::npos
                                 || ex.name.find("aws") != std::string::npos;
        const bool isJson = ex.name.find(".json") != std::string::npos;
        for (uint32_t c = 0; c < ex.cases; ++c, ++total)
        {
            std::string text = Mutate(ex.text, rng);
            try
            {
                if (isCatalogue)
                {
                    ResourceCatalogue parsedCatalogue = ParseCatalogueJson(text, ex.name);
                    EXPECT_NO_THROW(parsedCatalogue.Validate()) << ex.name << " case " << c;
                }
                else
                {
                    LayerProfile p = isJson ? ParseProfileJson(text, ex.name, catalogue)
                                            : ParseProfileCsv(text, ex.name, catalogue);
                    EXPECT_NO_THROW(p.Validate()) << ex.name << " case " << c;
                    EXPECT_LE(p.layers.size(), text.size()) << ex.name << " case " << c;
                }
                ++parsed;
            }
            catch (const std::invalid_argument& e)
            {
                EXPECT_NE(std::string(e.what()).find(ex.name), std::string::npos)
                    << "the error does not name the source: " << e.what();
                ++refused;
            }
            catch (const std::exception& e)
            {
                ADD_FAILURE() << ex.name << " case " << c << ": " << typeid(e).name() << ": "
                              << e.what() << "\n"
                              << text;
            }
        }
    }
    double seconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "fuzz: " << total << " cases, " << parsed << " parsed, " << refused << " refused, "
              << seconds << " s" << std::endl;
    EXPECT_GE(total, 6000u);
    EXPECT_GT(parsed, 0u);
    EXPECT_GT(refused, 0u);
    EXPECT_LT(seconds, 10);
}
