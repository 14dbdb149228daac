#include "symbolize/finalize_symbols.h"

#include "format/session_schema.h"
#include "symbolize/session_symbolizer.h"
#include "symbolize/source_embedder.h"
#include "symbolize/sqlite_statement.h"
#include "symbolize/user_frame_filter.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <memory>

#ifndef STALLSCOPE_LLVM_VERSION
#define STALLSCOPE_LLVM_VERSION "unknown"
#endif

namespace stallscope::symbolize {

namespace {

struct DbCloser {
    void operator()(sqlite3* db) const { sqlite3_close(db); }
};

bool checkIsSession(sqlite3* db, std::string* why) {
    SqliteStatement query(db, "SELECT key, value FROM meta WHERE key IN ('format_name', "
                              "'format_version')");
    if (!query.ok()) {
        *why = "not a Stallscope session (no meta table)";
        return false;
    }
    std::string name;
    int64_t version = 0;
    while (query.step()) {
        if (query.text(0) == "format_name")
            name = query.text(1);
        else
            version = query.int64(1);
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
    return true;
}

// Counts the verdicts the views will show: a user frame, `<driver-internal>`, or neither.
bool classifyStacks(sqlite3* db, SymbolizeStats* stats, std::string* error) {
    SqliteStatement query(db, "SELECT sf.stack_id, f.kind, f.is_user, m.path FROM stack_frames sf "
                              "JOIN frames f ON f.id = sf.frame_id "
                              "LEFT JOIN modules m ON m.id = f.module_id "
                              "ORDER BY sf.stack_id, sf.position");
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
        const int64_t stackId = query.int64(0);
        if (stackId != currentStack) {
            flush();
            currentStack = stackId;
        }
        UserFrameFilter::FrameFacts facts;
        facts.isPython = query.int64(1) == static_cast<int>(format::FrameKind::Python);
        facts.isUser = query.int64(2) == 1;
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
int64_t diagnosticTime(sqlite3* db) {
    SqliteStatement query(db, "SELECT value FROM meta WHERE key = 'end_ns'");
    if (query.step())
        return query.int64(0);
    return 0;
}

bool writeDiagnosticsAndMeta(sqlite3* db, const std::vector<std::string>& warnings,
                             const SymbolizeStats& stats, std::string* error) {
    SqliteStatement diagnostic(db, "INSERT INTO diagnostics(at_ns, severity, message) "
                                   "VALUES (?, 'warning', ?)");
    const int64_t at = diagnosticTime(db);
    for (const std::string& message : warnings) {
        diagnostic.bind(1, at);
        diagnostic.bind(2, message);
        if (!diagnostic.execute()) {
            *error = diagnostic.error();
            return false;
        }
    }
    SqliteStatement meta(db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
    const std::pair<const char*, std::string> entries[] = {
        {"symbolizer", std::string("stallscope-symbolize (LLVM ") + STALLSCOPE_LLVM_VERSION + ")"},
        {"symbolize_unresolved_frames", std::to_string(stats.unresolvedFrames)},
        {"symbolize_driver_internal_stacks", std::to_string(stats.driverInternalStacks)},
        {"symbolize_sources_embedded", std::to_string(stats.sourcesEmbedded)},
    };
    for (const auto& [key, value] : entries) {
        meta.bind(1, std::string_view(key));
        meta.bind(2, value);
        if (!meta.execute()) {
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
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(sessionPath.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
    std::unique_ptr<sqlite3, DbCloser> db(raw);
    if (rc != SQLITE_OK)
        return fail(std::string("cannot open session: ") +
                    (raw ? sqlite3_errmsg(raw) : "out of memory"));
    // The recorder may still be checkpointing its WAL when we start.
    sqlite3_busy_timeout(db.get(), 10000);
    if (!checkIsSession(db.get(), &why))
        return fail(why);
    if (!sqliteExec(db.get(), "BEGIN IMMEDIATE", &why))
        return fail("cannot start a transaction: " + why);

    SymbolizeStats stats;
    std::vector<std::string> warnings;
    SessionSymbolizer symbolizer(options);
    bool ok = symbolizer.run(db.get(), &stats, &warnings, &why);
    if (ok && options.embedSources)
        ok = SourceEmbedder(options).run(db.get(), &stats, &warnings, &why);
    if (ok)
        ok = classifyStacks(db.get(), &stats, &why);
    stats.diagnostics = static_cast<int64_t>(warnings.size());
    if (ok)
        ok = writeDiagnosticsAndMeta(db.get(), warnings, stats, &why);
    if (ok)
        ok = sqliteExec(db.get(), "COMMIT", &why);
    if (!ok) {
        sqliteExec(db.get(), "ROLLBACK", nullptr);
        return fail(why);
    }
    stats.totalSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (statsOut)
        *statsOut = stats;
    return true;
}

int64_t countResolvableFrames(const std::string& sessionPath, const SymbolizeOptions& options,
                              std::string* error) {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(sessionPath.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    std::unique_ptr<sqlite3, DbCloser> db(raw);
    std::string why;
    if (rc != SQLITE_OK || !checkIsSession(db.get(), &why)) {
        if (error)
            *error =
                sessionPath + ": " +
                (rc != SQLITE_OK ? std::string(raw ? sqlite3_errmsg(raw) : "out of memory") : why);
        return -1;
    }
    SessionSymbolizer symbolizer(options);
    const int64_t count = symbolizer.countResolvable(db.get(), &why);
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
