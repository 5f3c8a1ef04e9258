/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "json-document.h"

#include "config-parse.h"

#include "ns3/log.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JsonDocument");

namespace dlnet
{

namespace
{

/// A key given twice in one object (thrown from the parser's callback)
struct DuplicateKey
{
    std::string key;
};

} // namespace

nlohmann::json
ParseJsonDocument(const std::string& text, const std::string& source)
{
    std::vector<std::set<std::string>> keys; // one set per open object
    auto once = [&keys](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed)
    {
        using Event = nlohmann::json::parse_event_t;
        if (event == Event::object_start)
        {
            keys.emplace_back();
        }
        else if (event == Event::object_end)
        {
            keys.pop_back();
        }
        else if (event == Event::key && !keys.back().insert(parsed.get<std::string>()).second)
        {
            throw DuplicateKey{parsed.get<std::string>()};
        }
        return true;
    };
    try
    {
        return nlohmann::json::parse(text, once);
    }
    catch (const DuplicateKey& d)
    {
        throw std::invalid_argument(PrintablePath(source) + ": not valid JSON: the key '"
                                    + PrintableText(d.key)
                                    + "' is given twice in one object (give each key once)");
    }
    catch (const nlohmann::json::parse_error& e)
    {
        // the line helps more than nlohmann's byte offset in a hand-edited file
        std::size_t line = 1
                           + std::count(text.begin(),
                                        text.begin() + std::min<std::size_t>(e.byte, text.size()),
                                        '\n');
        throw std::invalid_argument(PrintablePath(source) + ":" + std::to_string(line)
                                    + ": not valid JSON: " + e.what());
    }
    catch (const std::exception& e)
    {
        // number overflow (1e400) and the like
        throw std::invalid_argument(PrintablePath(source) + ": not valid JSON: " + e.what());
    }
}

} // namespace dlnet
} // namespace ns3
