// AnalysisWindow: the stretch of a session whose shares and severities matter. By default the
// active window, from the first to the last GPU work, so that Python imports and CUDA start-up
// before it (often seconds) do not dilute every share; or what the user picks: profiler steps,
// an NVTX range, a time range (`stallscope --insights --window SPEC`, docs/insights.md).
#pragma once

#include "model/analysis/interval_merge.h"
#include "model/analysis/steady_state.h"
#include "model/session/session.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stallscope::model {

struct AnalysisWindow {
    enum class Kind : uint8_t { Loop, Active, All, Steps, Range, Time };
    AnalysisWindow() = default;
    AnalysisWindow(Kind kind_, int64_t startNs_, int64_t endNs_, std::string label_)
        : kind(kind_), startNs(startNs_), endNs(endNs_), label(std::move(label_)) {}

    Kind kind = Kind::All;
    int64_t startNs = 0; // session clock (absolute, like the events)
    int64_t endNs = 0;
    // What was picked, without the times: "active (first kernel to last GPU work)", "whole
    // session", "steps 10–20 (ProfilerStep#N)", "range \"train\"", "time range".
    std::string label;
    // The loop's steps in it (Loop, Steps), so that savings and shares read per step; 0 otherwise.
    int64_t steps = 0;
    // Loop: the loop that was found (its warm-up before the window, its tail after).
    SteadyState loop;

    int64_t durationNs() const { return endNs - startNs; }
    bool contains(int64_t t) const { return t >= startNs && t < endNs; }
    bool overlaps(int64_t start, int64_t end) const { return start < endNs && end > startNs; }
    // The part of [start, end) inside the window; 0 when they do not overlap.
    int64_t overlapNs(int64_t start, int64_t end) const;
    // The busy time of `busy` inside the window (binary search, then the overlapping intervals).
    int64_t overlapNs(const BusyIntervals& busy) const;
};

// The default: the program's loop, its steady state (model/analysis/steady_state.h), where one is
// found; else the active window.
AnalysisWindow defaultWindow(const Session& session);
// The session span (session start to session end).
AnalysisWindow sessionWindow(const Session& session);
// First start to last end of any kernel, memcpy or memset; the session span (labelled so) when
// the session has no GPU work.
AnalysisWindow activeWindow(const Session& session);

// How many steps (as parseWindow's steps:A-B finds them) have their middle in [startNs, endNs];
// 0 when the session has none.
int64_t stepsInWindow(const Session& session, int64_t startNs, int64_t endNs);
// The start of the first of those steps; none when stepsInWindow would be 0. Two runs compared per
// step line up on it (views/compare).
std::optional<int64_t> firstStepInWindow(const Session& session, int64_t startNs, int64_t endNs);

// The step (as above) whose span holds t: the report's zoomed "stalled step"; none when no step
// does or the session has none.
std::optional<std::pair<int64_t, int64_t>> stepContaining(const Session& session, int64_t t);

// The forms parseWindow reads, for usage texts.
inline constexpr std::string_view kWindowSpecForms =
    "loop (the default: the program's loop, found from its steps or its repeating kernels), "
    "active (first kernel to last GPU work), all (the whole session), steps:A-B (profiler "
    "steps A to B, 1-based), range:NAME (an NVTX range or profiler scope) or START:END (time "
    "from the session start: 2.5s:7s, 100ms:900ms, 5: to the end; seconds without a unit)";

// `spec` as above. A step is a range named ProfilerStep#N (torch.profiler traces), else an NVTX
// range whose name starts with "step" (any case); steps are taken from the one thread with the
// most, at their outermost depth. Time windows are clipped to the session. On a bad spec returns
// nothing and sets `error` to one sentence that says what is wrong and what would work.
std::optional<AnalysisWindow> parseWindow(std::string_view spec, const Session& session,
                                          std::string* error);

} // namespace stallscope::model
