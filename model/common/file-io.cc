/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "file-io.h"

#include "config-parse.h"

#include "ns3/log.h"

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetFileIo");

namespace dlnet
{

std::string
ReadInputFile(const std::string& field, const std::string& path)
{
    const std::string where = field + ": '" + PrintablePath(path) + "'";
    std::error_code error;
    // a device (/dev/zero), a FIFO or a directory would be read without end, or not at all
    if (!std::filesystem::is_regular_file(path, error))
    {
        throw std::invalid_argument(where
                                    + (std::filesystem::exists(path, error)
                                           ? " is not a regular file"
                                           : " cannot be read (no such file)"));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw std::invalid_argument(where + " cannot be read");
    }
    // bounded as it is read (the size on disk may change, or lie)
    std::string text;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0)
    {
        text.append(buffer, in.gcount());
        if (text.size() > MAX_INPUT_FILE_BYTES)
        {
            throw std::invalid_argument(where + " is larger than "
                                        + std::to_string(MAX_INPUT_FILE_BYTES >> 20) + " MiB");
        }
    }
    if (in.bad())
    {
        throw std::invalid_argument(where + " cannot be read");
    }
    return text;
}

void
CheckOutputFileKind(const std::string& field, const std::string& path)
{
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (!std::filesystem::exists(status) || std::filesystem::is_regular_file(status))
    {
        return;
    }
    throw std::invalid_argument(field + ": got '" + PrintablePath(path) + "'; "
                                + (std::filesystem::is_directory(status)
                                       ? "it is a folder"
                                       : "it is not a regular file (a FIFO, a "
                                         "device or a socket)")
                                + "; expected a file to write, or a name that does not exist yet");
}

std::ofstream
OpenOutputFile(const std::string& field, const std::string& path)
{
    CheckOutputFileKind(field, path);
    std::ofstream out(path, std::ios::binary);
    if (!out)
    {
        throw std::runtime_error(field + ": cannot write " + PrintablePath(path));
    }
    return out;
}

void
CloseOutputFile(const std::string& field, const std::string& path, std::ofstream& out)
{
    out.close();
    if (!out)
    {
        throw std::runtime_error(field + ": cannot write " + PrintablePath(path));
    }
}

} // namespace dlnet
} // namespace ns3
