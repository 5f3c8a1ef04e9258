/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "result-fields.h"

#include "result-writer.h"

#include "ns3/config-parse.h"
#include "ns3/file-io.h"
#include "ns3/json-document.h"
#include "ns3/log.h"

#include <fstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetResultFields");

std::string
CsvText(const nlohmann::json& v)
{
    switch (v.type())
    {
        case nlohmann::json::value_t::null:
            return "";
        case nlohmann::json::value_t::boolean:
            return v.get<bool>() ? "1" : "0";
        case nlohmann::json::value_t::number_integer:
            return std::to_string(v.get<int64_t>());
        case nlohmann::json::value_t::number_unsigned:
            return std::to_string(v.get<uint64_t>());
        case nlohmann::json::value_t::number_float:
            return ExactText(v.get<double>());
        case nlohmann::json::value_t::string:
            return v.get<std::string>();
        default:
            throw std::logic_error("CsvText: a " + std::string(v.type_name())
                                   + " value has no CSV text");
    }
}

void
WriteTextFile(const std::string& path, const std::string& text)
{
    dlnet::MakeParentFolders("results", path); // CheckResultsDir made none
    std::ofstream out = dlnet::OpenOutputFile("results", path);
    out << text;
    dlnet::CloseOutputFile("results", path, out);
}

void
WriteJson(const std::string& path, const nlohmann::json& j)
{
    WriteTextFile(path, dlnet::JsonText(j, 2) + "\n");
}

nlohmann::json
OptionValueJson(const std::string& kind, const std::string& text)
{
    if (!text.empty() && (kind == "int" || kind == "float"))
    {
        // the option's own text, so parsing it cannot fail but for a kind mislabelled
        nlohmann::json v = nlohmann::json::parse(text, nullptr, false);
        if (v.is_number())
        {
            return kind == "float" ? nlohmann::json(v.get<double>()) : v;
        }
    }
    if (kind == "bool")
    {
        return text == "true";
    }
    return text;
}

} // namespace ns3
