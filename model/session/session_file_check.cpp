#include "model/session/session_file_check.h"

#include "format/sqlite_database.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace stallscope::model {

namespace {

uint32_t readBigEndian32(const unsigned char* bytes) {
    return (uint32_t(bytes[0]) << 24) | (uint32_t(bytes[1]) << 16) | (uint32_t(bytes[2]) << 8) |
           uint32_t(bytes[3]);
}

} // namespace

std::string checkSqliteFile(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        return "no such file";
    if (fs::is_directory(status))
        return "is a folder holding no session files (.stallscope) and no torch.profiler traces "
               "(.json, .json.gz)";
    if (!fs::is_regular_file(status))
        return "not a regular file";
    const auto size = fs::file_size(path, ec);
    if (ec)
        return "cannot read the file size (" + ec.message() + ")";
    if (size == 0)
        return "empty file (0 bytes)";

    std::ifstream in(path, std::ios::binary);
    if (!in)
        return "cannot open for reading (" + std::string(std::strerror(errno)) + ")";
    // The SQLite header is the first 100 bytes (https://www.sqlite.org/fileformat.html).
    std::array<unsigned char, 100> header{};
    in.read(reinterpret_cast<char*>(header.data()), header.size());
    static constexpr char kMagic[] = "SQLite format 3";
    if (in.gcount() < 16 || std::memcmp(header.data(), kMagic, sizeof kMagic) != 0)
        return "not a Stallscope session (not an SQLite database)";
    if (in.gcount() < static_cast<std::streamsize>(header.size()))
        return "truncated (" + std::to_string(size) + " bytes, shorter than the SQLite header)";

    uint32_t pageSize = (uint32_t(header[16]) << 8) | header[17];
    if (pageSize == 1)
        pageSize = 65536;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) != 0)
        return "corrupt SQLite header (page size " + std::to_string(pageSize) + ")";
    if (size % pageSize != 0)
        return "truncated (" + std::to_string(size) + " bytes is not a whole number of " +
               std::to_string(pageSize) + "-byte pages)";
    // The in-header page count is valid when the change counter matches version-valid-for.
    const uint32_t pageCount = readBigEndian32(&header[28]);
    const bool pageCountValid = readBigEndian32(&header[24]) == readBigEndian32(&header[92]);
    // Before the size check below: a file whose pages are still in its WAL is not truncated.
    if (const format::SqliteSideFiles side = format::sqliteSideFiles(path); side.pending())
        return format::pendingSideFilesProblem(path, side);
    if (pageCountValid && pageCount > 0 && uint64_t(pageCount) * pageSize > size)
        return "truncated (" + std::to_string(size) + " of " +
               std::to_string(uint64_t(pageCount) * pageSize) + " bytes present)";
    return {};
}

} // namespace stallscope::model
