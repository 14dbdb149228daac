#include "recorder/activity_buffer_pool.h"

#include <cstdlib>
#include <cstring>

namespace stallscope::recorder {

namespace {
// Buffers kept ready for CUPTI's next requests (one per recording thread is typical: PyTorch's
// main and autograd threads), and at most this many kept when more come back.
constexpr size_t kReadyBuffers = 3;
constexpr size_t kMaxKeptBuffers = 8;
} // namespace

ActivityBufferPool::~ActivityBufferPool() {
    for (uint8_t* buffer : m_ready)
        free(buffer);
}

void ActivityBufferPool::configure(size_t bufferBytes, bool zeroed) {
    m_bufferBytes = bufferBytes;
    m_zeroed = zeroed;
}

uint8_t* ActivityBufferPool::allocate() const {
    void* memory = nullptr;
    if (posix_memalign(&memory, 8, m_bufferBytes) != 0)
        return nullptr;
    return static_cast<uint8_t*>(memory);
}

uint8_t* ActivityBufferPool::take() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_ready.empty()) {
            uint8_t* buffer = m_ready.back();
            m_ready.pop_back();
            return buffer;
        }
    }
    uint8_t* buffer = allocate();
    if (buffer && m_zeroed)
        memset(buffer, 0, m_bufferBytes);
    return buffer;
}

void ActivityBufferPool::give(uint8_t* buffer) {
    if (m_zeroed)
        memset(buffer, 0, m_bufferBytes);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_ready.size() < kMaxKeptBuffers) {
            m_ready.push_back(buffer);
            return;
        }
    }
    free(buffer);
}

void ActivityBufferPool::keepReady() {
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_ready.size() >= kReadyBuffers)
                return;
        }
        uint8_t* buffer = allocate();
        if (!buffer)
            return;
        memset(buffer, 0, m_bufferBytes); // zeroed, and its pages faulted in here
        std::lock_guard<std::mutex> lock(m_mutex);
        m_ready.push_back(buffer);
    }
}

} // namespace stallscope::recorder
