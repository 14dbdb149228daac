#include "model/analysis/steady_state.h"

#include "model/session/event_ref.h"
#include "model/session/session_summary.h"
#include "model/whatif/median_sample.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <vector>

namespace stallscope::model {

namespace {

using whatif::upperMedian;

// The kernel sequence's period: tested over at least this many periods (and at most half the
// sequence: start-up and tail are not the loop), in each of a few regions of the sequence.
constexpr size_t kPeriodsCompared = 4;
constexpr size_t kMinKernelsCompared = 1024;
constexpr size_t kMaxPeriod = 20000; // kernels a step: a large model's step has a few thousand
// A period repeats when this share of the kernels compared equals the kernel one period later,
// an extra kernel in either period (a logged mean every ten steps) skipped at the cost of one.
constexpr double kMinAgreement = 0.99;
constexpr double kExactAgreement = 0.999;
constexpr size_t kMaxExtraKernels = 4;
// Steps of a loop take about the same time: this share of them within [low, high] × the median.
// (Host work of data-dependent length spreads real steps over 0.9-1.4x the median: 8.5-13.7 ms
// of 9.7 ms in bench/corpus's float_loss_history; steps cut apart differ several times over.)
constexpr double kRegularStepLow = 0.5, kRegularStepHigh = 2.0, kMinRegularShare = 0.8;
// The GPU idle before a kernel that may start a step: this many times the median idle time
// between two kernels, and at least this long.
constexpr int64_t kIdleBeforeStepFactor = 4;
constexpr int64_t kIdleBeforeStepNs = 2'000;
// The smallest repeating period is the step unless the loop it finds spans less than this share
// of the loop of the best-agreeing one (300 kernels of which one differs repeat every kernel at
// 99.7 %, but only between two of the odd ones).
constexpr double kMinSpanOfBest = 0.8;
// A thread's syncs make steps when the quartiles of their intervals lie within this factor of the
// median (one population), not a step's two syncs (short and long intervals by turns).
constexpr double kSyncIntervalSpread = 0.5;
// ... and at most this share of the intervals between them without a launch of the thread's.
constexpr double kStepsWithoutLaunches = 0.1;
// Step boundaries a loop may miss in a row (its first kernel not preceded by idle time).
constexpr size_t kMaxMissedBoundaries = 3;
// The longest run of kernels that may tell a step's first kernel apart from the others of its name.
constexpr size_t kMaxAnchorRun = 16;

struct PeriodFit {
    size_t period = 0;
    size_t regionStart = 0;
    double agreement = 0;
};

// The agreement of `names` with itself `period` kernels later over [start, start + count), or 0
// as soon as too many differ. Where two differ, an extra kernel (up to kMaxExtraKernels) in one of
// the two periods is skipped when the next two kernels agree after it.
double agreementAt(const std::vector<uint32_t>& names, size_t period, size_t start, size_t count) {
    const auto allowed = static_cast<size_t>(static_cast<double>(count) * (1 - kMinAgreement));
    const size_t n = names.size(), end = start + count;
    size_t differ = 0;
    size_t shiftedAt = 0; // where the two periods last went out of step (b - a != period)
    for (size_t a = start, b = start + period; a < end && b < n;) {
        // An extra kernel in the later period is met again in the earlier one a period on: the
        // two are back in step by then, or they were not the same steps.
        if (b - a != period && a - shiftedAt > period + kMaxExtraKernels)
            return 0;
        if (names[a] == names[b]) {
            ++a;
            ++b;
            continue;
        }
        if (++differ > allowed)
            return 0;
        if (b - a == period)
            shiftedAt = a;
        auto agreeAt = [&](size_t x, size_t y) {
            return y + 1 < n && x + 1 < n && names[x] == names[y] && names[x + 1] == names[y + 1];
        };
        size_t skip = 1;
        for (; skip <= kMaxExtraKernels; ++skip) {
            if (agreeAt(a, b + skip)) {
                b += skip;
                break;
            }
            if (a + skip < b && agreeAt(a + skip, b)) {
                a += skip;
                break;
            }
        }
        if (skip > kMaxExtraKernels) {
            ++a;
            ++b;
        }
    }
    return 1 - static_cast<double>(differ) / static_cast<double>(count);
}

// The smallest period that repeats and the best-agreeing one (the first that repeats exactly:
// its multiples do as well), or none.
struct Periods {
    PeriodFit smallest, best;
};
Periods findPeriods(const std::vector<uint32_t>& names) {
    const size_t n = names.size();
    Periods found;
    const size_t maxPeriod = std::min(kMaxPeriod, n / (kPeriodsCompared + 1));
    for (size_t period = 1; period <= maxPeriod; ++period) {
        const size_t count =
            std::max(kPeriodsCompared * period, std::min(kMinKernelsCompared, (n - period) / 2));
        if (count + period > n)
            break;
        PeriodFit fit{period, 0, 0};
        // Regions around the middle, then a third of the way in from either end.
        for (const double at : {0.5, 0.3, 0.7}) {
            const auto centre = static_cast<size_t>(static_cast<double>(n) * at);
            const size_t start = std::min(centre - std::min(centre, count / 2), n - period - count);
            const double agreement = agreementAt(names, period, start, count);
            if (agreement > fit.agreement)
                fit = {period, start, agreement};
            if (fit.agreement >= kExactAgreement)
                break;
        }
        if (fit.agreement < kMinAgreement)
            continue;
        if (found.smallest.period == 0)
            found.smallest = fit;
        if (fit.agreement > found.best.agreement)
            found.best = fit;
        if (fit.agreement >= kExactAgreement)
            break;
    }
    return found;
}

// The busiest stream's kernels: the loop's sequence, already in start order.
const KernelColumns* busiestKernels(const Session& session) {
    const KernelColumns* busiest = nullptr;
    for (const StreamLane& lane : session.streamLanes)
        if (!busiest || lane.kernels.size() > busiest->size())
            busiest = &lane.kernels;
    return busiest;
}

// The durations of the steps between boundaries first..last of `bounds`.
std::vector<int64_t> stepDurations(const std::vector<int64_t>& bounds, size_t first, size_t last) {
    std::vector<int64_t> durations;
    for (size_t i = first; i < last && i + 1 < bounds.size(); ++i)
        durations.push_back(bounds[i + 1] - bounds[i]);
    return durations;
}

// The stretches the recording left out (Session::notRecorded: capture control's, the recorder's
// overhead probe's), in order: no step may span one, since what ran in it is not there.
class Unrecorded {
public:
    explicit Unrecorded(const Session& session) : m_gaps(session.notRecorded()) {}
    // Whether a stretch not recorded lies within (fromNs, toNs).
    bool within(int64_t fromNs, int64_t toNs) const {
        const auto after =
            std::lower_bound(m_gaps.begin(), m_gaps.end(), fromNs,
                             [](const TimeSpan& gap, int64_t at) { return gap.endNs <= at; });
        return after != m_gaps.end() && after->startNs < toNs;
    }

private:
    std::vector<TimeSpan> m_gaps;
};

// Step boundaries [first, last] of a run of `bounds` (times in order) less the slow steps at either
// end; false when fewer than `minSteps` steps remain.
bool trimSlowEnds(const std::vector<int64_t>& bounds, size_t* first, size_t* last,
                  int64_t minSteps) {
    std::vector<int64_t> durations = stepDurations(bounds, *first, *last);
    if (durations.empty())
        return false;
    const double slow = kSteadyStateSlowStepFactor * static_cast<double>(upperMedian(durations));
    const auto duration = [&](size_t step) {
        return static_cast<double>(bounds[step + 1] - bounds[step]);
    };
    while (*first < *last && duration(*first) > slow)
        ++*first;
    while (*last > *first && duration(*last - 1) > slow)
        --*last;
    return static_cast<int64_t>(*last - *first) >= minSteps;
}

SteadyState fromSteps(const StepSpans& allSpans, const Unrecorded& unrecorded) {
    // The longest run of steps that no unrecorded stretch cuts.
    size_t bestFirst = 0, bestEnd = 0;
    for (size_t runFirst = 0, k = 1; k <= allSpans.size(); ++k) {
        if (k < allSpans.size() && !unrecorded.within(allSpans[k - 1].first, allSpans[k].first))
            continue;
        if (k - runFirst > bestEnd - bestFirst) {
            bestFirst = runFirst;
            bestEnd = k;
        }
        runFirst = k;
    }
    const StepSpans spans(allSpans.begin() + static_cast<std::ptrdiff_t>(bestFirst),
                          allSpans.begin() + static_cast<std::ptrdiff_t>(bestEnd));
    if (static_cast<int64_t>(spans.size()) < kSteadyStateMinSteps)
        return {};
    // Step i runs from its start to the next step's start; the last one to its own end.
    std::vector<int64_t> bounds;
    for (const auto& span : spans)
        bounds.push_back(span.first);
    bounds.push_back(std::max(spans.back().second, spans.back().first));
    size_t first = 0, last = bounds.size() - 1;
    if (!trimSlowEnds(bounds, &first, &last, kSteadyStateMinSteps))
        return {};
    SteadyState state;
    state.source = SteadyState::Source::Steps;
    state.startNs = bounds[first];
    state.endNs = bounds[last];
    state.steps = static_cast<int64_t>(last - first);
    return state;
}

// Whether most steps take about the median step's time: a loop, not a period of kernel names
// that cuts its steps apart (one kernel launched several times a step).
// `byTime`: also most of the time in such steps.
bool regularSteps(const std::vector<int64_t>& bounds, size_t first, size_t last,
                  bool byTime = true) {
    const std::vector<int64_t> durations = stepDurations(bounds, first, last);
    if (durations.empty())
        return false;
    std::vector<int64_t> sorted = durations;
    const auto median = static_cast<double>(upperMedian(sorted));
    // Most steps near the median, and most of the time in such steps: ten launches of one
    // kernel and a host pause make nine steps of a kernel's time and one long one, which holds
    // nearly half the loop's time.
    int64_t near = 0;
    double nearNs = 0, totalNs = 0;
    for (const int64_t d : durations) {
        const auto ns = static_cast<double>(d);
        totalNs += ns;
        if (ns >= kRegularStepLow * median && ns <= kRegularStepHigh * median) {
            ++near;
            nearNs += ns;
        }
    }
    return static_cast<double>(near) >= kMinRegularShare * static_cast<double>(durations.size()) &&
           (!byTime || nearNs >= kMinRegularShare * totalNs);
}

// For each kernel j of the period from `regionStart`: the length of the shortest run of kernels
// from it that starts at no other kernel of the period, or 0 when none up to kMaxAnchorRun does.
// (1 where its name occurs once; a loop over batches of several shapes repeats every name within
// its period, and a batch's first kernel is told apart by the shape-specific ones after it.)
std::vector<size_t> distinctRunLengths(const std::vector<uint32_t>& tokens, size_t regionStart,
                                       size_t p) {
    std::vector<size_t> length(p, 0);
    std::vector<uint32_t> run(p, 0); // the id of the run [j, j + w) among the period's runs
    constexpr uint32_t kPastEnd = std::numeric_limits<uint32_t>::max();
    size_t undecided = p;
    for (size_t w = 1; w <= kMaxAnchorRun && undecided > 0; ++w) {
        std::unordered_map<uint64_t, uint32_t> ids; // (the run [j, j + w - 1), its next token)
        std::vector<uint32_t> count;
        for (size_t j = 0; j < p; ++j) {
            const size_t next = regionStart + j + w - 1;
            if (run[j] == kPastEnd || next >= tokens.size()) {
                run[j] = kPastEnd;
                continue;
            }
            const uint64_t key = (static_cast<uint64_t>(run[j]) << 32) | tokens[next];
            const auto [it, added] = ids.emplace(key, static_cast<uint32_t>(count.size()));
            if (added)
                count.push_back(0);
            ++count[it->second];
            run[j] = it->second;
        }
        for (size_t j = 0; j < p; ++j)
            if (length[j] == 0 && run[j] != kPastEnd && count[run[j]] == 1) {
                length[j] = w;
                --undecided;
            }
    }
    return length;
}

// The loop in one token sequence of the busiest stream's kernels (a token per kernel).
SteadyState loopOfPeriod(const KernelColumns& kernels, const std::vector<uint32_t>& tokens,
                         const PeriodFit& fit, const Unrecorded& unrecorded) {
    if (fit.period == 0)
        return {};
    const size_t p = fit.period;
    // The step starts at the kernel of the period that the GPU waited longest for (summed over a
    // few periods), of those told apart from the period's others by the shortest run of kernels
    // (its name alone where that occurs once: a name is robust to an extra kernel now and then).
    const std::vector<size_t> runLength = distinctRunLengths(tokens, fit.regionStart, p);
    size_t anchor = p;
    int64_t longestWait = -1;
    const size_t periods = std::min<size_t>(8, (tokens.size() - fit.regionStart) / p);
    const size_t shortestRun = std::accumulate(
        runLength.begin(), runLength.end(), kMaxAnchorRun + 1, [](size_t shortest, size_t length) {
            return length > 0 ? std::min(shortest, length) : shortest;
        });
    for (size_t j = 0; j < p; ++j) {
        if (runLength[j] != shortestRun)
            continue;
        int64_t wait = 0;
        for (size_t k = 0; k < periods; ++k) {
            const size_t i = fit.regionStart + j + k * p;
            if (i > 0)
                wait += std::max<int64_t>(0, kernels.start[i] - kernels.end[i - 1]);
        }
        if (wait > longestWait) {
            longestWait = wait;
            anchor = j;
        }
    }
    if (anchor == p)
        return {};
    // Every run of the anchor's kernels a period apart (an extra kernel now and then allowed); the
    // longest run is the loop.
    const auto anchorRun = tokens.begin() + static_cast<std::ptrdiff_t>(fit.regionStart + anchor);
    const auto anchorLength = static_cast<std::ptrdiff_t>(runLength[anchor]);
    const auto startsAnchorRun = [&](size_t i) {
        return i + runLength[anchor] <= tokens.size() &&
               std::equal(anchorRun, anchorRun + anchorLength,
                          tokens.begin() + static_cast<std::ptrdiff_t>(i));
    };
    // (An anchor less than most of a period after the previous one is not a boundary: the GPU sat
    // idle before some other kernel of the step.)
    std::vector<size_t> at;
    for (size_t i = 0; i < tokens.size(); ++i)
        if (startsAnchorRun(i) && (at.empty() || i - at.back() >= p - p / 4))
            at.push_back(i);
    // Boundaries a period apart (an extra kernel allowed), or a few periods apart where the anchor
    // looked different now and then (the GPU not idle before it): so many steps.
    const auto periodsBetween = [p](size_t gap) -> size_t {
        if (gap >= p - p / 4 && gap <= p + p / 2)
            return 1;
        const size_t m = (gap + p / 2) / p;
        return m >= 2 && m <= kMaxMissedBoundaries + 1 && gap + p / 4 >= m * p &&
                       gap <= m * p + p / 4
                   ? m
                   : 0;
    };
    size_t bestFirst = 0, bestLast = 0;
    for (size_t runFirst = 0, k = 1; k <= at.size(); ++k) {
        if (k < at.size() && periodsBetween(at[k] - at[k - 1]) > 0 &&
            !unrecorded.within(kernels.start[at[k - 1]], kernels.start[at[k]]))
            continue;
        if (k - 1 - runFirst > bestLast - bestFirst) {
            bestFirst = runFirst;
            bestLast = k - 1;
        }
        runFirst = k;
    }
    std::vector<int64_t> bounds{kernels.start[at[bestFirst]]};
    for (size_t k = bestFirst + 1; k <= bestLast; ++k) {
        const size_t m = periodsBetween(at[k] - at[k - 1]);
        const int64_t from = kernels.start[at[k - 1]], to = kernels.start[at[k]];
        for (size_t j = 1; j < m; ++j) // the missed boundaries, evenly between
            bounds.push_back(from +
                             (to - from) * static_cast<int64_t>(j) / static_cast<int64_t>(m));
        bounds.push_back(to);
    }
    size_t first = 0, last = bounds.size() - 1;
    if (!trimSlowEnds(bounds, &first, &last, kSteadyStateMinKernelPeriods) ||
        !regularSteps(bounds, first, last))
        return {};
    SteadyState state;
    state.source = SteadyState::Source::KernelPeriod;
    state.startNs = bounds[first];
    state.endNs = bounds[last];
    state.steps = static_cast<int64_t>(last - first);
    state.kernelsPerStep = static_cast<int64_t>(p);
    // The loop's last iteration has no boundary after it: it ends with its period's kernels,
    // unless it was left out as slow.
    const size_t lastAnchor = at[bestLast];
    if (last == bounds.size() - 1 && lastAnchor + p <= kernels.size()) {
        int64_t end = bounds[last];
        for (size_t i = lastAnchor; i < lastAnchor + p; ++i)
            end = std::max(end, kernels.end[i]);
        state.endNs = end;
        ++state.steps;
    }
    return state;
}

// The loop of the smallest repeating period of `tokens`, or of the best-agreeing one where the
// smallest one's loop is much shorter.
SteadyState loopOfTokens(const KernelColumns& kernels, const std::vector<uint32_t>& tokens,
                         const Unrecorded& unrecorded) {
    const Periods periods = findPeriods(tokens);
    SteadyState smallest = loopOfPeriod(kernels, tokens, periods.smallest, unrecorded);
    if (periods.best.period == periods.smallest.period)
        return smallest;
    SteadyState best = loopOfPeriod(kernels, tokens, periods.best, unrecorded);
    const auto span = [](const SteadyState& state) {
        return static_cast<double>(state.endNs - state.startNs);
    };
    return best.found() && (!smallest.found() || span(smallest) < kMinSpanOfBest * span(best))
               ? best
               : smallest;
}

// The kernel names; where their period cuts steps apart (a kernel launched several times a
// step), the names with whether the GPU sat idle before the kernel (a step starts after the
// host's sync or its batch preparation; kernels queued back to back follow each other closely).
SteadyState kernelPeriodLoop(const Session& session, const Unrecorded& unrecorded) {
    const KernelColumns* kernels = busiestKernels(session);
    if (!kernels || kernels->size() <= kPeriodsCompared)
        return {};
    SteadyState state = loopOfTokens(*kernels, kernels->nameId, unrecorded);
    if (state.found())
        return state;
    std::vector<int64_t> gaps;
    for (size_t i = 1; i < kernels->size(); ++i)
        gaps.push_back(std::max<int64_t>(0, kernels->start[i] - kernels->end[i - 1]));
    std::vector<int64_t> sorted = gaps;
    const int64_t idle = std::max(kIdleBeforeStepNs, kIdleBeforeStepFactor * upperMedian(sorted));
    std::vector<uint32_t> tokens(kernels->size());
    for (size_t i = 0; i < tokens.size(); ++i)
        tokens[i] = kernels->nameId[i] * 2 + (i == 0 || gaps[i - 1] >= idle ? 1 : 0);
    return loopOfTokens(*kernels, tokens, unrecorded);
}

// The starts of the thread's launch calls in [fromNs, toNs), in order.
std::vector<int64_t> launchStarts(const Session& session, const HostLane& lane, int64_t fromNs,
                                  int64_t toNs) {
    std::vector<int64_t> launches;
    const ApiCallColumns& calls = lane.apiCalls;
    std::vector<int8_t> isLaunch(session.strings.size(), -1); // per name, looked at once
    for (size_t i = calls.firstStartingAtOrAfter(fromNs); i < calls.size() && calls.start[i] < toNs;
         ++i) {
        const uint32_t name = calls.nameId[i];
        if (name >= isLaunch.size())
            continue;
        if (isLaunch[name] < 0)
            isLaunch[name] = session.string(name).find("Launch") != std::string::npos;
        if (isLaunch[name] != 0)
            launches.push_back(calls.start[i]);
    }
    return launches;
}

// Whether `launches` (in order) has one in [fromNs, toNs).
bool launchWithin(const std::vector<int64_t>& launches, int64_t fromNs, int64_t toNs) {
    const auto next = std::lower_bound(launches.begin(), launches.end(), fromNs);
    return next != launches.end() && *next < toNs;
}

// Whether the thread launched GPU work between two consecutive syncs (starts, in order), nearly
// always: a step's syncs, not two reads of one statement (x.cuda() and y.cuda() from pageable
// memory). True when the lane recorded no calls at all (a light recording): nothing to tell by.
bool launchesBetween(const Session& session, const HostLane& lane,
                     const std::vector<int64_t>& starts) {
    const std::vector<int64_t> launches =
        launchStarts(session, lane, starts.front(), starts.back());
    if (launches.empty())
        return lane.apiCalls.empty();
    size_t without = 0;
    for (size_t i = 1; i < starts.size(); ++i)
        without += !launchWithin(launches, starts[i - 1], starts[i]);
    // A few may lack one (the sync that ends a warm-up loop, before the timed one's first).
    return static_cast<double>(without) <=
           kStepsWithoutLaunches * static_cast<double>(starts.size() - 1);
}

// The calls of the line that syncs most often on the thread in the loop: its syncs at one stack,
// those with no launch since the one before merged into one call (a statement that syncs several
// times: torch.cuda.empty_cache() frees each cached block). Empty for a thread without launch
// calls or stacks (a light recording).
std::vector<int64_t> callsOfBusiestLine(const Session& session, const HostLane& lane,
                                        const SteadyState& state) {
    const std::vector<int64_t> launches = launchStarts(session, lane, state.startNs, state.endNs);
    if (launches.empty())
        return {};
    std::unordered_map<uint32_t, std::vector<int64_t>> callsAt; // by stack
    std::unordered_map<uint32_t, int64_t> lastSyncAt;
    const SyncColumns& syncs = lane.syncs;
    for (size_t i = syncs.firstStartingAtOrAfter(state.startNs);
         i < syncs.size() && syncs.start[i] < state.endNs; ++i) {
        if (!isHostBlocking(syncs.kind[i]) || syncs.stackId[i] == 0)
            continue;
        const auto [last, first] = lastSyncAt.try_emplace(syncs.stackId[i], syncs.start[i]);
        if (first || launchWithin(launches, last->second, syncs.start[i]))
            callsAt[syncs.stackId[i]].push_back(syncs.start[i]);
        last->second = syncs.start[i];
    }
    const auto busiest = std::max_element(callsAt.begin(), callsAt.end(), [](auto& a, auto& b) {
        return a.second.size() < b.second.size();
    });
    return busiest == callsAt.end() ? std::vector<int64_t>{} : std::move(busiest->second);
}

// The number of times a sync that happens `count` times in the loop happens a period, if a whole
// number >= 2 of times (one more or less now and then), else 0.
int64_t syncsAPeriod(int64_t count, int64_t periods) {
    const int64_t perPeriod = periods > 0 ? (count + periods / 2) / periods : 0;
    return perPeriod >= 2 &&
                   std::abs(count - perPeriod * periods) <= std::max<int64_t>(1, count / 50)
               ? perPeriod
               : 0;
}

// A kernel sequence that repeats only every few iterations (a snapshot analysed every 100 steps,
// batches of several shapes in turn): the step is the interval between two syncs of the thread
// with the most host-blocking syncs in the loop
//  - where one line of it (one stack) is called a whole number m >= 2 of times a period, with
//    launches between the calls: an iteration each, however long (the shapes' batches differ);
//  - else, for all its syncs m >= 2 times a period, when their intervals are one population (the
//    iteration that waits for the snapshot's analysis is a long one; data-dependent steps vary),
//    not a step's two syncs by turns.
void stepsBySyncs(const Session& session, SteadyState& state) {
    std::vector<int64_t> starts, busiest;
    const HostLane* busiestLane = nullptr;
    for (const HostLane& lane : session.hostLanes) {
        starts.clear();
        const SyncColumns& syncs = lane.syncs;
        for (size_t i = syncs.firstStartingAtOrAfter(state.startNs);
             i < syncs.size() && syncs.start[i] < state.endNs; ++i)
            if (isHostBlocking(syncs.kind[i]))
                starts.push_back(syncs.start[i]);
        if (starts.size() > busiest.size()) {
            busiest.swap(starts);
            busiestLane = &lane;
        }
    }
    if (!busiestLane)
        return;
    const int64_t callsAPeriod = syncsAPeriod(
        static_cast<int64_t>(callsOfBusiestLine(session, *busiestLane, state).size()), state.steps);
    if (callsAPeriod > 0) {
        state.syncsPerPeriod = callsAPeriod;
        state.steps *= callsAPeriod;
        return;
    }
    const int64_t perPeriod = syncsAPeriod(static_cast<int64_t>(busiest.size()), state.steps);
    if (perPeriod == 0)
        return;
    // One population of intervals: steps of varying length (data-dependent sizes) spread around
    // the median, but a step's two syncs make short and long intervals by turns.
    std::vector<int64_t> intervals;
    for (size_t i = 1; i < busiest.size(); ++i)
        intervals.push_back(busiest[i] - busiest[i - 1]);
    std::sort(intervals.begin(), intervals.end());
    const auto quantile = [&](size_t quarter) {
        return static_cast<double>(intervals[intervals.size() * quarter / 4]);
    };
    if (quantile(1) < kSyncIntervalSpread * quantile(2) ||
        quantile(3) > quantile(2) / kSyncIntervalSpread ||
        !launchesBetween(session, *busiestLane, busiest))
        return;
    state.syncsPerPeriod = perPeriod;
    state.steps *= perPeriod;
}

SteadyState fromKernelPeriod(const Session& session, const Unrecorded& unrecorded) {
    SteadyState state = kernelPeriodLoop(session, unrecorded);
    if (state.found())
        stepsBySyncs(session, state);
    return state;
}

} // namespace

std::string SteadyState::description() const {
    if (!found())
        return "no loop found";
    std::string text =
        formatCount(steps) + (steps == 1 ? " step of " : " steps of ") + formatDuration(stepNs());
    if (source == Source::Steps)
        return text + " (the session's step ranges)";
    if (syncsPerPeriod > 1)
        return text + " (a sync each; the kernel sequence repeats every " +
               formatCount(syncsPerPeriod) + " steps, " + formatCount(kernelsPerStep) + " kernels)";
    return text + " (the repeating kernel sequence, " + formatCount(kernelsPerStep) +
           (kernelsPerStep == 1 ? " kernel a step)" : " kernels a step)");
}

SteadyState findSteadyState(const Session& session, const StepSpans& steps, int64_t gpuStartNs,
                            int64_t gpuEndNs) {
    const Unrecorded unrecorded(session);
    SteadyState state = fromSteps(steps, unrecorded);
    if (!state.found())
        state = fromKernelPeriod(session, unrecorded);
    if (!state.found())
        return state;
    state.warmupNs = std::max<int64_t>(0, state.startNs - gpuStartNs);
    state.tailNs = std::max<int64_t>(0, gpuEndNs - state.endNs);
    return state;
}

} // namespace stallscope::model
