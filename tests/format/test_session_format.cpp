// Round trip of every table: written by format::SessionWriter, read back by the model's reader
// (SessionLoader for the event columns, SessionDatabase for the rest).
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "tests/support/event_counts_text.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/small_session.h"
#include "tests/support/test_suite.h"

#include <QFile>
#include <QTest>

using namespace stallscope;

class TestSessionFormat : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void roundTripDescriptiveTables();
    void roundTripEventTables();
    void roundTripStacksModulesSources();
    void finishedSessionIsOneFile();
    void scratchWriterKeepsNoJournal();
    void writerReportsErrorsWithPath();
    void internedStringsAreShared();

private:
    testing::ScratchDir m_dir;
    // The small session, written, loaded and opened once: the round-trip tests read it back.
    testing::SmallSessionIds m_smallIds;
    model::LoadResult m_loaded;
    model::SessionDatabase m_database;
};

void TestSessionFormat::initTestCase() {
    const std::string file = m_dir.file("small.stallscope");
    const std::optional<testing::SmallSessionIds> ids = testing::writeSmallSession(file);
    QVERIFY(ids);
    m_smallIds = *ids;
    m_loaded = model::SessionLoader::load(file);
    QVERIFY2(m_loaded.ok(), m_loaded.error.c_str());
    std::string error;
    QVERIFY2(m_database.open(file, &error), error.c_str());
}

void TestSessionFormat::roundTripDescriptiveTables() {
    const model::Session& s = *m_loaded.session;
    QCOMPARE(s.formatVersion, format::kFormatVersion);
    QCOMPARE(s.status, std::string("complete"));
    QVERIFY(s.warning.empty());
    QCOMPARE(s.metaValue("command"), std::string("python train.py --epochs 1"));
    QCOMPARE(s.metaValue("clock"), std::string("CLOCK_MONOTONIC"));
    QCOMPARE(s.processes.size(), size_t(1));
    QCOMPARE(s.processes[0].pid, int64_t(4242));
    QCOMPARE(s.processes[0].host, std::string("gpu-box"));
    QCOMPARE(s.processes[0].endNs, std::optional<int64_t>(100000));
    QVERIFY(s.processes[0].exitCode.has_value());
    QCOMPARE(s.threads.size(), size_t(2));
    QCOMPARE(s.threads[0].tid, int64_t(4242));
    QCOMPARE(s.threads[0].name, std::string("python"));
    QCOMPARE(s.threads[1].name, std::string("loader"));
    QCOMPARE(s.devices.size(), size_t(1));
    QCOMPARE(s.devices[0].name, std::string("NVIDIA H100 80GB HBM3"));
    QCOMPARE(s.devices[0].uuid, std::string("GPU-1234"));
    QCOMPARE(s.devices[0].computeMajor, int64_t(9));
    QCOMPARE(s.devices[0].smCount, int64_t(132));
    QCOMPARE(s.devices[0].globalMemoryBytes, int64_t(80) << 30);
    QCOMPARE(s.streams.size(), size_t(2));
    QCOMPARE(s.streams[0].streamId, int64_t(7));
    QCOMPARE(s.streams[1].streamId, int64_t(13));
    QCOMPARE(s.streams[0].deviceIndex, 0);
    QCOMPARE(s.droppedRecords, int64_t(3));
    QCOMPARE(s.streamLabel(s.streams[0]), std::string("GPU 0 · stream 7"));
}

void TestSessionFormat::roundTripEventTables() {
    const model::Session& s = *m_loaded.session;
    QCOMPARE(
        s.counts,
        (format::EventCounts{
            .apiCalls = 4, .syncs = 2, .kernels = 3, .memcpys = 1, .memsets = 1, .ranges = 2}));

    const model::HostLane& main = s.hostLanes[0];
    QCOMPARE(main.apiCalls.size(), size_t(4));
    QCOMPARE(s.string(main.apiCalls.nameId[3]), std::string("cudaStreamSynchronize"));
    QCOMPARE(main.apiCalls.correlationId[3], 4u);
    QCOMPARE(main.syncs.size(), size_t(1));
    QCOMPARE(main.syncs.start[0], int64_t(5100));
    QCOMPARE(main.syncs.end[0], int64_t(19900));
    QCOMPARE(int(main.syncs.kind[0]), int(format::SyncKind::Stream));
    QCOMPARE(main.syncs.streamIndex[0], 0);
    QVERIFY(main.syncs.stackId[0] != 0);
    QCOMPARE(main.rangesByDepth.size(), size_t(2));
    QCOMPARE(s.string(main.rangesByDepth[1].nameId[0]), std::string("forward"));

    const model::HostLane& loader = s.hostLanes[1];
    QCOMPARE(loader.syncs.size(), size_t(1));
    QCOMPARE(int(loader.syncs.kind[0]), int(format::SyncKind::PageableCopy));
    QCOMPARE(loader.syncs.streamIndex[0], -1);
    QCOMPARE(loader.syncs.stackId[0], 0u);

    const model::StreamLane& compute = s.streamLanes[0];
    QCOMPARE(compute.kernels.size(), size_t(3));
    QCOMPARE(s.string(compute.kernels.nameId[0]), std::string("sm90_gemm_bf16"));
    QCOMPARE(compute.kernels.correlationId[2], 3u);
    const model::StreamLane& copies = s.streamLanes[1];
    QCOMPARE(copies.memcpys.bytes[0], uint64_t(4096));
    QCOMPARE(int(copies.memcpys.copyKind[0]), int(format::CopyKind::DtoH));
    QCOMPARE(int(copies.memcpys.dstKind[0]), int(format::MemoryKind::Pageable));
    QCOMPARE(copies.memsets.bytes[0], uint64_t(1 << 20));
    QCOMPARE(s.startNs, int64_t(1000));
    QCOMPARE(s.endNs, int64_t(100000));

    const model::SessionDatabase& db = m_database;
    auto details = db.kernelDetails(compute.kernels.rowId[0]);
    QVERIFY(details);
    QCOMPARE(details->grid[0], 132);
    QCOMPARE(details->grid[1], 2);
    QCOMPARE(details->block[0], 128);
    QCOMPARE(details->registersPerThread, 168);
    QCOMPARE(details->dynamicSharedBytes, 49152);
    const auto events = db.cudaEvents();
    QCOMPARE(events.size(), size_t(1));
    QCOMPARE(events[0].eventId, int64_t(77));
    QCOMPARE(events[0].recordNs, int64_t(18000));
    const auto diagnostics = db.diagnostics();
    QCOMPARE(diagnostics.size(), size_t(1));
    QCOMPARE(diagnostics[0].message, std::string("example diagnostic"));
}

