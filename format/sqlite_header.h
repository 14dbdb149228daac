// The first 100 bytes of an SQLite file, decoded (https://www.sqlite.org/fileformat2.html,
// "The Database Header"): what the session file check and the page scanner (btree_scanner.h) read
// of it. Header-only, Qt-free.
#pragma once

#include <cstdint>
#include <cstring>

namespace stallscope::format {

struct SqliteHeader {
    static constexpr size_t kBytes = 100;

    bool magic = false;           // starts with "SQLite format 3\0"
    uint32_t pageSize = 0;        // in bytes (the stored 1 means 65536); not checked here
    bool rollbackJournal = false; // bytes 18 and 19 both 1 (2: a write-ahead log)
    uint8_t reservedBytes = 0;    // at the end of each page
    // The stored page count, and whether it holds: its "version valid for" matches the change
    // counter (else the file's size says).
    uint32_t pageCount = 0;
    bool pageCountValid = false;

    static SqliteHeader decode(const uint8_t (&bytes)[kBytes]) {
        auto bigEndian32 = [&](int at) {
            return (uint32_t(bytes[at]) << 24) | (uint32_t(bytes[at + 1]) << 16) |
                   (uint32_t(bytes[at + 2]) << 8) | bytes[at + 3];
        };
        SqliteHeader header;
        header.magic = std::memcmp(bytes, "SQLite format 3", 16) == 0;
        header.pageSize = (uint32_t(bytes[16]) << 8) | bytes[17];
        if (header.pageSize == 1)
            header.pageSize = 65536;
        header.rollbackJournal = bytes[18] == 1 && bytes[19] == 1;
        header.reservedBytes = bytes[20];
        header.pageCount = bigEndian32(28);
        header.pageCountValid = bigEndian32(24) == bigEndian32(92);
        return header;
    }
    // A power of two from 512 to 65536, as SQLite allows.
    bool pageSizeValid() const {
        return pageSize >= 512 && pageSize <= 65536 && (pageSize & (pageSize - 1)) == 0;
    }
};

} // namespace stallscope::format
