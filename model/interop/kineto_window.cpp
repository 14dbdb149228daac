#include "model/interop/kineto_window.h"

#include <algorithm>
#include <charconv>

namespace stallscope::model {

namespace {
constexpr std::string_view kStepPrefix = "ProfilerStep#";
}

bool KinetoWindow::isProfilerStep(std::string_view name) {
    return name.size() > kStepPrefix.size() && name.substr(0, kStepPrefix.size()) == kStepPrefix;
}

void KinetoWindow::widen(Bounds& b, int64_t start, int64_t end) {
    b.first = std::min(b.first, start);
    b.last = std::max(b.last, end);
}

void KinetoWindow::addProfilerStep(std::string_view name, int64_t start, int64_t end) {
    widen(m_steps, start, end);
    m_lastStepStart = std::max(m_lastStepStart, start);
    const std::string_view digits = name.substr(kStepPrefix.size());
    int64_t number = 0;
    if (std::from_chars(digits.data(), digits.data() + digits.size(), number).ec == std::errc()) {
        m_firstStep = std::min(m_firstStep, number);
        m_lastStep = std::max(m_lastStep, number);
    }
}

void KinetoWindow::addGpuWork(int64_t start, int64_t end, int64_t correlation) {
    if (start < m_gpu.first)
        m_firstGpuCorrelation = correlation;
    widen(m_gpu, start, end);
}

void KinetoWindow::addCudaCall(int64_t start, int64_t end, int64_t correlation) {
    widen(m_calls, start, end);
    // A launch starts before its operation: a call after the earliest GPU work seen so far
    // cannot have launched the earliest of all. Kineto lists GPU work after the calls, so the
    // earliest kEarlyCalls calls by start are kept (a heap on start), not all of them: the
    // first GPU work's launch is among the first calls of the run.
    if (!m_gpu.empty() && start > m_gpu.first)
        return;
    auto laterStart = [](const auto& a, const auto& b) { return a.second < b.second; };
    m_callStarts.emplace_back(correlation, start);
    std::push_heap(m_callStarts.begin(), m_callStarts.end(), laterStart);
    if (m_callStarts.size() > kEarlyCalls) {
        std::pop_heap(m_callStarts.begin(), m_callStarts.end(), laterStart);
        m_callStarts.pop_back();
    }
}

void KinetoWindow::addProfilerSpan(int64_t start, int64_t end) {
    widen(m_profilerSpan, start, end);
}

void KinetoWindow::addSync(int64_t start, int64_t end) {
    if (!m_gpu.empty() && end >= m_gpu.first)
        widen(m_syncsAfterGpu, start, end);
}

KinetoWindow::Span KinetoWindow::resolve() const {
    Span span;
    if (!m_steps.empty()) {
        span.startNs = m_steps.first;
        span.endNs = m_steps.last;
        const int64_t activityEnd = std::max({m_gpu.last, m_calls.last, m_lastStepStart});
        // A step's Python tail after its last CUDA call is normal; a tail longer than all the
        // steps' activity before it is the profiler's shutdown closing a step left open.
        const bool unclosed = span.endNs - activityEnd > activityEnd - span.startNs;
        if (unclosed)
            span.endNs = activityEnd;
        if (!m_profilerSpan.empty())
            span.endNs = std::max(span.startNs, std::min(span.endNs, m_profilerSpan.last));
        // The GPU work the last step queued runs on after the host left it.
        span.endNs = std::max(span.endNs, m_gpu.last);
        span.label = "profiler steps";
        if (m_firstStep <= m_lastStep)
            span.label += " " + std::to_string(m_firstStep) +
                          (m_firstStep == m_lastStep ? "" : "-" + std::to_string(m_lastStep));
        if (unclosed)
            span.label += " (the last step unclosed: ended with the CUDA activity)";
        return span;
    }
    if (!m_gpu.empty()) {
        span.startNs = std::min(m_gpu.first, m_syncsAfterGpu.first);
        for (const auto& [correlation, start] : m_callStarts)
            if (correlation == m_firstGpuCorrelation)
                span.startNs = std::min(span.startNs, start);
        span.endNs = std::max(m_gpu.last, m_syncsAfterGpu.last);
        span.label = "device activity";
    }
    return span;
}

bool KinetoWindow::Span::clip(int64_t& start, int64_t& end) const {
    if (!valid())
        return true;
    if (end < startNs || start > endNs)
        return false;
    start = std::max(start, startNs);
    end = std::min(end, endNs);
    return true;
}

bool KinetoWindow::writtenRowsOutside(const Span& span) const {
    return std::min(m_gpu.first, m_calls.first) < span.startNs ||
           std::max(m_gpu.last, m_calls.last) > span.endNs;
}

} // namespace stallscope::model
