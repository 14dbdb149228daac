// The loader: lanes per thread and stream, time order, binary search by time, progress,
// cancellation and the background job.
#include "format/session_writer.h"
#include "model/jobs/job_tracker.h"
#include "model/session/session_loader.h"
#include "model/session/session_opener.h"
#include "model/session/session_summary.h"
#include "tests/support/small_session.h"
#include "tests/support/test_suite.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <optional>
#include <random>

using namespace stallscope;

class TestSessionLoader : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void lanesFollowThreadsAndStreams();
    void eventsAreSortedByStart();
    void binarySearch_data();
    void binarySearch();
    void firstEndingAfterFindsOverlaps();
    void summaryNamesEverything();
    void progressReachesOne();
    void cancelStopsLoading();
    void trackerLoadsInBackground();
    void trackerReportsFailure();

private:
    QTemporaryDir m_dir;
    std::string m_small;
    std::string m_large;
};

void TestSessionLoader::initTestCase() {
    m_small = m_dir.filePath("small.stallscope").toStdString();
    QVERIFY(testing::writeSmallSession(m_small));
    // 300k kernels in shuffled order on one stream: enough to exercise progress and cancel.
    m_large = m_dir.filePath("large.stallscope").toStdString();
    std::string error;
    auto writer = format::SessionWriter::create(m_large, &error);
    QVERIFY(writer);
    const int64_t process = writer->addProcess({1, "h", "bench", 0, {}, {}});
    const int64_t device = writer->addDevice({process, 0, "GPU", "", 9, 0, 132, 0});
    const int64_t stream = writer->addStream({device, 1, 7, false, 0});
    const int64_t name = writer->internString("k");
    std::vector<int> order(300000);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(7));
    for (int i : order)
        writer->addKernel({stream,
                           name,
                           int64_t(i) * 100,
                           int64_t(i) * 100 + 60,
                           i,
                           {1, 1, 1},
                           {1, 1, 1},
                           0,
                           0,
                           0});
    QVERIFY(writer->finish("complete"));
}

void TestSessionLoader::lanesFollowThreadsAndStreams() {
    auto result = model::SessionLoader::load(m_small);
    QVERIFY2(result.ok(), result.error.c_str());
    const model::Session& s = *result.session;
    QCOMPARE(s.hostLanes.size(), size_t(2));
    QCOMPARE(s.streamLanes.size(), size_t(2));
    QCOMPARE(s.threads[s.hostLanes[0].threadIndex].tid, int64_t(4242));
    QCOMPARE(s.threads[s.hostLanes[1].threadIndex].tid, int64_t(4250));
    QCOMPARE(s.streams[s.streamLanes[0].streamIndex].streamId, int64_t(7));
    QCOMPARE(s.hostLanes[0].apiCalls.size(), size_t(4));
    QCOMPARE(s.hostLanes[1].apiCalls.size(), size_t(0));
    QCOMPARE(s.streamLanes[0].kernels.size(), size_t(3));
    QCOMPARE(s.streamLanes[1].kernels.size(), size_t(0));
    QCOMPARE(s.streamLanes[1].memcpys.size(), size_t(1));
}

void TestSessionLoader::eventsAreSortedByStart() {
    auto result = model::SessionLoader::load(m_small);
    QVERIFY(result.ok());
    const auto& kernels = result.session->streamLanes[0].kernels;
    QCOMPARE(kernels.start, (std::vector<int64_t>{3000, 8000, 12000}));
    QCOMPARE(kernels.end, (std::vector<int64_t>{8000, 12000, 18000}));
    // The kind-specific columns moved with their rows.
    QCOMPARE(kernels.correlationId, (std::vector<uint32_t>{1, 2, 3}));
    QCOMPARE(result.session->string(kernels.nameId[0]), std::string("sm90_gemm_bf16"));
    QCOMPARE(kernels.maxDuration, int64_t(6000));

    auto large = model::SessionLoader::load(m_large);
    QVERIFY(large.ok());
    const auto& many = large.session->streamLanes[0].kernels;
    QCOMPARE(many.size(), size_t(300000));
    QVERIFY(many.isSorted());
    for (size_t i = 0; i < many.size(); i += 997)
        QCOMPARE(many.correlationId[i], uint32_t(i));
}

void TestSessionLoader::binarySearch_data() {
    QTest::addColumn<qint64>("time");
    QTest::addColumn<int>("atIndex"); // findAt, -1 for none
    QTest::addColumn<int>("firstAtOrAfter");
    QTest::newRow("before all") << qint64(0) << -1 << 0;
    QTest::newRow("first start") << qint64(3000) << 0 << 0;
    QTest::newRow("inside first") << qint64(5000) << 0 << 1;
    QTest::newRow("boundary 1|2") << qint64(8000) << 1 << 1;
    QTest::newRow("inside last") << qint64(17999) << 2 << 3;
    QTest::newRow("last end") << qint64(18000) << -1 << 3;
    QTest::newRow("after all") << qint64(50000) << -1 << 3;
}

