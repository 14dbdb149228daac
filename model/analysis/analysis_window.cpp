#include "model/analysis/analysis_window.h"

#include "model/session/session_summary.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace stallscope::model {

namespace {

std::string inQuotes(std::string_view text) {
    return "\"" + std::string(text) + "\"";
}

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool startsWithIgnoringCase(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) ==
                      std::tolower(static_cast<unsigned char>(b));
           });
}

// The latest end of a lane's events: only events starting within maxDuration of the last start
// can end after it.
int64_t lastEnd(const IntervalColumns& columns) {
    int64_t last = std::numeric_limits<int64_t>::min();
    for (size_t i = columns.firstStartingAtOrAfter(columns.start.back() - columns.maxDuration);
         i < columns.size(); ++i)
        last = std::max(last, columns.end[i]);
    return last;
}

// ---- steps ----

enum class StepSource : uint8_t { None, Profiler, Nvtx };

std::string_view stepSourceName(StepSource source) {
    return source == StepSource::Profiler ? "ProfilerStep#N" : "NVTX ranges step…";
}

StepSource stepSourceOf(std::string_view name) {
    if (startsWith(name, "ProfilerStep#"))
        return StepSource::Profiler;
    if (startsWithIgnoringCase(name, "step"))
        return StepSource::Nvtx;
    return StepSource::None;
}

struct Steps {
    StepSource source = StepSource::None;
    StepSpans spans; // in start order
};

// Profiler steps when there are any, else NVTX steps; from the thread with the most, at the
// outermost depth that has one (a "step" range may contain "step_forward" ranges).
Steps findSteps(const Session& session) {
    std::vector<StepSource> sourceOfName(session.strings.size());
    for (size_t id = 0; id < session.strings.size(); ++id)
        sourceOfName[id] = stepSourceOf(session.strings[id]);
    for (StepSource source : {StepSource::Profiler, StepSource::Nvtx}) {
        Steps best{source, {}};
        for (const HostLane& lane : session.hostLanes) {
            for (const RangeColumns& ranges : lane.rangesByDepth) {
                Steps steps{source, {}};
                for (size_t i = 0; i < ranges.size(); ++i)
                    if (ranges.nameId[i] < sourceOfName.size() &&
                        sourceOfName[ranges.nameId[i]] == source)
                        steps.spans.emplace_back(ranges.start[i], ranges.end[i]);
                if (steps.spans.empty())
                    continue;
                if (steps.spans.size() > best.spans.size())
                    best = std::move(steps);
                break;
            }
        }
        if (!best.spans.empty())
            return best;
    }
    return {};
}

// "A-B" or "A" (1-based, A <= B).
bool parseStepNumbers(std::string_view text, int64_t* first, int64_t* last) {
    const char* end = text.data() + text.size();
    auto [next, ec] = std::from_chars(text.data(), end, *first);
    if (ec != std::errc() || *first < 1)
        return false;
    *last = *first;
    if (next == end)
        return true;
    if (*next != '-')
        return false;
    auto [after, ec2] = std::from_chars(next + 1, end, *last);
    return ec2 == std::errc() && after == end && *last >= *first;
}

std::optional<AnalysisWindow> stepsWindow(std::string_view numbers, const Session& session,
                                          std::string* error) {
    int64_t first = 0, last = 0;
    if (!parseStepNumbers(numbers, &first, &last)) {
        *error = inQuotes("steps:" + std::string(numbers)) +
                 " is not a step range; use steps:A-B with 1 <= A <= B (steps:10-20) or steps:A";
        return std::nullopt;
    }
    const Steps steps = findSteps(session);
    if (steps.spans.empty()) {
        *error = "the session has no steps (ranges named ProfilerStep#N, or NVTX ranges whose "
                 "name starts with \"step\")";
        return std::nullopt;
    }
    const auto count = static_cast<int64_t>(steps.spans.size());
    if (last > count) {
        *error = "steps:" + std::string(numbers) + " asks for step " + std::to_string(last) +
                 ", but the session has " + std::to_string(count) +
                 (count == 1 ? " step (" : " steps (") + std::string(stepSourceName(steps.source)) +
                 ")";
        return std::nullopt;
    }
    AnalysisWindow window;
    window.kind = AnalysisWindow::Kind::Steps;
    window.startNs = steps.spans[first - 1].first;
    window.endNs = steps.spans[first - 1].second;
    for (int64_t s = first; s <= last; ++s)
        window.endNs = std::max(window.endNs, steps.spans[s - 1].second);
    window.steps = last - first + 1;
    window.label = (first == last ? "step " + std::to_string(first)
                                  : "steps " + std::to_string(first) + "–" + std::to_string(last)) +
                   " (" + std::string(stepSourceName(steps.source)) + ")";
    return window;
}

