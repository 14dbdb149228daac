// The run graph's build (model/whatif/run_graph.cpp): its maps by correlation id, and the build on
// a thread of its own that takes the CUDA events when they come (model::RunGraphBuild). The sync
// matched to its call by correlation id: test_whatif_replay's removedSyncCallDisappears.
#include "model/analysis/simulated_savings.h"
#include "model/testing/synthetic_session.h"
#include "model/whatif/correlation_map.h"
#include "model/whatif/run_graph.h"
#include "tests/model/whatif_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace stallscope;
using model::whatif::RunGraph;
using testing::buildGraph;
using testing::Built;

class TestRunGraphBuild : public QObject {
    Q_OBJECT

private slots:
    void correlationMapKeepsTheFirstValue();
    void graphBuiltOnItsOwnThread();

private:
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

void TestRunGraphBuild::correlationMapKeepsTheFirstValue() {
    using model::whatif::CorrelatedIndex;
    using model::whatif::CorrelationMap;
    using model::whatif::IdRange;
    auto valueOf = [](const CorrelationMap<CorrelatedIndex>& map, uint32_t id) -> int64_t {
        const CorrelatedIndex* found = map.find(id);
        return found ? int64_t{found->value} : -1;
    };
    // Reserved for ids 100..103 (a table), for 1 and 4e9 (hashed), and not reserved at all.
    const std::vector<std::vector<uint32_t>> idSets = {
        {100, 101, 102, 103}, {1, 4'000'000'000u}, {}};
    for (const std::vector<uint32_t>& ids : idSets) {
        CorrelationMap<CorrelatedIndex> map;
        IdRange range;
        range.add(ids);
        range.reserve(map);
        for (uint32_t i = 0; i < ids.size(); ++i)
            map.add(ids[i], {i});
        for (uint32_t i = 0; i < ids.size(); ++i) {
            map.add(ids[i], {100 + i}); // a second value for the id: the first stays
            QCOMPARE(valueOf(map, ids[i]), int64_t{i});
        }
        map.add(7, {42});          // outside any reserved range
        map.add(99, {43});         // just below the table
        map.add(UINT32_MAX, {44}); // the largest id
        QCOMPARE(valueOf(map, 7), int64_t{42});
        QCOMPARE(valueOf(map, 99), int64_t{43});
        QCOMPARE(valueOf(map, UINT32_MAX), int64_t{44});
        QCOMPARE(valueOf(map, 104), int64_t{-1}); // just above the table
        QCOMPARE(valueOf(map, 0), int64_t{-1});
        QCOMPARE(valueOf(map, 2), int64_t{-1});
    }
}

// RunGraphBuild builds on its own thread and takes the CUDA events when they come: the graph is
// the one built in place; without the events it has no event edges; cancelled, none; dropped
// unused, it ends.
void TestRunGraphBuild::graphBuiltOnItsOwnThread() {
    model::SyntheticOptions options;
    options.targetEvents = 20'000;
    options.seed = 11;
    const std::string file = path("own_thread.stallscope");
    std::string error;
    QVERIFY2(model::writeSyntheticSession(file, options, nullptr, &error), error.c_str());
    const std::unique_ptr<Built> inPlace = buildGraph(file);
    QVERIFY(inPlace);
    QVERIFY(!inPlace->events.empty());
    QVERIFY(!inPlace->graph.eventDependencies().empty());
    const model::Session& session = *inPlace->session;

    auto awaitedOf = [](const RunGraph& graph) {
        std::vector<uint32_t> all;
        for (size_t l = 0; l < graph.threads().size(); ++l) {
            const auto lane = static_cast<int32_t>(l);
            for (uint32_t s = 0; s + 1 < graph.threads()[l].awaitedBegin.size(); ++s)
                for (uint32_t op : graph.awaited(lane, s))
                    all.push_back(op);
        }
        return all;
    };
    {
        model::RunGraphBuild build(session, nullptr);
        build.provideCudaEvents(inPlace->events);
        const std::shared_ptr<RunGraph> graph = build.take();
        QVERIFY(graph);
        QCOMPARE(graph->stepCount(), inPlace->graph.stepCount());
        QCOMPARE(graph->opCount(), inPlace->graph.opCount());
        QCOMPARE(graph->eventDependencies(), inPlace->graph.eventDependencies());
        QCOMPARE(graph->handoffs(), inPlace->graph.handoffs());
        QCOMPARE(awaitedOf(*graph), awaitedOf(inPlace->graph));
        QCOMPARE(graph->latencies().wakeNs, inPlace->graph.latencies().wakeNs);
    }
    {
        model::RunGraphBuild build(session, nullptr);
        const std::shared_ptr<RunGraph> graph = build.take(); // no events handed over
        QVERIFY(graph);
        QVERIFY(graph->eventDependencies().empty());
        QCOMPARE(graph->opCount(), inPlace->graph.opCount());
    }
    {
        const std::atomic<bool> cancel{true};
        model::RunGraphBuild build(session, &cancel);
        QVERIFY(!build.take());
    }
    { model::RunGraphBuild unused(session, nullptr); }
}

STALLSCOPE_TEST_GUILESS_MAIN(TestRunGraphBuild)
#include "test_run_graph_build.moc"
