// CorrelationIndex: CUPTI correlation id → the API call that carries it, per process (ids are
// unique within a process only). Lets the timeline link GPU work and syncs to the call that
// launched them. A sorted array of 16-byte entries, built once per session on first use (not per
// paint): about 0.1 s and 16 bytes per API call on a 10-million-event session.
#pragma once

#include "views/timeline/event_style.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

class CorrelationIndex {
public:
    // The index of `session`, built on the first call and shared by the views that need it (the
    // timeline's links, the details panel) while the session is the last one asked for.
    static std::shared_ptr<const CorrelationIndex>
    of(const std::shared_ptr<const model::Session>& session);

    void build(const model::Session& session);
    void clear();
    bool isBuilt() const { return m_built; }
    // The API call of `process` (Session::processes index, -1 unknown) with this id, or invalid.
    model::EventRef apiCall(int32_t process, uint32_t correlationId) const;
    size_t size() const { return m_entries.size(); }

private:
    struct Entry {
        int32_t process = -1;
        uint32_t correlationId = 0;
        uint32_t lane = 0;
        uint32_t index = 0;
    };
    std::vector<Entry> m_entries; // sorted by (process, correlationId)
    bool m_built = false;
};

} // namespace stallscope::views
