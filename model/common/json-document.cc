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

/**
 * Finds a key given twice in one object. A SAX pass of its own: a parser
 * callback would switch nlohmann 3.11 to a DOM builder that rescans a
 * container at every object's end (quadratic in an array of objects).
 */
class DuplicateKeys : public nlohmann::json_sax<nlohmann::json>
{
public:
    std::string duplicate; //!< the first key given twice, empty if none

    bool null() override
    {
        return true;
    }

    bool boolean(bool) override
    {
        return true;
    }

    bool number_integer(number_integer_t) override
    {
        return true;
    }

    bool number_unsigned(number_unsigned_t) override
    {
        return true;
    }

    bool number_float(number_float_t, const string_t&) override
    {
        return true;
    }

    bool string(string_t&) override
    {
        return true;
    }

    bool binary(binary_t&) override
    {
        return true;
    }

    bool start_object(std::size_t) override
    {
        m_keys.emplace_back();
        return true;
    }

    bool key(string_t& key) override
    {
        if (!m_keys.back().insert(key).second)
        {
            duplicate = key;
            return false; // stops the pass
        }
        return true;
    }

    bool end_object() override
    {
        m_keys.pop_back();
        return true;
    }

    bool start_array(std::size_t) override
    {
        return true;
    }

    bool end_array() override
    {
        return true;
    }

    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override
    {
        return false; // the DOM parse, done first, reports errors
    }

private:
    std::vector<std::set<std::string>> m_keys; //!< one set per open object
};

} // namespace

nlohmann::json
ParseJsonDocument(const std::string& text, const std::string& source)
{
    nlohmann::json document;
    try
    {
        document = nlohmann::json::parse(text);
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
    // nlohmann keeps the last of a key given twice without a word
    DuplicateKeys keys;
    nlohmann::json::sax_parse(text, &keys);
    if (!keys.duplicate.empty())
    {
        throw std::invalid_argument(PrintablePath(source) + ": not valid JSON: the key '"
                                    + PrintableText(keys.duplicate)
                                    + "' is given twice in one object (give each key once)");
    }
    return document;
}

} // namespace dlnet
} // namespace ns3
