#include "model/interop/trace_file_writer.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace stallscope::model {

bool TraceFileWriter::open(const std::string& path, std::string* error) {
    const bool gzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    if (gzip)
        m_gz = gzopen(path.c_str(), ("wb" + std::to_string(m_gzipLevel)).c_str());
    else
        m_file = std::fopen(path.c_str(), "wb");
    if (!m_gz && !m_file) {
        *error = std::strerror(errno);
        return false;
    }
    m_buffer.reserve(kFlushAt + 4096);
    return true;
}

void TraceFileWriter::flush() {
    if (m_buffer.empty())
        return;
    m_flushedBytes += static_cast<int64_t>(m_buffer.size());
    const bool ok =
        m_gz ? gzwrite(m_gz, m_buffer.data(), static_cast<unsigned>(m_buffer.size())) ==
                   static_cast<int>(m_buffer.size())
             : std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file) == m_buffer.size();
    m_failed = m_failed || !ok;
    m_buffer.clear();
}

bool TraceFileWriter::close() {
    flush();
    bool ok = !m_failed;
    if (m_gz)
        ok = gzclose(m_gz) == Z_OK && ok;
    if (m_file)
        ok = std::fclose(m_file) == 0 && ok;
    m_gz = nullptr;
    m_file = nullptr;
    return ok;
}

} // namespace stallscope::model
