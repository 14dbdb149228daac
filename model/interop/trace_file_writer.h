#pragma once

#include "format/output_file.h"

#include <cstdint>
#include <cstdio>
#include <string>

struct gzFile_s;

namespace stallscope::model {

// Buffered output to a trace file: gzip-compressed when the path ends in ".gz", plain otherwise.
// Written through format::OutputFile: the file appears under its name only when finish() succeeds;
// a writer destroyed unfinished, or one whose writes failed, leaves nothing behind. Callers append
// to text() and call maybeFlush() between records.
class TraceFileWriter {
public:
    // `gzipLevel` trades speed for size (1 fastest .. 9 smallest); plain files ignore it.
    explicit TraceFileWriter(int gzipLevel = 6) : m_gzipLevel(gzipLevel) {}
    ~TraceFileWriter() { closeStream(); }
    TraceFileWriter(const TraceFileWriter&) = delete;
    TraceFileWriter& operator=(const TraceFileWriter&) = delete;

    // False with *error ("<path>: <problem>") when `policy` refuses the path or it cannot be
    // created.
    bool open(const std::string& path, const format::OutputPolicy& policy, std::string* error);
    std::string& text() { return m_buffer; }
    void maybeFlush() {
        if (m_buffer.size() >= kFlushAt)
            flush();
    }
    void flush();
    // Writes what is buffered and puts the file in place. False with *error naming the file and
    // the system's reason for the first failed write.
    bool finish(std::string* error);
    // Bytes written so far, before compression, including what is still buffered.
    int64_t bytes() const { return m_flushedBytes + static_cast<int64_t>(m_buffer.size()); }

private:
    static constexpr size_t kFlushAt = 1 << 20;
    // Closes the stream (not the OutputFile); false when that last write failed.
    bool closeStream();
    void noteFailure();

    int m_gzipLevel;
    format::OutputFile m_output;
    std::string m_path;
    gzFile_s* m_gz = nullptr;
    std::FILE* m_file = nullptr;
    std::string m_buffer;
    int64_t m_flushedBytes = 0;
    int m_errno = 0; // of the first failed write; 0 while all succeeded
};

} // namespace stallscope::model
