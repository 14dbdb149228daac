// The insight report's session summary: GPU busy summed over devices (and its share over the
// devices with work), per-device rows, and the top-kernels table — totals, default order, first
// and last rows, and the cut at kTopKernels from both sides. Wall time is 1 ms; shares are over
// the active window (first kernel to last GPU work; tests/model/test_analysis_window.cpp for
// others).
#include "model/analysis/session_statistics.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using testing::InsightFixture;

class TestSessionStatistics : public QObject {
    Q_OBJECT
private slots:
    void gpuBusyOverDevices();
    void topKernelsOrderAndTotals();
    void topKernelsCut();

private:
    std::string path(const std::string& name) { return m_dir.filePath(name.c_str()).toStdString(); }
    // A kernel named `name` on `stream`.
    static void namedKernel(InsightFixture& f, const std::string& name, int64_t stream,
                            int64_t start, int64_t end) {
        format::KernelRow row{
            stream, f.writer().internString(name), start, end, 0, {1, 1, 1}, {1, 1, 1}, 1, 0, 0};
        f.writer().addKernel(row);
    }
    QTemporaryDir m_dir;
};

void TestSessionStatistics::gpuBusyOverDevices() {
    InsightFixture f(path("devices.stallscope"));
    const int64_t second =
        f.writer().addDevice({f.process, 1, "NVIDIA H100", "GPU-2", 9, 0, 132, 0});
    const int64_t secondStream = f.writer().addStream({second, 2, 8, false, 0});
    // Idle in the window, with a stream: listed at 0. Without any stream (CUPTI describes every
    // visible GPU; another rank's): no device of this run, left out.
    const int64_t idle = f.writer().addDevice({f.process, 2, "NVIDIA H100", "GPU-3", 9, 0, 132, 0});
    f.writer().addStream({idle, 3, 9, false, 0});
    f.writer().addDevice({f.process, 3, "NVIDIA H100", "GPU-4", 9, 0, 132, 0});
    f.kernel(0, 100'000);
    f.kernel(50'000, 200'000, 0, f.addStream(9)); // overlaps: the union counts
    f.kernel(100'000, 400'000, 0, secondStream);
    const model::SessionStatistics s = f.load().analyze().summary;
    QVERIFY(f.ok());
    QCOMPARE(s.wallNs, int64_t(1'000'000));
    QCOMPARE(s.windowNs, int64_t(400'000)); // the active window: [0, 400] µs
    QCOMPARE(s.devices.size(), size_t(3));
    QCOMPARE(s.devices[0].busyNs, int64_t(200'000));
    QCOMPARE(s.devices[0].busyShare, 0.5);
    QCOMPARE(s.devices[1].busyNs, int64_t(300'000));
    QCOMPARE(s.devices[1].busyShare, 0.75);
    QCOMPARE(s.devices[2].busyNs, int64_t(0));
    QCOMPARE(s.gpuBusyNs, int64_t(500'000));
    QCOMPARE(s.gpuBusyShare, 0.625); // over the two devices with work
}

void TestSessionStatistics::topKernelsOrderAndTotals() {
    InsightFixture f(path("kernels.stallscope"));
    namedKernel(f, "gemm", f.stream, 0, 100'000);
    namedKernel(f, "gemm", f.stream, 200'000, 300'000);
    namedKernel(f, "relu", f.stream, 400'000, 700'000);
    for (int i = 0; i < 3; ++i)
        namedKernel(f, "tiny", f.stream, 800'000 + 10'000 * i, 801'000 + 10'000 * i);
    const auto top = f.load().analyze().summary.topKernels;
    QVERIFY(f.ok());
    QCOMPARE(top.size(), size_t(3));
    QCOMPARE(top.front().name, std::string("relu"));
    QCOMPARE(top.front().totalNs, int64_t(300'000));
    QCOMPARE(top[1].name, std::string("gemm"));
    QCOMPARE(top[1].count, int64_t(2));
    QCOMPARE(top[1].totalNs, int64_t(200'000));
    QCOMPARE(top.back().name, std::string("tiny"));
    QCOMPARE(top.back().count, int64_t(3));
    QCOMPARE(top.back().totalNs, int64_t(3'000));
    int64_t sum = 0;
    double shares = 0;
    for (const model::KernelStats& k : top) {
        sum += k.totalNs;
        shares += k.shareOfGpu;
    }
    QCOMPARE(sum, int64_t(503'000));
    QCOMPARE(shares, 1.0);
}

// kTopKernels names are all listed; one more and the smallest is left out.
void TestSessionStatistics::topKernelsCut() {
    const size_t cut = model::SessionStatisticsBuilder::kTopKernels;
    QCOMPARE(cut, size_t(10));
    for (size_t names : {cut, cut + 1}) {
        InsightFixture f(path("cut" + std::to_string(names) + ".stallscope"));
        // Kernel i runs (i + 1) µs.
        for (size_t i = 0; i < names; ++i)
            namedKernel(f, "k" + std::to_string(i), f.stream, int64_t(i) * 20'000,
                        int64_t(i) * 20'000 + int64_t(i + 1) * 1'000);
        const auto top = f.load().analyze().summary.topKernels;
        QVERIFY(f.ok());
        QCOMPARE(top.size(), cut);
        QCOMPARE(top.front().name, "k" + std::to_string(names - 1));
        QCOMPARE(top.back().name, "k" + std::to_string(names - cut));
    }
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSessionStatistics)
#include "test_session_statistics.moc"
