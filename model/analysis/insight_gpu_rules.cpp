// Rules over the GPU timeline: default-stream (legacy default stream serializing other streams)
// and launch-bound (short kernels separated by longer idle gaps). One merged pass per device.
#include "model/analysis/insight_recommendations.h"
#include "model/analysis/insight_rules.h"
#include "model/session/session_summary.h"

#include <algorithm>
#include <limits>

namespace stallscope::model {

namespace insight_rules {

std::string deviceLabel(const Session& session, int32_t device) {
    const DeviceInfo& info = session.devices[device];
    std::string label = "GPU " + std::to_string(info.deviceIndex);
    if (!info.name.empty())
        label += " · " + info.name;
    if (session.processes.size() > 1 && info.processIndex >= 0)
        label = session.processLabel(info.processIndex) + " · " + label; // "rank 1", "pid 4242"
    return label;
}

namespace {

// An insight about a GPU or stream rather than a source line: `label` names it in the site's place,
// and the advice is worded for the session's language.
Insight gpuInsight(const AnalysisContext& context, InsightRule rule, std::string label) {
    Insight insight;
    insight.rule = rule;
    insight.site.function = std::move(label);
    insight.site.language = context.language;
    insight.recommendation = recommendationFor(rule, context.language);
    return insight;
}

// Collects merged events into spans, joining runs of consecutive indexes per merge source.
class SpanCollector {
public:
    explicit SpanCollector(size_t sources) : m_lastSpan(sources, -1) {}
    void add(const IntervalMerge& merge) {
        const size_t source = merge.sourceIndex();
        const int64_t last = m_lastSpan[source];
        const EventRef event{merge.source().kind, merge.source().lane, 0, merge.index()};
        if (last >= 0 && m_spans[last].at(m_spans[last].count) == event) {
            ++m_spans[last].count;
            return;
        }
        m_lastSpan[source] = static_cast<int64_t>(m_spans.size());
        m_spans.push_back({event, 1});
    }
    EventSpans take() { return std::move(m_spans); }

private:
    std::vector<int64_t> m_lastSpan;
    EventSpans m_spans;
};

void defaultStreamOfDevice(const AnalysisContext& context, int32_t device,
                           std::vector<Insight>& out) {
    const Session& session = context.session;
    const InsightThresholds& t = context.thresholds;
    std::vector<MergeSource> defaults =
        context.gpu.sources(device, GpuActivity::Streams::DefaultOnly);
    size_t defaultOps = 0;
    for (const MergeSource& source : defaults)
        defaultOps += source.columns->size();
    // Too few default-stream operations to report: skip the merge of all other streams.
    if (defaultOps < static_cast<size_t>(std::max<int64_t>(t.defaultStream.minOps, 1)))
        return;
    // The union of the other streams' work: what a default-stream operation may serialize with.
    BusyIntervals others;
    std::vector<bool> streamUsed(session.streams.size(), false);
    IntervalMerge otherMerge(context.gpu.sources(device, GpuActivity::Streams::NonDefaultOnly));
    while (otherMerge.next()) {
        others.add(otherMerge.start(), otherMerge.end());
        streamUsed[otherMerge.source().lane] = true;
    }
    if (others.empty())
        return;
    const int64_t otherStreams = std::count(streamUsed.begin(), streamUsed.end(), true);
    IntervalMerge merge(defaults);
    SpanCollector spans(merge.sources().size());
    int64_t serializing = 0, totalNs = 0;
    int64_t first = 0, last = 0;
    int32_t defaultStream = defaults.front().lane;
    // Default-stream operations come in start order, so a forward cursor into the other streams'
    // union finds the neighbours: `j` is the first union interval ending after the operation's
    // start (ends ascend too, the intervals being disjoint).
    size_t j = 0;
    while (merge.next()) {
        const int64_t s = merge.start(), e = merge.end();
        while (j < others.size() && others.end[j] <= s)
            ++j;
        if (e > s && j < others.size() && others.start[j] < e) {
            // Ran concurrently with another stream: those streams do not synchronize with the
            // default stream (non-blocking streams or per-thread default streams). One overlap
            // settles it for the device.
            return;
        }
        const int64_t before = j > 0 ? others.end[j - 1] : std::numeric_limits<int64_t>::min();
        const int64_t after =
            j < others.size() ? others.start[j] : std::numeric_limits<int64_t>::max();
        if (before == std::numeric_limits<int64_t>::min() ||
            before < s - t.defaultStream.windowNs || after == std::numeric_limits<int64_t>::max() ||
            after > e + t.defaultStream.windowNs)
            continue;
        if (serializing == 0)
            first = s;
        last = e;
        ++serializing;
        totalNs += e - s;
        defaultStream = merge.source().lane;
        spans.add(merge);
    }
    if (serializing < t.defaultStream.minOps)
        return;
    Insight insight = gpuInsight(context, InsightRule::DefaultStream,
                                 session.streamLabel(session.streams[defaultStream]));
    insight.count = serializing;
    insight.startNs = first;
    insight.endNs = last;
    context.rateBySavings(insight, totalNs);
    insight.title = "Legacy default stream serializes " + std::to_string(otherStreams) +
                    (otherStreams == 1 ? " other stream" : " other streams") + " on " +
                    deviceLabel(session, device);
    insight.evidence = formatCount(serializing) +
                       " operations on the default stream ran alone "
                       "between work of the other streams, " +
                       formatDuration(totalNs) + " (" + formatShare(insight.share) +
                       " of session); no default-stream work "
                       "overlapped another stream";
    EventSpans events = spans.take();
    insight.eventCount = eventCount(events);
    insight.events = std::make_shared<const EventSpans>(std::move(events));
    out.push_back(std::move(insight));
}

// The global id in the run graph of row `index` of a merge source (kNone when it is none).
uint32_t graphOpOf(const whatif::RunGraph& graph, const MergeSource& source, uint32_t index) {
    const auto kind = source.kind == EventKind::Memcpy   ? whatif::RunGraph::OpKind::Memcpy
                      : source.kind == EventKind::Memset ? whatif::RunGraph::OpKind::Memset
                                                         : whatif::RunGraph::OpKind::Kernel;
    return graph.opOf(source.lane, kind, index);
}

void launchBoundOfDevice(const AnalysisContext& context, int32_t device,
                         std::vector<Insight>& out) {
    const InsightThresholds& t = context.thresholds;
    IntervalMerge merge(context.gpu.sources(device));
    // The saving is replayed (each stretch's launches inside the window as CUDA graphs) where the
    // run graph was built; `savings` below is the estimate otherwise.
    const std::shared_ptr<const whatif::RunGraph> graph = context.savings.sharedGraph();
    std::vector<whatif::StepRange> graphedSteps; // of the accepted stretches
    const size_t sources = merge.sources().size();
    // The stretch being built: its events per merge source are one run of indexes.
    struct Run {
        uint32_t first = 0, count = 0;
    };
    std::vector<Run> runs(sources);
    std::vector<uint32_t> touched;
    int64_t kernels = 0, busy = 0, gaps = 0, gapCount = 0, savings = 0, start = 0, end = 0, ops = 0,
            separatedOps = 0;
    // Device totals over accepted stretches.
    int64_t stretches = 0, totalKernels = 0, totalBusy = 0, totalGaps = 0, totalGapCount = 0,
            totalSavings = 0, totalSpan = 0, longestKernels = 0, longestStart = 0, longestEnd = 0,
            kernelNs = 0, stretchKernelNs = 0;
    EventSpans accepted;
    bool active = false;
    auto close = [&] {
        // At least half its operations separated by idle gaps: a run of short kernels queued
        // back to back is not launch-bound.
        if (active && kernels >= t.launchBound.minKernels && 2 * separatedOps >= ops) {
            ++stretches;
            totalKernels += kernels;
            totalBusy += busy;
            totalGaps += gaps;
            totalGapCount += gapCount;
            totalSavings += savings;
            totalSpan += end - start;
            kernelNs += stretchKernelNs;
            if (kernels > longestKernels) {
                longestKernels = kernels;
                longestStart = start;
                longestEnd = end;
            }
            for (uint32_t s : touched) {
                const MergeSource& source = merge.sources()[s];
                accepted.push_back({{source.kind, source.lane, 0, runs[s].first}, runs[s].count});
            }
            if (graph) { // the stretch's operations that start in the window, as CUDA graphs
                std::vector<uint32_t> ops;
                for (uint32_t s : touched) {
                    const MergeSource& source = merge.sources()[s];
                    for (uint32_t row = runs[s].first; row < runs[s].first + runs[s].count; ++row)
                        if (const int64_t at = source.columns->start[row];
                            at >= context.windowStartNs && at <= context.windowEndNs)
                            if (const uint32_t op = graphOpOf(*graph, source, row);
                                op != whatif::kNone)
                                ops.push_back(op);
                }
                const std::vector<whatif::StepRange> ranges =
                    whatif::graphedStepRanges(*graph, ops);
                graphedSteps.insert(graphedSteps.end(), ranges.begin(), ranges.end());
            }
        }
        for (uint32_t s : touched)
            runs[s] = {};
        touched.clear();
        active = false;
        kernels = busy = gaps = gapCount = savings = stretchKernelNs = ops = separatedOps = 0;
    };
    int64_t maxEnd = std::numeric_limits<int64_t>::min();
    uint32_t tick = 0;
    while (merge.next()) {
        const int64_t s = merge.start(), e = merge.end(), duration = e - s;
        const bool hasGap = maxEnd != std::numeric_limits<int64_t>::min();
        const int64_t gap = hasGap ? s - maxEnd : 0;
        const bool isShort = hasGap && duration <= t.launchBound.shortKernelNs;
        const bool separated = isShort && gap > duration && gap <= t.launchBound.maxGapNs;
        // A short operation queued right behind its predecessor (the second kernel of a cuBLAS
        // call) belongs to the stretch it interrupts; its gap is none of the launch overhead.
        const bool queued = active && isShort && gap <= duration;
        if (!separated && !queued) {
            close();
        } else {
            ++ops;
            separatedOps += separated;
            if (!active) {
                active = true;
                start = s;
            } else if (separated) {
                gaps += gap;
                ++gapCount;
                savings += std::max<int64_t>(0, gap - t.launchBound.graphGapNs);
            }
            end = e;
            busy += duration;
            if (merge.source().kind == EventKind::Kernel) {
                ++kernels;
                stretchKernelNs += duration;
            }
            Run& run = runs[merge.sourceIndex()];
            if (run.count++ == 0) {
                run.first = merge.index();
                touched.push_back(static_cast<uint32_t>(merge.sourceIndex()));
            }
        }
        maxEnd = std::max(maxEnd, e);
        if (++tick == 0x10000) {
            tick = 0;
            if (context.cancelled())
                return;
        }
    }
    close();
    if (stretches == 0)
        return;
    const Session& session = context.session;
    Insight insight = gpuInsight(context, InsightRule::LaunchBound, deviceLabel(session, device));
    insight.count = stretches;
    insight.kernelCount = totalKernels;
    insight.startNs = longestStart;
    insight.endNs = longestEnd;
    const size_t graphs = graphedSteps.size();
    if (graphs > 0) {
        auto asGraphs = std::make_shared<whatif::WhatIf>();
        asGraphs->graphedSteps = std::move(graphedSteps);
        asGraphs->graphGapNs = t.launchBound.graphGapNs;
        if (const int64_t replayed = context.savings.replayedSavingOf(*asGraphs, context.cancel);
            replayed >= 0) {
            totalSavings = replayed;
            insight.simulated = true;
            insight.assumption = "if each stretch's launches were one CUDA graph";
            insight.change = std::move(asGraphs);
        }
    }
    context.rateBySavings(insight, totalSavings);
    insight.title = "Launch-bound: " + formatCount(stretches) +
                    (stretches == 1 ? " stretch" : " stretches") + " of short kernels on " +
                    deviceLabel(session, device);
    const double busyShare = totalSpan > 0 ? double(totalBusy) / double(totalSpan) : 0.0;
    insight.evidence =
        formatCount(totalKernels) + " kernels (avg " +
        formatDuration(kernelNs / std::max<int64_t>(totalKernels, 1)) +
        ") separated by idle gaps (avg " +
        formatDuration(totalGaps / std::max<int64_t>(totalGapCount, 1)) + "): the GPU was busy " +
        formatShare(busyShare) + " of " + formatDuration(totalSpan) + "; longest stretch " +
        formatCount(longestKernels) + " kernels over " + formatDuration(longestEnd - longestStart);
    if (insight.simulated)
        insight.evidence += "; replayed with the launches of each stretch as CUDA graphs (" +
                            formatCount(static_cast<int64_t>(graphs)) +
                            (graphs == 1 ? " graph" : " graphs") +
                            ", split at host syncs): the host skips the launch calls after "
                            "each graph's first and the time between them";
    insight.eventCount = eventCount(accepted);
    insight.events = std::make_shared<const EventSpans>(std::move(accepted));
    out.push_back(std::move(insight));
}

} // namespace

void defaultStream(const AnalysisContext& context, std::vector<Insight>& out) {
    for (size_t d = 0; d < context.session.devices.size() && !context.cancelled(); ++d)
        defaultStreamOfDevice(context, static_cast<int32_t>(d), out);
}

void launchBound(const AnalysisContext& context, std::vector<Insight>& out) {
    for (size_t d = 0; d < context.session.devices.size() && !context.cancelled(); ++d)
        launchBoundOfDevice(context, static_cast<int32_t>(d), out);
}

} // namespace insight_rules

} // namespace stallscope::model
