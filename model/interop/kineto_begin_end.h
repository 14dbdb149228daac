// KinetoBeginEndPairs: Chrome-trace duration events written as a begin ('B') and an end ('E')
// event — by other tools and by hand, never by Kineto itself — become one complete ('X') event
// each, so the importer sees every span the same way. Pairs are matched per thread (pid, tid) as
// a stack, as the Trace Event Format nests them; the complete event is handed on when its end is
// read. An end without a begin, a begin never ended, or a begin beyond what may be held open
// (kMaxOpenBeginBytes, so a hostile file cannot hold memory) is counted in unpaired() and dropped.
#pragma once

#include "model/interop/kineto_sax_handler.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace stallscope::model {

// Memory that begin events still waiting for their end may hold (names included).
inline constexpr size_t kMaxOpenBeginBytes = 64 << 20;

class KinetoBeginEndPairs final : public KinetoEventSink {
public:
    explicit KinetoBeginEndPairs(KinetoEventSink& next) : m_next(next) {}

    void onDeviceProperties(const KinetoDeviceProperties& device) override {
        m_next.onDeviceProperties(device);
    }
    void onRank(int64_t rank) override { m_next.onRank(rank); }
    void onStallscopeExport() override { m_next.onStallscopeExport(); }
    bool onEvent(const KinetoEvent& event) override;

    // Begin or end events without their pair (begins still open count once the file is read).
    int64_t unpaired() const;

private:
    using ThreadKey = std::tuple<bool, int64_t, bool, int64_t>; // pid and tid, number or not
    static size_t heldBytes(const KinetoEvent& event);

    KinetoEventSink& m_next;
    std::map<ThreadKey, std::vector<KinetoEvent>> m_open;
    size_t m_openBytes = 0;
    int64_t m_unpaired = 0;
};

} // namespace stallscope::model
