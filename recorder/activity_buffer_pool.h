// ActivityBufferPool: the buffers CUPTI fills with activity records. CUPTI asks for one on the
// program's own thread (inside a launch) whenever a thread's buffer is full or was flushed, and
// by default zeroes it there: 8 MB, a millisecond or more on the critical path, plus the page
// faults of fresh memory. The pool hands out buffers that are already zeroed and faulted in —
// zeroed when they come back (on the thread that delivered them, the writer's flush) and topped
// up by the writer — and tells CUPTI so (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace stallscope::recorder {

class ActivityBufferPool {
public:
    ActivityBufferPool() = default;
    ActivityBufferPool(const ActivityBufferPool&) = delete;
    ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;
    ~ActivityBufferPool(); // frees the ready buffers (CUPTI's are its own until delivered)

    // Before CUPTI asks for the first buffer. `zeroed`: the pool zeroes buffers (CUPTI was told
    // it need not); otherwise CUPTI zeroes what it gets.
    void configure(size_t bufferBytes, bool zeroed);
    size_t bufferBytes() const { return m_bufferBytes; }

    // A buffer for CUPTI (nullptr when memory is exhausted: CUPTI then drops records and counts
    // them). Ready ones first; otherwise allocated on the calling thread.
    uint8_t* take();
    // A buffer CUPTI delivered and the recorder has decoded.
    void give(uint8_t* buffer);
    // Tops the ready buffers up (the writer thread, and once before recording starts).
    void keepReady();

private:
    uint8_t* allocate() const;

    size_t m_bufferBytes = 0;
    bool m_zeroed = false;
    std::mutex m_mutex; // guards m_ready
    std::vector<uint8_t*> m_ready;
};

} // namespace stallscope::recorder
