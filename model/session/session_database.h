// SessionDatabase: on-demand reads of the parts of a session that the per-lane columns do not
// hold — stacks and frames, modules, embedded sources, CUDA events, diagnostics, and the full
// detail row of one event for the detail panel. Keeps its own read-only connection; use one
// instance per thread.
#pragma once

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
};

struct ModuleInfo {
    int64_t id = 0;
    int64_t processId = 0;
    std::string path;
    int64_t loadBias = 0;
    int64_t startAddress = 0;
    int64_t endAddress = 0;
    std::string buildId;
    int64_t loadedNs = 0;
};

struct SourceFile {
    std::string path;
    std::string sha256;
    int64_t sizeBytes = 0;
    bool truncated = false;
    std::string text;
};

struct CudaEventInfo {
    int64_t id = 0;
    int64_t streamRowId = 0;
    int64_t eventId = 0;
    int64_t correlationId = 0;
    int64_t recordNs = 0;
};

struct Diagnostic {
    int64_t atNs = 0;
    std::string severity;
    std::string message;
};

struct KernelDetails {
    int32_t grid[3] = {0, 0, 0};
    int32_t block[3] = {0, 0, 0};
    int32_t registersPerThread = 0;
    int32_t staticSharedBytes = 0;
    int32_t dynamicSharedBytes = 0;
};

class SessionDatabase {
public:
    bool open(const std::string& path, std::string* error);

    // Frames of a stack, innermost first; empty for stack id 0 or an unknown id.
    std::vector<FrameInfo> stack(int64_t stackId) const;
    std::vector<ModuleInfo> modules() const;
    std::optional<SourceFile> source(const std::string& path) const;
    std::vector<std::string> sourcePaths() const;
    std::vector<CudaEventInfo> cudaEvents() const;
    std::vector<Diagnostic> diagnostics() const;
    std::optional<KernelDetails> kernelDetails(int64_t kernelRowId) const;

private:
    format::Database m_connection;
};

} // namespace stallscope::model
