/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_INPUT_JSON_H
#define DLNET_INPUT_JSON_H

// Internal to model/scheduler: the strict JSON reads of the catalogue and
// profile files. Every error is std::invalid_argument "<source>: <path>:
// <what is wrong> (<what is allowed>)", the path written as in the file
// (types[2].price_per_hour).

#include "ns3/json-document.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace dlnet
{

/// The longest name (of a type, layer, kind, catalogue) an input file may give
constexpr std::size_t MAX_INPUT_NAME = 256;

/// Throw std::invalid_argument "<source>: <path>: <what>"
[[noreturn]] void InputFail(const std::string& source,
                            const std::string& path,
                            const std::string& what);

/// Refuse a value that is not an object, or an object with a key outside allowed (naming it)
void CheckJsonKeys(const nlohmann::json& value,
                   const std::string& source,
                   const std::string& path,
                   const std::vector<std::string>& allowed);

/// \return object[key]; refused naming path.key when it is missing
const nlohmann::json& JsonRequire(const nlohmann::json& object,
                                  const std::string& source,
                                  const std::string& path,
                                  const std::string& key);

/// \return a JSON number in (0, max] (finite)
double JsonPositive(const nlohmann::json& value,
                    const std::string& source,
                    const std::string& path,
                    double max);

/// \return a JSON number in [min, max]
double JsonReal(const nlohmann::json& value,
                const std::string& source,
                const std::string& path,
                double min,
                double max);

/// \return a JSON whole number in [min, max]
uint64_t JsonUnsigned(const nlohmann::json& value,
                      const std::string& source,
                      const std::string& path,
                      uint64_t min,
                      uint64_t max);

/// \return a JSON string that is a valid name (CheckInputName)
std::string JsonName(const nlohmann::json& value,
                     const std::string& source,
                     const std::string& path);

/**
 * \return "" when text is a usable name: 1 to MAX_INPUT_NAME printable ASCII
 * characters without a comma, double quote, backquote or backslash, not
 * starting with '#' nor with or ending in a space (what a CSV cell and a
 * gnuplot string hold unchanged); otherwise what is wrong with it
 */
std::string CheckInputName(const std::string& text);

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_INPUT_JSON_H */
