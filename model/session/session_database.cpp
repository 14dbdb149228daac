#include "model/session/session_database.h"

#include "format/btree_scanner.h"
#include "format/checked_sql.h"
#include "format/session_row_reader.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "format/terminal_text.h"
#include "model/session/session.h"

#include <algorithm>
#include <map>
#include <set>

namespace stallscope::model {

namespace {

// A frame's text as kept: a file may hold any length, a view needs no more than this.
std::string clippedFrameText(std::string_view text) {
    return format::clippedText(text, format::kMaxFrameTextBytes);
}

} // namespace

bool SessionDatabase::open(const std::string& path, std::string* error) {
    m_files.clear();
    File& file = m_files.emplace_back();
    return format::openSession(file.connection, path, error);
}

bool SessionDatabase::open(const Session& session, std::string* error) {
    if (session.parts.empty())
        return open(session.path, error);
    m_files.clear();
    for (const SessionPart& part : session.parts) {
        File& file = m_files.emplace_back();
        file.moves = part.moves;
        file.stringIds = part.stringIds;
        if (!format::openSession(file.connection, part.path, error)) {
            *error = part.path + ": " + *error;
            m_files.clear();
            return false;
        }
    }
    return true;
}

const SessionDatabase::File* SessionDatabase::fileOf(const format::Table& table, int64_t id,
                                                     int64_t* localId) const {
    for (const File& file : m_files) {
        const int64_t local = id - file.moves.offset(table);
        if (local >= 1 && local <= file.moves.last(table)) {
            *localId = local;
            return &file;
        }
    }
    return nullptr;
}

std::vector<FrameInfo> SessionDatabase::stack(int64_t stackId) const {
    std::vector<FrameInfo> frames;
    int64_t localId = 0;
    const File* file = fileOf(format::tables::kStacks, stackId, &localId);
    if (!file)
        return frames;
    constexpr format::CheckedSql kOfStack =
        " JOIN {stack_frames} sf ON f.{frames.id} = sf.{stack_frames.frame_id} "
        "WHERE sf.{stack_frames.stack_id} = ? ORDER BY sf.{stack_frames.position} LIMIT ";
    format::Statement rows =
        file->connection.prepare(format::movedSelectSql(format::tables::kFrames, file->moves, "f") +
                                 kOfStack.text() + std::to_string(format::kMaxStackDepth));
    rows.bind(1, localId);
    while (rows.step()) {
        FrameInfo frame;
        frame.id = rows.integer(0);
        frame.kind = static_cast<format::FrameKind>(rows.integer(1));
        frame.address = rows.integer(2);
        frame.moduleId = rows.integer(3);
        frame.function = clippedFrameText(rows.textView(4));
        frame.file = clippedFrameText(rows.textView(5));
        frame.line = rows.integer(6);
        frame.column = rows.integer(7);
        frame.symbolized = rows.integer(8) != 0;
        if (!rows.isNull(9))
            frame.isUser = rows.integer(9) != 0;
        frames.push_back(std::move(frame));
    }
    return withInlinedCallers(*file, localId, std::move(frames));
}

// Each frame followed by the callers the compiler inlined it into (frame_inlines, depth 1 and
// up): a sync call in the user's main() inlined with cuda_runtime.h's cudaMemcpyToSymbol<…>
// template has main's line only there. At most kMaxStackDepth of them per stack.
std::vector<FrameInfo> SessionDatabase::withInlinedCallers(const File& file, int64_t localStackId,
                                                           std::vector<FrameInfo> frames) {
    constexpr format::CheckedSql kInlined =
        "SELECT sf.{stack_frames.position}, i.{frame_inlines.depth}, i.{frame_inlines.function}, "
        "i.{frame_inlines.file}, i.{frame_inlines.line}, i.{frame_inlines.column} "
        "FROM {stack_frames} sf JOIN {frame_inlines} i ON i.{frame_inlines.frame_id} = "
        "sf.{stack_frames.frame_id} WHERE sf.{stack_frames.stack_id} = ? AND "
        "i.{frame_inlines.depth} > 0 AND sf.{stack_frames.frame_id} IN (SELECT {frames.id} FROM "
        "{frames}) ORDER BY sf.{stack_frames.position}, i.{frame_inlines.depth} LIMIT ";
    constexpr format::CheckedSql kPositions =
        "SELECT sf.{stack_frames.position} FROM {stack_frames} sf JOIN {frames} f ON "
        "f.{frames.id} = sf.{stack_frames.frame_id} WHERE sf.{stack_frames.stack_id} = ? "
        "ORDER BY sf.{stack_frames.position} LIMIT ";
    const std::string limit = std::to_string(format::kMaxStackDepth);
    format::Statement inlined = file.connection.prepare(kInlined.text() + limit);
    inlined.bind(1, localStackId);
    if (!inlined.step())
        return frames;
    // The positions of `frames`, as the query that read them joined them.
    format::Statement positions = file.connection.prepare(kPositions.text() + limit);
    positions.bind(1, localStackId);
    std::vector<FrameInfo> expanded;
    size_t next = 0;
    bool more = true;
    while (positions.step() && next < frames.size()) {
        const int64_t position = positions.integer(0);
        expanded.push_back(frames[next]);
        for (; more && inlined.integer(0) <= position; more = inlined.step()) {
            if (inlined.integer(0) < position)
                continue;
            FrameInfo caller = frames[next];
            caller.inlineDepth = inlined.integer(1);
            caller.function = clippedFrameText(inlined.textView(2));
            caller.file = clippedFrameText(inlined.textView(3));
            caller.line = inlined.integer(4);
            caller.column = inlined.integer(5);
            expanded.push_back(std::move(caller));
        }
        ++next;
    }
    return next == frames.size() ? expanded : frames;
}

std::vector<ModuleInfo> SessionDatabase::modules() const {
    std::vector<ModuleInfo> modules;
    for (const File& file : m_files) {
        format::Statement rows =
            file.connection.prepare(format::movedSelectSql(format::tables::kModules, file.moves) +
                                    format::CheckedSql(" ORDER BY {modules.id}").text());
        while (rows.step())
            modules.push_back({format::readModuleRow(rows), rows.integer(0)});
    }
    return modules;
}

std::optional<SourceFile> SessionDatabase::source(const std::string& path) const {
    for (const File& file : m_files) {
        format::Statement rows =
            file.connection.prepare(format::selectSql(format::tables::kSources) +
                                    format::CheckedSql(" WHERE {sources.path} = ?").text());
        rows.bind(1, path);
        if (rows.step())
            return format::readSourceRow(rows);
    }
    return std::nullopt;
}

std::vector<std::string> SessionDatabase::sourcePaths() const {
    std::set<std::string> paths;
    for (const File& file : m_files) {
        format::Statement rows = file.connection.prepare(
            format::CheckedSql("SELECT {sources.path} FROM {sources}").text());
        while (rows.step())
            paths.insert(rows.text(0));
    }
    return {paths.begin(), paths.end()};
}

namespace {

// A table b-tree cell of five small integers takes at least this many bytes of its page.
constexpr int64_t kSmallestRowBytes = 8;

// A file's CUDA events from the pages of its cuda_events table, appended to `events`, as the
// statement in cudaEvents() reads them: false when the scanner declines the table or a value is
// not an integer (SQLite's reading converts it, and is the answer).
bool readCudaEventPages(format::Database& connection, std::vector<CudaEventInfo>* events) {
    std::vector<std::string> columns;
    for (const format::Column& column : format::tables::kCudaEvents.columns)
        columns.emplace_back(column.name);
    // Room for the rows at once: the last row id is the row count in the files the writers make,
    // bounded by what the file could hold (a crafted id only means a smaller reservation).
    const std::string table(format::tables::kCudaEvents.name);
    if (format::Statement last = connection.prepare("SELECT max(rowid) FROM " + table); last.step())
        events->reserve(events->size() +
                        size_t(std::clamp<int64_t>(last.integer(0), 0,
                                                   connection.mainFileSize() / kSmallestRowBytes)));
    bool integers = true;
    format::BtreeScanner scanner;
    const bool read = format::scanTablePages(
        connection, scanner, table, columns,
        [&](const format::BtreeScanner::PageRows& rows) {
            for (size_t i = 0; i < rows.size() && integers; ++i) {
                const format::TypedValues values(rows.values.data() + i * rows.columns, columns);
                events->push_back({format::readCudaEventRow(values), rows.rowIds[i]});
                integers = values.ok();
            }
        },
        nullptr);
    return read && integers;
}

} // namespace

std::vector<CudaEventInfo> SessionDatabase::cudaEvents(bool* fromPages) const {
    std::vector<CudaEventInfo> events;
    if (fromPages)
        *fromPages = true;
    for (const File& file : m_files) {
        const size_t before = events.size();
        if (file.moves.none() && readCudaEventPages(file.connection, &events))
            continue;
        events.resize(before);
        if (fromPages)
            *fromPages = false;
        // In row order, which SQLite reads without sorting (no index on record_ns); recorders
        // write them in time order nearly always, and the sort below puts right the rest.
        format::Statement rows = file.connection.prepare(
            format::movedSelectSql(format::tables::kCudaEvents, file.moves) +
            format::CheckedSql(" ORDER BY {cuda_events.id}").text());
        while (rows.step())
            events.push_back({format::readCudaEventRow(rows), rows.integer(0)});
    }
    // By time, across files too.
    auto earlier = [](const CudaEventInfo& a, const CudaEventInfo& b) {
        return std::pair(a.recordNs, a.id) < std::pair(b.recordNs, b.id);
    };
    if (!std::is_sorted(events.begin(), events.end(), earlier))
        std::stable_sort(events.begin(), events.end(), earlier);
    return events;
}

std::vector<Diagnostic> SessionDatabase::diagnostics() const {
    std::vector<Diagnostic> diagnostics;
    for (const File& file : m_files) {
        format::Statement rows = file.connection.prepare(
            format::movedSelectSql(format::tables::kDiagnostics, file.moves) +
            format::CheckedSql(" ORDER BY {diagnostics.id}").text());
        while (rows.step())
            diagnostics.push_back({rows.integer(1), rows.text(2), rows.text(3)});
    }
    return diagnostics;
}

std::optional<format::KernelRow> SessionDatabase::kernelDetails(int64_t kernelRowId) const {
    int64_t localId = 0;
    const File* file = fileOf(format::tables::kKernels, kernelRowId, &localId);
    if (!file)
        return std::nullopt;
    format::Statement rows =
        file->connection.prepare(format::movedSelectSql(format::tables::kKernels, file->moves) +
                                 format::CheckedSql(" WHERE {kernels.id} = ?").text());
    rows.bind(1, localId);
    if (!rows.step())
        return std::nullopt;
    format::KernelRow kernel = format::readKernelRow(rows);
    if (!file->stringIds.empty())
        kernel.nameId = kernel.nameId >= 0 && kernel.nameId < int64_t(file->stringIds.size())
                            ? file->stringIds[kernel.nameId]
                            : 0;
    return kernel;
}

} // namespace stallscope::model
