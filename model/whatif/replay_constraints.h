// The arithmetic of replayed times (model/whatif/replay.cpp): saturating sums, and the time of an
// event bound by several constraints.
#pragma once

#include "format/session_schema.h"

#include <cstdint>
#include <limits>

namespace stallscope::model::whatif::replay_detail {

constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();

// Replayed times: recorded times are below 2^62 (format::isAcceptedTime), but the replay adds
// shifts and delays, and a file whose intervals overlap where a real run's cannot (a thread's
// syncs spanning each other) would add them up past int64_t. Such a replay saturates.
constexpr int64_t plus(int64_t a, int64_t b) {
    return format::addSaturated(a, b);
}

// The replayed time of an event bound by several constraints. Each constraint is a recorded
// time, its replayed time and the typical delay after it. The constraint that bound the event in
// the recording keeps its recorded delay (so the unmodified replay is exact); the others may
// delay it by at most their typical delay.
class Constraints {
public:
    explicit Constraints(int64_t recordedNs) : m_recorded(recordedNs) {}
    void add(int64_t recordedNs, int64_t replayedNs, int64_t typicalDelayNs) {
        if (m_count == kMax)
            return;
        m_items[m_count++] = {recordedNs, replayedNs, typicalDelayNs};
    }
    bool empty() const { return m_count == 0; }
    int64_t replayed() const {
        int binding = 0;
        for (int i = 1; i < m_count; ++i)
            if (m_items[i].recorded + m_items[i].typical >
                m_items[binding].recorded + m_items[binding].typical)
                binding = i;
        int64_t result = kUnset;
        for (int i = 0; i < m_count; ++i) {
            const Item& item = m_items[i];
            const int64_t recordedDelay = m_recorded - item.recorded;
            const int64_t delay =
                i == binding ? recordedDelay : std::min(item.typical, recordedDelay);
            result = std::max(result, plus(item.replayed, delay));
        }
        return result;
    }

private:
    struct Item {
        int64_t recorded, replayed, typical;
    };
    static constexpr int kMax = 4; // launch, event, device, stream predecessor
    Item m_items[kMax]{};
    int m_count = 0;
    int64_t m_recorded;
};

} // namespace stallscope::model::whatif::replay_detail
