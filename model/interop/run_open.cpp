// RunMerger's way into the app: a run's merge kept in the import cache and loaded from there
// (model/interop/run_merge.h).
#include "format/session_meta.h"
#include "format/sqlite_database.h"
#include "model/interop/import_cache.h"
#include "model/interop/run_merge.h"

#include <cstdio>
#include <filesystem>
#include <functional>

namespace fs = std::filesystem;

namespace stallscope::model {

std::string RunMerger::cachePathFor(const std::vector<std::string>& sessions) {
    std::error_code ec;
    // Key: every input's absolute path, size and modification time, and the merger's version.
    std::string key = "run|v" + std::to_string(kRunMergerVersion);
    for (const std::string& file : sessions) {
        key +=
            "|" + fs::absolute(file, ec).string() + ":" + std::to_string(fs::file_size(file, ec));
        key += ":" + std::to_string(fs::last_write_time(file, ec).time_since_epoch().count());
    }
    char hash[32];
    std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>{}(key));
    const fs::path first = fs::path(sessions.empty() ? std::string("run") : sessions.front());
    std::string stem = first.parent_path().filename().string();
    if (stem.empty())
        stem = "run";
    return (fs::path(importCacheDir()) / (stem + "-run-" + hash + ".stallscope")).string();
}

std::string RunMerger::mergeIntoCache(const std::vector<std::string>& paths,
                                      const LoadOptions& options, LoadResult* failed,
                                      std::vector<std::string>* sessions) {
    const RunFiles files = runFiles(paths, &failed->error);
    if (files.sessions.empty())
        return {};
    if (sessions)
        *sessions = files.sessions;
    const std::string cached = cachePathFor(files.sessions);
    std::error_code ec;
    if (fs::exists(cached, ec))
        return cached; // load() merges again when the cached file does not load
    RunMergeOptions mergeOptions;
    mergeOptions.cancel = options.cancel;
    mergeOptions.output.replaceExisting = true; // the cache's own file
    if (options.progress)
        mergeOptions.progress = [&](double f) { options.progress(0.5 * f); };
    const RunMergeResult merged = merge(files.sessions, cached, mergeOptions);
    if (!merged.ok) {
        failed->cancelled = merged.cancelled;
        failed->error = merged.error;
        return {};
    }
    // Where the run came from, and what was left out, go into the cached file's meta.
    format::Database db;
    std::string error;
    if (db.open(cached, format::Database::Mode::ReadWrite, &error)) {
        format::Statement meta =
            db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
        meta.execute(format::meta::kImportSource, paths.front());
        if (!files.skipped.empty()) {
            std::string skipped =
                "skipped " + std::to_string(files.skipped.size()) + " file(s) of the run: ";
            for (size_t i = 0; i < files.skipped.size(); ++i)
                skipped += (i ? "; " : "") + files.skipped[i];
            meta.reset();
            meta.execute(format::meta::kImportWarnings, skipped);
        }
    }
    trimImportCache(fs::path(cached).parent_path().string(), kImportCacheLimits, cached);
    return cached;
}

LoadResult RunMerger::load(const std::vector<std::string>& paths, const LoadOptions& options) {
    LoadResult failed;
    std::vector<std::string> sessions;
    std::string cached = mergeIntoCache(paths, options, &failed, &sessions);
    if (cached.empty())
        return failed;
    LoadOptions loadOptions = options;
    if (options.progress)
        loadOptions.progress = [&](double f) { options.progress(0.5 + 0.5 * f); };
    LoadResult loaded = SessionLoader::load(cached, loadOptions);
    if (loaded.ok()) {
        touchCachedSession(cached);
        return loaded;
    }
    if (loaded.cancelled)
        return loaded;
    // A row the merged file refuses came from one input: name that input when it is refused
    // alone too; otherwise the cached file itself was stale or damaged: merge once more.
    for (const std::string& input : sessions)
        if (LoadResult alone = SessionLoader::load(input, options); !alone.ok())
            return alone;
    std::error_code ec;
    fs::remove(cached, ec);
    cached = mergeIntoCache(paths, options, &failed, nullptr);
    return cached.empty() ? std::move(failed) : SessionLoader::load(cached, loadOptions);
}

void registerRunImporter(SessionOpener& opener) {
    opener.add(SessionImporter{"Stallscope run (a folder of sessions)", &RunMerger::looksLikeRun,
                               [](const std::string& path, const LoadOptions& options) {
                                   return RunMerger::load({path}, options);
                               }});
}

} // namespace stallscope::model
