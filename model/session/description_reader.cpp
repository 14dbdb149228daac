#include "model/session/description_reader.h"

#include "format/checked_sql.h"
#include "format/session_meta.h"
#include "format/session_row_reader.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/terminal_text.h"

#include <algorithm>
#include <limits>

namespace stallscope::model::loading {

namespace {

constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();

// Reads every row of `sql`, a select over `table` with the row id in column 0, handing each to
// onRow as a CheckedRow; throws LoadFailure when a value has the wrong type or reading fails.
template <typename OnRow>
void readTable(const format::Database& db, std::string_view table, const std::string& sql,
               OnRow onRow) {
    format::Statement rows = db.prepare(sql);
    while (rows.step()) {
        const CheckedRow row(rows, table);
        onRow(row);
        row.requireTypes();
    }
    if (rows.failed() || !rows.prepared())
        throw LoadFailure{"corrupt session: cannot read table '" + std::string(table) +
                          "': " + db.lastMessage()};
}

void readProcesses(const format::Database& db, Session& s, RowIndex& processes) {
    readTable(db, format::tables::kProcesses.name,
              format::selectSql(format::tables::kProcesses) +
                  format::CheckedSql(" ORDER BY {processes.id}").text(),
              [&](const CheckedRow& row) {
                  ProcessInfo p{format::readProcessRow(row.values()), row.id(), {}};
                  row.requireTypes();
                  row.time(4);
                  if (p.endNs)
                      row.time(5);
                  processes.add(p.rowId, static_cast<int32_t>(s.processes.size()));
                  s.processes.push_back(std::move(p));
              });
}

// process_ranks (format v2; absent from v1 files): at most one row per process.
void readProcessRanks(const format::Database& db, Session& s, const RowIndex& processes) {
    if (!format::hasTable(db, format::tables::kProcessRanks.name)) {
        if (s.formatVersion >= format::tables::kProcessRanks.sinceVersion)
            throw LoadFailure{"corrupt session: missing table 'process_ranks'"};
        return;
    }
    constexpr int64_t kMaxRanks = int64_t(1) << 24; // far beyond any job, small enough to add
    readTable(db, format::tables::kProcessRanks.name,
              format::selectSql(format::tables::kProcessRanks) +
                  format::CheckedSql(" ORDER BY {process_ranks.id}").text(),
              [&](const CheckedRow& row) {
                  format::ProcessRankRow rank = format::readProcessRankRow(row.values());
                  const int32_t process = row.reference(1, processes, "process");
                  row.inRange(2, 0, kMaxRanks - 1);
                  if (rank.localRank)
                      row.inRange(3, 0, kMaxRanks - 1);
                  if (rank.worldSize && row.inRange(4, 1, kMaxRanks) <= rank.rank)
                      row.fail("has rank " + std::to_string(rank.rank) +
                               " outside its world size " + std::to_string(*rank.worldSize));
                  row.inRange(6, -format::kTimeLimitNs, format::kTimeLimitNs);
                  row.requireTypes();
                  if (s.processes[process].rank)
                      row.fail("gives process " + std::to_string(s.processes[process].rowId) +
                               " a second rank");
                  s.processes[process].rank = std::move(rank);
              });
}

void readThreads(const format::Database& db, Session& s, const RowIndex& processes,
                 RowIndex& threads) {
    readTable(db, format::tables::kThreads.name,
              format::selectSql(format::tables::kThreads) +
                  format::CheckedSql(" ORDER BY {threads.process_id}, {threads.tid}, {threads.id}")
                      .text(),
              [&](const CheckedRow& row) {
                  ThreadInfo t{format::readThreadRow(row.values()), row.id()};
                  t.processIndex = row.reference(1, processes, "process");
                  threads.add(t.rowId, static_cast<int32_t>(s.threads.size()));
                  s.threads.push_back(std::move(t));
              });
}

void readDevices(const format::Database& db, Session& s, const RowIndex& processes,
                 RowIndex& devices) {
    readTable(db, format::tables::kDevices.name,
              format::selectSql(format::tables::kDevices) +
                  format::CheckedSql(
                      " ORDER BY {devices.process_id}, {devices.device_index}, {devices.id}")
                      .text(),
              [&](const CheckedRow& row) {
                  DeviceInfo d{format::readDeviceRow(row.values()), row.id()};
                  d.processIndex = row.reference(1, processes, "process");
                  // A CUDA ordinal; bounded so that exports may compute with it.
                  row.inRange(2, 0, kMaxInt32);
                  devices.add(d.rowId, static_cast<int32_t>(s.devices.size()));
                  s.devices.push_back(std::move(d));
              });
}

void readStreams(const format::Database& db, Session& s, const RowIndex& devices,
                 RowIndex& streams) {
    constexpr format::CheckedSql kStreamsInOrder =
        "SELECT s.{streams.id}, s.{streams.device_id}, s.{streams.context_id}, "
        "s.{streams.stream_id}, s.{streams.is_default}, s.{streams.priority} FROM {streams} s "
        "LEFT JOIN {devices} d ON d.{devices.id} = s.{streams.device_id} ORDER BY "
        "d.{devices.process_id}, d.{devices.device_index}, s.{streams.context_id}, "
        "s.{streams.stream_id}, s.{streams.id}";
    readTable(db, format::tables::kStreams.name, kStreamsInOrder.text(),
              [&](const CheckedRow& row) {
                  StreamInfo st{format::readStreamRow(row.values()), row.id()};
                  st.deviceIndex = row.reference(1, devices, "device");
                  streams.add(st.rowId, static_cast<int32_t>(s.streams.size()));
                  s.streams.push_back(st);
              });
}

// strings.id values index Session::strings directly, so they must be dense from 1: a gap would
// size the vector by a number read from the file.
void readStrings(const format::Database& db, Session& s) {
    s.strings.assign(1, std::string());
    readTable(db, format::tables::kStrings.name,
              format::selectSql(format::tables::kStrings) +
                  format::CheckedSql(" ORDER BY {strings.id}").text(),
              [&](const CheckedRow& row) {
                  if (row.id() != static_cast<int64_t>(s.strings.size()) || row.id() > kMaxInt32)
                      row.fail("breaks the string ids' run from 1 (expected id " +
                               std::to_string(s.strings.size()) + ")");
                  s.strings.push_back(
                      format::clippedText(row.values().text(1), format::kMaxNameBytes));
              });
}

IdSet readStackIds(const format::Database& db) {
    IdSet stacks;
    constexpr format::CheckedSql kStackIds =
        "SELECT {stacks.id} FROM {stacks} ORDER BY {stacks.id}";
    readTable(db, format::tables::kStacks.name, kStackIds.text(), [&](const CheckedRow& row) {
        // syncs.stack_id is held in 32 bits, 0 meaning none.
        if (row.id() < 1 || row.id() > kMaxUint32)
            row.fail("has an id outside [1, 2^32)");
        stacks.add(row.id());
    });
    return stacks;
}

int64_t readDroppedRecords(const format::Database& db) {
    int64_t dropped = 0;
    constexpr format::CheckedSql kDropped = "SELECT {dropped.id}, {dropped.count} FROM {dropped}";
    readTable(db, format::tables::kDropped.name, kDropped.text(), [&](const CheckedRow& row) {
        dropped =
            format::addSaturated(dropped, row.inRange(1, 0, std::numeric_limits<int64_t>::max()));
    });
    return dropped;
}

} // namespace

DescriptionIndexes readDescriptions(const format::Database& db, Session& s) {
    DescriptionIndexes indexes;
    RowIndex processes, devices;
    readProcesses(db, s, processes);
    readProcessRanks(db, s, processes);
    readThreads(db, s, processes, indexes.threads);
    readDevices(db, s, processes, devices);
    readStreams(db, s, devices, indexes.streams);
    readStrings(db, s);
    indexes.stacks = readStackIds(db);
    s.droppedRecords = readDroppedRecords(db);

    s.hostLanes.resize(s.threads.size());
    for (size_t i = 0; i < s.threads.size(); ++i)
        s.hostLanes[i].threadIndex = static_cast<int32_t>(i);
    s.streamLanes.resize(s.streams.size());
    for (size_t i = 0; i < s.streams.size(); ++i)
        s.streamLanes[i].streamIndex = static_cast<int32_t>(i);
    return indexes;
}

void readOverheadProbe(Session& s) {
    const auto found = s.meta.find(format::meta::kRecorderOverheadProbe);
    if (found == s.meta.end())
        return;
    s.overheadProbe = format::OverheadProbeRecord::parse(found->second);
    if (!s.overheadProbe)
        throw LoadFailure{"corrupt session: meta '" +
                          std::string(format::meta::kRecorderOverheadProbe) +
                          "' is not an overhead probe's stretches"};
}

void readCaptureIntervals(const format::Database& db, Session& s) {
    using format::tables::kCaptureIntervals;
    s.captureControlled = s.meta.count(format::meta::kCaptureRange) > 0;
    if (!format::hasTable(db, kCaptureIntervals.name)) {
        if (s.formatVersion >= kCaptureIntervals.sinceVersion)
            throw LoadFailure{"corrupt session: missing table 'capture_intervals'"};
        return;
    }
    RowIndex processes;
    for (size_t i = 0; i < s.processes.size(); ++i)
        processes.add(s.processes[i].rowId, static_cast<int32_t>(i));
    readTable(db, kCaptureIntervals.name,
              format::selectSql(kCaptureIntervals) +
                  format::CheckedSql(" ORDER BY {capture_intervals.id}").text(),
              [&](const CheckedRow& row) {
                  format::CaptureIntervalRow read = format::readCaptureIntervalRow(row.values());
                  CaptureInterval interval;
                  interval.processIndex = row.reference(1, processes, "process");
                  interval.startNs = row.time(2);
                  interval.endNs = read.endNs ? row.time(3) : std::max(s.endNs, interval.startNs);
                  if (interval.endNs < interval.startNs)
                      row.fail("ends before it starts");
                  interval.openedBy =
                      format::clippedText(read.openedBy, format::kMaxMetaValueBytes);
                  interval.closedBy =
                      format::clippedText(read.closedBy, format::kMaxMetaValueBytes);
                  s.captureIntervals.push_back(std::move(interval));
              });
    std::stable_sort(
        s.captureIntervals.begin(), s.captureIntervals.end(),
        [](const CaptureInterval& a, const CaptureInterval& b) { return a.startNs < b.startNs; });
}

} // namespace stallscope::model::loading
