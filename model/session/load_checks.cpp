#include "model/session/load_checks.h"

#include <algorithm>
#include <charconv>

namespace stallscope::model::loading {

void RowIndex::add(int64_t rowId, int32_t index) {
    ++m_added;
    if (rowId >= 0 && static_cast<uint64_t>(rowId) < 2 * m_added + 64) {
        if (m_dense.size() <= static_cast<uint64_t>(rowId))
            m_dense.resize(rowId + 1, kNoIndex);
        m_dense[rowId] = index;
    } else {
        m_sparse.emplace(rowId, index);
    }
}

int32_t RowIndex::findSparse(int64_t rowId) const {
    const auto found = m_sparse.find(rowId);
    return found == m_sparse.end() ? kNoIndex : found->second;
}

bool IdSet::contains(int64_t id) const {
    return std::binary_search(m_ids.begin(), m_ids.end(), id);
}

void failRow(std::string_view table, int64_t id, const std::string& cause) {
    throw LoadFailure{"corrupt session: " + std::string(table) + " row " + std::to_string(id) +
                      " " + cause};
}

int parseFormatVersion(const std::string& text) {
    int version = 0;
    const char* end = text.data() + text.size();
    const auto [next, error] = std::from_chars(text.data(), end, version);
    if (error != std::errc() || next != end)
        throw LoadFailure{"corrupt session: format version '" + text + "' is not a number"};
    if (version > format::kFormatVersion)
        throw LoadFailure{"session format version " + text +
                          " is newer than this Stallscope reads (" +
                          std::to_string(format::kFormatVersion) + "); update Stallscope"};
    if (version < 1)
        throw LoadFailure{"corrupt session: format version " + text};
    return version;
}

} // namespace stallscope::model::loading
