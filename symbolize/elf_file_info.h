// ElfFileInfo: the few facts about an ELF file on disk that symbolization needs before handing it
// to LLVM — its GNU build id (to check that the file is the one that was loaded when recording, and
// to find a separate debug file) and its type. Reads headers only (pread), so
// checking a 1 GB libtorch_cuda.so costs microseconds.
#pragma once

#include <cstdint>
#include <string>

namespace stallscope::symbolize {

class ElfFileInfo {
public:
    // Returns false (and sets *error) when the file cannot be read or is not a 64-bit ELF.
    bool read(const std::string& path, std::string* error);

    // GNU build id as lower-case hex, empty when the file has none.
    const std::string& buildId() const { return m_buildId; }
    // ET_EXEC (2) or ET_DYN (3, PIE executables and shared objects).
    int type() const { return m_type; }

    // The conventional separate-debug-file location for a build id inside `debugRoot`
    // (e.g. /usr/lib/debug/.build-id/ab/cdef....debug); empty for an id shorter than 2 bytes.
    static std::string buildIdDebugPath(const std::string& debugRoot, const std::string& buildId);

private:
    std::string m_buildId;
    int m_type = 0;
};

} // namespace stallscope::symbolize
