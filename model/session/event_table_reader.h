// The loader's readers of the event tables (api_calls, syncs, ranges, host_samples, kernels,
// memcpys, memsets) into the session's lanes, every value checked in the reading loop
// (load_checks.h): the loader is performance-critical, so no extra pass or query. Each table is
// read from its pages (format/btree_scanner.h) where they can be, else through SQLite. Internal to
// the loader.
#pragma once

#include "format/btree_scanner.h"
#include "format/session_tables.h"
#include "format/sqlite_database.h"
#include "model/session/description_reader.h"
#include "model/session/load_checks.h"
#include "model/session/load_options.h"
#include "model/session/session.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace stallscope::model::loading {

// Thrown when a table's pages were read in part and then declined (or a row read from them
// failed a check): the loader then reads every event table again through SQLite, whose rows or
// error are the ones a user sees.
struct PagesDeclined {};

// Shared state of the table readers running in parallel.
struct ReadContext {
    const std::string* path = nullptr;
    const LoadOptions* options = nullptr;
    const DescriptionIndexes* indexes = nullptr;
    size_t stringCount = 0;
    int64_t estimatedRows = 1;
    // Whether the readers read tables from their pages (LoadOptions::readPages, and not after
    // they were declined once).
    bool readPages = true;
    std::atomic<int64_t> rowsRead{0};
    std::atomic<int64_t> tablesReadFromPages{0};
    std::mutex progressMutex; // the readers report in turn: LoadOptions::progress is not reentrant

    // Called by each reader every few thousand rows; reading is 90 % of the load.
    void addRowsRead(int64_t rows);
};

// Per-worker time bounds, merged at the end.
struct TimeBounds {
    int64_t first = std::numeric_limits<int64_t>::max();
    int64_t last = std::numeric_limits<int64_t>::min();
    // Event rows left out because both their times are 0 (recorders before issue 14 wrote the
    // activity records CUPTI cut short at teardown that way).
    int64_t untimedRows = 0;
    void add(int64_t start, int64_t end) {
        first = std::min(first, start);
        last = std::max(last, end);
    }
};

// Reads one event table after another into the session's lanes, on its own connection.
class TableReader {
public:
    TableReader(ReadContext& context, Session& session) : m_context(context), m_session(session) {}

    void open();
    void readApiCalls();
    void readSyncs();
    void readRanges();
    // Format v3's host_samples: absent from older files, required from v3 on.
    void readHostSamples();
    void readKernels();
    void readMemcpys();
    void readMemsets();

    const TimeBounds& bounds() const { return m_bounds; }

private:
    // Reads `table`'s `columns` into the lanes with onRow(row); reserve(scale) has the lanes
    // reserve `scale` times the rows they hold, once, when an eighth of the table is read.
    template <typename OnRow, typename Reserve>
    void scan(const format::Table& table, const std::vector<std::string>& columns, OnRow onRow,
              Reserve reserve);
    template <typename OnRow>
    bool scanPages(const format::Table& table, const std::vector<std::string>& columns,
                   OnRow& onRow);
    template <typename OnRow>
    void scanStatement(const format::Table& table, const std::vector<std::string>& columns,
                       OnRow& onRow);
    void countRows(int64_t* pending, int64_t rows);

    bool pushInterval(IntervalColumns& columns, const CheckedEventRow& row);
    template <typename Columns> void pushNamedEvent(Columns& columns, const CheckedEventRow& row);
    struct TransferKinds {
        int64_t copy; // format::CopyKind
        int64_t src;  // format::MemoryKind
        int64_t dst;  // format::MemoryKind
    };
    void pushTransfer(TransferColumns& columns, const CheckedEventRow& row, TransferKinds kinds);
    HostLane& hostLane(const CheckedEventRow& row);
    StreamLane& streamLane(const CheckedEventRow& row);
    uint32_t stringId(const CheckedEventRow& row, int column) const;
    uint32_t stackId(const CheckedEventRow& row, int column) const;

    ReadContext& m_context;
    Session& m_session;
    format::Database m_connection;
    format::BtreeScanner m_scanner;
    TimeBounds m_bounds;
    // The table being read: its rows so far, its last row id, when to reserve and how.
    int64_t m_rowsOfTable = 0;
    int64_t m_expectedRows = 0;
    int64_t m_reserveAfterRows = INT64_MAX;
    std::function<void(double)> m_reserve;
};

} // namespace stallscope::model::loading
