#include "model/session/event_table_reader.h"

#include "format/checked_sql.h"
#include "format/session_enums.h"
#include "format/session_row_reader.h"
#include "format/session_schema_check.h"

#include <algorithm>
#include <array>

namespace stallscope::model::loading {

namespace {

// The most columns an event table's reader asks for (kernels: id, stream, times, name,
// correlation, grid).
constexpr size_t kMaxEventColumns = 12;

// The names of `table`'s columns, each checked against its descriptor at compile time.
template <const format::Table& table>
std::vector<std::string> columnsOf(std::initializer_list<format::ColumnOf<table>> columns) {
    std::vector<std::string> names;
    for (const format::ColumnOf<table>& column : columns)
        names.emplace_back(column.name);
    return names;
}

// A scan's reserve(scale) for one kind of column of every lane (HostLane::apiCalls, ...).
template <typename Lane, typename Columns>
auto reservingEach(std::vector<Lane>& lanes, Columns Lane::*columns) {
    return [&lanes, columns](double scale) {
        for (Lane& lane : lanes)
            (lane.*columns).reserveScaled(scale);
    };
}

// CUPTI's correlation ids are 32-bit.
uint32_t correlationId(const CheckedEventRow& row, int column) {
    return static_cast<uint32_t>(row.inRange(column, 0, kMaxUint32));
}

} // namespace

void ReadContext::addRowsRead(int64_t rows) {
    rowsRead += rows;
    if (!options->progress)
        return;
    std::lock_guard lock(progressMutex);
    // Read under the lock, so that the fractions reported never go down.
    options->progress(0.9 * std::min(1.0, double(rowsRead.load()) / double(estimatedRows)));
}

void TableReader::open() {
    std::string error;
    if (!format::openSession(m_connection, *m_context.path, &error))
        throw LoadFailure{"cannot open: " + error};
}

void TableReader::readApiCalls() {
    scan(
        format::tables::kApiCalls,
        columnsOf<format::tables::kApiCalls>(
            {"id", "thread_id", "start_ns", "end_ns", "name_id", "correlation_id"}),
        [this](const CheckedEventRow& row) { pushNamedEvent(hostLane(row).apiCalls, row); },
        reservingEach(m_session.hostLanes, &HostLane::apiCalls));
}

void TableReader::readSyncs() {
    scan(
        format::tables::kSyncs,
        columnsOf<format::tables::kSyncs>({"id", "thread_id", "start_ns", "end_ns", "kind",
                                           "correlation_id", "stream_id", "stack_id", "event_id"}),
        [this](const CheckedEventRow& row) {
            SyncColumns& syncs = hostLane(row).syncs;
            const uint8_t kind = static_cast<uint8_t>(row.enumValue(4, 1, format::kSyncKindMax));
            const uint32_t correlation = correlationId(row, 5);
            const int32_t stream =
                row.isNull(6) ? -1 : row.reference(6, m_context.indexes->streams, "stream");
            const uint32_t stack = row.isNull(7) ? 0u : stackId(row, 7);
            const int64_t event = row.isNull(8) ? -1 : row.inRange(8, 0, kMaxUint32);
            if (!pushInterval(syncs, row))
                return;
            syncs.kind.push_back(kind);
            syncs.correlationId.push_back(correlation);
            syncs.streamIndex.push_back(stream);
            syncs.stackId.push_back(stack);
            syncs.eventId.push_back(event);
        },
        reservingEach(m_session.hostLanes, &HostLane::syncs));
}

void TableReader::readRanges() {
    scan(
        format::tables::kRanges,
        columnsOf<format::tables::kRanges>(
            {"id", "thread_id", "start_ns", "end_ns", "name_id", "depth"}),
        [this](const CheckedEventRow& row) {
            HostLane& lane = hostLane(row);
            const auto depth = static_cast<size_t>(row.inRange(5, 0, 255));
            const uint32_t name = stringId(row, 4);
            if (lane.rangesByDepth.size() <= depth)
                lane.rangesByDepth.resize(depth + 1);
            RangeColumns& ranges = lane.rangesByDepth[depth];
            if (!pushInterval(ranges, row))
                return;
            ranges.nameId.push_back(name);
        },
        [this](double scale) {
            for (HostLane& lane : m_session.hostLanes)
                for (RangeColumns& depth : lane.rangesByDepth)
                    depth.reserveScaled(scale);
        });
}

void TableReader::readHostSamples() {
    if (!format::hasTable(m_connection, format::tables::kHostSamples.name)) {
        if (m_session.formatVersion >= format::tables::kHostSamples.sinceVersion)
            throw LoadFailure{"corrupt session: missing table 'host_samples'"};
        return;
    }
    scan(
        format::tables::kHostSamples,
        columnsOf<format::tables::kHostSamples>(
            {"id", "thread_id", "start_ns", "end_ns", "samples", "stack_id"}),
        [this](const CheckedEventRow& row) {
            SampleColumns& samples = hostLane(row).samples;
            const auto count =
                static_cast<uint32_t>(row.inRange(4, 1, std::numeric_limits<int32_t>::max()));
            const uint32_t stack = stackId(row, 5);
            if (count == 1 && row.integer(3) != row.integer(2))
                row.fail("has one sample but ends after it starts");
            if (!pushInterval(samples, row))
                return;
            samples.samples.push_back(count);
            samples.stackId.push_back(stack);
        },
        reservingEach(m_session.hostLanes, &HostLane::samples));
}

void TableReader::readKernels() {
    scan(
        format::tables::kKernels,
        columnsOf<format::tables::kKernels>({"id", "stream_id", "start_ns", "end_ns", "name_id",
                                             "correlation_id", "grid_x", "grid_y", "grid_z"}),
        [this](const CheckedEventRow& row) {
            KernelColumns& kernels = streamLane(row).kernels;
            const uint16_t blocks = row.gridBlocks(6);
            pushNamedEvent(kernels, row);
            kernels.blocks.resize(kernels.size(), blocks); // unchanged: the row left out
        },
        reservingEach(m_session.streamLanes, &StreamLane::kernels));
}

void TableReader::readMemcpys() {
    scan(
        format::tables::kMemcpys,
        columnsOf<format::tables::kMemcpys>({"id", "stream_id", "start_ns", "end_ns",
                                             "correlation_id", "bytes", "copy_kind", "src_kind",
                                             "dst_kind"}),
        [this](const CheckedEventRow& row) {
            pushTransfer(streamLane(row).memcpys, row,
                         {row.enumValue(6, 0, format::kCopyKindMax),
                          row.enumValue(7, 0, format::kMemoryKindMax),
                          row.enumValue(8, 0, format::kMemoryKindMax)});
        },
        reservingEach(m_session.streamLanes, &StreamLane::memcpys));
}

void TableReader::readMemsets() {
    scan(
        format::tables::kMemsets,
        columnsOf<format::tables::kMemsets>(
            {"id", "stream_id", "start_ns", "end_ns", "correlation_id", "bytes", "dst_kind"}),
        [this](const CheckedEventRow& row) {
            // A memset has no copy direction and no source.
            pushTransfer(streamLane(row).memsets, row,
                         {0, 0, row.enumValue(6, 0, format::kMemoryKindMax)});
        },
        reservingEach(m_session.streamLanes, &StreamLane::memsets));
}

template <typename OnRow, typename Reserve>
void TableReader::scan(const format::Table& table, const std::vector<std::string>& columns,
                       OnRow onRow, Reserve reserve) {
    m_reserve = reserve;
    m_rowsOfTable = 0;
    m_reserveAfterRows = INT64_MAX;
    // A table's last row id is its row count in the files the writers make (ids from 1, no
    // gaps): once an eighth of it is read, the lanes reserve what the rest will need. A crafted
    // id far past the rows only means no reservation.
    m_expectedRows = 0;
    {
        format::Statement last = m_connection.prepare(
            "SELECT max(rowid) FROM " + std::string(table.name)); // O(log n): the right edge
        if (last.step())
            m_expectedRows = last.integer(0);
    } // finished before the table is read
    if (m_expectedRows > 0)
        m_reserveAfterRows = std::max<int64_t>(65536, m_expectedRows / 8);
    if (m_context.readPages && scanPages(table, columns, onRow)) {
        ++m_context.tablesReadFromPages;
        return;
    }
    scanStatement(table, columns, onRow);
}

template <typename OnRow>
bool TableReader::scanPages(const format::Table& table, const std::vector<std::string>& columns,
                            OnRow& onRow) {
    bool anyRows = false;
    int64_t pending = 0;
    bool read = false;
    try {
        read = format::scanTablePages(
            m_connection, m_scanner, table.name, columns,
            [&](const format::BtreeScanner::PageRows& rows) {
                anyRows = true;
                for (size_t i = 0; i < rows.size(); ++i) {
                    const format::TypedValues values(rows.values.data() + i * rows.columns,
                                                     columns);
                    const CheckedEventRow row(values, table.name, rows.rowIds[i]);
                    onRow(row);
                    row.requireTypes();
                }
                countRows(&pending, int64_t(rows.size()));
            },
            nullptr);
    } catch (const LoadFailure&) {
        throw PagesDeclined{}; // SQLite's reading names the problem
    }
    m_context.addRowsRead(pending);
    if (!read && anyRows)
        throw PagesDeclined{};
    return read;
}

template <typename OnRow>
void TableReader::scanStatement(const format::Table& table, const std::vector<std::string>& columns,
                                OnRow& onRow) {
    const std::vector<std::string_view> names(columns.begin(), columns.end());
    format::Statement statement = m_connection.prepare(format::selectColumnsSql(table, names));
    if (!statement.prepared())
        throw LoadFailure{"corrupt session: cannot read table '" + std::string(table.name) +
                          "': " + m_connection.lastMessage()};
    std::array<format::Statement::TypedInteger, kMaxEventColumns> read{};
    int64_t pending = 0;
    while (statement.step()) {
        for (size_t c = 0; c < columns.size(); ++c)
            read[c] = statement.typedInteger(int(c));
        const format::TypedValues values(read.data(), columns);
        const CheckedEventRow row(values, table.name, statement.integer(0));
        onRow(row);
        row.requireTypes();
        countRows(&pending, 1);
    }
    m_context.addRowsRead(pending);
    if (statement.failed())
        throw LoadFailure{"corrupt session: reading table '" + std::string(table.name) +
                          "' failed: " + m_connection.lastMessage()};
}

void TableReader::countRows(int64_t* pending, int64_t rows) {
    m_rowsOfTable += rows;
    if (m_rowsOfTable >= m_reserveAfterRows && m_rowsOfTable < m_expectedRows) {
        m_reserve(double(m_expectedRows) / double(m_rowsOfTable));
        m_reserveAfterRows = INT64_MAX;
    }
    *pending += rows;
    if (*pending < 65536)
        return;
    m_context.addRowsRead(*pending);
    *pending = 0;
    if (m_context.options->cancel && m_context.options->cancel->load())
        throw Cancelled{};
}

// The row's id, start_ns (column 2) and end_ns (column 3), each checked. False, and the row is
// left out (counted), when both times are 0: an activity cut short by a recorder's teardown,
// which would otherwise stretch the session back to time 0.
bool TableReader::pushInterval(IntervalColumns& columns, const CheckedEventRow& row) {
    if (row.id() < 0 || row.id() > kMaxUint32)
        row.fail("has an id past 2^32 (unsupported)");
    const int64_t start = row.time(2);
    const int64_t end = row.time(3);
    if (start == 0 && end == 0) {
        ++m_bounds.untimedRows;
        return false;
    }
    if (end < start)
        row.fail("ends before it starts");
    columns.pushInterval(start, end, static_cast<uint32_t>(row.id()));
    m_bounds.add(start, end);
    return true;
}

// An API call or kernel row: id, lane, start_ns, end_ns, name_id, correlation_id.
template <typename Columns>
void TableReader::pushNamedEvent(Columns& columns, const CheckedEventRow& row) {
    const uint32_t name = stringId(row, 4);
    const uint32_t correlation = correlationId(row, 5);
    if (!pushInterval(columns, row))
        return;
    columns.nameId.push_back(name);
    columns.correlationId.push_back(correlation);
}

// A memcpy or memset row: id, stream_id, start_ns, end_ns, correlation_id, bytes, ...
void TableReader::pushTransfer(TransferColumns& columns, const CheckedEventRow& row,
                               TransferKinds kinds) {
    const uint32_t correlation = correlationId(row, 4);
    const int64_t bytes = row.inRange(5, 0, std::numeric_limits<int64_t>::max());
    if (!pushInterval(columns, row))
        return;
    columns.correlationId.push_back(correlation);
    columns.bytes.push_back(static_cast<uint64_t>(bytes));
    columns.copyKind.push_back(static_cast<uint8_t>(kinds.copy));
    columns.srcKind.push_back(static_cast<uint8_t>(kinds.src));
    columns.dstKind.push_back(static_cast<uint8_t>(kinds.dst));
}

// The lane of the thread in column 1.
HostLane& TableReader::hostLane(const CheckedEventRow& row) {
    return m_session.hostLanes[row.reference(1, m_context.indexes->threads, "thread")];
}

// The lane of the stream in column 1.
StreamLane& TableReader::streamLane(const CheckedEventRow& row) {
    return m_session.streamLanes[row.reference(1, m_context.indexes->streams, "stream")];
}

uint32_t TableReader::stringId(const CheckedEventRow& row, int column) const {
    const int64_t id = row.integer(column);
    if (id < 0 || static_cast<uint64_t>(id) >= m_context.stringCount)
        row.failReference("string", id);
    return static_cast<uint32_t>(id);
}

uint32_t TableReader::stackId(const CheckedEventRow& row, int column) const {
    const int64_t id = row.integer(column);
    if (!m_context.indexes->stacks.contains(id))
        row.failReference("stack", id);
    return static_cast<uint32_t>(id); // stacks.id is in [1, 2^32)
}

} // namespace stallscope::model::loading
