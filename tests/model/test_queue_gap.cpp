// The replay's queue gap (Latencies::queueGapNs, what a queued operation waits after its stream
// predecessor) is read off operations that waited at the GPU: launched at least a launch latency
// before their predecessor ended. In a launch-bound loop each kernel is launched while its short
// predecessor still runs and starts a launch latency after its call; that gap is the host's pace,
// and taken for the queue's it kept the GPU at the recorded pace in every replay, so a fix that
// sped the host up saved nothing (bench/corpus assert_all_nonneg: 0 predicted, 8 % measured).
#include "model/whatif/run_graph.h"
#include "tests/model/insight_fixture.h"
#include "tests/model/whatif_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using testing::InsightFixture;

class TestQueueGap : public QObject {
    Q_OBJECT
private slots:
    // A kernel launched every 8 µs, each starting 6 µs after its call and running 3 µs: each is
    // launched 1 µs before its predecessor ends and starts 5 µs after it. Every fourth step the
    // host takes 4 µs longer (the next launch finds the stream idle: the launch latency). Every
    // tenth step launches a second kernel 600 ns after the first, which waits at the GPU and
    // starts 800 ns after the first one ends: the only queue gap.
    void launchBoundKernelsAreNoQueueGap() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("paced.stallscope").toStdString();
        InsightFixture f(file, 10'000'000);
        int64_t t = 100'000;
        for (int step = 0; step < 200; ++step, t += step % 4 == 0 ? 12'000 : 8'000) {
            f.launch(t, t + 6'000, t + 9'000);
            if (step % 10 == 5) {
                f.launch(t + 600, t + 9'800, t + 10'800);
                t += 2'000; // the next launch after the pair's end, as the host paces them
            }
        }
        QVERIFY(f.load().ok());
        const std::unique_ptr<testing::Built> built = testing::buildGraph(file);
        QVERIFY(built);
        QCOMPARE(built->graph.latencies().launchNs, int64_t(6'000));
        QCOMPARE(built->graph.latencies().queueGapNs, int64_t(800));
        testing::checkReplayIdentity(file);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestQueueGap)
#include "test_queue_gap.moc"
