#include "symbolize/finalize_symbols.h"

#include "format/checked_sql.h"
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "symbolize/session_symbolizer.h"
#include "symbolize/source_embedder.h"
#include "symbolize/user_frame_filter.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>

#include <unistd.h>

#ifndef STALLSCOPE_LLVM_VERSION
#define STALLSCOPE_LLVM_VERSION "unknown"
#endif

namespace stallscope::symbolize {

namespace {

// Meta says it is a session of a version this tool reads, and the schema is exactly ours
// (format/session_schema_check.h): checked before anything else is read or written.
bool checkIsSession(format::Database& db, std::string* why) {
    if (std::string problem = format::checkTableSchema(db, format::tables::kMeta);
        !problem.empty()) {
        *why = "not a Stallscope session (" + problem + ")";
        return false;
    }
    format::Statement query = db.prepare(
        format::CheckedSql("SELECT {meta.key}, {meta.value} FROM {meta} WHERE {meta.key} IN (?, ?)")
            .text());
    query.bind(1, format::meta::kFormatName);
    query.bind(2, format::meta::kFormatVersion);
    if (!query.prepared()) {
        *why = "not a Stallscope session (no meta table)";
        return false;
    }
    std::string name;
    int64_t version = 0;
    while (query.step()) {
        if (query.text(0) == format::meta::kFormatName)
            name = query.text(1);
        else
            version = query.integer(1);
    }
    if (name != format::kFormatName) {
        *why = "not a Stallscope session (meta.format_name is '" + name + "')";
        return false;
    }
    if (version > format::kFormatVersion) {
        *why = "session format version " + std::to_string(version) +
               " is newer than this tool supports (" + std::to_string(format::kFormatVersion) + ")";
        return false;
    }
    *why = format::checkSessionSchema(db);
    return why->empty();
}

// Counts the verdicts the views will show: a user frame, `<driver-internal>`, or neither.
bool classifyStacks(format::Database& db, SymbolizeStats* stats, std::string* error) {
    format::Statement query =
        db.prepare(format::CheckedSql(
                       "SELECT sf.{stack_frames.stack_id}, f.{frames.kind}, f.{frames.is_user}, "
                       "m.{modules.path} FROM {stack_frames} sf JOIN {frames} f ON f.{frames.id} "
                       "= sf.{stack_frames.frame_id} LEFT JOIN {modules} m ON m.{modules.id} = "
                       "f.{frames.module_id} ORDER BY sf.{stack_frames.stack_id}, "
                       "sf.{stack_frames.position}")
                       .text());
    std::vector<UserFrameFilter::FrameFacts> frames;
    int64_t currentStack = -1;
    auto flush = [&] {
        if (currentStack < 0)
            return;
        ++stats->stacks;
        int userIndex = -1;
        switch (UserFrameFilter::classifyStack(frames, &userIndex)) {
        case StackVerdict::UserFrame:
            ++stats->stacksWithUserFrame;
            break;
        case StackVerdict::DriverInternal:
            ++stats->driverInternalStacks;
            break;
        case StackVerdict::NoUserFrame:
            break;
        }
        frames.clear();
    };
    while (query.step()) {
        const int64_t stackId = query.integer(0);
        if (stackId != currentStack) {
            flush();
            currentStack = stackId;
        }
        UserFrameFilter::FrameFacts facts;
        facts.isPython = query.integer(1) == static_cast<int>(format::FrameKind::Python);
        facts.isUser = query.integer(2) == 1;
        facts.hasModule = !query.isNull(3);
        if (facts.hasModule)
            facts.moduleClass = format::classifyModule(query.text(3));
        frames.push_back(facts);
    }
    flush();
    if (!query.error().empty()) {
        *error = "reading stacks: " + query.error();
        return false;
    }
    return true;
}

// Diagnostics carry a session time; use the end of the recording, when this step logically runs.
int64_t diagnosticTime(format::Database& db) {
    format::Statement query = db.prepare(
        format::CheckedSql("SELECT {meta.value} FROM {meta} WHERE {meta.key} = ?").text());
    query.bind(1, format::meta::kEndNs);
    if (query.step())
        return query.integer(0);
    return 0;
}

bool writeDiagnosticsAndMeta(format::Database& db, const std::vector<std::string>& warnings,
                             const SymbolizeStats& stats, std::string* error) {
    format::Statement diagnostic = db.prepare(
        format::CheckedSql("INSERT INTO {diagnostics}({diagnostics.at_ns}, {diagnostics.severity}, "
                           "{diagnostics.message}) VALUES (?, 'warning', ?)")
            .text());
    const int64_t at = diagnosticTime(db);
    for (const std::string& message : warnings) {
        if (!diagnostic.execute(at, message)) {
            *error = diagnostic.error();
            return false;
        }
    }
    format::Statement meta = db.prepare(
        format::CheckedSql("INSERT OR REPLACE INTO {meta}({meta.key}, {meta.value}) VALUES (?, ?)")
            .text());
    const std::pair<std::string_view, std::string> entries[] = {
        {format::meta::kSymbolizer,
         std::string("stallscope-symbolize (LLVM ") + STALLSCOPE_LLVM_VERSION + ")"},
        {format::meta::kSymbolizeUnresolvedFrames, std::to_string(stats.unresolvedFrames)},
        {format::meta::kSymbolizeDriverInternalStacks, std::to_string(stats.driverInternalStacks)},
        {format::meta::kSymbolizeSourcesEmbedded, std::to_string(stats.sourcesEmbedded)},
    };
    for (const auto& [key, value] : entries) {
        if (!meta.execute(key, value)) {
            *error = meta.error();
            return false;
        }
    }
    return true;
}

} // namespace

bool finalizeSymbols(const std::string& sessionPath, const SymbolizeOptions& options,
                     std::string* error, SymbolizeStats* statsOut) {
    const auto started = std::chrono::steady_clock::now();
    std::string why;
    auto fail = [&](const std::string& message) {
        if (error)
            *error = sessionPath + ": " + message;
        return false;
    };
    format::Database db;
    if (!db.open(sessionPath, format::Database::Mode::ReadWrite, &why))
        return fail("cannot open session: " + why);
    // The recorder may still be checkpointing its WAL when we start.
    db.setBusyTimeout(10000);
    if (!checkIsSession(db, &why))
        return fail(why);
    if (!db.exec("BEGIN IMMEDIATE", &why))
        return fail("cannot start a transaction: " + why);

    SymbolizeStats stats;
    std::vector<std::string> warnings;
    SessionSymbolizer symbolizer(options);
    bool ok = symbolizer.run(db, &stats, &warnings, &why);
    if (ok && options.embedSources)
        ok = SourceEmbedder(options).run(db, &stats, &warnings, &why);
    if (ok)
        ok = classifyStacks(db, &stats, &why);
    stats.diagnostics = static_cast<int64_t>(warnings.size());
    if (ok)
        ok = writeDiagnosticsAndMeta(db, warnings, stats, &why);
    if (ok)
        ok = db.exec("COMMIT", &why);
    if (!ok) {
        db.exec("ROLLBACK");
        return fail(why);
    }
    stats.totalSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (statsOut)
        *statsOut = stats;
    return true;
}

bool writeSymbolizedCopy(const std::string& sessionPath, const std::string& copyPath,
                         const SymbolizeOptions& options, std::string* error,
                         SymbolizeStats* stats) {
    const std::string temporary = copyPath + ".partial-" + std::to_string(getpid());
    std::remove(temporary.c_str());
    std::string why;
    format::Database session;
    bool ok = format::openSession(session, sessionPath, &why);
    if (ok) {
        format::Statement copy = session.prepare("VACUUM INTO ?");
        copy.bind(1, temporary);
        ok = copy.execute();
        why = ok ? std::string() : "cannot copy to " + temporary + ": " + copy.error();
    }
    session.close();
    if (!ok) {
        std::remove(temporary.c_str());
        if (error)
            *error = sessionPath + ": " + why;
        return false;
    }
    if (!finalizeSymbols(temporary, options, error, stats)) {
        std::remove(temporary.c_str());
        return false;
    }
    if (std::rename(temporary.c_str(), copyPath.c_str()) != 0) {
        if (error)
            *error = copyPath + ": cannot rename " + temporary + ": " + std::strerror(errno);
        std::remove(temporary.c_str());
        return false;
    }
    return true;
}

int64_t countResolvableFrames(const std::string& sessionPath, const SymbolizeOptions& options,
                              std::string* error) {
    format::Database db;
    std::string why;
    if (!db.open(sessionPath, format::Database::Mode::ReadOnly, &why) ||
        !checkIsSession(db, &why)) {
        if (error)
            *error = sessionPath + ": " + why;
        return -1;
    }
    SessionSymbolizer symbolizer(options);
    const int64_t count = symbolizer.countResolvable(db, &why);
    if (count < 0 && error)
        *error = sessionPath + ": " + why;
    return count;
}

std::string describeStats(const SymbolizeStats& s) {
    char text[1024];
    std::snprintf(text, sizeof text,
                  "native frames:      %lld (%lld distinct addresses, %lld modules)\n"
                  "resolved:           %lld (%lld with file:line), %lld unresolved\n"
                  "inline rows:        %lld\n"
                  "user frames:        %lld\n"
                  "stacks:             %lld (%lld with a user frame, %lld <driver-internal>)\n"
                  "sources embedded:   %lld (%lld not found)\n"
                  "diagnostics added:  %lld (%lld module(s) unusable)\n"
                  "time:               %.3f s in LLVM, %.3f s total\n",
                  (long long)s.nativeFrames, (long long)s.distinctAddresses, (long long)s.modules,
                  (long long)s.resolvedFrames, (long long)s.framesWithLines,
                  (long long)s.unresolvedFrames, (long long)s.inlineRows, (long long)s.userFrames,
                  (long long)s.stacks, (long long)s.stacksWithUserFrame,
                  (long long)s.driverInternalStacks, (long long)s.sourcesEmbedded,
                  (long long)s.sourcesMissing, (long long)s.diagnostics,
                  (long long)s.missingModules, s.resolveSeconds, s.totalSeconds);
    return text;
}

} // namespace stallscope::symbolize
