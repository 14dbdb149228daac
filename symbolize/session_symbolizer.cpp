#include "symbolize/session_symbolizer.h"

#include "format/checked_sql.h"
#include "format/session_row_reader.h"
#include "format/session_schema.h"
#include "format/sqlite_database.h"
#include "symbolize/elf_file_info.h"
#include "symbolize/regular_file.h"
#include "symbolize/user_frame_filter.h"

#include <sys/stat.h>

#include <chrono>
#include <map>

namespace stallscope::symbolize {

SessionSymbolizer::SessionSymbolizer(const SymbolizeOptions& options)
    : m_options(options), m_resolver(options.debugDirectories) {}

bool SessionSymbolizer::run(format::Database& db, SymbolizeStats* stats,
                            std::vector<std::string>* warnings, std::string* error) {
    if (!loadModules(db, error) || !loadFrames(db, error))
        return false;
    stats->modules = static_cast<int64_t>(m_modules.size());
    stats->nativeFrames = static_cast<int64_t>(m_frames.size());
    resolveAll(stats);
    if (!writeFrames(db, stats, error) || !markUserFrames(db, stats, error))
        return false;
    reportProblems(stats, warnings);
    return true;
}

int64_t SessionSymbolizer::countResolvable(format::Database& db, std::string* error) {
    if (!loadModules(db, error) || !loadFrames(db, error))
        return -1;
    int64_t resolvable = 0;
    for (const Frame& frame : m_frames) {
        if (frame.moduleIndex < 0)
            continue;
        Module& module = m_modules[frame.moduleIndex];
        if (!module.checked)
            prepareModule(module);
        if (!module.objectPath.empty())
            ++resolvable;
    }
    return resolvable;
}

bool SessionSymbolizer::loadModules(format::Database& db, std::string* error) {
    format::Statement query = db.prepare(format::selectSql(format::tables::kModules) +
                                         format::CheckedSql(" ORDER BY {modules.id}").text());
    while (query.step()) {
        Module module{format::readModuleRow(query), query.integer(0)};
        m_moduleById[module.id] = static_cast<int>(m_modules.size());
        m_modules.push_back(std::move(module));
    }
    if (!query.error().empty()) {
        *error = "reading modules: " + query.error();
        return false;
    }
    return true;
}

bool SessionSymbolizer::loadFrames(format::Database& db, std::string* error) {
    constexpr format::CheckedSql kNativeFrames =
        "SELECT {frames.id}, {frames.address}, {frames.module_id} FROM {frames} WHERE "
        "{frames.address} IS NOT NULL AND {frames.kind} = ";
    constexpr format::CheckedSql kNotSymbolized = " AND {frames.symbolized} = 0";
    const std::string sql = kNativeFrames.text() +
                            std::to_string(static_cast<int>(format::FrameKind::Native)) +
                            (m_options.resymbolize ? "" : kNotSymbolized.text());
    format::Statement query = db.prepare(sql);
    while (query.step()) {
        Frame frame;
        frame.id = query.integer(0);
        frame.address = query.integer(1);
        if (!query.isNull(2))
            frame.moduleId = query.integer(2);
        if (frame.moduleId) {
            auto found = m_moduleById.find(*frame.moduleId);
            frame.moduleIndex = found == m_moduleById.end() ? -1 : found->second;
        } else {
            frame.moduleIndex = findModuleByAddress(frame.address);
        }
        m_frames.push_back(frame);
    }
    if (!query.error().empty()) {
        *error = "reading frames: " + query.error();
        return false;
    }
    return true;
}

// Frames carry no process id, so an address is only attributed when every module containing it is
// the same file at the same bias (typical: one process, or forked ranks with identical layouts).
int SessionSymbolizer::findModuleByAddress(int64_t address) const {
    int found = -1;
    for (size_t i = 0; i < m_modules.size(); ++i) {
        const Module& module = m_modules[i];
        if (address < module.startAddress || address >= module.endAddress)
            continue;
        if (found >= 0 &&
            (m_modules[found].path != module.path || m_modules[found].loadBias != module.loadBias))
            return -1;
        if (found < 0)
            found = static_cast<int>(i);
    }
    return found;
}

void SessionSymbolizer::prepareModule(Module& module) {
    module.checked = true;
    if (module.path.empty()) {
        module.problem = "module has no path";
        return;
    }
    if (module.path.rfind("linux-vdso", 0) == 0 || module.path == "[vdso]") {
        module.problem = "the kernel's vDSO has no file on disk";
        return;
    }
    std::vector<std::string> candidates = {module.path};
    if (std::string remapped = remapPath(module.path, m_options.pathRemaps);
        remapped != module.path)
        candidates.push_back(std::move(remapped));
    std::string mismatch;
    for (const std::string& candidate : candidates) {
        if (!isRegularFile(candidate))
            continue;
        ElfFileInfo info;
        std::string readError;
        if (!info.read(candidate, &readError)) {
            module.problem = readError;
            continue;
        }
        // A rebuilt or upgraded file at the same path would give confident but wrong lines.
        if (!module.buildId.empty() && !info.buildId().empty() &&
            info.buildId() != module.buildId) {
            mismatch =
                candidate + " has build id " + info.buildId() + ", recorded " + module.buildId;
            continue;
        }
        module.objectPath = candidate;
        module.problem.clear();
        return;
    }
    // The binary is gone or changed: a separate debug file with the recorded build id still holds
    // the symbol table and DWARF at the same link-time addresses.
    if (!module.buildId.empty()) {
        for (const std::string& root : m_options.debugDirectories) {
            const std::string debugPath = ElfFileInfo::buildIdDebugPath(root, module.buildId);
            if (!debugPath.empty() && isRegularFile(debugPath)) {
                module.objectPath = debugPath;
                module.problem.clear();
                return;
            }
        }
    }
    if (!mismatch.empty())
        module.problem = mismatch + " (binary changed since recording; no debug file by build id)";
    else if (module.problem.empty())
        module.problem = "file not found";
}

void SessionSymbolizer::resolveAll(SymbolizeStats* stats) {
    // Distinct (object, address) pairs, sorted so each module's lookups run together.
    std::map<std::pair<std::string, uint64_t>, int> distinct;
    for (Frame& frame : m_frames) {
        if (frame.moduleIndex < 0) {
            ++m_framesWithoutModule;
            continue;
        }
        Module& module = m_modules[frame.moduleIndex];
        if (!module.checked)
            prepareModule(module);
        // A return address is never the module's first byte; guard against garbage PCs anyway.
        const int64_t offset = frame.address - 1 - module.loadBias;
        if (module.objectPath.empty() || offset < 0) {
            ++module.unresolvedFrames;
            continue;
        }
        auto [it, inserted] = distinct.try_emplace({module.objectPath, uint64_t(offset)},
                                                   static_cast<int>(distinct.size()));
        frame.resultIndex = it->second;
    }
    m_results.assign(distinct.size(), Result{});
    stats->distinctAddresses = static_cast<int64_t>(distinct.size());

    const auto started = std::chrono::steady_clock::now();
    std::map<std::string, std::string> lookupErrors;
    for (const auto& [key, index] : distinct) {
        Result& result = m_results[index];
        std::string lookupError;
        result.ok = m_resolver.resolve(key.first, key.second, &result.chain, &lookupError);
        if (!result.ok)
            lookupErrors.emplace(key.first, lookupError);
    }
    stats->resolveSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    for (Frame& frame : m_frames) {
        if (frame.resultIndex < 0)
            continue;
        const Result& result = m_results[frame.resultIndex];
        if (result.ok && !result.chain.empty())
            continue;
        Module& module = m_modules[frame.moduleIndex];
        ++module.unresolvedFrames;
        if (!result.ok && module.firstLookupError.empty())
            module.firstLookupError = lookupErrors[module.objectPath];
    }
}

bool SessionSymbolizer::writeFrames(format::Database& db, SymbolizeStats* stats,
                                    std::string* error) {
    format::Statement update =
        db.prepare(format::CheckedSql("UPDATE {frames} SET {frames.function} = ?, {frames.file} = "
                                      "?, {frames.line} = ?, {frames.column} = ?, "
                                      "{frames.symbolized} = 1 WHERE {frames.id} = ?")
                       .text());
    format::Statement setModule =
        db.prepare(format::CheckedSql("UPDATE {frames} SET {frames.module_id} = ? WHERE "
                                      "{frames.id} = ? AND {frames.module_id} IS NULL")
                       .text());
    format::Statement clearInlines = db.prepare(
        format::CheckedSql("DELETE FROM {frame_inlines} WHERE {frame_inlines.frame_id} = ?")
            .text());
    format::Statement addInline =
        db.prepare(format::CheckedSql(
                       "INSERT INTO {frame_inlines}({frame_inlines.frame_id}, "
                       "{frame_inlines.depth}, {frame_inlines.function}, {frame_inlines.file}, "
                       "{frame_inlines.line}, {frame_inlines.column}) VALUES (?, ?, ?, ?, ?, ?)")
                       .text());
    for (const format::Statement* statement : {&update, &setModule, &clearInlines, &addInline}) {
        if (!statement->prepared()) {
            *error = statement->error();
            return false;
        }
    }
    for (const Frame& frame : m_frames) {
        if (frame.moduleIndex >= 0 && !frame.moduleId) {
            if (!setModule.execute(m_modules[frame.moduleIndex].id, frame.id)) {
                *error = setModule.error();
                return false;
            }
        }
        m_touchedFrames.insert(frame.id);
        if (frame.resultIndex < 0 || !m_results[frame.resultIndex].ok ||
            m_results[frame.resultIndex].chain.empty()) {
            ++stats->unresolvedFrames;
            continue;
        }
        // The frames row holds the innermost level (where the PC really is — possibly inside an
        // inlined function); frame_inlines holds the whole chain when there is inlining.
        const auto& chain = m_results[frame.resultIndex].chain;
        const NativeResolver::Location& innermost = chain.front();
        if (innermost.function.empty())
            update.bindNull(1);
        else
            update.bind(1, innermost.function);
        if (innermost.file.empty())
            update.bindNull(2);
        else
            update.bind(2, innermost.file);
        update.bind(3, innermost.line > 0 ? std::optional<int64_t>(innermost.line) : std::nullopt);
        update.bind(4,
                    innermost.column > 0 ? std::optional<int64_t>(innermost.column) : std::nullopt);
        update.bind(5, frame.id);
        if (!update.execute()) {
            *error = update.error();
            return false;
        }
        ++stats->resolvedFrames;
        if (innermost.line > 0 && !innermost.file.empty())
            ++stats->framesWithLines;

        if (!clearInlines.execute(frame.id)) {
            *error = clearInlines.error();
            return false;
        }
        if (chain.size() < 2)
            continue;
        for (size_t depth = 0; depth < chain.size(); ++depth) {
            const NativeResolver::Location& level = chain[depth];
            const std::string_view function =
                level.function.empty() ? std::string_view("??") : level.function;
            if (!addInline.execute(frame.id, static_cast<int64_t>(depth), function, level.file,
                                   level.line, level.column)) {
                *error = addInline.error();
                return false;
            }
            ++stats->inlineRows;
        }
    }
    return true;
}

bool SessionSymbolizer::markUserFrames(format::Database& db, SymbolizeStats* stats,
                                       std::string* error) {
    format::Statement query =
        db.prepare(format::CheckedSql("SELECT f.{frames.id}, f.{frames.kind}, f.{frames.file}, "
                                      "f.{frames.is_user}, m.{modules.path} FROM {frames} f LEFT "
                                      "JOIN {modules} m ON m.{modules.id} = f.{frames.module_id}")
                       .text());
    format::Statement update = db.prepare(
        format::CheckedSql("UPDATE {frames} SET {frames.is_user} = ? WHERE {frames.id} = ?")
            .text());
    if (!update.prepared()) {
        *error = update.error();
        return false;
    }
    std::vector<std::pair<int64_t, int64_t>> changes;
    while (query.step()) {
        const int64_t id = query.integer(0);
        const bool decided = !query.isNull(3);
        const bool isPython = query.integer(1) == static_cast<int>(format::FrameKind::Python);
        // A Python frame's verdict, once set, belongs to whoever wrote it (the Kineto importer
        // knows its relative paths better than a path rule); native verdicts follow symbolization.
        if (decided && isPython) {
            stats->userFrames += query.integer(3) == 1 ? 1 : 0;
            continue;
        }
        bool isUser = false;
        if (isPython)
            isUser = format::isUserPythonFile(query.text(2));
        else
            isUser = !query.isNull(4) && UserFrameFilter::isUserModule(query.text(4));
        if (isUser)
            ++stats->userFrames;
        if (!decided || m_options.resymbolize || m_touchedFrames.count(id))
            changes.emplace_back(id, isUser ? 1 : 0);
    }
    if (!query.error().empty()) {
        *error = "reading frames: " + query.error();
        return false;
    }
    for (const auto& [id, isUser] : changes) {
        if (!update.execute(isUser, id)) {
            *error = update.error();
            return false;
        }
    }
    return true;
}

void SessionSymbolizer::reportProblems(SymbolizeStats* stats,
                                       std::vector<std::string>* warnings) const {
    // One line per module, not per frame: a missing libtorch would otherwise add thousands of rows.
    for (const Module& module : m_modules) {
        if (module.unresolvedFrames == 0)
            continue;
        if (!module.problem.empty() || !module.firstLookupError.empty()) {
            ++stats->missingModules;
            warnings->push_back(
                "symbolize: cannot read module '" + module.path +
                "': " + (module.problem.empty() ? module.firstLookupError : module.problem) + "; " +
                std::to_string(module.unresolvedFrames) + " frame(s) left unresolved");
        } else {
            warnings->push_back("symbolize: " + std::to_string(module.unresolvedFrames) +
                                " address(es) in '" + module.path +
                                "' match no symbol (non-exported code, and the file has no "
                                "debug info or .symtab)");
        }
    }
    if (m_framesWithoutModule > 0)
        warnings->push_back("symbolize: " + std::to_string(m_framesWithoutModule) +
                            " native frame(s) lie in no recorded module (JIT code, or a module "
                            "unloaded before the table was written); left unresolved");
}

} // namespace stallscope::symbolize
