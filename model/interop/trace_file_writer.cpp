#include "model/interop/trace_file_writer.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace stallscope::model {

bool TraceFileWriter::open(const std::string& path, const format::OutputPolicy& policy,
                           std::string* error) {
    if (!m_output.create(path, policy, error))
        return false;
    m_path = path;
    // The stream gets its own descriptor to close; the OutputFile keeps the temporary file's.
    const int descriptor = dup(m_output.descriptor());
    const bool gzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    if (descriptor >= 0 && gzip)
        m_gz = gzdopen(descriptor, ("wb" + std::to_string(m_gzipLevel)).c_str());
    else if (descriptor >= 0)
        m_file = fdopen(descriptor, "wb");
    if (!m_gz && !m_file) {
        *error = path + ": cannot write: " + std::strerror(errno);
        if (descriptor >= 0)
            ::close(descriptor);
        m_output.discard();
        return false;
    }
    m_buffer.reserve(kFlushAt + 4096);
    return true;
}

void TraceFileWriter::noteFailure() {
    if (m_errno == 0)
        m_errno = errno != 0 ? errno : EIO;
}

void TraceFileWriter::flush() {
    if (m_buffer.empty())
        return;
    m_flushedBytes += static_cast<int64_t>(m_buffer.size());
    errno = 0;
    const bool ok =
        m_gz ? gzwrite(m_gz, m_buffer.data(), static_cast<unsigned>(m_buffer.size())) ==
                   static_cast<int>(m_buffer.size())
             : std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file) == m_buffer.size();
    if (!ok)
        noteFailure();
    m_buffer.clear();
}

bool TraceFileWriter::closeStream() {
    errno = 0;
    bool ok = true;
    if (m_gz)
        ok = gzclose(m_gz) == Z_OK;
    if (m_file)
        ok = std::fclose(m_file) == 0;
    m_gz = nullptr;
    m_file = nullptr;
    return ok;
}

bool TraceFileWriter::finish(std::string* error) {
    if (m_path.empty()) {
        *error = "no trace file open";
        return false;
    }
    if (m_gz || m_file)
        flush();
    if (!closeStream())
        noteFailure();
    if (m_errno != 0) {
        *error = m_path + ": cannot write: " + std::strerror(m_errno);
        m_output.discard();
        return false;
    }
    return m_output.commit(error);
}

} // namespace stallscope::model
