#include "model/interop/kineto_begin_end.h"

#include <algorithm>

namespace stallscope::model {

size_t KinetoBeginEndPairs::heldBytes(const KinetoEvent& event) {
    size_t bytes = sizeof(KinetoEvent) + event.name.size() + event.cat.size() +
                   event.argName.size() + event.argLabels.size();
    for (const std::string& frame : event.stack)
        bytes += sizeof(std::string) + frame.size();
    return bytes;
}

bool KinetoBeginEndPairs::onEvent(const KinetoEvent& event) {
    if (event.ph != 'B' && event.ph != 'E')
        return m_next.onEvent(event);
    const ThreadKey key{event.pidIsNumber, event.pid, event.tidIsNumber, event.tid};
    if (event.ph == 'B') {
        const size_t bytes = heldBytes(event);
        if (!event.hasTs || m_openBytes + bytes > kMaxOpenBeginBytes) {
            ++m_unpaired;
            return true;
        }
        m_openBytes += bytes;
        m_open[key].push_back(event);
        return true;
    }
    auto open = m_open.find(key);
    if (open == m_open.end() || open->second.empty() || !event.hasTs) {
        ++m_unpaired;
        return true;
    }
    KinetoEvent complete = std::move(open->second.back());
    open->second.pop_back();
    m_openBytes -= std::min(m_openBytes, heldBytes(complete));
    complete.ph = 'X';
    complete.durNs = std::max<int64_t>(0, event.tsNs - complete.tsNs);
    return m_next.onEvent(complete);
}

int64_t KinetoBeginEndPairs::unpaired() const {
    int64_t open = 0;
    for (const auto& [thread, begins] : m_open)
        open += static_cast<int64_t>(begins.size());
    return m_unpaired + open;
}

} // namespace stallscope::model
