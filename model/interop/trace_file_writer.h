#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

struct gzFile_s;

namespace stallscope::model {

// Buffered output to a trace file: gzip-compressed when the path ends in ".gz", plain otherwise.
// Callers append to text() and call maybeFlush() between records; close() reports whether every
// write succeeded.
class TraceFileWriter {
public:
    // `gzipLevel` trades speed for size (1 fastest .. 9 smallest); plain files ignore it.
    explicit TraceFileWriter(int gzipLevel = 6) : m_gzipLevel(gzipLevel) {}
    ~TraceFileWriter() { close(); }
    TraceFileWriter(const TraceFileWriter&) = delete;
    TraceFileWriter& operator=(const TraceFileWriter&) = delete;

    // False with the system's reason in `error` when the file cannot be created.
    bool open(const std::string& path, std::string* error);
    std::string& text() { return m_buffer; }
    void maybeFlush() {
        if (m_buffer.size() >= kFlushAt)
            flush();
    }
    void flush();
    bool close();
    // Bytes written so far, before compression, including what is still buffered.
    int64_t bytes() const { return m_flushedBytes + static_cast<int64_t>(m_buffer.size()); }

private:
    static constexpr size_t kFlushAt = 1 << 20;
    int m_gzipLevel;
    gzFile_s* m_gz = nullptr;
    std::FILE* m_file = nullptr;
    std::string m_buffer;
    int64_t m_flushedBytes = 0;
    bool m_failed = false;
};

} // namespace stallscope::model
