#include "model/session/session_database.h"

#include "format/session_row_reader.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"

namespace stallscope::model {

bool SessionDatabase::open(const std::string& path, std::string* error) {
    return format::openSession(m_connection, path, error);
}

std::vector<FrameInfo> SessionDatabase::stack(int64_t stackId) const {
    std::vector<FrameInfo> frames;
    format::Statement rows = m_connection.prepare(
        "SELECT f.id, f.kind, f.address, f.module_id, f.function, f.file, f.line, "
        "f.column, f.symbolized, f.is_user FROM stack_frames sf "
        "JOIN frames f ON f.id = sf.frame_id WHERE sf.stack_id = ? "
        "ORDER BY sf.position");
    rows.bind(1, stackId);
    while (rows.step()) {
        FrameInfo frame;
        frame.id = rows.integer(0);
        frame.kind = static_cast<format::FrameKind>(rows.integer(1));
        frame.address = rows.integer(2);
        frame.moduleId = rows.integer(3);
        frame.function = rows.text(4);
        frame.file = rows.text(5);
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
    format::Statement rows =
        m_connection.prepare(format::selectSql(format::tables::kModules) + " ORDER BY id");
    while (rows.step())
        modules.push_back({format::readModuleRow(rows), rows.integer(0)});
    return modules;
}

std::optional<SourceFile> SessionDatabase::source(const std::string& path) const {
    format::Statement rows =
        m_connection.prepare(format::selectSql(format::tables::kSources) + " WHERE path = ?");
    rows.bind(1, path);
    if (rows.step())
        return format::readSourceRow(rows);
    return std::nullopt;
}

std::vector<std::string> SessionDatabase::sourcePaths() const {
    std::vector<std::string> paths;
    format::Statement rows = m_connection.prepare("SELECT path FROM sources ORDER BY path");
    while (rows.step())
        paths.push_back(rows.text(0));
    return paths;
}

std::vector<CudaEventInfo> SessionDatabase::cudaEvents() const {
    std::vector<CudaEventInfo> events;
    format::Statement rows = m_connection.prepare(format::selectSql(format::tables::kCudaEvents) +
                                                  " ORDER BY record_ns, id");
    while (rows.step())
        events.push_back({format::readCudaEventRow(rows), rows.integer(0)});
    return events;
}

std::vector<Diagnostic> SessionDatabase::diagnostics() const {
    std::vector<Diagnostic> diagnostics;
    format::Statement rows =
        m_connection.prepare("SELECT at_ns, severity, message FROM diagnostics ORDER BY id");
    while (rows.step())
        diagnostics.push_back({rows.integer(0), rows.text(1), rows.text(2)});
    return diagnostics;
}

std::optional<format::KernelRow> SessionDatabase::kernelDetails(int64_t kernelRowId) const {
    format::Statement rows =
        m_connection.prepare(format::selectSql(format::tables::kKernels) + " WHERE id = ?");
    rows.bind(1, kernelRowId);
    if (!rows.step())
        return std::nullopt;
    return format::readKernelRow(rows);
}

} // namespace stallscope::model
