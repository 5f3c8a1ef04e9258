/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_JSON_DOCUMENT_H
#define DLNET_JSON_DOCUMENT_H

#include <nlohmann/json.hpp>

#include <cstdint>
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

/// The deepest nesting of arrays and objects ParseJsonDocument takes: far beyond any input
/// file's, and shallow enough that the recursive walks of a document (nlohmann's dump) stay
/// within the stack.
constexpr uint32_t MAX_JSON_DEPTH = 256;

/**
 * The one way a value becomes JSON text. Strings from the command line and the
 * file system need not be UTF-8: their invalid bytes are written as U+FFFD
 * rather than refused (nlohmann's default throws).
 * \param value the value \param indent as nlohmann's dump: -1 for one line
 */
std::string JsonText(const nlohmann::json& value, int indent = -1);

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_JSON_DOCUMENT_H */
