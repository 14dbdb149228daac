#include "model/compare/session_compare.h"

#include "model/analysis/analysis_window.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace stallscope::model {

namespace {

// The text of `line` in `path` as embedded in the session, trimmed; empty when not embedded.
std::string lineText(const SessionDatabase* database, const std::string& path, int64_t line) {
    if (!database || path.empty() || line <= 0)
        return {};
    const std::optional<SourceFile> source = database->source(path);
    if (!source)
        return {};
    size_t begin = 0;
    for (int64_t n = 1; n < line; ++n) {
        begin = source->text.find('\n', begin);
        if (begin == std::string::npos)
            return {};
        ++begin;
    }
    size_t end = source->text.find('\n', begin);
    std::string text = source->text.substr(begin, end == std::string::npos ? end : end - begin);
    const auto first = text.find_first_not_of(" \t\r");
    const auto last = text.find_last_not_of(" \t\r");
    return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

// The line by its text where the session embeds it, else by its number.
std::string lineKey(const SessionDatabase* database, const std::string& file, int64_t line) {
    const std::string text = lineText(database, file, line);
    return text.empty() ? "#" + std::to_string(line) : text;
}

// Kernel count and time (ns) per name, of the kernels that started inside the run's window.
using KernelTotals = std::unordered_map<std::string, std::pair<int64_t, int64_t>>;

KernelTotals kernelsOf(const CompareInput& run) {
    const SessionStatistics& s = run.report->summary;
    const Session& session = *run.session;
    std::vector<std::pair<int64_t, int64_t>> byName(session.strings.size());
    for (const StreamLane& lane : session.streamLanes)
        for (size_t i = 0; i < lane.kernels.size(); ++i) {
            const uint32_t name = lane.kernels.nameId[i];
            if (name >= byName.size() || lane.kernels.start[i] < s.windowStartNs ||
                lane.kernels.start[i] > s.windowEndNs)
                continue;
            ++byName[name].first;
            byName[name].second += lane.kernels.duration(i);
        }
    KernelTotals kernels;
    for (uint32_t name = 0; name < byName.size(); ++name)
        if (byName[name].first > 0) {
            auto& [count, time] = kernels[session.string(name)];
            count += byName[name].first;
            time += byName[name].second;
        }
    return kernels;
}

// Per unit of work: steps in the window when both runs have them, else seconds of kernel time
// (not all GPU work: a fix that pins a copy changes the copy's time, never the kernels').
struct Units {
    std::string name;
    double before = 0, after = 0;
};

Units unitsOf(const CompareInput& before, const CompareInput& after,
              const KernelTotals& beforeKernels, const KernelTotals& afterKernels) {
    auto steps = [](const CompareInput& run) {
        const SessionStatistics& s = run.report->summary;
        return stepsInWindow(*run.session, s.windowStartNs, s.windowEndNs);
    };
    const int64_t stepsBefore = steps(before), stepsAfter = steps(after);
    if (stepsBefore > 0 && stepsAfter > 0)
        return {"step", double(stepsBefore), double(stepsAfter)};
    auto kernelSeconds = [](const KernelTotals& kernels) {
        double ns = 0;
        for (const auto& [name, totals] : kernels)
            ns += double(totals.second);
        return std::max(1e-9, ns / 1e9);
    };
    return {"s of kernel time", kernelSeconds(beforeKernels), kernelSeconds(afterKernels)};
}

RunTotals totalsOf(const CompareInput& run, double units) {
    const SessionStatistics& s = run.report->summary;
    RunTotals totals;
    totals.units = units;
    totals.windowNs = s.windowNs;
    totals.stepNs = double(s.windowNs) / units;
    totals.gpuBusyNs = double(s.gpuBusyNs) / units;
    totals.hostBlockedNs = double(s.hostBlockedNs) / units;
    totals.hostSyncs = double(s.hostSyncCount) / units;
    totals.path = run.session->path;
    totals.windowLabel = s.windowLabel;
    return totals;
}

// Every site of a run by its key, with its numbers per unit.
std::map<std::string, std::pair<SourceSite, SiteNumbers>> sitesOf(const CompareInput& run,
                                                                  double units) {
    std::vector<std::optional<Severity>> severityOfSite(run.report->sites.size());
    for (const Insight& insight : run.report->insights)
        if (insight.siteIndex >= 0 && size_t(insight.siteIndex) < severityOfSite.size())
            severityOfSite[size_t(insight.siteIndex)] = insight.severity;
    std::map<std::string, std::pair<SourceSite, SiteNumbers>> sites;
    for (size_t i = 0; i < run.report->sites.size(); ++i) {
        const SyncSiteStats& stats = run.report->sites[i];
        auto& [site, numbers] = sites[siteKey(stats.site, run.database)];
        site = stats.site;
        numbers.present = true; // two sites of one key (a line twice in a file) add up
        numbers.calls += double(stats.calls) / units;
        numbers.blockedNs += double(stats.blockedNs) / units;
        numbers.bubbleNs += double(stats.bubbleNs) / units;
        if (stats.savingsNs >= 0)
            numbers.savingsNs = std::max(0.0, numbers.savingsNs) + double(stats.savingsNs) / units;
        if (severityOfSite[i] && (!numbers.severity || *severityOfSite[i] > *numbers.severity))
            numbers.severity = severityOfSite[i];
    }
    return sites;
}

} // namespace

SiteStatus siteStatus(const SiteNumbers& before, const SiteNumbers& after,
                      const CompareOptions& options) {
    const bool wasThere = before.present && before.calls > 0;
    const bool isThere = after.present && after.calls > 0;
    if (wasThere && !isThere)
        return SiteStatus::Fixed;
    if (!wasThere)
        return SiteStatus::New;
    const auto beyondNoise = [&](double from, double to) {
        return std::fabs(to - from) >
               std::max(options.noiseShare * std::max(from, to), double(options.noiseFloorNs));
    };
    if (beyondNoise(before.blockedNs, after.blockedNs)) {
        if (after.blockedNs < before.blockedNs)
            return SiteStatus::Better;
        // More blocked time is worse only if removing the site would now save more: a fix
        // elsewhere moves its wait onto the next sync (issue 42: 965 ns -> 800 µs blocked a step,
        // and the gate failed a fix that made the step faster), whose replayed saving says so.
        const bool simulated = before.savingsNs >= 0 && after.savingsNs >= 0;
        if (!simulated ||
            (after.savingsNs > before.savingsNs && beyondNoise(before.savingsNs, after.savingsNs)))
            return SiteStatus::Worse;
        return SiteStatus::Same;
    }
    // Cheap calls made more (or less) often: a change too, whatever each call costs.
    const double callsMoved = after.calls - before.calls;
    if (std::fabs(callsMoved) >
        std::max(options.noiseShare * std::max(before.calls, after.calls), options.noiseCalls))
        return callsMoved > 0 ? SiteStatus::Worse : SiteStatus::Better;
    return SiteStatus::Same;
}

std::string_view siteStatusName(SiteStatus status) {
    switch (status) {
    case SiteStatus::Same:
        return "same";
    case SiteStatus::Better:
        return "better";
    case SiteStatus::Worse:
        return "worse";
    case SiteStatus::Fixed:
        return "fixed";
    case SiteStatus::New:
        return "new";
    }
    return "same";
}

std::optional<Severity> SiteComparison::severity() const {
    return status == SiteStatus::Fixed ? before.severity : after.severity;
}

std::string siteKey(const SourceSite& site, const SessionDatabase* database) {
    std::string key = site.file + " | " + site.function + " | " +
                      (site.hasLocation() ? lineKey(database, site.file, site.line) : "");
    if (!site.library.empty())
        key += " | " + site.library.file + " | " + site.library.function + " | " +
               lineKey(database, site.library.file, site.library.line);
    return key;
}

SessionComparison compareSessions(const CompareInput& before, const CompareInput& after,
                                  const CompareOptions& options) {
    const KernelTotals beforeKernels = kernelsOf(before), afterKernels = kernelsOf(after);
    const Units units = unitsOf(before, after, beforeKernels, afterKernels);
    SessionComparison result;
    result.unit = units.name;
    result.before = totalsOf(before, units.before);
    result.after = totalsOf(after, units.after);

    auto beforeSites = sitesOf(before, units.before);
    auto afterSites = sitesOf(after, units.after);
    for (auto& [key, entry] : beforeSites) {
        SiteComparison site;
        site.key = key;
        site.site = entry.first;
        site.before = entry.second;
        if (auto found = afterSites.find(key); found != afterSites.end()) {
            site.site = found->second.first;
            site.after = found->second.second;
            afterSites.erase(found);
        }
        result.sites.push_back(std::move(site));
    }
    for (auto& [key, entry] : afterSites) {
        SiteComparison site;
        site.key = key;
        site.site = entry.first;
        site.after = entry.second;
        result.sites.push_back(std::move(site));
    }
    for (SiteComparison& site : result.sites) {
        site.status = siteStatus(site.before, site.after, options);
        if (site.status == SiteStatus::Fixed && site.before.savingsNs > 0) {
            result.predictedSavingNs += site.before.savingsNs;
            ++result.fixedSites;
        }
    }
    result.achievedSavingNs = result.before.stepNs - result.after.stepNs;
    auto rank = [](SiteStatus status) {
        return status == SiteStatus::Fixed || status == SiteStatus::New ? 0 : 1;
    };
    std::stable_sort(result.sites.begin(), result.sites.end(),
                     [&](const SiteComparison& a, const SiteComparison& b) {
                         if (rank(a.status) != rank(b.status))
                             return rank(a.status) < rank(b.status);
                         const double movedA = std::fabs(a.after.blockedNs - a.before.blockedNs);
                         const double movedB = std::fabs(b.after.blockedNs - b.before.blockedNs);
                         return movedA != movedB ? movedA > movedB : a.key < b.key;
                     });

    for (const auto& [name, totals] : beforeKernels) {
        KernelComparison kernel{name, double(totals.first) / units.before, 0,
                                double(totals.second) / units.before, 0};
        if (auto found = afterKernels.find(name); found != afterKernels.end()) {
            kernel.afterCount = double(found->second.first) / units.after;
            kernel.afterNs = double(found->second.second) / units.after;
        }
        result.kernels.push_back(std::move(kernel));
    }
    for (const auto& [name, totals] : afterKernels)
        if (!beforeKernels.count(name))
            result.kernels.push_back({name, 0, double(totals.first) / units.after, 0,
                                      double(totals.second) / units.after});
    std::sort(result.kernels.begin(), result.kernels.end(),
              [](const KernelComparison& a, const KernelComparison& b) {
                  const double movedA = std::fabs(a.afterNs - a.beforeNs);
                  const double movedB = std::fabs(b.afterNs - b.beforeNs);
                  return movedA != movedB ? movedA > movedB : a.name < b.name;
              });
    return result;
}

} // namespace stallscope::model
