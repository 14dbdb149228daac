#include "model/fleet/collective_arrivals.h"

#include "format/session_schema.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace stallscope::model::fleet {

namespace {

constexpr size_t kWriteBatch = 4096; // entries buffered before a write

std::string systemError(const char* what) {
    return std::string(what) + ": " + std::strerror(errno);
}

// One rank's arrivals of one name, read ahead a few hundred at a time.
class ArrivalReader {
public:
    ArrivalReader(const ArrivalSpill& spill, const ArrivalSegment& segment, size_t readAhead)
        : m_spill(spill), m_next(segment.offset), m_end(segment.offset + segment.count),
          m_buffer(readAhead) {}

    bool next(int64_t* value, std::string* error) {
        if (m_at == m_filled) {
            const auto count =
                static_cast<size_t>(std::min<int64_t>(m_end - m_next, int64_t(m_buffer.size())));
            if (count == 0 || !m_spill.read(m_next, count, m_buffer.data(), error)) {
                if (error->empty())
                    *error = "the arrivals ended early";
                return false;
            }
            m_next += static_cast<int64_t>(count);
            m_at = 0;
            m_filled = count;
        }
        *value = m_buffer[m_at++];
        return true;
    }
    size_t bytes() const { return m_buffer.capacity() * sizeof(int64_t); }

private:
    const ArrivalSpill& m_spill;
    int64_t m_next, m_end;
    std::vector<int64_t> m_buffer;
    size_t m_at = 0, m_filled = 0;
};

} // namespace

ArrivalSpill::~ArrivalSpill() {
    if (m_file)
        std::fclose(m_file);
}

bool ArrivalSpill::open(std::string* error) {
    m_file = std::tmpfile();
    if (!m_file)
        *error = systemError("cannot make a temporary file for the collectives' arrivals");
    return m_file != nullptr;
}

bool ArrivalSpill::append(int64_t value, std::string* error) {
    m_pending.push_back(value);
    ++m_entries;
    return m_pending.size() < kWriteBatch || flush(error);
}

bool ArrivalSpill::flush(std::string* error) {
    if (m_pending.empty())
        return true;
    const size_t bytes = m_pending.size() * sizeof(int64_t);
    const off_t at = static_cast<off_t>(m_entries - static_cast<int64_t>(m_pending.size())) *
                     static_cast<off_t>(sizeof(int64_t));
    const char* data = reinterpret_cast<const char*>(m_pending.data());
    for (size_t done = 0; done < bytes;) {
        const ssize_t wrote =
            pwrite(fileno(m_file), data + done, bytes - done, at + static_cast<off_t>(done));
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0) {
            *error = systemError("cannot write the collectives' arrivals to a temporary file");
            return false;
        }
        done += static_cast<size_t>(wrote);
    }
    m_pending.clear();
    return true;
}

bool ArrivalSpill::read(int64_t offset, size_t count, int64_t* out, std::string* error) const {
    const size_t bytes = count * sizeof(int64_t);
    char* data = reinterpret_cast<char*>(out);
    const off_t at = static_cast<off_t>(offset) * static_cast<off_t>(sizeof(int64_t));
    for (size_t done = 0; done < bytes;) {
        const ssize_t got =
            pread(fileno(m_file), data + done, bytes - done, at + static_cast<off_t>(done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            *error = systemError("cannot read the collectives' arrivals back");
            return false;
        }
        done += static_cast<size_t>(got);
    }
    return true;
}

int32_t CollectiveNames::indexOf(const std::string& name) {
    std::lock_guard lock(m_mutex);
    return m_indexes.try_emplace(name, static_cast<int32_t>(m_indexes.size())).first->second;
}

size_t CollectiveNames::size() const {
    std::lock_guard lock(m_mutex);
    return m_indexes.size();
}

bool matchCollectives(const std::vector<const ArrivalSpill*>& spills,
                      const std::vector<std::vector<ArrivalSegment>>& segments, size_t names,
                      size_t readAhead, FleetSummary& summary, size_t* peakBytes,
                      std::string* error) {
    // The ranks that ran collectives take part (as CollectiveMatch keeps them).
    std::vector<size_t> kept;
    for (size_t r = 0; r < segments.size(); ++r)
        if (!segments[r].empty())
            kept.push_back(r);
    summary.collectiveRanks = static_cast<int64_t>(kept.size());
    if (kept.size() < 2)
        return true;
    std::vector<int64_t> arrival(kept.size());
    for (size_t name = 0; name < names; ++name) {
        // A name some kept rank never ran matches nothing; else the k-th of each, k below the
        // fewest any rank ran.
        std::vector<ArrivalReader> readers;
        readers.reserve(kept.size());
        int64_t count = std::numeric_limits<int64_t>::max();
        for (const size_t r : kept) {
            const auto found =
                std::find_if(segments[r].begin(), segments[r].end(),
                             [&](const ArrivalSegment& s) { return s.name == int32_t(name); });
            if (found == segments[r].end()) {
                count = 0;
                break;
            }
            count = std::min(count, found->count);
            readers.emplace_back(*spills[found->spill], *found, readAhead);
        }
        if (count == 0)
            continue;
        size_t bytes = 0;
        for (const ArrivalReader& reader : readers)
            bytes += reader.bytes();
        *peakBytes = std::max(*peakBytes, bytes);
        for (int64_t k = 0; k < count; ++k) {
            for (size_t i = 0; i < readers.size(); ++i)
                if (!readers[i].next(&arrival[i], error))
                    return false;
            // The last to arrive (the first of equals, in rank order) and the next-latest.
            size_t last = 0;
            for (size_t i = 1; i < arrival.size(); ++i)
                if (arrival[i] > arrival[last])
                    last = i;
            int64_t second = std::numeric_limits<int64_t>::min();
            for (size_t i = 0; i < arrival.size(); ++i)
                if (i != last)
                    second = std::max(second, arrival[i]);
            ++summary.matchedCollectives;
            const int64_t lateness = arrival[last] - second;
            if (lateness < summary.contendedNs)
                continue;
            ++summary.contendedCollectives;
            RankSummary& rank = summary.ranks[kept[last]];
            ++rank.lastAt;
            rank.latenessTotalNs = format::addSaturated(rank.latenessTotalNs, lateness);
            rank.latenessNs.add(lateness);
        }
    }
    for (size_t r = 0; r < summary.ranks.size(); ++r)
        if (summary.ranks[r].lastAt > 0 &&
            (summary.mostOftenLast < 0 ||
             summary.ranks[r].lastAt > summary.ranks[size_t(summary.mostOftenLast)].lastAt))
            summary.mostOftenLast = static_cast<int32_t>(r);
    return true;
}

} // namespace stallscope::model::fleet
