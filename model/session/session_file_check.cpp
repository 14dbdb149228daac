#include "model/session/session_file_check.h"

#include "format/sqlite_database.h"
#include "format/sqlite_header.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace stallscope::model {

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
    uint8_t bytes[format::SqliteHeader::kBytes]{};
    in.read(reinterpret_cast<char*>(bytes), sizeof bytes);
    const format::SqliteHeader header = format::SqliteHeader::decode(bytes);
    if (in.gcount() < 16 || !header.magic)
        return "not a Stallscope session (not an SQLite database)";
    if (in.gcount() < static_cast<std::streamsize>(sizeof bytes))
        return "truncated (" + std::to_string(size) + " bytes, shorter than the SQLite header)";

    const uint32_t pageSize = header.pageSize;
    if (!header.pageSizeValid())
        return "corrupt SQLite header (page size " + std::to_string(pageSize) + ")";
    if (size % pageSize != 0)
        return "truncated (" + std::to_string(size) + " bytes is not a whole number of " +
               std::to_string(pageSize) + "-byte pages)";
    // Before the size check below: a file whose pages are still in its WAL is not truncated.
    if (const format::SqliteSideFiles side = format::sqliteSideFiles(path); side.pending())
        return format::pendingSideFilesProblem(path, side);
    if (header.pageCountValid && header.pageCount > 0 &&
        uint64_t(header.pageCount) * pageSize > size)
        return "truncated (" + std::to_string(size) + " of " +
               std::to_string(uint64_t(header.pageCount) * pageSize) + " bytes present)";
    return {};
}

} // namespace stallscope::model
