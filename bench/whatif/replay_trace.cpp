// stallscope-replay-trace SESSION [SITE]: how the what-if engine priced one sync site's fix, step
// by step, to find the mechanism when a predicted saving misses the measured one (issue 38). For
// the site (index in SyncSites' order, default the one with the most blocked time) it prints the
// fix replayed (syncs removed or narrowed), the unmodified and the fixed replay's window ends, and
// for a sample of the site's syncs the recorded wait and how far each replay moved the step after.
#include "model/analysis/analysis_window.h"
#include "model/analysis/gpu_activity.h"
#include "model/analysis/host_samples.h"
#include "model/analysis/simulated_savings.h"
#include "model/analysis/sync_sites.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "model/whatif/replay.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace stallscope::model;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: stallscope-replay-trace SESSION [SITE]\n");
        return 2;
    }
    LoadResult loaded = SessionLoader::load(argv[1]);
    if (!loaded.ok()) {
        std::fprintf(stderr, "%s\n", loaded.error.c_str());
        return 1;
    }
    const Session& session = *loaded.session;
    SessionDatabase database;
    std::string error;
    database.open(session, &error);
    const InsightThresholds thresholds;
    RunGraphBuild graphBuild(session, nullptr);
    graphBuild.provideCudaEvents(database.cudaEvents());
    GpuActivity gpu;
    gpu.build(session, nullptr);
    SyncSites sites;
    sites.build(session, database, gpu, thresholds, nullptr, &error);
    const AnalysisWindow window = defaultWindow(session);
    std::shared_ptr<whatif::RunGraph> graph = graphBuild.take();
    if (!graph || sites.siteCount() == 0) {
        std::fprintf(stderr, "no run graph or no sync site\n");
        return 1;
    }
    const int32_t site = argc > 2 ? std::atoi(argv[2]) : 0;
    const SyncSiteStats& stats = sites.stats()[site];
    std::printf("site %d: %s:%lld %s, %lld syncs, blocked %lld ns\n", site, stats.site.file.c_str(),
                static_cast<long long>(stats.site.line), stats.site.function.c_str(),
                static_cast<long long>(sites.syncsOf(site).size()),
                static_cast<long long>(stats.blockedNs));
    const whatif::Latencies& latencies = graph->latencies();
    std::printf(
        "latencies: launch %lld, queue gap %lld, sync overhead %lld, wake %lld, recorder "
        "restart %lld, recorder launch %lld, deep queue %lld ns\n",
        static_cast<long long>(latencies.launchNs), static_cast<long long>(latencies.queueGapNs),
        static_cast<long long>(latencies.syncOverheadNs), static_cast<long long>(latencies.wakeNs),
        static_cast<long long>(latencies.recorderRestartNs),
        static_cast<long long>(latencies.recorderLaunchNs),
        static_cast<long long>(latencies.deepQueueDelayNs));
    std::printf("window %lld .. %lld (%lld steps)\n", static_cast<long long>(window.startNs),
                static_cast<long long>(window.endNs), static_cast<long long>(window.steps));
    whatif::WhatIf fix =
        siteFixOf(*graph, sites, site, scalarReadSteps(*graph), window.startNs, window.endNs);
    fix.withoutRecorderOverhead = true;
    std::printf("fix: %zu syncs removed, %zu narrowed, %zu calls, %zu launches and %zu "
                "operations removed, statement time %s\n",
                fix.removedSyncs.size(), fix.narrowedSyncs.size(), fix.removedCalls.size(),
                fix.removedLaunches.size(), fix.removedOps.size(),
                fix.removeStatementTime ? "removed" : "kept");
    whatif::ReplayOptions options;
    options.windowStartNs = window.startNs;
    options.windowEndNs = window.endNs;
    options.keepShifts = true;
    whatif::WhatIf unchanged;
    unchanged.withoutRecorderOverhead = true;
    const whatif::Replayer replayer(*graph);
    const whatif::ReplayResult base = replayer.replay(unchanged, options);
    const whatif::ReplayResult fixed = replayer.replay(fix, options);
    std::printf("window end: recorded %lld, unmodified replay %+lld, fixed replay %+lld: saving "
                "%lld ns\n",
                static_cast<long long>(base.recordedWindowEndNs),
                static_cast<long long>(base.windowEndNs - base.recordedWindowEndNs),
                static_cast<long long>(fixed.windowEndNs - base.recordedWindowEndNs),
                static_cast<long long>(base.windowEndNs - fixed.windowEndNs));
    const auto syncs = sites.syncsOf(site);
    const size_t every = std::max<size_t>(1, syncs.size() / 40);
    std::printf("%8s %14s %10s %12s %12s\n", "sync", "start", "wait", "base shift", "fix shift");
    for (size_t i = 0; i < syncs.size(); i += every) {
        const EventRef& sync = syncs[i];
        const auto& thread = graph->threads()[sync.lane];
        const uint32_t step = thread.stepOfSync[sync.index];
        if (step == whatif::kNone || step + 1 >= thread.steps.size())
            continue;
        const uint32_t next = thread.firstStep + step + 1;
        const SyncColumns& columns = session.hostLanes[sync.lane].syncs;
        std::printf("%8zu %14lld %10lld %12lld %12lld\n", i,
                    static_cast<long long>(columns.start[sync.index] - window.startNs),
                    static_cast<long long>(columns.end[sync.index] - columns.start[sync.index]),
                    static_cast<long long>(base.stepShift[next]),
                    static_cast<long long>(fixed.stepShift[next]));
    }
    // The last operations of each stream that end inside the window: where the fixed replay's
    // GPU work lies against the recording's.
    for (size_t lane = 0; lane < graph->streams().size(); ++lane) {
        const whatif::RunGraph::Stream& stream = graph->streams()[lane];
        size_t last = stream.ops.size();
        while (last > 0 && graph->opEnd(static_cast<int32_t>(lane), last - 1) > window.endNs)
            --last;
        if (last == 0)
            continue;
        std::printf("stream lane %zu: last ops in the window (recorded start, duration; fixed "
                    "start shift, end shift, launch step shift)\n",
                    lane);
        for (size_t k = last >= 12 ? last - 12 : 0; k < last; ++k) {
            const auto op = static_cast<uint32_t>(k);
            const int64_t start = graph->opStart(static_cast<int32_t>(lane), op);
            const int64_t end = graph->opEnd(static_cast<int32_t>(lane), op);
            const uint32_t launch = graph->launchStep(stream.firstOp + op);
            std::printf(
                "  %14lld %8lld %12lld %12lld  launch %lld\n",
                static_cast<long long>(start - window.startNs), static_cast<long long>(end - start),
                static_cast<long long>(fixed.opStartShift[stream.firstOp + op]),
                static_cast<long long>(fixed.opEndShift[stream.firstOp + op]),
                launch == whatif::kNone ? 0LL : static_cast<long long>(fixed.stepShift[launch]));
        }
    }
    return 0;
}
