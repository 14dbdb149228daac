// The session tables, described once: the DDL (createTableSql), the writer's INSERTs (insertSql)
// and the readers' column lists (selectSql) are generated from these descriptors, so a column is
// named in one place. docs/session-format.md documents every table and column; keep both in step.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::format {

struct Column {
    std::string_view name;
    std::string_view declaration; // type and column constraints, as in CREATE TABLE
};

struct Table {
    std::string_view name;
    std::span<const Column> columns;
    std::string_view tableConstraint = {}; // e.g. a composite PRIMARY KEY
    bool withoutRowid = false;
    // The format version that added the table: a file of an older version may lack it.
    int sinceVersion = 1;

    // An "id INTEGER PRIMARY KEY" first column aliases the row id: SQLite assigns it on insert.
    constexpr bool firstColumnIsRowId() const {
        return columns.front().declaration == "INTEGER PRIMARY KEY";
    }
    // The columns an INSERT names: all but a row-id alias.
    constexpr std::span<const Column> insertedColumns() const {
        return firstColumnIsRowId() ? columns.subspan(1) : columns;
    }
};

// The deepest stack a session holds (the recorder's 96 native and 48 Python frames fit): writers
// keep the innermost kMaxStackDepth frames and readers read no more, so a file that claims a
// deeper one costs no more than this.
inline constexpr int kMaxStackDepth = 256;
// The longest text a reader keeps of a frame (function, file), a meta value or a name of the
// strings table; longer ones are cut (format::clippedText), so what one row costs is bounded.
inline constexpr size_t kMaxFrameTextBytes = 16 * 1024;
inline constexpr size_t kMaxMetaValueBytes = 4 * 1024;
inline constexpr size_t kMaxNameBytes = 256 * 1024;

