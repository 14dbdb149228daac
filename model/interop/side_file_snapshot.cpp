#include "model/interop/side_file_snapshot.h"

#include "format/output_file.h"
#include "format/session_meta.h"
#include "format/sqlite_database.h"
#include "model/interop/import_cache.h"

#include <filesystem>
#include <system_error>

namespace stallscope::model {

namespace fs = std::filesystem;

namespace {

// Copies `path` and its pending side file to `copy` (named so that SQLite finds the side file
// beside it) and lets SQLite fold the side file in there: a checkpoint of the WAL, or the
// rollback of a hot journal on the first read. Leaves a self-contained file in rollback mode.
std::string makeWhole(const std::string& path, const format::SqliteSideFiles& side,
                      const std::string& copy) {
    std::error_code ec;
    const char* suffix = side.hotJournalBytes > 0 ? "-journal" : "-wal";
    if (!fs::copy_file(path, copy, fs::copy_options::overwrite_existing, ec) ||
        !fs::copy_file(path + suffix, copy + suffix, fs::copy_options::overwrite_existing, ec))
        return "cannot copy it to " + copy + ": " + ec.message();
    format::Database db;
    std::string error;
    if (!db.open(copy, format::Database::Mode::ReadWrite, &error) ||
        !db.exec("SELECT count(*) FROM sqlite_master; PRAGMA wal_checkpoint(TRUNCATE); "
                 "PRAGMA journal_mode=DELETE;",
                 &error) ||
        !db.close())
        return "cannot read its " + std::string(suffix + 1) + " in the copy " + copy + ": " +
               (error.empty() ? db.lastMessage() : error);
    return {};
}

} // namespace

bool hasPendingSideFiles(const std::string& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec) && format::sqliteSideFiles(path).pending();
}

SideFileCopy madeWholeCopy(const std::string& path) {
    SideFileCopy made;
    const format::SqliteSideFiles side = format::sqliteSideFiles(path);
    const std::string dir = writableImportCacheDir(&made.error);
    if (dir.empty()) {
        made.error = path + ": " + format::pendingSideFilesProblem(path, side) + "; " + made.error;
        return made;
    }
    std::error_code ec;
    const std::string sideFile = path + (side.hotJournalBytes > 0 ? "-journal" : "-wal");
    const std::string entry =
        cacheEntryPath(dir, fs::path(path).filename().string() + ".copy",
                       "side-file copy|" + fs::absolute(path, ec).string(), {path, sideFile});
    made.why = side.hotJournalBytes > 0
                   ? "it has an unfinished write (its rollback journal " + sideFile +
                         "), rolled back in the copy"
                   : "its write-ahead log " + sideFile +
                         " holds transactions not yet in the file (a recording still running, or "
                         "whose writer was killed)";
    if (made.error = foreignFileProblem(entry); !made.error.empty())
        return made;
    if (!fs::exists(entry, ec)) { // else the cache's own copy, made whole before
        format::OutputFile output;
        format::OutputPolicy policy;
        policy.inputs = {path, sideFile};
        if (!markCacheEntry(entry) || !output.create(entry, policy, &made.error)) {
            if (made.error.empty())
                made.error = entry + ": cannot write the import cache's mark beside it";
            removeCacheEntry(entry);
            return made;
        }
        if (std::string problem = makeWhole(path, side, output.temporaryPath());
            !problem.empty() || !output.commit(&problem)) {
            removeCacheEntry(entry);
            made.error = path + ": " + problem;
            return made;
        }
        trimImportCache(dir, kImportCacheLimits, entry);
    } else {
        touchCachedSession(entry);
    }
    made.path = entry;
    return made;
}

LoadResult loadSideFileSnapshot(const std::string& path, const LoadOptions& options) {
    LoadResult failed;
    const SideFileCopy copy = madeWholeCopy(path);
    if (!copy.error.empty()) {
        failed.error = copy.error;
        return failed;
    }
    LoadResult loaded = SessionLoader::load(copy.path, options);
    if (!loaded.ok() && !loaded.cancelled)
        removeCacheEntry(copy.path); // damaged meanwhile: made again on the next open
    if (loaded.ok()) {
        // What the user opened, as for an imported trace (the summary's "File", then the copy).
        loaded.session->meta.try_emplace(std::string(format::meta::kImportSource), path);
        std::string& warning = loaded.session->warning;
        warning = "read from a copy in the import cache (" + copy.path + "): " + copy.why +
                  (warning.empty() ? std::string() : "; " + warning);
    }
    return loaded;
}

void registerSideFileSnapshotImporter(SessionOpener& opener) {
    opener.add(SessionImporter{"Stallscope session with pending side files", &hasPendingSideFiles,
                               [](const std::string& path, const LoadOptions& options) {
                                   return loadSideFileSnapshot(path, options);
                               }});
}

} // namespace stallscope::model
