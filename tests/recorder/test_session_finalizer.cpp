// SessionFinalizer's summary (stallscope-record's last line): kernels, copies, stacks, dropped
// records, and the syncs that block the host with their blocked time — a stream's wait for an
// event is recorded for its link but blocks nothing, so it is left out of both. Its status and
// exit code land in the file.
#include "format/session_meta.h"
#include "format/session_writer.h"
#include "recorder/session_finalizer.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using recorder::SessionFinalizer;

class TestSessionFinalizer : public QObject {
    Q_OBJECT
private slots:
    void summaryCountsTheBlockingSyncs() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("run.stallscope").toStdString();
        std::string error;
        auto writer = format::SessionWriter::create(path, &error);
        QVERIFY2(writer, error.c_str());
        format::ProcessRow process;
        process.pid = 77;
        process.startNs = 1'000;
        const int64_t pid = writer->addProcess(process);
        const int64_t thread = writer->addThread({pid, 77, "main"});
        format::DeviceRow device;
        device.processId = pid;
        device.name = "GPU";
        const int64_t stream = writer->addStream({writer->addDevice(device), 1, 7, false, 0});
        for (int i = 0; i < 2; ++i)
            writer->addKernel({stream, writer->internString("gemm"), 10'000 + i * 1'000,
                               10'500 + i * 1'000, i + 1});
        const format::SyncKind kinds[] = {
            format::SyncKind::Stream, format::SyncKind::StreamWaitEvent, format::SyncKind::Device};
        const int64_t lengths[] = {3'000, 50'000, 4'000};
        for (int i = 0; i < 3; ++i) {
            format::SyncRow sync;
            sync.threadId = thread;
            sync.kind = kinds[i];
            sync.startNs = 20'000 + i * 100'000;
            sync.endNs = sync.startNs + lengths[i];
            sync.correlationId = 10 + i;
            writer->addSync(sync);
        }
        QVERIFY2(writer->finish(format::kStatusComplete), writer->lastError().c_str());
        writer.reset();

        SessionFinalizer::Outcome outcome;
        outcome.pid = 77;
        outcome.exitCode = 3;
        outcome.startNs = 1'000;
        outcome.endNs = 900'000;
        SessionFinalizer::Summary summary;
        QVERIFY2(SessionFinalizer::finalize(path, outcome, &summary, &error), error.c_str());
        QCOMPARE(summary.status, std::string(format::kStatusComplete));
        QCOMPARE(summary.kernels, int64_t(2));
        QCOMPARE(summary.syncs, int64_t(2));         // not the stream's wait
        QCOMPARE(summary.blockedNs, int64_t(7'000)); // 3 µs + 4 µs
        QCOMPARE(summary.memcpys, int64_t(0));
        QCOMPARE(summary.dropped, int64_t(0));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestSessionFinalizer)
#include "test_session_finalizer.moc"
