/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_FILE_IO_H
#define DLNET_FILE_IO_H

#include <cstdint>
#include <fstream>
#include <string>

namespace ns3
{
namespace dlnet
{

/// The largest input file read (workload, groups, catalogue, profile and sparsity files).
constexpr uint64_t MAX_INPUT_FILE_BYTES = 256ull << 20;

/**
 * The one read of an input file's text, bounded as it is read.
 * \param field the option that names the file (in errors)
 * \param path the file
 * \return its text
 * \throws std::invalid_argument naming field and path when the file cannot be
 * read, is not a regular file (a device such as /dev/zero, a FIFO, a
 * directory) or holds more than MAX_INPUT_FILE_BYTES
 */
std::string ReadInputFile(const std::string& field, const std::string& path);

/**
 * Refuse an output path that exists and is not a regular file (after symbolic
 * links): opening a FIFO for writing waits for a reader without end, and a
 * device such as /dev/full swallows or refuses what is written.
 * \param field the option that names the file (in errors)
 * \param path the file
 * \throws std::invalid_argument naming field and path
 */
void CheckOutputFileKind(const std::string& field, const std::string& path);

/**
 * The one way an output file is opened: its kind checked
 * (CheckOutputFileKind), then opened to write in binary (its folder must
 * exist: MakeParentFolders makes it). \throws std::runtime_error "<field>: cannot write <path>"
 * when it cannot be opened, std::invalid_argument as the checks do
 */
std::ofstream OpenOutputFile(const std::string& field, const std::string& path);

/**
 * Close an output file OpenOutputFile opened and check that every byte was
 * written (a full disk shows only when the buffer is flushed).
 * \throws std::runtime_error "<field>: cannot write <path>" otherwise
 */
void CloseOutputFile(const std::string& field, const std::string& path, std::ofstream& out);

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_FILE_IO_H */
