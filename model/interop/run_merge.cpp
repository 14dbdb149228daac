// RunMerger::load: a run's files (findRunFiles) loaded by SessionLoader a few at once, then
// merged in memory (run_session_merge.h).
#include "model/interop/run_merge.h"
#include "model/interop/kineto_importer.h"
#include "model/interop/run_session_merge.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

namespace fs = std::filesystem;

namespace stallscope::model {

namespace {

// Files loaded at once: four per core. A load reads its two largest tables on two threads, but
// it also has single-threaded stretches (checks, descriptions, sorting its lanes) and waits for
// the disk; on the 2-core machine 8 ranks open in 1.9 s all at once against 2.1 s two at a time
// and 3.0 s one by one (bench/RESULTS.md, issue 16).
size_t parallelLoads(size_t files) {
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<size_t>(4 * cores, 1, std::max<size_t>(files, 1));
}

// Progress over all files, weighted by their size, and the stop that cancels every load when
// the user cancels or one file fails.
class RunProgress {
public:
    RunProgress(const std::vector<std::string>& files, const LoadOptions& options)
        : m_options(options), m_fractions(files.size(), 0.0) {
        for (const std::string& file : files) {
            std::error_code ec;
            m_weights.push_back(std::max<double>(1.0, double(fs::file_size(file, ec))));
        }
        for (double weight : m_weights)
            m_total += weight;
    }

    // Called by file i's loader (from its threads, one call at a time for that file).
    void report(size_t i, double fraction) {
        if (m_options.cancel && m_options.cancel->load())
            m_stop = true;
        if (!m_options.progress)
            return;
        std::lock_guard lock(m_mutex);
        m_done += (fraction - m_fractions[i]) * m_weights[i];
        m_fractions[i] = fraction;
        m_reported = std::max(m_reported, 0.95 * m_done / m_total); // the merge is the rest
        m_options.progress(m_reported);
    }
    void stop() { m_stop = true; }
    const std::atomic<bool>* stopFlag() const { return &m_stop; }
    bool cancelled() const { return m_options.cancel && m_options.cancel->load(); }

private:
    const LoadOptions& m_options;
    std::vector<double> m_weights, m_fractions;
    double m_total = 0, m_done = 0, m_reported = 0;
    std::mutex m_mutex;
    std::atomic<bool> m_stop{false};
};

// Loads every file (each checked by SessionLoader) and reads its last row ids; on failure the
// first failing file's error, in run order.
LoadResult loadRanks(const std::vector<std::string>& files, const std::string& source,
                     const LoadOptions& options, std::vector<LoadedRank>* ranks) {
    ranks->resize(files.size());
    std::vector<LoadResult> results(files.size());
    RunProgress progress(files, options);
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < files.size(); i = next++) {
            LoadOptions fileOptions;
            fileOptions.cancel = progress.stopFlag();
            fileOptions.progress = [&progress, i](double f) { progress.report(i, f); };
            LoadResult& result = results[i];
            result = SessionLoader::load(files[i], fileOptions);
            LoadedRank& rank = (*ranks)[i];
            rank.path = files[i];
            if (result.ok() && !readLastRowIds(files[i], &rank.moves, &result.error)) {
                result.error = files[i] + ": " + result.error;
                result.session.reset();
            }
            if (!result.ok()) {
                progress.stop();
                continue;
            }
            rank.session = std::move(result.session);
        }
    };
    std::vector<std::thread> workers;
    for (size_t w = 1; w < parallelLoads(files.size()); ++w)
        workers.emplace_back(work);
    work();
    for (std::thread& worker : workers)
        worker.join();

    LoadResult failed;
    if (progress.cancelled()) {
        failed.cancelled = true;
        failed.error = source + ": loading cancelled";
        return failed;
    }
    for (LoadResult& result : results)
        if (!result.error.empty() && !result.cancelled)
            return std::move(result);
    return failed; // every file loaded (no error)
}

// What a run folder holds besides its sessions that a user may have meant to open: profiler
// traces (a folder is read either as sessions or as traces, never both). Empty when none.
std::string tracesNotRead(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return {};
    std::string ignored;
    const std::vector<std::string> traces = KinetoImporter::traceFiles(path, &ignored);
    if (traces.empty())
        return {};
    return path + " also holds " + std::to_string(traces.size()) +
           " profiler trace file(s) (.json, .json.gz), not read: only its sessions were; open a "
           "trace by its name";
}

} // namespace

LoadResult RunMerger::load(const std::vector<std::string>& paths, const LoadOptions& options) {
    LoadResult failed;
    const RunFiles files = findRunFiles(paths, &failed.error);
    if (files.sessions.empty())
        return failed;
    std::vector<LoadedRank> ranks;
    if (LoadResult problem = loadRanks(files.sessions, paths.front(), options, &ranks);
        !problem.error.empty())
        return problem;
    LoadResult merged = mergeLoadedRanks(std::move(ranks), files, paths.front());
    if (merged.ok() && options.progress)
        options.progress(1.0);
    if (merged.ok())
        for (const std::string& path : paths)
            if (const std::string unread = tracesNotRead(path); !unread.empty()) {
                std::string& warning = merged.session->warning;
                warning += (warning.empty() ? "" : "; ") + unread;
            }
    return merged;
}

void registerRunImporter(SessionOpener& opener) {
    opener.add(SessionImporter{"Stallscope run (a folder of sessions)", &looksLikeRun,
                               [](const std::string& path, const LoadOptions& options) {
                                   return RunMerger::load({path}, options);
                               },
                               [](const std::string& path) {
                                   std::string ignored; // load() reports what is wrong
                                   return findRunFiles({path}, &ignored).sessions;
                               }});
}

} // namespace stallscope::model
