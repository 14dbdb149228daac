// SessionSymbolizer: resolves a session's unsymbolized native frames and marks user frames.
//
// Reads `modules` and the native `frames` whose `symbolized` is 0, maps each return address to a
// link-time address in the module's file (pc - load_bias - 1: the bias covers PIE executables and
// shared objects, is 0 for ET_EXEC, and the -1 puts the address on the call instruction so the line
// is the call's, not the next statement's), resolves each distinct address once through
// NativeResolver and writes function/file/line/column, the inline chain (`frame_inlines`) and
// `is_user` for every frame. A module that cannot be read leaves its frames unresolved and adds a
// warning; nothing here fails the session. The caller owns the transaction.
#pragma once

#include "format/session_rows.h"
#include "symbolize/native_resolver.h"
#include "symbolize/symbolize_options.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace stallscope::format {
class Database;
}

namespace stallscope::symbolize {

class SessionSymbolizer {
public:
    explicit SessionSymbolizer(const SymbolizeOptions& options);

    // Returns false only for database errors (*error set); warnings go to *warnings.
    bool run(format::Database& db, SymbolizeStats* stats, std::vector<std::string>* warnings,
             std::string* error);
    // Unsymbolized native frames whose module (or its debug file) is readable on this machine
    // with the recorded build id: what run() could resolve now. -1 on a database error.
    int64_t countResolvable(format::Database& db, std::string* error);

private:
    // A module row as recorded, with what symbolizing it found out.
    struct Module : format::ModuleRow {
        Module(format::ModuleRow row, int64_t rowId)
            : format::ModuleRow(std::move(row)), id(rowId) {}
        int64_t id = 0;
        // Decided on first use: the file LLVM reads (the module itself, a remapped copy or a
        // separate debug file found by build id), or why there is none.
        bool checked = false;
        std::string objectPath;
        std::string problem;
        int64_t unresolvedFrames = 0;
        std::string firstLookupError;
    };
    struct Frame {
        int64_t id = 0;
        int64_t address = 0;
        std::optional<int64_t> moduleId; // as stored
        int moduleIndex = -1;            // into m_modules, -1 when unknown
        int resultIndex = -1;            // into m_results
    };
    struct Result {
        bool ok = false;
        std::vector<NativeResolver::Location> chain;
    };

    bool loadModules(format::Database& db, std::string* error);
    bool loadFrames(format::Database& db, std::string* error);
    int findModuleByAddress(int64_t address) const;
    void prepareModule(Module& module);
    void resolveAll(SymbolizeStats* stats);
    bool writeFrames(format::Database& db, SymbolizeStats* stats, std::string* error);
    bool markUserFrames(format::Database& db, SymbolizeStats* stats, std::string* error);
    void reportProblems(SymbolizeStats* stats, std::vector<std::string>* warnings) const;

    SymbolizeOptions m_options;
    NativeResolver m_resolver;
    std::vector<Module> m_modules;
    std::unordered_map<int64_t, int> m_moduleById;
    std::vector<Frame> m_frames;
    std::vector<Result> m_results;
    std::unordered_set<int64_t> m_touchedFrames;
    int64_t m_framesWithoutModule = 0;
};

} // namespace stallscope::symbolize
