#include "model/fleet/fleet_summary.h"

#include "format/session_schema.h"
#include "model/analysis/insight_thresholds.h"
#include "model/fleet/collective_arrivals.h"
#include "model/fleet/rank_files.h"
#include "model/fleet/rank_reader.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace stallscope::model::fleet {

namespace {

int readingThreads(const FleetOptions& options, size_t files) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int wanted = options.threads > 0 ? options.threads : std::min(cores, 4);
    return std::clamp<int>(wanted, 1, static_cast<int>(std::max<size_t>(files, 1)));
}

bool cancelled(const FleetOptions& options) {
    return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

// The fleet's sites from each rank's top sites: summed where listed; a site a rank did not list
// may still have blocked it up to that rank's cut-off, so a total is exact only where every rank
// that left sites out listed it, and the top list is exact when no site's possible total could
// overtake its last one.
void mergeSites(const std::vector<RankRead>& reads, size_t top, FleetSummary& summary,
                size_t* bytes) {
    struct Merged {
        FleetSite site;
        int64_t missingBoundNs = 0; // what unlisted ranks may add at most
        int64_t listedCutoffNs = 0; // the cut-offs of the ranks that listed it
    };
    std::map<std::pair<std::string, int64_t>, Merged> merged;
    int64_t cutoffSumNs = 0; // what a site listed by no rank may have at most
    for (const RankRead& read : reads) {
        cutoffSumNs = format::addSaturated(cutoffSumNs, read.siteCutoffNs);
        for (const RankSite& site : read.topSites) {
            Merged& entry = merged[{site.file, site.line}];
            entry.site.file = site.file;
            entry.site.line = site.line;
            entry.site.blockedNs = format::addSaturated(entry.site.blockedNs, site.blockedNs);
            entry.site.syncs += site.syncs;
            ++entry.site.ranks;
            entry.listedCutoffNs = format::addSaturated(entry.listedCutoffNs, read.siteCutoffNs);
        }
    }
    for (auto& [key, entry] : merged) {
        // Its time is missing from the ranks that cut their list without it.
        entry.missingBoundNs = cutoffSumNs - entry.listedCutoffNs;
        entry.site.exact = entry.missingBoundNs == 0;
        *bytes += sizeof(entry) + 64 + 2 * key.first.capacity();
    }
    std::vector<const Merged*> ranked;
    for (const auto& [key, entry] : merged)
        ranked.push_back(&entry);
    std::sort(ranked.begin(), ranked.end(), [](const Merged* a, const Merged* b) {
        return a->site.blockedNs != b->site.blockedNs ? a->site.blockedNs > b->site.blockedNs
                                                      : a->site.label() < b->site.label();
    });
    const size_t shown = std::min(top, ranked.size());
    for (size_t i = 0; i < shown; ++i)
        summary.sites.push_back(ranked[i]->site);
    summary.sitesExact = std::all_of(summary.sites.begin(), summary.sites.end(),
                                     [](const FleetSite& s) { return s.exact; });
    // A site no rank listed may have blocked up to the ranks' cut-offs together: it may belong in
    // a list with room left, or above its last site.
    if (shown < top && cutoffSumNs > 0)
        summary.sitesExact = false;
    if (shown > 0 && summary.sitesExact) {
        const int64_t last = summary.sites.back().blockedNs;
        for (size_t i = shown; i < ranked.size(); ++i)
            if (format::addSaturated(ranked[i]->site.blockedNs, ranked[i]->missingBoundNs) > last)
                summary.sitesExact = false;
        if (cutoffSumNs > last)
            summary.sitesExact = false;
    }
}

// Reads every rank on `threads` threads, each with its own arrival spill.
struct RankPass {
    std::vector<RankRead> reads;
    std::vector<std::unique_ptr<ArrivalSpill>> spills;
    CollectiveNames names;
    std::string error;
    size_t peakTransientBytes = 0; // the largest one rank's reading held beyond what it keeps
};

void readRanks(const std::vector<RankFile>& files, const FleetOptions& options, RankPass& pass) {
    const int threads = readingThreads(options, files.size());
    pass.reads.resize(files.size());
    for (int t = 0; t < threads; ++t) {
        pass.spills.push_back(std::make_unique<ArrivalSpill>());
        if (!pass.spills.back()->open(&pass.error))
            return;
    }
    std::atomic<size_t> next{0}, done{0};
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::vector<std::string> errors(files.size());
    auto work = [&](int thread) {
        for (size_t i = next++; i < files.size() && !stop; i = next++) {
            std::string error;
            if (!readRank(files[i], options, thread, *pass.spills[size_t(thread)], pass.names,
                          &pass.reads[i], &error)) {
                errors[i] = files[i].path + ": " + error;
                stop = true;
                continue;
            }
            std::lock_guard lock(mutex);
            pass.peakTransientBytes = std::max(pass.peakTransientBytes,
                                               pass.reads[i].peakBytes - pass.reads[i].keptBytes());
            if (options.progress)
                options.progress(0.95 * static_cast<double>(++done) /
                                 static_cast<double>(files.size()));
            if (cancelled(options))
                stop = true;
        }
    };
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t)
        workers.emplace_back(work, t);
    work(0);
    for (std::thread& worker : workers)
        worker.join();
    for (const std::string& error : errors) // the first failing file in rank order
        if (!error.empty()) {
            pass.error = error;
            return;
        }
    if (cancelled(options))
        pass.error = "summary cancelled";
}

} // namespace

