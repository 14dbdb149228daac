// The first 100 bytes of an SQLite file, decoded (https://www.sqlite.org/fileformat2.html,
// "The Database Header"): what the session file check and the page scanner (btree_scanner.h) read
// of it, and the big-endian integers the file format is written in. Header-only, Qt-free.
#pragma once

#include <cstdint>
#include <cstring>

namespace stallscope::format {

// The file format's integers are big-endian (header fields, page headers, cell pointers).
inline uint32_t bigEndian16(const uint8_t* p) {
    return (uint32_t(p[0]) << 8) | p[1];
}
inline uint32_t bigEndian32(const uint8_t* p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

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
        SqliteHeader header;
        header.magic = std::memcmp(bytes, "SQLite format 3", 16) == 0;
        header.pageSize = bigEndian16(bytes + 16);
        if (header.pageSize == 1)
            header.pageSize = 65536;
        header.rollbackJournal = bytes[18] == 1 && bytes[19] == 1;
        header.reservedBytes = bytes[20];
        header.pageCount = bigEndian32(bytes + 28);
        header.pageCountValid = bigEndian32(bytes + 24) == bigEndian32(bytes + 92);
        return header;
    }
    // A power of two from 512 to 65536, as SQLite allows.
    bool pageSizeValid() const {
        return pageSize >= 512 && pageSize <= 65536 && (pageSize & (pageSize - 1)) == 0;
    }
};

} // namespace stallscope::format