// ---- named ranges ----

std::optional<AnalysisWindow> rangeWindow(std::string_view name, const Session& session,
                                          std::string* error) {
    if (name.empty()) {
        *error = "range: wants the name of a range (range:NAME)";
        return std::nullopt;
    }
    std::vector<int64_t> countOfName(session.strings.size(), 0);
    AnalysisWindow window;
    window.kind = AnalysisWindow::Kind::Range;
    window.startNs = std::numeric_limits<int64_t>::max();
    window.endNs = std::numeric_limits<int64_t>::min();
    for (const HostLane& lane : session.hostLanes)
        for (const RangeColumns& ranges : lane.rangesByDepth)
            for (size_t i = 0; i < ranges.size(); ++i) {
                const uint32_t id = ranges.nameId[i];
                if (id >= countOfName.size())
                    continue;
                ++countOfName[id];
                if (session.strings[id] == name) {
                    window.startNs = std::min(window.startNs, ranges.start[i]);
                    window.endNs = std::max(window.endNs, ranges.end[i]);
                }
            }
    if (window.startNs < window.endNs) {
        window.label = "range " + inQuotes(name);
        return window;
    }
    // Name the most frequent ranges, so that a typo is easy to see.
    std::vector<uint32_t> names;
    for (uint32_t id = 0; id < countOfName.size(); ++id)
        if (countOfName[id] > 0)
            names.push_back(id);
    if (names.empty()) {
        *error = "no range named " + inQuotes(name) + ": the session has no ranges";
        return std::nullopt;
    }
    constexpr size_t kNamesShown = 5;
    const size_t shown = std::min(kNamesShown, names.size());
    std::partial_sort(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shown),
                      names.end(), [&](uint32_t a, uint32_t b) {
                          return countOfName[a] != countOfName[b] ? countOfName[a] > countOfName[b]
                                                                  : a < b;
                      });
    *error = "no range named " + inQuotes(name) + "; the session's ranges include ";
    for (size_t i = 0; i < shown; ++i)
        *error += (i > 0 ? ", " : "") + inQuotes(session.strings[names[i]]);
    if (names.size() > shown)
        *error += " and " + std::to_string(names.size() - shown) + " more";
    return std::nullopt;
}

// ---- time ranges ----

// "2.5s", "100ms", "750us", "750µs", "10ns", "5" (seconds): a non-negative duration in ns.
std::optional<int64_t> parseDuration(std::string_view text) {
    double value = 0;
    const char* end = text.data() + text.size();
    auto [unit, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || !std::isfinite(value) || value < 0)
        return std::nullopt;
    static constexpr std::pair<std::string_view, double> kUnits[] = {
        {"", 1e9}, {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"µs", 1e3}, {"ns", 1}};
    const std::string_view suffix(unit, static_cast<size_t>(end - unit));
    for (const auto& [name, nanoseconds] : kUnits)
        if (suffix == name && value * nanoseconds < 9e18)
            return std::llround(value * nanoseconds);
    return std::nullopt;
}

std::optional<AnalysisWindow> timeWindow(std::string_view spec, size_t colon,
                                         const Session& session, std::string* error) {
    const std::string_view startText = spec.substr(0, colon), endText = spec.substr(colon + 1);
    const std::optional<int64_t> start =
        startText.empty() ? std::optional<int64_t>(0) : parseDuration(startText);
    const std::optional<int64_t> end =
        endText.empty() ? std::optional(session.durationNs()) : parseDuration(endText);
    for (const auto& [text, value] : {std::pair(startText, start), std::pair(endText, end)})
        if (!value) {
            *error = inQuotes(text) + " in " + inQuotes(spec) +
                     " is not a time; use a number with s, ms, us or ns (seconds without a unit)";
            return std::nullopt;
        }
    if (*start >= session.durationNs()) {
        *error = "the window starts at " + formatDuration(*start) + ", after the session ends (" +
                 formatDuration(session.durationNs()) + " after its start)";
        return std::nullopt;
    }
    if (*end <= *start) {
        *error = "the end (" + formatDuration(*end) + ") must come after the start (" +
                 formatDuration(*start) + ") in " + inQuotes(spec);
        return std::nullopt;
    }
    AnalysisWindow window;
    window.kind = AnalysisWindow::Kind::Time;
    window.startNs = session.startNs + *start;
    window.endNs = session.startNs + std::min(*end, session.durationNs());
    window.label = "time range";
    return window;
}

} // namespace

