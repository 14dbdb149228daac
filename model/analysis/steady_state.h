// SteadyState: the program's loop, found without help, so that shares and savings are per step of
// the loop and not diluted by start-up, warm-up and the tail (model set-up, cuBLAS handles, lazy
// module loading, evaluation after the loop: often seconds, many times the loop itself).
//
// Found from, in this order:
//  1. the session's steps — ranges named ProfilerStep#N (torch.profiler), else NVTX ranges whose
//     name starts with "step" — less the slow steps at their start (warm-up);
//  2. the period of the kernel sequence on the busiest stream: the smallest number of kernels p
//     after which the kernel names repeat (>= 99 % equal over several periods), one step boundary a
//     period at the kernel of the period that the GPU waited longest for (the natural start of a
//     step: after the host's sync, or its batch preparation) of those its name, or its name and
//     the next few, tell apart; the run of such boundaries that repeat every period, less the
//     slow steps at either end (warm-up; a tail that is not the loop); where one line of a
//     thread is called a whole number of times a period (a sequence that repeats only every 100
//     iterations, batches of several shapes in turn), a step between two of its calls.
// docs/insights.md, "The steady state".
#pragma once

#include "model/session/session.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stallscope::model {

struct SteadyState {
    enum class Source : uint8_t { None, Steps, KernelPeriod };
    Source source = Source::None;
    int64_t startNs = 0;        // the first full step's start (session clock)
    int64_t endNs = 0;          // the last full step's end
    int64_t steps = 0;          // full steps in [startNs, endNs)
    int64_t kernelsPerStep = 0; // KernelPeriod: the period of the kernel sequence
    // KernelPeriod: where a thread syncs regularly several times a period, that many (each a step;
    // kernelsPerStep is then the period's kernels); else 1.
    int64_t syncsPerPeriod = 1;
    // Warm-up: from the first GPU work to startNs; tail: from endNs to the last GPU work.
    int64_t warmupNs = 0;
    int64_t tailNs = 0;

    bool found() const { return source != Source::None; }
    int64_t stepNs() const { return steps > 0 ? (endNs - startNs) / steps : 0; }
    // "200 steps of 4.31 ms (the repeating kernel sequence, 340 kernels a step)".
    std::string description() const;
};

// The fewest steps a loop needs to be called one: of the session's own step ranges, and of a
// repeating kernel sequence (more: a test program's short loop of ten calls is no training loop,
// and the rest of its work would fall outside every share).
inline constexpr int64_t kSteadyStateMinSteps = 5;
inline constexpr int64_t kSteadyStateMinKernelPeriods = 20;
// A step at either end of the loop that takes more than this many times the median step is
// warm-up (lazy loading, autotuning, the first allocations) or not the loop.
inline constexpr double kSteadyStateSlowStepFactor = 2.0;

// A session's steps (start, end), in start order.
using StepSpans = std::vector<std::pair<int64_t, int64_t>>;

// `steps`: the session's step ranges (parseWindow's steps:A-B; empty when it has none);
// [gpuStartNs, gpuEndNs]: its first and last GPU work, for the warm-up and the tail.
SteadyState findSteadyState(const Session& session, const StepSpans& steps, int64_t gpuStartNs,
                            int64_t gpuEndNs);

} // namespace stallscope::model