void TestSessionLoader::binarySearch() {
    QFETCH(qint64, time);
    QFETCH(int, atIndex);
    QFETCH(int, firstAtOrAfter);
    auto result = model::SessionLoader::load(m_small);
    QVERIFY(result.ok());
    const auto& kernels = result.session->streamLanes[0].kernels;
    const size_t found = kernels.findAt(time);
    QCOMPARE(found == model::IntervalColumns::npos ? -1 : int(found), atIndex);
    QCOMPARE(int(kernels.firstStartingAtOrAfter(time)), firstAtOrAfter);
}

void TestSessionLoader::firstEndingAfterFindsOverlaps() {
    auto result = model::SessionLoader::load(m_large);
    QVERIFY(result.ok());
    const auto& kernels = result.session->streamLanes[0].kernels;
    // Kernel i spans [100 i, 100 i + 60).
    QCOMPARE(kernels.firstEndingAfter(12345 * 100 + 30), size_t(12345));
    QCOMPARE(kernels.firstEndingAfter(12345 * 100 + 70), size_t(12346));
    QCOMPARE(kernels.findAt(12345 * 100 + 59), size_t(12345));
    QCOMPARE(kernels.findAt(12345 * 100 + 60), model::IntervalColumns::npos);
}

void TestSessionLoader::summaryNamesEverything() {
    auto result = model::SessionLoader::load(m_small);
    QVERIFY(result.ok());
    const std::string text = model::SessionSummary::of(*result.session).toText();
    for (const char* expected :
         {"python train.py --epochs 1", "gpu-box", "NVIDIA H100 80GB HBM3 (sm_90)",
          "Kernels:", "Syncs:", "complete, exit code 0", "Dropped records:", "99 µs"})
        QVERIFY2(text.find(expected) != std::string::npos, (expected + ("\n" + text)).c_str());
    QCOMPARE(model::formatCount(10000000), std::string("10,000,000"));
    QCOMPARE(model::formatDuration(850), std::string("850 ns"));
    QCOMPARE(model::formatDuration(73'580'000'000), std::string("73.580 s"));
    QCOMPARE(model::formatBytes(1536 * 1024), std::string("1.5 MiB"));
}

void TestSessionLoader::progressReachesOne() {
    std::vector<double> seen;
    model::LoadOptions options;
    options.progress = [&](double fraction) { seen.push_back(fraction); };
    auto result = model::SessionLoader::load(m_large, options);
    QVERIFY(result.ok());
    QVERIFY(!seen.empty());
    QCOMPARE(seen.back(), 1.0);
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
}

void TestSessionLoader::cancelStopsLoading() {
    std::atomic<bool> cancel{true};
    model::LoadOptions options;
    options.cancel = &cancel;
    auto result = model::SessionLoader::load(m_large, options);
    QVERIFY(!result.ok());
    QVERIFY(result.cancelled);
}

namespace {

// How the app loads: SessionOpener::open run by a JobTracker, progress and cancel handed through.
void startLoad(model::JobTracker& tracker, const std::string& path,
               std::optional<model::LoadResult>* delivered) {
    tracker.start(
        [path](const model::JobControl& job) {
            model::LoadOptions options;
            options.cancel = job.cancelFlag();
            options.progress = [&job](double fraction) { job.reportProgress(fraction); };
            return model::SessionOpener().open(path, options);
        },
        [delivered](model::LoadResult result) { *delivered = std::move(result); });
}

} // namespace

void TestSessionLoader::trackerLoadsInBackground() {
    model::JobTracker tracker;
    QSignalSpy progress(&tracker, &model::JobTracker::progress);
    std::optional<model::LoadResult> result;
    startLoad(tracker, m_large, &result);
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 30000);
    QVERIFY(result->ok());
    QCOMPARE(result->session->counts.kernels, int64_t(300000));
    QVERIFY(!progress.isEmpty()); // coalesced, so not every report, but some
    for (const QList<QVariant>& report : progress)
        QVERIFY(report.at(0).toDouble() >= 0.0 && report.at(0).toDouble() <= 1.0);
    QVERIFY(!tracker.isRunning());
}

void TestSessionLoader::trackerReportsFailure() {
    model::JobTracker tracker;
    std::optional<model::LoadResult> result;
    startLoad(tracker, m_dir.filePath("nope.stallscope").toStdString(), &result);
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
    QVERIFY(!result->ok());
    QVERIFY(QString::fromStdString(result->error).contains("nope.stallscope: no such file"));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSessionLoader)
#include "test_session_loader.moc"
