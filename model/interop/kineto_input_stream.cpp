#include "model/interop/kineto_input_stream.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace stallscope::model {

namespace {
constexpr size_t kChunk = 1 << 20; // 1 MiB of decompressed text per read
}

KinetoInputStream::~KinetoInputStream() {
    if (m_file)
        gzclose(static_cast<gzFile>(m_file));
}

bool KinetoInputStream::open(const std::string& path, std::string* error) {
    std::error_code ec;
    m_fileSize = static_cast<int64_t>(std::filesystem::file_size(path, ec));
    if (ec) {
        *error = "cannot read: " + ec.message();
        return false;
    }
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file) {
        *error = std::string("cannot open: ") + std::strerror(errno);
        return false;
    }
    gzbuffer(file, 256 * 1024);
    m_file = file;
    m_buffer.resize(kChunk + 1);
    m_current = m_end = m_buffer.data();
    m_consumed = 0;
    refill();
    m_compressed = gzdirect(file) == 0;
    return true;
}

int64_t KinetoInputStream::fileOffset() const {
    if (!m_file)
        return 0;
    const z_off_t offset = gzoffset(static_cast<gzFile>(m_file));
    return offset < 0 ? 0 : static_cast<int64_t>(offset);
}

// Called when every buffered byte is consumed: reads the next chunk (a '\0' sentinel follows it).
void KinetoInputStream::refill() {
    char* base = m_buffer.data();
    m_consumed += static_cast<size_t>(m_end - base);
    m_current = m_end = base;
    *m_end = '\0';
    if (m_eof)
        return;
    const int n = gzread(static_cast<gzFile>(m_file), base, static_cast<unsigned>(kChunk));
    if (n < 0) {
        int code = 0;
        const char* message = gzerror(static_cast<gzFile>(m_file), &code);
        m_readError = code == Z_BUF_ERROR ? "compressed data ends early (truncated .gz file)"
                                          : std::string("cannot decompress: ") + message;
    }
    if (n <= 0) {
        m_eof = true;
        return;
    }
    m_end = base + n;
    *m_end = '\0';
}

} // namespace stallscope::model
