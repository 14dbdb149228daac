// SessionDatabase: on-demand reads of the parts of a session that the per-lane columns do not
// hold — stacks and frames, modules, embedded sources, CUDA events, diagnostics, and the full
// detail row of one event for the detail panel. Keeps its own read-only connections, opened by
// format::openSession (defensive, schema checked); use one instance per thread. A run opened as
// one session (Session::parts) is read from each rank's own file, every row id, reference and
// time moved as the session's were: a stack id of rank 1's syncs names rank 1's stack.
#pragma once

#include "format/module_class.h"
#include "format/session_rows.h"
#include "format/session_schema.h"
#include "format/sqlite_database.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::model {

struct FrameInfo {
    int64_t id = 0;
    format::FrameKind kind = format::FrameKind::Native;
    int64_t address = 0; // native frames
    int64_t moduleId = 0;
    std::string function;
    std::string file;
    int64_t line = 0;
    int64_t column = 0;
    bool symbolized = false;
    std::optional<bool> isUser;
    // 0 for the frame where the PC is; 1, 2, … for the callers the compiler inlined it into
    // (frame_inlines), which share its address, module and verdict.
    int64_t inlineDepth = 0;

    // The frame's verdict when its writer set one; else Python frames by their path
    // (format::isUserPythonFile: sessions recorded with --no-symbolize), native frames not.
    bool isUserCode() const {
        return isUser.value_or(kind == format::FrameKind::Python && format::isUserPythonFile(file));
    }
};

// Rows as read back (format/session_rows.h), with the row id where others refer to it.
struct ModuleInfo : format::ModuleRow {
    int64_t id = 0;
};

using SourceFile = format::SourceRow;

struct CudaEventInfo : format::CudaEventRow {
    int64_t id = 0;
};

struct Diagnostic {
    int64_t atNs = 0;
    std::string severity;
    std::string message;
};

class Session;

class SessionDatabase {
public:
    // One session file.
    bool open(const std::string& path, std::string* error);
    // The files `session` was read from (Session::files()); *error names the file that failed.
    bool open(const Session& session, std::string* error);

    // Frames of a stack, innermost first; empty for stack id 0 or an unknown id.
    std::vector<FrameInfo> stack(int64_t stackId) const;
    std::vector<ModuleInfo> modules() const;
    // A run's ranks may each embed a file: the first rank's copy.
    std::optional<SourceFile> source(const std::string& path) const;
    std::vector<std::string> sourcePaths() const;
    // In time order. `*fromPages` (may be null): whether every file's were read from the pages of
    // its table (format/btree_scanner.h) rather than through SQLite.
    std::vector<CudaEventInfo> cudaEvents(bool* fromPages = nullptr) const;
    std::vector<Diagnostic> diagnostics() const;
    // The kernel's full row (launch grid, registers, shared memory); nullopt for an unknown id.
    std::optional<format::KernelRow> kernelDetails(int64_t kernelRowId) const;

private:
    struct File {
        mutable format::Database connection; // reading pages takes a read transaction
        format::RowMoves moves;
        std::vector<uint32_t> stringIds; // empty: the session's own
    };
    // The file holding the session's row `id` of `table`, with *localId its id there; null when
    // no file does.
    const File* fileOf(const format::Table& table, int64_t id, int64_t* localId) const;
    static std::vector<FrameInfo> withInlinedCallers(const File& file, int64_t localStackId,
                                                     std::vector<FrameInfo> frames);

    std::vector<File> m_files;
};

} // namespace stallscope::model
