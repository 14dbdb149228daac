#include "model/interop/kineto_call_spool.h"

namespace stallscope::model {

KinetoCallSpool::~KinetoCallSpool() {
    if (m_file)
        std::fclose(m_file);
}

bool KinetoCallSpool::flush() {
    if (m_buffer.empty() || m_failed)
        return !m_failed;
    if (!m_file)
        m_file = std::tmpfile(); // unlinked at once: nothing is left behind, even on a crash
    if (!m_file ||
        std::fwrite(m_buffer.data(), sizeof(Call), m_buffer.size(), m_file) != m_buffer.size()) {
        m_failed = true;
        return false;
    }
    m_count += static_cast<int64_t>(m_buffer.size());
    m_buffer.clear();
    return true;
}

bool KinetoCallSpool::forEach(const std::function<void(const Call&)>& visit) {
    if (m_failed)
        return false;
    if (m_file) {
        if (std::fflush(m_file) != 0 || std::fseek(m_file, 0, SEEK_SET) != 0)
            return false;
        std::vector<Call> chunk(kBufferCalls);
        int64_t left = m_count;
        while (left > 0) {
            const size_t want = static_cast<size_t>(std::min<int64_t>(left, kBufferCalls));
            if (std::fread(chunk.data(), sizeof(Call), want, m_file) != want)
                return false;
            for (size_t i = 0; i < want; ++i)
                visit(chunk[i]);
            left -= static_cast<int64_t>(want);
        }
        std::fseek(m_file, 0, SEEK_END);
    }
    for (const Call& call : m_buffer)
        visit(call);
    return true;
}

void KinetoCallSpool::clear() {
    if (m_file)
        std::fclose(m_file);
    m_file = nullptr;
    m_buffer.clear();
    m_count = 0;
    m_failed = false;
}

} // namespace stallscope::model
