// GpuPowerSampler (recorder/gpu_power_sampler.h): which NVML samples count as busy and as held
// back by power, and the meta a recording gets with or without NVML (this machine may have none;
// the GPU machines have it).
#include "format/session_meta.h"
#include "format/sqlite_database.h"
#include "recorder/gpu_power_sampler.h"
#include "tests/recorder/scratch_session.h"
#include "tests/support/test_suite.h"

#include <QtTest>

using stallscope::recorder::GpuPowerSampler;
namespace fmt = stallscope::format;

class TestGpuPowerSampler : public QObject {
    Q_OBJECT
private slots:
    void busyFromNinetyPercent();
    void powerCapAndPowerBrakeCount();
    void aggregatesOverBusySamplesOnly();
    void steadySamplesAndLowestPower();
    void recordingSaysWhetherItSampled();
};

// Utilization 90 % is busy, 89 % is not (kBusyUtilizationPercent).
void TestGpuPowerSampler::busyFromNinetyPercent() {
    QCOMPARE(GpuPowerSampler::kBusyUtilizationPercent, 90u);
    GpuPowerSampler::Stats stats;
    GpuPowerSampler::count(stats, 89, 0x4, 1700, 690'000, 700'000, false);
    QCOMPARE(stats.samples, uint64_t(1));
    QCOMPARE(stats.busySamples, uint64_t(0));
    QCOMPARE(stats.busyPowerCapped, uint64_t(0));
    GpuPowerSampler::count(stats, 90, 0x4, 1700, 690'000, 700'000, false);
    QCOMPARE(stats.samples, uint64_t(2));
    QCOMPARE(stats.busySamples, uint64_t(1));
    QCOMPARE(stats.busyPowerCapped, uint64_t(1));
}

// The software power cap (0x4) and the hardware power brake (0x80) are "held back by power";
// idle (0x1), thermal (0x20, 0x40) and the hardware slowdown (0x8) are not.
void TestGpuPowerSampler::powerCapAndPowerBrakeCount() {
    GpuPowerSampler::Stats stats;
    for (unsigned long long reasons : {0x4ULL, 0x80ULL, 0x84ULL, 0x5ULL})
        GpuPowerSampler::count(stats, 100, reasons, 1600, 700'000, 700'000, false);
    QCOMPARE(stats.busyPowerCapped, uint64_t(4));
    for (unsigned long long reasons : {0x0ULL, 0x1ULL, 0x8ULL, 0x20ULL, 0x40ULL})
        GpuPowerSampler::count(stats, 100, reasons, 1900, 400'000, 700'000, false);
    QCOMPARE(stats.busySamples, uint64_t(9));
    QCOMPARE(stats.busyPowerCapped, uint64_t(4));
}

// Clock and power sums are over the busy samples; the limit is the largest seen on any sample.
void TestGpuPowerSampler::aggregatesOverBusySamplesOnly() {
    GpuPowerSampler::Stats stats;
    GpuPowerSampler::count(stats, 10, 0, 345, 80'000, 650'000, false);
    GpuPowerSampler::count(stats, 95, 0x4, 1650, 695'000, 700'000, false);
    GpuPowerSampler::count(stats, 100, 0x4, 1700, 699'000, 700'000, false);
    QCOMPARE(stats.busySmClockMhzSum, uint64_t(3350));
    QCOMPARE(stats.busyPowerMilliwattSum, uint64_t(1'394'000));
    QCOMPARE(stats.powerLimitMilliwatt, 700'000u);
}

// The power projection's sums are over steady samples that saw a kernel; the lowest power is
// over every sample; a sample without a power reading (0 mW) counts in neither.
void TestGpuPowerSampler::steadySamplesAndLowestPower() {
    GpuPowerSampler::Stats stats;
    GpuPowerSampler::count(stats, 0, 0x1, 345, 82'000, 700'000, false);  // idle
    GpuPowerSampler::count(stats, 60, 0, 1980, 300'000, 700'000, false); // not steady yet
    GpuPowerSampler::count(stats, 60, 0, 1980, 520'000, 700'000, true);
    GpuPowerSampler::count(stats, 56, 0, 1980, 540'000, 700'000, true);
    GpuPowerSampler::count(stats, 0, 0, 1980, 400'000, 700'000, true); // no kernel: not steady
    GpuPowerSampler::count(stats, 70, 0, 1980, 0, 700'000, true);      // no power reading
    GpuPowerSampler::count(stats, 0, 0, 1980, 0, 700'000, false);
    QCOMPARE(stats.samples, uint64_t(7));
    QCOMPARE(stats.steadySamples, uint64_t(2));
    QCOMPARE(stats.steadyPowerMilliwattSum, uint64_t(1'060'000));
    QCOMPARE(stats.minPowerMilliwatt, 82'000u);
    QCOMPARE(GpuPowerSampler::kSteadyAfter, std::chrono::milliseconds(1000));
}

// A recording's meta: gpu_power is "on" with its samples, or says why not and has none.
void TestGpuPowerSampler::recordingSaysWhetherItSampled() {
    stallscope::testing::ScratchSession scratch("power.stallscope");
    QVERIFY2(scratch.writer, scratch.error.c_str());
    GpuPowerSampler sampler;
    sampler.start(200);
    sampler.stop(); // joins the thread: its status is final, whenever it stopped

    sampler.writeStats(*scratch.writer);
    QVERIFY(scratch.writer->finish(fmt::kStatusComplete));

    fmt::Database db;
    std::string error;
    QVERIFY2(db.open(scratch.path.toStdString(), fmt::Database::Mode::ReadOnly, &error),
             error.c_str());
    auto meta = [&db](std::string_view key) {
        fmt::Statement statement = db.prepare("SELECT value FROM meta WHERE key = ?");
        statement.bind(1, std::string(key));
        return statement.step() ? QString::fromStdString(statement.text(0)) : QString();
    };
    const QString status = meta(fmt::meta::kGpuPower);
    QVERIFY(!status.isEmpty());
    QVERIFY(status != "starting");
    if (status != "on") {
        qInfo("no NVML sampling here: %s", qPrintable(status));
        QVERIFY(meta(fmt::meta::kGpuPowerSamples).isEmpty());
    }
}

STALLSCOPE_TEST_GUILESS_MAIN(TestGpuPowerSampler)
#include "test_gpu_power_sampler.moc"
