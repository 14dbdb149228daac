#include "model/session/session_database.h"

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
    format::Statement rows = file->connection.prepare(
        format::movedSelectSql(format::tables::kFrames, file->moves, "f") +
        " JOIN stack_frames sf ON f.id = sf.frame_id WHERE sf.stack_id = ? ORDER BY sf.position "
        "LIMIT " +
        std::to_string(format::kMaxStackDepth));
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
    return frames;
}

std::vector<ModuleInfo> SessionDatabase::modules() const {
    std::vector<ModuleInfo> modules;
    for (const File& file : m_files) {
        format::Statement rows = file.connection.prepare(
            format::movedSelectSql(format::tables::kModules, file.moves) + " ORDER BY id");
        while (rows.step())
            modules.push_back({format::readModuleRow(rows), rows.integer(0)});
    }
    return modules;
}

std::optional<SourceFile> SessionDatabase::source(const std::string& path) const {
    for (const File& file : m_files) {
        format::Statement rows = file.connection.prepare(
            format::selectSql(format::tables::kSources) + " WHERE path = ?");
        rows.bind(1, path);
        if (rows.step())
            return format::readSourceRow(rows);
    }
    return std::nullopt;
}

std::vector<std::string> SessionDatabase::sourcePaths() const {
    std::set<std::string> paths;
    for (const File& file : m_files) {
        format::Statement rows = file.connection.prepare("SELECT path FROM sources");
        while (rows.step())
            paths.insert(rows.text(0));
    }
    return {paths.begin(), paths.end()};
}

std::vector<CudaEventInfo> SessionDatabase::cudaEvents() const {
    std::vector<CudaEventInfo> events;
    for (const File& file : m_files) {
        // In row order, which SQLite reads without sorting (no index on record_ns); recorders
        // write them in time order nearly always, and the sort below puts right the rest.
        format::Statement rows = file.connection.prepare(
            format::movedSelectSql(format::tables::kCudaEvents, file.moves) + " ORDER BY id");
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
            format::movedSelectSql(format::tables::kDiagnostics, file.moves) + " ORDER BY id");
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
    format::Statement rows = file->connection.prepare(
        format::movedSelectSql(format::tables::kKernels, file->moves) + " WHERE id = ?");
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

std::vector<std::pair<uint32_t, int64_t>> SessionDatabase::smallestGridByName() const {
    std::map<uint32_t, int64_t> smallest;
    for (const File& file : m_files) {
        format::Statement rows = file.connection.prepare(format::smallestGridByNameSql());
        while (rows.step()) {
            int64_t name = rows.integer(0);
            if (!file.stringIds.empty())
                name =
                    name >= 0 && name < int64_t(file.stringIds.size()) ? file.stringIds[name] : -1;
            if (name < 0 || name > INT32_MAX)
                continue;
            const int64_t blocks = rows.integer(1);
            auto [it, added] = smallest.emplace(static_cast<uint32_t>(name), blocks);
            if (!added)
                it->second = std::min(it->second, blocks);
        }
    }
    return {smallest.begin(), smallest.end()};
}

} // namespace stallscope::model