int64_t AnalysisWindow::overlapNs(int64_t start, int64_t end) const {
    return std::max<int64_t>(0, std::min(end, endNs) - std::max(start, startNs));
}

int64_t AnalysisWindow::overlapNs(const BusyIntervals& busy) const {
    int64_t total = 0;
    for (auto i = static_cast<size_t>(std::max<int64_t>(0, busy.lastStartingAtOrBefore(startNs)));
         i < busy.size() && busy.start[i] < endNs; ++i)
        total += overlapNs(busy.start[i], busy.end[i]);
    return total;
}

AnalysisWindow sessionWindow(const Session& session) {
    return {AnalysisWindow::Kind::All, session.startNs, session.endNs, "whole session"};
}

AnalysisWindow activeWindow(const Session& session) {
    // From the first kernel: the copies that upload a model come before the libraries' start-up
    // (cuBLAS handles, autotuning), which is not the run's work.
    int64_t firstKernel = std::numeric_limits<int64_t>::max();
    int64_t first = std::numeric_limits<int64_t>::max();
    int64_t last = std::numeric_limits<int64_t>::min();
    for (const StreamLane& lane : session.streamLanes) {
        if (!lane.kernels.empty())
            firstKernel = std::min(firstKernel, lane.kernels.start.front());
        for (const IntervalColumns* columns : {static_cast<const IntervalColumns*>(&lane.kernels),
                                               static_cast<const IntervalColumns*>(&lane.memcpys),
                                               static_cast<const IntervalColumns*>(&lane.memsets)})
            if (!columns->empty()) {
                first = std::min(first, columns->start.front());
                last = std::max(last, lastEnd(*columns));
            }
    }
    if (first > last)
        return {AnalysisWindow::Kind::Active, session.startNs, session.endNs,
                "whole session (no GPU work)"};
    if (firstKernel <= last)
        first = firstKernel;
    return {AnalysisWindow::Kind::Active, first, last, "active (first kernel to last GPU work)"};
}

AnalysisWindow defaultWindow(const Session& session) {
    const AnalysisWindow active = activeWindow(session);
    const SteadyState loop =
        findSteadyState(session, findSteps(session).spans, active.startNs, active.endNs);
    if (!loop.found())
        return active;
    AnalysisWindow window{AnalysisWindow::Kind::Loop, loop.startNs, loop.endNs,
                          "loop: " + loop.description()};
    window.steps = loop.steps;
    window.loop = loop;
    return window;
}

std::optional<AnalysisWindow> parseWindow(std::string_view spec, const Session& session,
                                          std::string* error) {
    std::string ignored;
    if (!error)
        error = &ignored;
    if (spec == "loop")
        return defaultWindow(session);
    if (spec == "active")
        return activeWindow(session);
    if (spec == "all")
        return sessionWindow(session);
    if (startsWith(spec, "steps:"))
        return stepsWindow(spec.substr(6), session, error);
    if (startsWith(spec, "range:"))
        return rangeWindow(spec.substr(6), session, error);
    if (const size_t colon = spec.find(':'); colon != std::string_view::npos)
        return timeWindow(spec, colon, session, error);
    *error = (spec.empty() ? std::string("an empty window") : inQuotes(spec) + " is not a window") +
             "; use " + std::string(kWindowSpecForms);
    return std::nullopt;
}

namespace {
bool stepMiddleIn(const std::pair<int64_t, int64_t>& step, int64_t startNs, int64_t endNs) {
    const int64_t middle = step.first + (step.second - step.first) / 2;
    return middle >= startNs && middle <= endNs;
}
} // namespace

int64_t stepsInWindow(const Session& session, int64_t startNs, int64_t endNs) {
    int64_t count = 0;
    for (const auto& step : findSteps(session).spans)
        count += stepMiddleIn(step, startNs, endNs) ? 1 : 0;
    return count;
}

std::optional<int64_t> firstStepInWindow(const Session& session, int64_t startNs, int64_t endNs) {
    for (const auto& step : findSteps(session).spans) // in start order
        if (stepMiddleIn(step, startNs, endNs))
            return step.first;
    return std::nullopt;
}

} // namespace stallscope::model

namespace stallscope::model {

std::optional<std::pair<int64_t, int64_t>> stepContaining(const Session& session, int64_t t) {
    for (const auto& step : findSteps(session).spans)
        if (t >= step.first && t < step.second)
            return step;
    return std::nullopt;
}

} // namespace stallscope::model
