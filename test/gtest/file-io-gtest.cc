/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pure logic: reading input files, opening output files, the JSON reader's depth and the
// JSON writer's handling of bytes that are not UTF-8.

#include "expect-invalid.h"

#include "ns3/file-io.h"
#include "ns3/json-document.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

using namespace ns3;
using namespace ns3::dlnet;

namespace
{

/// A fresh folder under the temporary folder, removed with its files at the end.
class TempFolder
{
public:
    TempFolder()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "dlnet-io-XXXXXX");
        m_path = mkdtemp(pattern.data());
    }

    ~TempFolder()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }

    std::string operator/(const std::string& name) const
    {
        return (std::filesystem::path(m_path) / name).string();
    }

private:
    std::string m_path;
};

std::string
Nested(uint32_t depth)
{
    return std::string(depth, '[') + std::string(depth, ']');
}

} // namespace

TEST(FileIo, ReadInputFileRefusesWhatIsNotARegularFile)
{
    TempFolder dir;
    const std::string fifo = dir / "fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    // a FIFO without a writer would block the open for ever: refused before it
    ExpectInvalid(
        [&]
        {
            ReadInputFile("sparsity-file", fifo);
        },
        {"sparsity-file: '", "fifo' is not a regular file"});
    ExpectInvalid(
        [&]
        {
            ReadInputFile("profile", "/dev/zero");
        },
        {"profile: '/dev/zero' is not a regular file"});
    ExpectInvalid(
        [&]
        {
            ReadInputFile("catalogue", dir / "none");
        },
        {"catalogue: '", "none' cannot be read (no such file)"});
    std::ofstream(dir / "text") << "a\nb";
    EXPECT_EQ(ReadInputFile("workload-file", dir / "text"), "a\nb");
}

TEST(FileIo, OutputFileKindRefusesFifosDevicesAndFolders)
{
    TempFolder dir;
    const std::string fifo = dir / "fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    ExpectInvalid(
        [&]
        {
            CheckOutputFileKind("timeline", fifo);
        },
        {"timeline: got '", "it is not a regular file (a FIFO"});
    ExpectInvalid(
        [&]
        {
            OpenOutputFile("timeline", fifo);
        },
        {"timeline: got '"});
    ExpectInvalid(
        [&]
        {
            CheckOutputFileKind("results", "/dev/full");
        },
        {"results: got '/dev/full'", "not a regular file"});
    // through a symbolic link too
    ASSERT_EQ(symlink("/dev/full", (dir / "link").c_str()), 0);
    ExpectInvalid(
        [&]
        {
            CheckOutputFileKind("results", dir / "link");
        },
        {"not a regular file"});
    ExpectInvalid(
        [&]
        {
            CheckOutputFileKind("results", dir / "");
        },
        {"it is a folder"});
    // a file, or a name not taken yet, is written
    CheckOutputFileKind("results", dir / "new.csv");
    std::ofstream out = OpenOutputFile("results", dir / "new.csv");
    out << "x";
    CloseOutputFile("results", dir / "new.csv", out);
    CheckOutputFileKind("results", dir / "new.csv");
    EXPECT_EQ(ReadInputFile("results", dir / "new.csv"), "x");
}

TEST(FileIo, CloseOutputFileReportsBytesNotWritten)
{
    // a full disk shows only when the buffer is flushed: less than a buffer's worth was
    // taken by the open stream without a word
    std::ofstream out("/dev/full", std::ios::binary);
    ASSERT_TRUE(bool(out));
    out << "a few bytes";
    EXPECT_TRUE(bool(out));
    try
    {
        CloseOutputFile("results", "/dev/full", out);
        ADD_FAILURE() << "no exception";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()), "results: cannot write /dev/full");
    }
}

TEST(JsonDocument, RefusesNestingDeeperThanTheLimit)
{
    EXPECT_NO_THROW(ParseJsonDocument(Nested(MAX_JSON_DEPTH), "ok.json"));
    ExpectInvalid(
        []
        {
            ParseJsonDocument(Nested(MAX_JSON_DEPTH + 1), "deep.json");
        },
        {"deep.json: not valid JSON: arrays and objects nested deeper than 256 levels"});
    // far deeper than the stack takes in a recursive walk (nlohmann's dump crashed at about
    // 70000 levels); objects count as arrays do
    ExpectInvalid(
        []
        {
            ParseJsonDocument(Nested(1000000), "deeper.json");
        },
        {"deeper.json: not valid JSON: arrays and objects nested deeper"});
    std::string objects;
    for (uint32_t i = 0; i <= MAX_JSON_DEPTH; ++i)
    {
        objects += "{\"a\":";
    }
    objects += "1" + std::string(MAX_JSON_DEPTH + 1, '}');
    ExpectInvalid(
        [&]
        {
            ParseJsonDocument(objects, "objects.json");
        },
        {"nested deeper"});
    // syntax errors are still reported with their line
    ExpectInvalid(
        []
        {
            ParseJsonDocument("[\n[1,]]", "bad.json");
        },
        {"bad.json:2: not valid JSON"});
}

TEST(JsonDocument, JsonTextWritesInvalidUtf8AsReplacementCharacters)
{
    // nlohmann's default dump throws type_error 316 on such a byte
    EXPECT_EQ(JsonText(nlohmann::json("f\xff"
                                      "1")),
              "\"f\xef\xbf\xbd"
              "1\"");
    EXPECT_EQ(JsonText(nlohmann::json{{"a", 1}}, 2), "{\n  \"a\": 1\n}");
}
