// Every threshold of the insight rules, in one place, grouped by the rule that reads it.
// docs/insights.md documents each value; change both together. Tests may pass modified copies to
// InsightEngine::analyze.
#pragma once

#include "model/whatif/graph_node_gap.h"

#include <cstdint>

namespace stallscope::model {

struct InsightThresholds {
    // Severity of a finding from its saving's share of the analysis window. Strictly greater.
    struct {
        double highShare = 0.20;
        double mediumShare = 0.05;
    } severity;

    // The what-if replay (docs/insights.md, "Simulated savings"): sites are simulated in
    // decreasing blocked time while blocked + bubble is at least minBlockedShare of the window,
    // at most maxSites of them; each simulated site whose saving is at least minSavingShare of the
    // window is one finding. Below that floor a fix saves less than the run-to-run noise of a
    // step (bench/RESULTS.md: 2-3 % between processes of one program), so it is no card; the
    // summary and InsightReport::sites still list every site, with its saving.
    struct {
        int maxSites = 20;
        double minBlockedShare = 0.001;
        double minSavingShare = 0.005;
    } simulation;

    // A GPU at its power limit clocks lower once a fix keeps it busier: of the GPU idle time a
    // fix fills, slowdownShare comes back as longer kernels (against plain runs: 39 % on an H100,
    // 47-52 % and a median of 30 % on two H200s, bench/RESULTS.md "The power cap"), so a site's
    // simulated saving beyond the GPU time its fix removes is scaled by 1 - slowdownShare. The
    // recording says whether its GPUs ran at the cap (meta gpu_power_*, the recorder's NVML
    // samples): at least minBusySamples samples of a busy GPU, at least minCappedShare of them held
    // back by power.
    // A recording below the cap (at least minSamples steady samples: a kernel ran in every sample
    // of the GPU's last second) projects a busier GPU's power above its lowest sample in
    // proportion to the share of time the GPU is busy, where it was busy at least
    // minRecordedDuty of the time. Where a fix passes the limit, its kernels take
    // (drawn / available)^slowdownShare longer: the same exponent, which to first order is the
    // share above (GpuPowerCap::kernelSlowdown).
    struct {
        int64_t minBusySamples = 10;
        double minCappedShare = 0.5;
        double slowdownShare = 0.40;
        int64_t minSamples = 10;
        double minRecordedDuty = 0.05;
    } powerCap;

    // One finding per fix (SyncSites::joinStatementsOfOneFix): a statement joins the one before it
    // in the same function when it lies at most maxLineGap lines further, syncs the same way
    // (dominant kind) and as often (counts within maxCountDifference of the first statement's).
    struct FixGroup {
        int64_t maxLineGap = 2;
        double maxCountDifference = 0.05;
    } fixGroup;

    // in-loop-sync: >= minSyncs calls from one site AND a median of >= minLaunches kernel
    // launches between consecutive calls of that site on one thread AND a simulated saving per
    // call of at least minSavingShareOfPeriod of the median time between those calls (a cheap
    // sync in a loop is not an in-loop problem, whatever its count).
    struct {
        int64_t minSyncs = 3;
        int64_t minLaunches = 3;
        double minSavingShareOfPeriod = 0.05;
    } inLoop;

    // Counting: back-to-back syncs of one site on one thread with no kernel launch between them
    // and at most sameCallGapNs from one's end to the next one's start are one call (`.cpu()` is
    // a blocking copy plus a stream sync at the same line).
    struct {
        int64_t sameCallGapNs = 100'000;
    } counting;

    // "GPU-bound here": a site whose saving is below this share of the window while the GPU is
    // busy at least gpuBusyShare of it is said to cost little because the GPU is the bottleneck.
    struct {
        double maxSavingShare = 0.05;
        double gpuBusyShare = 0.85;
    } gpuBound;

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
    // is reported from minKernels kernels on. graphGapNs: the spacing of a CUDA graph's nodes,
    // what a graph replay is assumed to leave of each gap (the replay and the estimate).
    struct {
        int64_t shortKernelNs = 20'000;
        int64_t maxGapNs = 1'000'000;
        int64_t minKernels = 32;
        int64_t graphGapNs = whatif::kGraphNodeGapNs;
    } launchBound;

    // Sampled lines (docs/insights.md, "Sampled lines": the Python sampler's samples): the
    // samples of the host in a stretch name a line when the stretch holds >= minSamples samples
    // and the line >= minLineShare of them; at most maxLines lines are named (the straggler's
    // cause). host-gap: a GPU's idle gaps of >= minIdleNs in the window (shorter ones are launch
    // overhead, launch-bound's) are put on the lines that the samples of the threads launching to
    // it show, each sample carrying an equal part of its gap; a line is a finding when it holds
    // >= minSamples samples and >= minIdleShare of the window.
    struct {
        int64_t minSamples = 10;
        double minLineShare = 0.25;
        int maxLines = 3;
        int64_t minIdleNs = 1'000'000;
        double minIdleShare = 0.05;
    } sampledLines;

    // straggler (sessions of several ranks): collectives — kernels named nccl* — are matched across
    // ranks, the k-th of each name on each rank; those whose last rank arrived less than
    // contendedNs after the next-latest are left out (everyone arrived together: a collective
    // queued behind another starts when that one ends, on every rank). A rank is the straggler
    // when, over at least minCollectives such contended collectives in the window, it arrived
    // last at >= minLastShare of them AND its mean lateness there (after the second-latest rank) is
    // >= minLatenessNs AND
    // >= minLatenessShareOfPeriod of the mean time between its consecutive contended collectives (a
    // step, with one collective per step). chainGapNs: GPU work on a device separated by at most
    // this much is one busy run (queued work), which the cause search walks back through to the
    // launch that started it.
    struct {
        int64_t minCollectives = 3;
        int64_t contendedNs = 100'000;
        double minLastShare = 0.60;
        int64_t minLatenessNs = 1'000'000;
        double minLatenessShareOfPeriod = 0.05;
        int64_t chainGapNs = 20'000;
    } straggler;
};

} // namespace stallscope::model