namespace columns {
inline constexpr std::string_view kRowId = "INTEGER PRIMARY KEY";
inline constexpr std::string_view kInt = "INTEGER NOT NULL";
inline constexpr std::string_view kIntOrNull = "INTEGER";
inline constexpr std::string_view kIntDefault0 = "INTEGER NOT NULL DEFAULT 0";
inline constexpr std::string_view kText = "TEXT NOT NULL";
inline constexpr std::string_view kTextOrNull = "TEXT";
inline constexpr std::string_view kTextDefaultEmpty = "TEXT NOT NULL DEFAULT ''";

inline constexpr Column kMeta[] = {{"key", "TEXT PRIMARY KEY"}, {"value", kText}};
inline constexpr Column kProcesses[] = {
    {"id", kRowId},     {"pid", kInt},          {"host", kText},          {"command", kText},
    {"start_ns", kInt}, {"end_ns", kIntOrNull}, {"exit_code", kIntOrNull}};
inline constexpr Column kProcessRanks[] = {
    {"id", kRowId},
    {"process_id", "INTEGER NOT NULL UNIQUE REFERENCES processes(id)"},
    {"rank", kInt},
    {"local_rank", kIntOrNull},
    {"world_size", kIntOrNull},
    {"launcher", kTextDefaultEmpty},
    {"clock_shift_ns", kIntDefault0}};
inline constexpr Column kThreads[] = {{"id", kRowId},
                                      {"process_id", "INTEGER NOT NULL REFERENCES processes(id)"},
                                      {"tid", kInt},
                                      {"name", kTextDefaultEmpty}};
inline constexpr Column kDevices[] = {{"id", kRowId},
                                      {"process_id", "INTEGER NOT NULL REFERENCES processes(id)"},
                                      {"device_index", kInt},
                                      {"name", kText},
                                      {"uuid", kTextDefaultEmpty},
                                      {"compute_major", kIntDefault0},
                                      {"compute_minor", kIntDefault0},
                                      {"sm_count", kIntDefault0},
                                      {"global_memory_bytes", kIntDefault0}};
inline constexpr Column kStreams[] = {{"id", kRowId},
                                      {"device_id", "INTEGER NOT NULL REFERENCES devices(id)"},
                                      {"context_id", kInt},
                                      {"stream_id", kInt},
                                      {"is_default", kIntDefault0},
                                      {"priority", kIntDefault0}};
inline constexpr Column kStrings[] = {{"id", kRowId}, {"text", kText}};
inline constexpr Column kApiCalls[] = {
    {"id", kRowId},   {"thread_id", kInt},      {"domain", kInt},
    {"cbid", kInt},   {"name_id", kInt},        {"start_ns", kInt},
    {"end_ns", kInt}, {"correlation_id", kInt}, {"return_code", kIntDefault0}};
inline constexpr Column kKernels[] = {{"id", kRowId},
                                      {"stream_id", kInt},
                                      {"name_id", kInt},
                                      {"start_ns", kInt},
                                      {"end_ns", kInt},
                                      {"correlation_id", kInt},
                                      {"grid_x", kInt},
                                      {"grid_y", kInt},
                                      {"grid_z", kInt},
                                      {"block_x", kInt},
                                      {"block_y", kInt},
                                      {"block_z", kInt},
                                      {"registers_per_thread", kInt},
                                      {"static_shared_bytes", kInt},
                                      {"dynamic_shared_bytes", kInt}};
inline constexpr Column kMemcpys[] = {
    {"id", kRowId},           {"stream_id", kInt}, {"start_ns", kInt}, {"end_ns", kInt},
    {"correlation_id", kInt}, {"copy_kind", kInt}, {"src_kind", kInt}, {"dst_kind", kInt},
    {"bytes", kInt},          {"is_async", kInt}};
inline constexpr Column kMemsets[] = {
    {"id", kRowId},   {"stream_id", kInt},      {"start_ns", kInt},
    {"end_ns", kInt}, {"correlation_id", kInt}, {"value", kInt},
    {"bytes", kInt},  {"dst_kind", kInt},       {"is_async", kInt}};
inline constexpr Column kSyncs[] = {{"id", kRowId},
                                    {"thread_id", kInt},
                                    {"kind", kInt},
                                    {"start_ns", kInt},
                                    {"end_ns", kInt},
                                    {"correlation_id", kInt},
                                    {"stream_id", kIntOrNull},
                                    {"event_id", kIntOrNull},
                                    {"stack_id", kIntOrNull}};
inline constexpr Column kCudaEvents[] = {{"id", kRowId},
                                         {"stream_id", kInt},
                                         {"event_id", kInt},
                                         {"correlation_id", kInt},
                                         {"record_ns", kInt}};
inline constexpr Column kRanges[] = {{"id", kRowId},    {"thread_id", kInt}, {"kind", kInt},
                                     {"name_id", kInt}, {"start_ns", kInt},  {"end_ns", kInt},
                                     {"depth", kInt}};
inline constexpr Column kModules[] = {{"id", kRowId},
                                      {"process_id", kInt},
                                      {"path", kText},
                                      {"load_bias", kInt},
                                      {"start_address", kInt},
                                      {"end_address", kInt},
                                      {"build_id", kTextDefaultEmpty},
                                      {"loaded_ns", kInt}};
inline constexpr Column kFrames[] = {{"id", kRowId},
                                     {"kind", kInt},
                                     {"address", kIntOrNull},
                                     {"module_id", kIntOrNull},
                                     {"function", kTextOrNull},
                                     {"file", kTextOrNull},
                                     {"line", kIntOrNull},
                                     {"column", kIntOrNull},
                                     {"symbolized", kIntDefault0},
                                     {"is_user", kIntOrNull}};
inline constexpr Column kFrameInlines[] = {{"frame_id", kInt},     {"depth", kInt},
                                           {"function", kText},    {"file", kTextDefaultEmpty},
                                           {"line", kIntDefault0}, {"column", kIntDefault0}};
inline constexpr Column kStacks[] = {{"id", kRowId}, {"hash", kInt}, {"depth", kInt}};
inline constexpr Column kStackFrames[] = {
    {"stack_id", kInt}, {"position", kInt}, {"frame_id", kInt}};
inline constexpr Column kSources[] = {
    {"id", kRowId},       {"path", "TEXT NOT NULL UNIQUE"}, {"sha256", kText},
    {"size_bytes", kInt}, {"truncated", kIntDefault0},      {"text", kText}};
inline constexpr Column kDropped[] = {{"id", kRowId},
                                      {"process_id", kIntOrNull},
                                      {"at_ns", kInt},
                                      {"source", kText},
                                      {"count", kInt}};
// A run of the Python sampler's samples of one thread that saw the same stack at consecutive
// ticks: `samples` samples from start_ns (the first) to end_ns (the last), equally spaced.
inline constexpr Column kHostSamples[] = {{"id", kRowId},     {"thread_id", kInt},
                                          {"start_ns", kInt}, {"end_ns", kInt},
                                          {"samples", kInt},  {"stack_id", kInt}};
// What NCCL said about the collective(s) one kernel launch carries (its profiler plugin, format
// v4): joined to the kernel by process and correlation id. `calls` NCCL calls (a group launches
// several as one kernel) of `count` elements in all; bytes is NULL when the type's size is unknown.
inline constexpr Column kCollectiveCalls[] = {
    {"id", kRowId},           {"process_id", "INTEGER NOT NULL REFERENCES processes(id)"},
    {"correlation_id", kInt}, {"function", kText},
    {"datatype", kText},      {"count", kInt},
    {"bytes", kIntOrNull},    {"calls", kInt}};
inline constexpr Column kDiagnostics[] = {
    {"id", kRowId}, {"at_ns", kInt}, {"severity", kText}, {"message", kText}};
// A stretch in which a recording with capture control (stallscope-record --delay, --duration,
// --capture-range; format v5) recorded its process; outside its process's rows nothing was
// recorded. Why it opened and closed: format::capture_reason. end_ns is NULL (and closed_by '')
// while the recorder was still capturing at the file's last commit (a killed recording).
inline constexpr Column kCaptureIntervals[] = {
    {"id", kRowId},       {"process_id", "INTEGER NOT NULL REFERENCES processes(id)"},
    {"start_ns", kInt},   {"end_ns", kIntOrNull},
    {"opened_by", kText}, {"closed_by", kTextDefaultEmpty}};
} // namespace columns

