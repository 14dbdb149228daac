// Every threshold of the insight rules, in one place, grouped by the rule that reads it.
// docs/insights.md documents each value; change both together. Tests may pass modified copies to
// InsightEngine::analyze.
#pragma once

#include <cstdint>

namespace stallscope::model {

struct InsightThresholds {
    // Severity of an insight from its share of session wall time (sync-attribution: blocked
    // share; other rules: estimated-savings share). Strictly greater than.
    struct {
        double highShare = 0.50;
        double mediumShare = 0.10;
    } severity;

    // sync-attribution: at most this many sites become insights (the largest by blocked time);
    // the summary and InsightReport::sites still list every site.
    struct {
        int maxSites = 20;
    } attribution;

    // in-loop-sync: >= minSyncs syncs from one site AND a median of >= minLaunches kernel
    // launches between consecutive syncs of that site on one thread.
    struct {
        int64_t minSyncs = 3;
        int64_t minLaunches = 3;
    } inLoop;

    // gpu-bubble: the idle gap after one sync counts at most maxPerSyncNs (longer gaps are host
    // work that happens to follow the sync: data loading, logging); the rule fires for a site
    // whose total bubble is at least minShare of wall time.
    struct {
        int64_t maxPerSyncNs = 1'000'000;
        double minShare = 0.01;
    } bubble;

    // default-stream: a default-stream operation counts as serializing when other streams of its
    // device have work ending at most windowNs before it and starting at most windowNs after; the
    // rule fires from minOps such operations.
    struct {
        int64_t windowNs = 100'000;
        int64_t minOps = 3;
    } defaultStream;

    // launch-bound: an operation is "short" up to shortKernelNs; a stretch is a run of short
    // operations each preceded by an idle gap longer than itself and no longer than maxGapNs; it
    // is reported from minKernels kernels on. graphGapNs: what a CUDA graph replay is assumed to
    // leave of each gap (the savings estimate).
    struct {
        int64_t shortKernelNs = 20'000;
        int64_t maxGapNs = 1'000'000;
        int64_t minKernels = 32;
        int64_t graphGapNs = 1'000;
    } launchBound;
};

} // namespace stallscope::model
