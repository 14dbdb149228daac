// The session summary (`stallscope --info`, the top of the main window) over the small session:
// every count row, the event total equal to the sum of the per-kind rows, the first and the last
// row, and the formatting of counts and durations at their boundaries.
#include "model/session/session_loader.h"
#include "model/session/session_summary.h"
#include "tests/support/small_session.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace stallscope;

class TestSessionSummaryNumbers : public QObject {
    Q_OBJECT
private slots:
    void countsAndTotal() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("small.stallscope").toStdString();
        QVERIFY(testing::writeSmallSession(path));
        auto loaded = model::SessionLoader::load(path);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const auto summary = model::SessionSummary::of(*loaded.session);
        std::map<std::string, std::string> value(summary.rows.begin(), summary.rows.end());
        QCOMPARE(value["Processes"], std::string("1"));
        QCOMPARE(value["Threads"], std::string("2"));
        QCOMPARE(value["Streams"], std::string("2"));
        QCOMPARE(value["GPUs"], std::string("NVIDIA H100 80GB HBM3 (sm_90)"));
        QCOMPARE(value["Kernels"], std::string("3"));
        QCOMPARE(value["Memcpys"], std::string("1"));
        QCOMPARE(value["Memsets"], std::string("1"));
        QCOMPARE(value["Syncs"], std::string("2"));
        QCOMPARE(value["API calls"], std::string("4"));
        QCOMPARE(value["Ranges"], std::string("2"));
        QCOMPARE(value["Dropped records"], std::string("3"));
        int64_t sum = 0;
        for (const char* kind : {"Kernels", "Memcpys", "Memsets", "Syncs", "API calls", "Ranges"})
            sum += std::stoll(value[kind]);
        QCOMPARE(value["Events"], std::to_string(sum));
        QCOMPARE(summary.rows.front().first, std::string("File"));
        QCOMPARE(summary.rows.front().second, path);
        QCOMPARE(summary.rows.back().first, std::string("Status"));
        QCOMPARE(summary.rows.back().second, std::string("complete, exit code 0"));
    }

    // A light recording says why it has no API calls; the counts still add up.
    void lightRecordingSaysWhyNoCalls() {
        const auto loaded = model::SessionLoader::load(
            STALLSCOPE_SOURCE_DIR "/tests/model/data/light-pageable-copy.stallscope");
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const auto summary = model::SessionSummary::of(*loaded.session);
        std::map<std::string, std::string> value(summary.rows.begin(), summary.rows.end());
        QCOMPARE(value["API calls"], std::string("0 (light recording)"));
        QCOMPARE(value["Kernels"], std::string("5,881"));
        QCOMPARE(value["Events"], std::string("9,691"));
    }

    // Each unit from its first value to its last; never an exponent ("1e+03 µs").
    void durationUnits() {
        QCOMPARE(model::formatDuration(999), std::string("999 ns"));
        QCOMPARE(model::formatDuration(1'000), std::string("1 µs"));
        QCOMPARE(model::formatDuration(2'234), std::string("2.23 µs"));
        QCOMPARE(model::formatDuration(999'499), std::string("999 µs"));
        QCOMPARE(model::formatDuration(999'999), std::string("1 ms"));
        QCOMPARE(model::formatDuration(2'230'000), std::string("2.23 ms"));
        QCOMPARE(model::formatDuration(999'499'999), std::string("999 ms"));
        QCOMPARE(model::formatDuration(999'999'999), std::string("1.000 s"));
        QCOMPARE(model::formatDuration(-2'230'000), std::string("-2.23 ms"));
    }

    void countGrouping() {
        QCOMPARE(model::formatCount(0), std::string("0"));
        QCOMPARE(model::formatCount(999), std::string("999"));
        QCOMPARE(model::formatCount(1'000), std::string("1,000"));
        QCOMPARE(model::formatCount(999'999), std::string("999,999"));
        QCOMPARE(model::formatCount(1'000'000), std::string("1,000,000"));
        QCOMPARE(model::formatCount(10'000'000), std::string("10,000,000"));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestSessionSummaryNumbers)
#include "test_session_summary_numbers.moc"