namespace tables {
inline constexpr Table kMeta{"meta", columns::kMeta, {}, true};
inline constexpr Table kProcesses{"processes", columns::kProcesses};
inline constexpr Table kThreads{"threads", columns::kThreads};
inline constexpr Table kDevices{"devices", columns::kDevices};
inline constexpr Table kStreams{"streams", columns::kStreams};
inline constexpr Table kStrings{"strings", columns::kStrings};
inline constexpr Table kApiCalls{"api_calls", columns::kApiCalls};
inline constexpr Table kKernels{"kernels", columns::kKernels};
inline constexpr Table kMemcpys{"memcpys", columns::kMemcpys};
inline constexpr Table kMemsets{"memsets", columns::kMemsets};
inline constexpr Table kSyncs{"syncs", columns::kSyncs};
inline constexpr Table kCudaEvents{"cuda_events", columns::kCudaEvents};
inline constexpr Table kRanges{"ranges", columns::kRanges};
inline constexpr Table kModules{"modules", columns::kModules};
inline constexpr Table kFrames{"frames", columns::kFrames};
inline constexpr Table kFrameInlines{"frame_inlines", columns::kFrameInlines,
                                     "PRIMARY KEY (frame_id, depth)", true};
inline constexpr Table kStacks{"stacks", columns::kStacks};
inline constexpr Table kStackFrames{"stack_frames", columns::kStackFrames,
                                    "PRIMARY KEY (stack_id, position)", true};
inline constexpr Table kSources{"sources", columns::kSources};
inline constexpr Table kDropped{"dropped", columns::kDropped};
inline constexpr Table kDiagnostics{"diagnostics", columns::kDiagnostics};
inline constexpr Table kProcessRanks{"process_ranks", columns::kProcessRanks, {}, false, 2};
inline constexpr Table kHostSamples{"host_samples", columns::kHostSamples, {}, false, 3};
inline constexpr Table kCollectiveCalls{
    "collective_calls", columns::kCollectiveCalls, {}, false, 4};
inline constexpr Table kCaptureIntervals{
    "capture_intervals", columns::kCaptureIntervals, {}, false, 5};
} // namespace tables

// Every table of a session, in creation order; the reader checks that each exists (a table newer
// than the file's version may be missing: Table::sinceVersion).
inline constexpr std::array<const Table*, 25> kTables = {
    &tables::kMeta,
    &tables::kProcesses,
    &tables::kThreads,
    &tables::kDevices,
    &tables::kStreams,
    &tables::kStrings,
    &tables::kApiCalls,
    &tables::kKernels,
    &tables::kMemcpys,
    &tables::kMemsets,
    &tables::kSyncs,
    &tables::kCudaEvents,
    &tables::kRanges,
    &tables::kModules,
    &tables::kFrames,
    &tables::kFrameInlines,
    &tables::kStacks,
    &tables::kStackFrames,
    &tables::kSources,
    &tables::kDropped,
    &tables::kDiagnostics,
    &tables::kProcessRanks,
    &tables::kHostSamples,
    &tables::kCollectiveCalls,
    &tables::kCaptureIntervals,
};

