// What the loader's readers share to validate a session while they read it: every id, kind,
// time and count is checked in the reading loop itself (no extra pass, no extra query), and
// the first bad value ends the load with one line naming the table, the row and the problem
// (SessionLoader::load puts the file's path in front). Internal to the loader.
#pragma once

#include "format/session_row_reader.h"
#include "format/session_schema.h"
#include "format/sqlite_database.h"
#include "model/session/event_columns.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stallscope::model::loading {

// Thrown inside the loader only (never across its API) to unwind with a message.
struct LoadFailure {
    std::string message;
};

struct Cancelled {};

inline constexpr int32_t kNoIndex = -1;
// The largest id that 32-bit columns (event row ids, stack ids, CUPTI's ids) hold.
inline constexpr int64_t kMaxUint32 = std::numeric_limits<uint32_t>::max();

// Maps table row ids to indexes in the session's vectors. Row ids run from 1 without gaps in the
// files the writers make, so they index a vector (the loader looks one up for every event row);
// the vector grows only to twice the rows added, and ids past that go to a map.
class RowIndex {
public:
    void add(int64_t rowId, int32_t index);
    int32_t find(int64_t rowId) const {
        if (rowId >= 0 && static_cast<uint64_t>(rowId) < m_dense.size() &&
            m_dense[rowId] != kNoIndex)
            return m_dense[rowId];
        return m_sparse.empty() ? kNoIndex : findSparse(rowId);
    }

private:
    int32_t findSparse(int64_t rowId) const;

    std::vector<int32_t> m_dense; // by row id; kNoIndex where none
    std::unordered_map<int64_t, int32_t> m_sparse;
    size_t m_added = 0;
};

// The row ids of a table, added in increasing order (as SQLite returns them by row id).
class IdSet {
public:
    void add(int64_t id) { m_ids.push_back(id); }
    bool contains(int64_t id) const;

private:
    std::vector<int64_t> m_ids;
};

// Throws "corrupt session: <table> row <id> <cause>".
[[noreturn]] void failRow(std::string_view table, int64_t id, const std::string& cause);

// A row of `table`, its row id in column 0 (an "id INTEGER PRIMARY KEY", SQLite's row id: always
// an integer): its values read with their storage class checked, and the checks that end the
// load with a line naming the table and row. `Values` reads them: format::RowValues from a
// statement (CheckedRow), format::TypedValues as already read (CheckedEventRow: the event
// tables, read through SQLite or from their pages).
template <typename Values> class BasicCheckedRow {
public:
    BasicCheckedRow(const Values& values, std::string_view table, int64_t id)
        : m_values(values), m_table(table), m_id(id) {}

    int64_t id() const { return m_id; }
    const Values& values() const { return m_values; }
    int64_t integer(int column) const { return m_values.integer(column); }
    bool isNull(int column) const { return m_values.isNull(column); }

    // Throws "corrupt session: <table> row <id> <what>"; a value of the wrong type read before
    // is named instead, because it is the cause (it read as 0).
    [[noreturn]] void fail(const std::string& what) const {
        failRow(m_table, m_id, m_values.ok() ? what : m_values.problem());
    }
    // Fails when a value read so far had the wrong type.
    void requireTypes() const {
        if (!m_values.ok())
            fail({});
    }
    // An integer in [low, high], else "has <column> <value> outside [low, high]".
    int64_t inRange(int column, int64_t low, int64_t high) const {
        const int64_t value = integer(column);
        if (value < low || value > high)
            fail("has " + std::string(m_values.columnName(column)) + " " + std::to_string(value) +
                 " outside [" + std::to_string(low) + ", " + std::to_string(high) + "]");
        return value;
    }
    // A kernel's grid in columns first..first+2 (x, y, z) as its saturated block count. The grid
    // only tells the replay whether kernels share the GPU: a negative extent (an imported trace's
    // placeholder) reads as no grid (0), not as a corrupt file.
    uint16_t gridBlocks(int first) const {
        const int64_t x = integer(first), y = integer(first + 1), z = integer(first + 2);
        return x < 0 || y < 0 || z < 0 ? KernelColumns::kBlocksUnknown
                                       : KernelColumns::blocksOfGrid(x, y, z);
    }
    // A value of an enum column, else "has unknown <column> <value>".
    int64_t enumValue(int column, int64_t low, int64_t high) const {
        const int64_t value = integer(column);
        if (value < low || value > high)
            fail("has unknown " + std::string(m_values.columnName(column)) + " " +
                 std::to_string(value));
        return value;
    }
    // A time in format::isAcceptedTime's range.
    int64_t time(int column) const {
        const int64_t ns = integer(column);
        if (!format::isAcceptedTime(ns))
            fail("has " + std::string(m_values.columnName(column)) + " " + std::to_string(ns) +
                 ", outside the accepted times 0 <= t < 2^62 ns");
        return ns;
    }
    // The index that `column`'s row id resolves to, else "names unknown <what> <id>".
    int32_t reference(int column, const RowIndex& index, std::string_view what) const {
        const int64_t id = integer(column);
        const int32_t found = index.find(id);
        if (found == kNoIndex)
            failReference(what, id);
        return found;
    }
    [[noreturn]] void failReference(std::string_view what, int64_t id) const {
        fail("names unknown " + std::string(what) + " " + std::to_string(id));
    }

private:
    const Values& m_values;
    std::string_view m_table;
    int64_t m_id;
};

// A row a statement of the table stands on.
class CheckedRow : public BasicCheckedRow<format::RowValues> {
public:
    CheckedRow(const format::Statement& statement, std::string_view table)
        : BasicCheckedRow(m_rowValues, table, statement.integer(0)), m_rowValues(statement) {}

private:
    format::RowValues m_rowValues;
};

using CheckedEventRow = BasicCheckedRow<format::TypedValues>;

// meta.format_version as an exact decimal integer ("1", not "1abc", " 1" or "+1"); throws when
// it is not one, or is outside 1..format::kFormatVersion.
int parseFormatVersion(const std::string& text);

} // namespace stallscope::model::loading