void TestSessionFormat::roundTripStacksModulesSources() {
    const testing::SmallSessionIds& ids = m_smallIds;
    const model::SessionDatabase& db = m_database;
    const auto frames = db.stack(ids.stack);
    QCOMPARE(frames.size(), size_t(2));
    QCOMPARE(frames[0].kind, format::FrameKind::Native);
    QCOMPARE(frames[0].address, int64_t(0x401234));
    QCOMPARE(frames[0].moduleId, ids.module);
    QVERIFY(!frames[0].symbolized);
    QCOMPARE(frames[1].kind, format::FrameKind::Python);
    QCOMPARE(frames[1].file, std::string("/home/u/train.py"));
    QCOMPARE(frames[1].function, std::string("train_step"));
    QCOMPARE(frames[1].line, int64_t(90));
    QVERIFY(frames[1].symbolized);
    QVERIFY(db.stack(0).empty());
    const auto modules = db.modules();
    QCOMPARE(modules.size(), size_t(1));
    QCOMPARE(modules[0].path, std::string("/usr/bin/python3.12"));
    QCOMPARE(modules[0].loadBias, int64_t(0x400000));
    QCOMPARE(modules[0].buildId, std::string("abcdef0123"));
    const auto source = db.source("/home/u/train.py");
    QVERIFY(source);
    QCOMPARE(source->text, std::string("import torch\n"));
    QCOMPARE(source->sha256, std::string("00ff"));
    QVERIFY(!db.source("/nope.py"));
    QCOMPARE(db.sourcePaths(), std::vector<std::string>{"/home/u/train.py"});
}

void TestSessionFormat::finishedSessionIsOneFile() {
    const std::string file = m_dir.file("single.stallscope");
    QVERIFY(testing::writeSmallSession(file));
    QVERIFY(QFile::exists(QString::fromStdString(file)));
    QVERIFY(!QFile::exists(QString::fromStdString(file + "-wal")));
    QVERIFY(!QFile::exists(QString::fromStdString(file + "-shm")));
}

// A recording keeps a write-ahead log while it grows; a scratch file (an import, renamed into
// place when complete) keeps no journal at all. Both finish as one file that loads.
void TestSessionFormat::scratchWriterKeepsNoJournal() {
    using Durability = format::SessionWriter::Durability;
    for (const Durability durability : {Durability::Recording, Durability::Scratch}) {
        const bool scratch = durability == Durability::Scratch;
        const std::string file = m_dir.file(scratch ? "scratch.stallscope" : "recorded.stallscope");
        std::string error;
        auto writer = format::SessionWriter::create(file, &error, durability);
        QVERIFY2(writer, error.c_str());
        const int64_t process = writer->addProcess({42, "host", "train", 1000});
        const int64_t thread = writer->addThread({process, 42, "main"});
        for (int64_t i = 0; i < 1000; ++i) {
            format::ApiCallRow call;
            call.threadId = thread;
            call.nameId = writer->internString("cudaLaunchKernel");
            call.startNs = 1000 + 10 * i;
            call.endNs = call.startNs + 5;
            writer->addApiCall(call);
        }
        QVERIFY(writer->commit());
        auto exists = [&](const char* suffix) {
            return QFile::exists(QString::fromStdString(file + suffix));
        };
        QCOMPARE(exists("-wal"), !scratch);
        QVERIFY(!exists("-journal"));
        QVERIFY(writer->finish("complete"));
        writer.reset();
        QVERIFY(!exists("-wal") && !exists("-shm") && !exists("-journal"));
        const model::LoadResult loaded = model::SessionLoader::load(file);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(loaded.session->counts.apiCalls, int64_t(1000));
    }
}

void TestSessionFormat::writerReportsErrorsWithPath() {
    std::string error;
    auto writer = format::SessionWriter::create("/nonexistent-dir/x.stallscope", &error);
    QVERIFY(!writer);
    QVERIFY2(error.find("/nonexistent-dir/x.stallscope") != std::string::npos, error.c_str());
}

void TestSessionFormat::internedStringsAreShared() {
    std::string error;
    auto writer = format::SessionWriter::create(m_dir.file("strings.stallscope"), &error);
    QVERIFY(writer);
    const int64_t a = writer->internString("kernel_a");
    const int64_t b = writer->internString("kernel_b");
    QVERIFY(a != b);
    QCOMPARE(writer->internString("kernel_a"), a);
    QVERIFY(writer->finish(format::kStatusComplete));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSessionFormat)
#include "test_session_format.moc"
