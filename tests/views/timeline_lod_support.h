// Helpers of the level-of-detail suites: a viewport over a range, evenly spaced events, and a
// one-thread session of API calls with one sync.
#pragma once

#include "model/session/session.h"
#include "views/timeline/timeline_viewport.h"

#include <memory>

namespace lodtest {

using namespace stallscope;

inline views::TimelineViewport viewportOver(int64_t start, int64_t end, int width) {
    views::TimelineViewport viewport;
    viewport.setOrigin(start);
    viewport.setWidth(width);
    viewport.setDataRange(start, end);
    viewport.setVisibleRange(start, end);
    return viewport;
}

// n back-to-back events of `duration` every `period` ns from 0.
inline model::IntervalColumns evenly(size_t n, int64_t period, int64_t duration) {
    model::IntervalColumns columns;
    for (size_t i = 0; i < n; ++i)
        columns.pushInterval(int64_t(i) * period, int64_t(i) * period + duration, uint32_t(i));
    return columns;
}

// A session with one host thread: `calls` API calls (1 µs every 2 µs) and one sync.
inline std::shared_ptr<model::Session> hostSession(size_t calls, int64_t syncStart,
                                                   int64_t syncEnd) {
    auto session = std::make_shared<model::Session>();
    session->strings = {"", "cudaLaunchKernel", "cudaStreamSynchronize"};
    session->processes.push_back({});
    model::ThreadInfo thread;
    thread.processIndex = 0;
    thread.tid = 1;
    thread.name = "main";
    session->threads.push_back(thread);
    model::HostLane lane;
    lane.threadIndex = 0;
    for (size_t i = 0; i < calls; ++i) {
        lane.apiCalls.pushInterval(int64_t(i) * 2'000, int64_t(i) * 2'000 + 1'000, uint32_t(i));
        lane.apiCalls.nameId.push_back(1);
        lane.apiCalls.correlationId.push_back(uint32_t(i));
    }
    lane.syncs.pushInterval(syncStart, syncEnd, 0);
    lane.syncs.kind.push_back(1);
    lane.syncs.correlationId.push_back(0);
    lane.syncs.streamIndex.push_back(-1);
    lane.syncs.stackId.push_back(0);
    lane.syncs.eventId.push_back(-1);
    session->hostLanes.push_back(std::move(lane));
    session->counts.apiCalls = int64_t(calls);
    session->counts.syncs = 1;
    session->startNs = 0;
    session->endNs = int64_t(calls) * 2'000;
    return session;
}

} // namespace lodtest
