// KinetoCallSpool: python_function calls of one trace file, spooled to an anonymous temporary
// file (24 bytes each) instead of memory. With with_stack=True they are about half of a trace's
// events, and only the few that enclose a sync matter; which ones is known only at the end of the
// file (Kineto writes python_function events before the CUDA API calls). Keeping them on disk
// holds the import's memory to the model's size.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

namespace stallscope::model {

class KinetoCallSpool {
public:
    struct Call {
        int64_t start;
        int64_t end;
        uint32_t frameId;
        uint32_t thread; // the converter's thread index
    };

    KinetoCallSpool() = default;
    ~KinetoCallSpool();
    KinetoCallSpool(const KinetoCallSpool&) = delete;
    KinetoCallSpool& operator=(const KinetoCallSpool&) = delete;

    void append(const Call& call) {
        m_buffer.push_back(call);
        if (m_buffer.size() == kBufferCalls)
            flush();
    }
    int64_t size() const { return m_count + static_cast<int64_t>(m_buffer.size()); }
    // Calls every spooled call in append order; false when the temporary file failed.
    bool forEach(const std::function<void(const Call&)>& visit);
    // Drops everything (next file).
    void clear();

private:
    static constexpr size_t kBufferCalls = 1 << 15;
    bool flush();

    std::FILE* m_file = nullptr;
    std::vector<Call> m_buffer;
    int64_t m_count = 0; // calls in the file
    bool m_failed = false;
};

} // namespace stallscope::model
