// The recorder writes each thread, device and native frame once and refers to it by row id after:
// rowIdFor looks the id up, writing the row on first sight.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace stallscope::recorder {

// The row id cached under `key`; on a miss, `addRow()` writes the row and its id is cached.
template <class Key, class AddRow>
int64_t rowIdFor(std::unordered_map<Key, int64_t>& ids, Key key, AddRow&& addRow) {
    auto it = ids.find(key);
    if (it != ids.end())
        return it->second;
    const int64_t id = addRow();
    ids.emplace(key, id);
    return id;
}

} // namespace stallscope::recorder
