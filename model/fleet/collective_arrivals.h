// The collectives of a fleet matched across ranks without holding them: while a rank is read,
// each of its collective kernel names' start times (its arrivals, sorted by SQLite) are appended
// to an unlinked temporary file (ArrivalSpill, one per reading thread); once every rank is read,
// matchCollectives walks all ranks in lock-step — the k-th arrival of a name on every rank is one
// collective, as model/analysis/collective_match.h matches them — reading each rank's arrivals a
// few hundred at a time. Memory: ranks × read-ahead × 8 bytes, whatever the number of collectives.
#pragma once

#include "model/fleet/fleet_types.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace stallscope::model::fleet {

class ArrivalSpill {
public:
    ArrivalSpill() = default;
    ~ArrivalSpill();
    ArrivalSpill(const ArrivalSpill&) = delete;
    ArrivalSpill& operator=(const ArrivalSpill&) = delete;

    bool open(std::string* error); // an unlinked temporary file: gone when closed or killed
    int64_t size() const { return m_entries; } // entries written
    bool append(int64_t value, std::string* error);
    bool flush(std::string* error);
    // Reads `count` entries from `offset` (entries) into `out`.
    bool read(int64_t offset, size_t count, int64_t* out, std::string* error) const;

private:
    std::FILE* m_file = nullptr;
    int64_t m_entries = 0;
    std::vector<int64_t> m_pending; // appended, not yet written
};

// One collective kernel name's arrivals on a rank, in the spill of the thread that read it.
struct ArrivalSegment {
    int32_t name = 0;  // CollectiveNames index
    int32_t spill = 0; // which ArrivalSpill
    int64_t offset = 0, count = 0;
};

// The collective kernel names of the whole fleet, one index per text (threads share it).
class CollectiveNames {
public:
    int32_t indexOf(const std::string& name);
    size_t size() const;

private:
    mutable std::mutex m_mutex;
    std::map<std::string, int32_t> m_indexes;
};

// Matches the ranks' collectives (segments[r]: rank r's, any order) and fills the straggler
// numbers of `summary` (matched and contended collectives, each rank's lastAt and lateness, the
// rank most often last). `peakBytes` gets the read buffers' size. False with *error when a
// spill cannot be read.
bool matchCollectives(const std::vector<const ArrivalSpill*>& spills,
                      const std::vector<std::vector<ArrivalSegment>>& segments, size_t names,
                      size_t readAhead, FleetSummary& summary, size_t* peakBytes,
                      std::string* error);

} // namespace stallscope::model::fleet
