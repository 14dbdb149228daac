// NcclCollectives (recorder/nccl_collectives.h), fed the way NCCL's profiler plugin feeds it, and
// the EXTERNAL_CORRELATION records that join its calls to their launch, through the decoder and
// the sink into collective_calls rows. No GPU: CUPTI may refuse the tag's push without a driver,
// which changes nothing here (the records are built by hand).
#include "format/session_schema.h"
#include "format/sqlite_database.h"
#include "recorder/activity_decoder.h"
#include "recorder/nccl_collectives.h"
#include "recorder/session_sink.h"
#include "tests/recorder/scratch_session.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <cupti.h>
#include <unistd.h>

#include <QtTest>

#include <cstring>

using namespace stallscope::recorder;
namespace fmt = stallscope::format;
using stallscope::testing::ScratchSession;

namespace {

// Each row of `sql` on the file at `path`, its columns joined by "|" (NULL as ""); none when the
// file cannot be opened (which fails the test, and no query here expects no rows).
QStringList rows(const QString& path, const char* sql) {
    fmt::Database db;
    std::string error;
    if (!db.open(path.toStdString(), fmt::Database::Mode::ReadOnly, &error)) {
        STALLSCOPE_FAIL("cannot open %s: %s", qPrintable(path), error.c_str());
        return {};
    }
    fmt::Statement statement = db.prepare(sql);
    QStringList out;
    while (statement.step()) {
        QStringList columns;
        for (int i = 0; i < statement.columnCount(); ++i)
            columns << (statement.isNull(i) ? QString()
                                            : QString::fromStdString(statement.text(i)));
        out << columns.join('|');
    }
    return out;
}

// What the plugin does when NCCL launches the calls noted on this thread: the launch's tag (CUPTI
// may refuse the push without a driver; the tag is given all the same).
uint64_t launchNotedCalls() {
    if (NcclCollectives::beginLaunch())
        NcclCollectives::endLaunch();
    return NcclCollectives::launchesTagged();
}

} // namespace

class TestNcclCollectives : public QObject {
    Q_OBJECT
private slots:
    // NCCL's calls on a thread go with the launch that follows (NcclCollectives, fed by its
    // profiler plugin); CUPTI's EXTERNAL_CORRELATION record of the launch joins them to its
    // correlation id, once; another tool's tags are not ours.
    void ncclCallsJoinTheirLaunch() {
        QCOMPARE(NcclCollectives::elementBytes("ncclBfloat16"), 2);
        QCOMPARE(NcclCollectives::elementBytes("ncclFloat64"), 8);
        QCOMPARE(NcclCollectives::elementBytes("Unknown"), 0);
        const uint64_t before = NcclCollectives::launchesTagged();
        QVERIFY(!NcclCollectives::beginLaunch()); // no calls: nothing to tag
        QCOMPARE(NcclCollectives::launchesTagged(), before);
        NcclCollectives::noteCall("AllReduce", 1 << 20, "ncclFloat32");
        NcclCollectives::noteCall("Broadcast", 1000, "ncclInt64");
        NcclCollectives::noteCall("AllReduce", 24, "ncclFloat32");
        const uint64_t grouped = launchNotedCalls();
        QCOMPARE(grouped, before + 1);
        NcclCollectives::noteCall("Send", 10, "Unknown");
        const uint64_t unsized = launchNotedCalls();
        QCOMPARE(unsized, grouped + 1);

        auto record = [](uint64_t id, uint32_t correlation, CUpti_ExternalCorrelationKind kind) {
            CUpti_ActivityExternalCorrelation r;
            memset(&r, 0, sizeof(r));
            r.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
            r.externalKind = kind;
            r.externalId = id;
            r.correlationId = correlation;
            return r;
        };
        ActivityBatch batch;
        const auto ours = record(grouped, 77, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2);
        const auto again = record(grouped, 78, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2);
        const auto kineto = record(unsized, 79, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
        const auto send = record(unsized, 80, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2);
        QVERIFY(ActivityDecoder::decodeRecord(&ours, &batch));
        QVERIFY(ActivityDecoder::decodeRecord(&again, &batch)); // a second call in the region
        QVERIFY(!ActivityDecoder::decodeRecord(&kineto, &batch));
        QVERIFY(ActivityDecoder::decodeRecord(&send, &batch));
        QCOMPARE(batch.records.size(), size_t(3));
        QCOMPARE(batch.unknownRecords, uint32_t(0));

        ScratchSession session("nccl.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        SessionSink sink(session.writer.get());
        sink.beginProcess(getpid(), "host", "test", 1);
        sink.consumeBatch(batch);
        sink.finishProcess(10000);
        QVERIFY(session.writer->finish(fmt::kStatusComplete));
        QCOMPARE(rows(session.path, "select correlation_id, process_id, function, datatype, count,"
                                    " bytes, calls from collective_calls order by id"),
                 (QStringList{QString("77|%1|AllReduce+Broadcast||%2|%3|3")
                                  .arg(sink.processId())
                                  .arg((1 << 20) + 1000 + 24) // elements of the three calls
                                  .arg((4 << 20) + 8000 + 96),
                              QString("80|%1|Send|Unknown|10||1").arg(sink.processId())}));
        QCOMPARE(rows(session.path, "select value from meta where key = 'nccl_collective_calls'"),
                 QStringList{"2"});

        // A group of a Reduce after an AllReduce names both (a name is a whole part).
        NcclCollectives::noteCall("AllReduce", 1, "ncclFloat32");
        NcclCollectives::noteCall("Reduce", 1, "ncclFloat32");
        NcclCollectives::noteCall("AllReduce", 1, "ncclFloat32");
        const auto mixed = NcclCollectives::take(launchNotedCalls());
        QVERIFY(mixed);
        QCOMPARE(QString::fromStdString(mixed->function), QString("AllReduce+Reduce"));

        // The launches waiting for the writer are a bounded ring: a launch 16,384 launches old
        // is gone, the one after it is not.
        NcclCollectives::noteCall("AllReduce", 1, "ncclFloat32");
        const uint64_t oldest = launchNotedCalls();
        for (int i = 0; i < 16384; ++i) {
            NcclCollectives::noteCall("AllReduce", 1, "ncclFloat32");
            launchNotedCalls();
        }
        QVERIFY(!NcclCollectives::take(oldest));
        QVERIFY(NcclCollectives::take(oldest + 1));
        QVERIFY(!NcclCollectives::take(oldest + 1)); // once
        QVERIFY(NcclCollectives::take(NcclCollectives::launchesTagged()));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestNcclCollectives)
#include "test_nccl_collectives.moc"
