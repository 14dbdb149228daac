// Helpers of the what-if replay tests (test_whatif_replay, test_whatif_recorder_cost): a session's
// run graph, its syncs by stack, loop step times, the end of its GPU work, and the check that the
// unmodified replay reproduces it.
#pragma once

#include "model/session/session.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"
#include "tests/support/test_failure.h"

#include <QTest>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace stallscope::testing {

struct Built {
    std::shared_ptr<model::Session> session;
    std::vector<model::CudaEventInfo> events;
    model::whatif::RunGraph graph;
};

// The session at `path` and its run graph; null when it cannot be loaded or the build stops (which
// fails the test).
[[nodiscard]] inline std::unique_ptr<Built> buildGraph(const std::string& path) {
    auto built = std::make_unique<Built>();
    auto result = model::SessionLoader::load(path);
    if (!result.ok()) {
        STALLSCOPE_FAIL("cannot load %s: %s", path.c_str(), result.error.c_str());
        return nullptr;
    }
    built->session = std::move(result.session);
    model::SessionDatabase database;
    std::string error;
    if (database.open(path, &error))
        built->events = database.cudaEvents();
    if (!built->graph.build(*built->session, built->events, nullptr)) {
        STALLSCOPE_FAIL("%s: the run graph's build stopped", path.c_str());
        return nullptr;
    }
    return built;
}

// Where the replayed window ends with `change` applied (default replay options).
inline int64_t replayedEnd(const Built& built, const model::whatif::WhatIf& change) {
    return model::whatif::Replayer(built.graph).replay(change, {}).windowEndNs;
}

// Every sync of `lane` whose stack is `stack`.
inline std::vector<model::EventRef> syncsOfStack(const model::Session& session, int64_t stack) {
    std::vector<model::EventRef> refs;
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const model::SyncColumns& syncs = session.hostLanes[l].syncs;
        for (size_t i = 0; i < syncs.size(); ++i)
            if (syncs.stackId[i] == stack)
                refs.push_back(
                    model::EventRef::sync(static_cast<int32_t>(l), static_cast<uint32_t>(i)));
    }
    return refs;
}

// The start times of `steps` loop steps `period` apart from 1 ms on.
inline std::vector<int64_t> stepStarts(int steps, int64_t period) {
    std::vector<int64_t> starts;
    for (int i = 0; i < steps; ++i)
        starts.push_back(1'000'000 + period * i);
    return starts;
}

inline int64_t lastGpuEnd(const model::Session& session) {
    int64_t end = 0;
    for (const model::StreamLane& lane : session.streamLanes)
        for (const model::IntervalColumns* columns :
             {static_cast<const model::IntervalColumns*>(&lane.kernels),
              static_cast<const model::IntervalColumns*>(&lane.memcpys),
              static_cast<const model::IntervalColumns*>(&lane.memsets)})
            if (!columns->empty())
                end = std::max(end, *std::max_element(columns->end.begin(), columns->end.end()));
    return end;
}

// The unmodified replay of the session at `path` moves nothing and ends where the GPU work ends.
inline void checkReplayIdentity(const std::string& path) {
    const std::unique_ptr<Built> built = buildGraph(path);
    QVERIFY(built);
    model::whatif::ReplayOptions options;
    options.keepShifts = true;
    const model::whatif::ReplayResult result =
        model::whatif::Replayer(built->graph).replay(model::whatif::WhatIf{}, options);
    QVERIFY(!result.cancelled);
    QCOMPARE(result.forcedNodes, int64_t(0));
    QCOMPARE(result.stepShift.size(), built->graph.stepCount());
    QCOMPARE(result.opEndShift.size(), built->graph.opCount());
    const auto moved = [](const std::vector<int64_t>& shifts) {
        return std::count_if(shifts.begin(), shifts.end(), [](int64_t s) { return s != 0; });
    };
    QCOMPARE(moved(result.stepShift), 0);
    QCOMPARE(moved(result.opEndShift), 0);
    if (built->graph.opCount() > 0)
        QCOMPARE(result.windowEndNs, std::max(lastGpuEnd(*built->session), result.windowEndNs));
}

} // namespace stallscope::testing
