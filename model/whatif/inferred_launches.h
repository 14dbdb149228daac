// InferredLaunches: where an operation was launched when its process recorded no API calls (a
// light recording, stallscope-record --mode light: syncs with their stacks and GPU work only).
// CUDA numbers every API call of a process in order (the correlation id), so an operation whose
// id lies between two recorded syncs of a thread was launched between them: after the earlier one
// returned. The operation then depends on the host step that follows that sync on its thread,
// from the sync's end — when a fix lets the host leave the sync sooner, the launch comes sooner
// by as much. A sync's own copy or memset (the same id) depends on the sync itself. Which thread
// launched is not recorded: the one whose sync comes last before the id. After a thread's last
// sync there is no later step to follow: those operations depend on the sync's start.
#pragma once

#include "model/session/session.h"
#include "model/whatif/host_thread_steps.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace stallscope::model::whatif {

class InferredLaunches {
public:
    struct Launch {
        uint32_t step;    // the global step the operation depends on
        int64_t launchNs; // the recorded time it was launched by at the earliest
    };
    // `processOfLane` and `threads` are parallel to session.hostLanes. Processes with any API
    // call keep their recorded launches and get no inference.
    void build(const Session& session, std::span<const int32_t> processOfLane,
               std::span<const HostThreadSteps> threads);
    bool infers(int32_t process) const {
        return process >= 0 && static_cast<size_t>(process) < m_processes.size() &&
               m_processes[process].infer;
    }
    bool any() const { return m_any; }
    // The launch of the operation with `correlationId` in `process`; none before its first sync.
    std::optional<Launch> find(int32_t process, uint32_t correlationId) const;

private:
    struct Sync {
        uint32_t correlationId;
        uint32_t step;     // the global step of the sync
        uint32_t nextStep; // the global step after it on its thread (kNone at the thread's end)
        int64_t start, end;
    };
    struct PerProcess {
        bool infer = false;
        std::vector<Sync> syncs; // by correlation id
    };
    std::vector<PerProcess> m_processes;
    bool m_any = false;
};

} // namespace stallscope::model::whatif
