// Every threshold of the insight rules, in one place. docs/insights.md documents each value; change
// both together. Tests may pass modified copies to InsightEngine::analyze.
#pragma once

#include <cstdint>

namespace stallscope::model {

struct InsightThresholds {
    // Severity of an insight from its share of session wall time (sync-attribution: blocked
    // share; other rules: estimated-savings share). Strictly greater than.
    double highShare = 0.50;
    double mediumShare = 0.10;

    // sync-attribution: at most this many sites become insights (the largest by blocked time);
    // the summary and InsightReport::sites still list every site.
    int maxAttributionSites = 20;

    // in-loop-sync: >= minLoopSyncs syncs from one site AND a median of >= minLoopLaunches
    // kernel launches between consecutive syncs of that site on one thread.
    int64_t minLoopSyncs = 3;
    int64_t minLoopLaunches = 3;

    // gpu-bubble: the idle gap after one sync counts at most this much. Longer gaps are host
    // work that happens to follow the sync (data loading, logging), not launch latency.
    int64_t maxBubblePerSyncNs = 1'000'000;
    // gpu-bubble fires for a site whose total bubble is at least this share of wall time.
    double minBubbleShare = 0.01;

    // default-stream: a default-stream operation counts as serializing when other streams of its
    // device have work ending at most this long before it and starting at most this long after.
    int64_t serializationWindowNs = 100'000;
    int64_t minSerializingOps = 3;

    // launch-bound: an operation is "short" up to this duration; a stretch is a run of short
    // operations each preceded by an idle gap longer than itself and no longer than maxLaunchGapNs;
    // it is reported from minStretchKernels kernels on.
    int64_t shortKernelNs = 20'000;
    int64_t maxLaunchGapNs = 1'000'000;
    int64_t minStretchKernels = 32;
    // What a CUDA graph replay is assumed to leave of each gap (the savings estimate).
    int64_t graphGapNs = 1'000;
};

} // namespace stallscope::model