const char* stepSourceName(StepSource source) {
    switch (source) {
    case StepSource::ProfilerSteps:
        return "ProfilerStep#N";
    case StepSource::NvtxSteps:
        return "NVTX step…";
    case StepSource::SyncPeriod:
        return "syncs";
    case StepSource::None:
        break;
    }
    return "none";
}

double RankSummary::blockedShare() const {
    return gpuSpanNs() > 0 ? static_cast<double>(blockedNs) / static_cast<double>(gpuSpanNs()) : 0;
}

double RankSummary::gpuBusyShare() const {
    return gpuSpanNs() > 0 && devices > 0
               ? static_cast<double>(gpuBusyNs) /
                     (static_cast<double>(gpuSpanNs()) * static_cast<double>(devices))
               : 0;
}

std::string FleetSite::label() const {
    return line > 0 ? file + ":" + std::to_string(line) : file;
}

FleetResult summarizeRun(const std::string& path, const FleetOptions& options) {
    FleetResult result;
    RankFileList list = listRankFiles(path);
    if (!list.error.empty()) {
        result.error = list.error;
        return result;
    }
    RankPass pass;
    readRanks(list.files, options, pass);
    if (!pass.error.empty()) {
        result.error = pass.error;
        return result;
    }
    FleetSummary summary;
    summary.path = path;
    summary.notes = std::move(list.notes);
    summary.contendedNs = options.contendedNs.value_or(InsightThresholds{}.straggler.contendedNs);
    size_t keptBytes = 0;
    std::vector<std::vector<ArrivalSegment>> segments;
    for (RankRead& read : pass.reads) {
        keptBytes += read.keptBytes();
        for (const std::string& note : read.notes)
            summary.notes.push_back(read.summary.label + ": " + note);
        summary.ranks.push_back(std::move(read.summary));
        segments.push_back(std::move(read.arrivals));
    }
    size_t siteBytes = 0;
    mergeSites(pass.reads, options.topSites, summary, &siteBytes);
    pass.reads.clear();
    std::vector<const ArrivalSpill*> spills;
    for (const auto& spill : pass.spills)
        spills.push_back(spill.get());
    size_t matchBytes = 0;
    if (!matchCollectives(spills, segments, pass.names.size(),
                          std::max<size_t>(options.arrivalsReadAhead, 1), summary, &matchBytes,
                          &result.error))
        return result;
    const InsightThresholds thresholds;
    const auto& rule = thresholds.straggler;
    if (summary.mostOftenLast >= 0) {
        const RankSummary& last = summary.ranks[size_t(summary.mostOftenLast)];
        summary.straggler =
            summary.contendedCollectives >= std::max<int64_t>(rule.minCollectives, 1) &&
            static_cast<double>(last.lastAt) >=
                rule.minLastShare * static_cast<double>(summary.contendedCollectives) &&
            last.latenessTotalNs / last.lastAt >= rule.minLatenessNs;
    }
    // Every rank's kept numbers and the fleet's sites are held together; while the ranks are
    // read, each reading thread holds one rank's transient site map on top.
    summary.peakStateBytes =
        keptBytes +
        std::max(siteBytes + matchBytes,
                 pass.peakTransientBytes * size_t(readingThreads(options, list.files.size())));
    if (options.progress)
        options.progress(1.0);
    result.summary = std::move(summary);
    return result;
}

} // namespace stallscope::model::fleet
