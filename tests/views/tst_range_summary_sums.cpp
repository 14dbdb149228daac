// RangeSummary over the small session (tests/support/small_session.h), whose every interval is a
// round number: the whole session, a clipped range, and ranges that touch events only at an end.
// GPU busy is the union of the device's work (not the sum), blocked time sums the clipped syncs of
// every thread, and an event ending exactly where the range starts is not in it.
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/support/small_session.h"
#include "tests/support/test_suite.h"
#include "views/timeline/range_summary.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using views::RangeSummary;

class TestRangeSummarySums : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        const std::string path = m_dir.filePath("small.stallscope").toStdString();
        QVERIFY(testing::writeSmallSession(path));
        auto result = model::SessionLoader::load(path);
        QVERIFY2(result.ok(), result.error.c_str());
        m_session = std::move(result.session);
    }

    void wholeSession() {
        const RangeSummary s = RangeSummary::compute(*m_session, 0, 100'000);
        QCOMPARE(s.apiCalls, int64_t(4));
        QCOMPARE(s.kernels, int64_t(3));
        QCOMPARE(s.memcpys, int64_t(1));
        QCOMPARE(s.memsets, int64_t(1));
        QCOMPARE(s.ranges, int64_t(2));
        QCOMPARE(s.hostSyncs, int64_t(2));
        // Stream sync [5.1, 19.9] µs on the main thread + pageable copy [20.5, 23.5] µs on the
        // loader thread.
        QCOMPARE(s.blockedNs, int64_t(14'800 + 3'000));
        QCOMPARE(s.syncsByKind[int(format::SyncKind::Stream)], int64_t(1));
        QCOMPARE(s.syncsByKind[int(format::SyncKind::PageableCopy)], int64_t(1));
        // Memset [1.5, 1.8], kernels back to back [3, 18], copy [21, 23] µs: one device.
        QCOMPARE(s.devices.size(), size_t(1));
        QCOMPARE(s.devices[0].busyNs, int64_t(300 + 15'000 + 2'000));
        QCOMPARE(s.devices[0].busyShare, 17'300 / 100'000.0);
        QCOMPARE(s.gpuBusyShare, 17'300 / 100'000.0);
    }

    void clippedRange() {
        // Reversed ends are the same range.
        const RangeSummary s = RangeSummary::compute(*m_session, 21'000, 6'000);
        QCOMPARE(s.startNs, int64_t(6'000));
        QCOMPARE(s.endNs, int64_t(21'000));
        QCOMPARE(s.kernels, int64_t(3)); // [3, 8] reaches in; [12, 18] is the last
        QCOMPARE(s.memcpys, int64_t(0)); // starts exactly at the range's end
        QCOMPARE(s.memsets, int64_t(0));
        QCOMPARE(s.devices.at(0).busyNs, int64_t(18'000 - 6'000));
        QCOMPARE(s.blockedNs, int64_t((19'900 - 6'000) + (21'000 - 20'500)));
        QCOMPARE(s.hostSyncs, int64_t(2));
    }

    // [18, 21) µs holds no GPU work: the last kernel ends at its start, the copy starts at its end.
    // One nanosecond wider on each side holds one nanosecond of each.
    void touchingEndsAreOutside() {
        const RangeSummary empty = RangeSummary::compute(*m_session, 18'000, 21'000);
        QCOMPARE(empty.kernels, int64_t(0));
        QCOMPARE(empty.memcpys, int64_t(0));
        QCOMPARE(empty.devices.at(0).busyNs, int64_t(0));
        const RangeSummary wider = RangeSummary::compute(*m_session, 17'999, 21'001);
        QCOMPARE(wider.kernels, int64_t(1));
        QCOMPARE(wider.memcpys, int64_t(1));
        QCOMPARE(wider.devices.at(0).busyNs, int64_t(2));
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<model::Session> m_session;
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRangeSummarySums)
#include "tst_range_summary_sums.moc"
