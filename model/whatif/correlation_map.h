// CorrelationMap: CUDA correlation id -> the first value added for it, for the run graph's build
// (one map per process: launches, transfers; per thread: the first call of an id).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace stallscope::model::whatif {

// A call or operation index, as a CorrelationMap value (UINT32_MAX: none).
struct CorrelatedIndex {
    uint32_t value = UINT32_MAX;
    bool empty() const { return value == UINT32_MAX; }
};

// Correlation id -> the first value added for it: a table over the id range when the ids are dense
// (they count up, one per call, per process) or the range is small, else hashed. Dense lookups are
// what keeps the build linear in practice: millions of calls, each looked up once or more.
template <typename Value> class CorrelationMap {
public:
    // `count` ids in [minId, maxId] will be added.
    void reserve(uint32_t minId, uint32_t maxId, size_t count) {
        if (count == 0)
            return;
        const uint64_t range = uint64_t{maxId} - minId + 1;
        // Dense where the ids are, or where the table is small anyway (a process's copies: a
        // tenth of its ids, spread over all of them).
        m_dense = range <= 4 * uint64_t{count} + 4096 || range * sizeof(Value) <= kSmallTableBytes;
        m_min = minId;
        if (m_dense)
            m_table.assign(range, Value{});
        else
            m_hashed.reserve(count);
    }
    // Keeps the first value of an id (a runtime call precedes its driver call).
    void add(uint32_t id, const Value& value) {
        if (m_dense) {
            if (id < m_min || id - m_min >= m_table.size())
                m_hashed.emplace(id, value); // outside the reserved range: kept all the same
            else if (Value& slot = m_table[id - m_min]; slot.empty())
                slot = value;
        } else {
            m_hashed.emplace(id, value);
        }
    }
    const Value* find(uint32_t id) const {
        if (m_dense && id >= m_min && id - m_min < m_table.size())
            return m_table[id - m_min].empty() ? nullptr : &m_table[id - m_min];
        if (m_hashed.empty())
            return nullptr;
        const auto found = m_hashed.find(id);
        return found == m_hashed.end() ? nullptr : &found->second;
    }

private:
    static constexpr uint64_t kSmallTableBytes = 32u << 20;
    bool m_dense = false;
    uint32_t m_min = 0;
    std::vector<Value> m_table;
    std::unordered_map<uint32_t, Value> m_hashed;
};

// The smallest and largest of some correlation ids, and how many there are.
struct IdRange {
    uint32_t min = UINT32_MAX, max = 0;
    size_t count = 0;
    void add(std::span<const uint32_t> ids) {
        for (uint32_t id : ids) {
            min = std::min(min, id);
            max = std::max(max, id);
        }
        count += ids.size();
    }
    template <typename Value> void reserve(CorrelationMap<Value>& map) const {
        if (count > 0)
            map.reserve(min, max, count);
    }
};

} // namespace stallscope::model::whatif
