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
 * Finds a key given twice in one object, and nesting deeper than
 * MAX_JSON_DEPTH. A SAX pass of its own: a parser
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
        return Deeper();
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
        --m_depth;
        return true;
    }

    bool start_array(std::size_t) override
    {
        return Deeper();
    }

    bool end_array() override
    {
        --m_depth;
        return true;
    }

    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override
    {
        return false; // the DOM parse after this pass reports them
    }

    bool tooDeep{false}; //!< arrays and objects nest deeper than MAX_JSON_DEPTH

private:
    /// Enter an array or object; false (stop) beyond MAX_JSON_DEPTH
    bool Deeper()
    {
        tooDeep = ++m_depth > MAX_JSON_DEPTH;
        return !tooDeep;
    }

    std::vector<std::set<std::string>> m_keys; //!< one set per open object
    uint32_t m_depth{0};                       //!< arrays and objects open
};

} // namespace

nlohmann::json
ParseJsonDocument(const std::string& text, const std::string& source)
{
    // first, since a document too deep for the recursive walks is not built at all
    DuplicateKeys keys;
    nlohmann::json::sax_parse(text, &keys);
    if (keys.tooDeep)
    {
        throw std::invalid_argument(PrintablePath(source)
                                    + ": not valid JSON: arrays and objects nested deeper than "
                                    + std::to_string(MAX_JSON_DEPTH) + " levels");
    }
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
    if (!keys.duplicate.empty())
    {
        throw std::invalid_argument(PrintablePath(source) + ": not valid JSON: the key '"
                                    + PrintableText(keys.duplicate)
                                    + "' is given twice in one object (give each key once)");
    }
    return document;
}

std::string
JsonText(const nlohmann::json& value, int indent)
{
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace dlnet
} // namespace ns3