// The tables whose rows are things that happened (events, samples, drops, NCCL's calls): what the
// flight recorder (stallscope-record --ring) discards as they age. The others describe the run
// (processes, threads, streams, modules, stacks, strings, diagnostics) and are kept whole.
inline constexpr std::array<const Table*, 10> kAgingTables = {
    &tables::kApiCalls,    &tables::kKernels,         &tables::kMemcpys, &tables::kMemsets,
    &tables::kSyncs,       &tables::kCudaEvents,      &tables::kRanges,  &tables::kDropped,
    &tables::kHostSamples, &tables::kCollectiveCalls,
};

// The position of `table` in kTables (kTables.size() when absent). By name, not by address:
// with AddressSanitizer, addresses of distinct globals do not compare in constant expressions.
constexpr size_t tableIndex(const Table& table) {
    size_t index = 0;
    while (index < kTables.size() && kTables[index]->name != table.name)
        ++index;
    return index;
}

// "CREATE TABLE name (column declaration, ..., constraint) [WITHOUT ROWID];"
std::string createTableSql(const Table& table);
// The CREATE TABLE statements of every table in kTables.
std::string schemaSql();
// "<verb> INTO name(columns) VALUES (?, ...)" over every column but a row-id alias, in
// descriptor order: bind parameter i + 1 is the i-th such column.
std::string insertSql(const Table& table, std::string_view verb = "INSERT");
// "SELECT every column FROM name", in descriptor order: result column i is columns[i].
std::string selectSql(const Table& table);

constexpr bool hasColumn(const Table& table, std::string_view name) {
    for (const Column& column : table.columns)
        if (column.name == name)
            return true;
    return false;
}

// A column name of `table`, checked when the program is compiled: a misspelt or removed column
// does not build. What a reader that reads only some columns names them with.
template <const Table& table> struct ColumnOf {
    std::string_view name;
    consteval ColumnOf(const char* columnName) : name(columnName) {
        if (!hasColumn(table, name))
            throw "not a column of this table"; // ends constant evaluation: a compile error
    }
};

std::string selectColumnsSql(const Table& table, std::span<const std::string_view> names);

// What moving one file's rows into another session changes (a run opened as one session,
// model/interop/run_merge.h): the row ids that columns refer to, and times.
//
// The table whose row ids `column` holds, or null: a column named like a table's key (process_id,
// thread_id, device_id, stream_id, name_id, module_id, frame_id, stack_id); streams.stream_id is
// CUPTI's own number, not a reference.
const Table* referencedTable(const Table& table, const Column& column);
// A time on the host's clock (a column ending in _ns; process_ranks.clock_shift_ns, the shift
// already applied to a process's times, moves with them).
constexpr bool isTimeColumn(const Column& column) {
    return column.name.size() > 3 && column.name.substr(column.name.size() - 3) == "_ns";
}
// A time at which something happened (every time column but the clock shift, a duration between
// clocks): what the earliest time of a file is taken from.
constexpr bool isInstantColumn(const Column& column) {
    return isTimeColumn(column) && column.name != "clock_shift_ns";
}

// How one file's rows are moved into a session: each table's row ids by idOffset (and every
// reference to them; a reference past the file's own rows, lastId, reads as NULL instead of
// landing in another file's), times by shiftNs. The default moves nothing.
struct RowMoves {
    std::array<int64_t, kTables.size()> idOffset{};
    std::array<int64_t, kTables.size()> lastId = [] {
        std::array<int64_t, kTables.size()> unbounded;
        unbounded.fill(INT64_MAX);
        return unbounded;
    }();
    int64_t shiftNs = 0;

    int64_t offset(const Table& table) const { return idOffset[tableIndex(table)]; }
    int64_t last(const Table& table) const { return lastId[tableIndex(table)]; }
    // Nothing moves: every row reads as its file holds it (a session opened on its own).
    bool none() const { return *this == RowMoves{}; }
    bool operator==(const RowMoves&) const = default;
};

// selectSql(table) with every value moved by `moves` (result column i is still columns[i]), the
// columns prefixed by `alias` ("SELECT f.id + 10, ... FROM frames f"). String ids (name_id) are
// left as they are: the reader maps them.
std::string movedSelectSql(const Table& table, const RowMoves& moves, std::string_view alias = {});

// "SELECT a, b, ... FROM name" over the named columns, in the order given: result column i is
// names[i]. Each name is checked against the descriptor at compile time.
template <const Table& table>
std::string selectSql(std::initializer_list<ColumnOf<table>> columns) {
    std::vector<std::string_view> names;
    for (const ColumnOf<table>& column : columns)
        names.push_back(column.name);
    return selectColumnsSql(table, names);
}

} // namespace stallscope::format
