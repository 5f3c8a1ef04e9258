/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_JSON_DOCUMENT_H
#define DLNET_JSON_DOCUMENT_H

#include <nlohmann/json.hpp>

#include <string>

namespace ns3
{
namespace dlnet
{

/**
 * The one read of a JSON input file. nlohmann's parser keeps the last of a
 * key given twice in one object without a word; here that is an error.
 * \return the document; std::invalid_argument "<source>:<line>: not valid
 * JSON: ..." otherwise ("<source>: not valid JSON: the key '...' is given
 * twice ...", without a line, for a repeated key)
 */
nlohmann::json ParseJsonDocument(const std::string& text, const std::string& source);

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_JSON_DOCUMENT_H */
