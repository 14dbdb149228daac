#include "views/timeline/correlation_index.h"

#include "model/session/session.h"

#include <algorithm>
#include <mutex>
#include <tuple>

namespace stallscope::views {

std::shared_ptr<const CorrelationIndex>
CorrelationIndex::of(const std::shared_ptr<const model::Session>& session) {
    static std::mutex mutex;
    static std::weak_ptr<const model::Session> cachedSession;
    static std::shared_ptr<const CorrelationIndex> cachedIndex;
    if (!session)
        return std::make_shared<CorrelationIndex>();
    const std::lock_guard lock(mutex);
    if (cachedIndex && cachedSession.lock() == session)
        return cachedIndex;
    auto index = std::make_shared<CorrelationIndex>();
    index->build(*session);
    cachedSession = session;
    cachedIndex = index;
    return index;
}

void CorrelationIndex::clear() {
    m_entries.clear();
    m_entries.shrink_to_fit();
    m_built = false;
}

void CorrelationIndex::build(const model::Session& session) {
    clear();
    size_t total = 0;
    for (const model::HostLane& lane : session.hostLanes)
        total += lane.apiCalls.size();
    m_entries.reserve(total);
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const model::HostLane& lane = session.hostLanes[l];
        const int32_t thread = lane.threadIndex;
        const int32_t process = thread >= 0 && static_cast<size_t>(thread) < session.threads.size()
                                    ? session.threads[thread].processIndex
                                    : -1;
        const auto& ids = lane.apiCalls.correlationId;
        for (size_t i = 0; i < ids.size(); ++i)
            if (ids[i] != 0) // 0: no correlation recorded
                m_entries.push_back(
                    {process, ids[i], static_cast<uint32_t>(l), static_cast<uint32_t>(i)});
    }
    // Ids grow with time on each thread, so the entries are nearly sorted already.
    std::sort(m_entries.begin(), m_entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.process, a.correlationId) < std::tie(b.process, b.correlationId);
    });
    m_built = true;
}

model::EventRef CorrelationIndex::apiCall(int32_t process, uint32_t correlationId) const {
    if (correlationId == 0)
        return {};
    const Entry key{process, correlationId, 0, 0};
    const auto it = std::lower_bound(
        m_entries.begin(), m_entries.end(), key, [](const Entry& a, const Entry& b) {
            return std::tie(a.process, a.correlationId) < std::tie(b.process, b.correlationId);
        });
    if (it == m_entries.end() || it->process != process || it->correlationId != correlationId)
        return {};
    model::EventRef ref;
    ref.kind = model::EventKind::ApiCall;
    ref.lane = static_cast<int32_t>(it->lane);
    ref.index = it->index;
    return ref;
}

} // namespace stallscope::views
