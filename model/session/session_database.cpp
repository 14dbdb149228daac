#include "model/session/session_database.h"

#include "format/sqlite_database.h"

namespace stallscope::model {

bool SessionDatabase::open(const std::string& path, std::string* error) {
    return m_connection.open(path, format::Database::Mode::ReadOnly, error);
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
        modules.push_back({rows.integer(0), rows.integer(1), rows.text(2), rows.integer(3),
                           rows.integer(4), rows.integer(5), rows.text(6), rows.integer(7)});
    return modules;
}

std::optional<SourceFile> SessionDatabase::source(const std::string& path) const {
    format::Statement rows =
        m_connection.prepare("SELECT path, sha256, size_bytes, truncated, text "
                             "FROM sources WHERE path = ?");
    rows.bind(1, path);
    if (rows.step())
        return SourceFile{rows.text(0), rows.text(1), rows.integer(2), rows.integer(3) != 0,
                          rows.text(4)};
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
        events.push_back(
            {rows.integer(0), rows.integer(1), rows.integer(2), rows.integer(3), rows.integer(4)});
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

std::optional<KernelDetails> SessionDatabase::kernelDetails(int64_t kernelRowId) const {
    format::Statement rows =
        m_connection.prepare("SELECT grid_x, grid_y, grid_z, block_x, block_y, block_z, "
                             "registers_per_thread, static_shared_bytes, dynamic_shared_bytes "
                             "FROM kernels WHERE id = ?");
    rows.bind(1, kernelRowId);
    if (!rows.step())
        return std::nullopt;
    KernelDetails details;
    for (int i = 0; i < 3; ++i) {
        details.grid[i] = static_cast<int32_t>(rows.integer(i));
        details.block[i] = static_cast<int32_t>(rows.integer(3 + i));
    }
    details.registersPerThread = static_cast<int32_t>(rows.integer(6));
    details.staticSharedBytes = static_cast<int32_t>(rows.integer(7));
    details.dynamicSharedBytes = static_cast<int32_t>(rows.integer(8));
    return details;
}

} // namespace stallscope::model
