// CI tests of the recorder (no GPU needed): decoding of synthetic CUDA 13 CUPTI records, the API
// callback path with hand-made callback data, correlation joins, stack interning, the unwinder, the
// module table across dlopen, crash safety of the writer, fork handling.
#include "recorder/activity_decoder.h"
#include "recorder/api_classifier.h"
#include "recorder/callback_handler.h"
#include "recorder/event_ring.h"
#include "recorder/module_table.h"
#include "recorder/recorder.h"
#include "recorder/recorder_config.h"
#include "recorder/session_sink.h"
#include "recorder/stack_unwinder.h"

#include "format/session_writer.h"
#include "tests/recorder/scratch_session.h"
#include "tests/recorder/session_query.h"
#include "tests/support/test_suite.h"
#include <cupti.h>
#include <dlfcn.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using namespace stallscope::recorder;
namespace fmt = stallscope::format;
using stallscope::testing::queryInt;
using stallscope::testing::queryText;
using stallscope::testing::ScratchSession;

namespace {

std::vector<HostEvent> drainAll() {
    std::vector<HostEvent> events;
    EventRing::forEach(
        [](EventRing* ring, void* out) {
            ring->drain([out](const HostEvent& e) {
                static_cast<std::vector<HostEvent>*>(out)->push_back(e);
            });
        },
        &events);
    return events;
}

CUpti_CallbackData callbackData(CUpti_ApiCallbackSite site, uint32_t correlation) {
    CUpti_CallbackData data;
    memset(&data, 0, sizeof(data));
    data.callbackSite = site;
    data.correlationId = correlation;
    data.functionName = "cudaStreamSynchronize";
    return data;
}

} // namespace

// The sync "call site" of the callback tests: its address must appear in the captured stack.
extern "C" __attribute__((noinline)) void stallscopeTestSyncSite(CallbackHandler* handler,
                                                                 uint32_t correlation) {
    CUpti_CallbackData enter = callbackData(CUPTI_API_ENTER, correlation);
    handler->onApi(ApiClassifier::kRuntimeDomain,
                   CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &enter);
    CUpti_CallbackData exit = callbackData(CUPTI_API_EXIT, correlation);
    handler->onApi(ApiClassifier::kRuntimeDomain,
                   CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &exit);
    asm volatile("" ::: "memory"); // keep the calls from becoming tail calls
}
extern "C" __attribute__((noinline)) void stallscopeTestSyncSiteEnd() {
    asm volatile("");
}

class TestRecorder : public QObject {
    Q_OBJECT

private:
    ApiClassifier m_classifier;

private slots:
    void initTestCase() {
        m_classifier.set(ApiClassifier::kRuntimeDomain,
                         CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
                         ApiClass::StreamSync);
        m_classifier.set(ApiClassifier::kRuntimeDomain, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
                         ApiClass::CopySync);
        m_classifier.set(ApiClassifier::kDriverDomain, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
                         ApiClass::StreamSync);
    }

    void configFromEnvironment() {
        qputenv("STALLSCOPE_OUTPUT", "/tmp/x-%p.stallscope");
        qputenv("STALLSCOPE_KINDS", "kernel,sync");
        qputenv("STALLSCOPE_STACKS", "0");
        qputenv("STALLSCOPE_BUFFER_SIZE", "2M");
        qputenv("STALLSCOPE_FLUSH_MS", "5000");
        std::string warnings;
        RecorderConfig c = RecorderConfig::fromEnvironment(&warnings);
        QVERIFY(warnings.empty());
        QCOMPARE(c.outputPathFor(42), std::string("/tmp/x-42.stallscope"));
        QVERIFY(c.kernels && c.syncs && !c.memcpy && !c.runtimeApi && !c.stacks);
        QCOMPARE(c.bufferBytes, uint64_t(2) << 20);
        QCOMPARE(c.flushMs, 1000); // clamped: commits at least once a second
        for (const char* v : {"STALLSCOPE_OUTPUT", "STALLSCOPE_KINDS", "STALLSCOPE_STACKS",
                              "STALLSCOPE_BUFFER_SIZE", "STALLSCOPE_FLUSH_MS"})
            qunsetenv(v);
        RecorderConfig child;
        child.outputPattern = "/tmp/run.stallscope";
        child.rootPid = 10;
        QCOMPARE(child.outputPathFor(10), std::string("/tmp/run.stallscope"));
        QCOMPARE(child.outputPathFor(11), std::string("/tmp/run.11.stallscope"));
        QVERIFY(!child.applyKinds("bogus", &warnings));
    }

    void decodeSyntheticRecords() {
        ActivityBatch batch;
        CUpti_ActivityKernel10 kernel;
        memset(&kernel, 0, sizeof(kernel));
        kernel.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        kernel.start = 1000;
        kernel.end = 2500;
        kernel.deviceId = 0;
        kernel.contextId = 1;
        kernel.streamId = 7;
        kernel.correlationId = 99;
        kernel.gridX = 128;
        kernel.gridY = 1;
        kernel.gridZ = 1;
        kernel.blockX = 256;
        kernel.blockY = 1;
        kernel.blockZ = 1;
        kernel.registersPerThread = 32;
        kernel.dynamicSharedMemory = 1024;
        kernel.name = "my_kernel";
        QVERIFY(ActivityDecoder::decodeRecord(&kernel, &batch));
        CUpti_ActivityMemcpy6 copy;
        memset(&copy, 0, sizeof(copy));
        copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
        copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
        copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
        copy.bytes = 4096;
        copy.correlationId = 100;
        copy.streamId = 7;
        copy.contextId = 1;
        QVERIFY(ActivityDecoder::decodeRecord(&copy, &batch));
        CUpti_ActivitySynchronization2 sync;
        memset(&sync, 0, sizeof(sync));
        sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
        sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
        sync.start = 3000;
        sync.end = 9000;
        sync.correlationId = 101;
        sync.contextId = 1;
        sync.streamId = 7;
        sync.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
        QVERIFY(ActivityDecoder::decodeRecord(&sync, &batch));
        CUpti_ActivityAPI api;
        memset(&api, 0, sizeof(api));
        api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
        api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
        api.start = 2990;
        api.end = 9010;
        api.threadId = 1234;
        api.correlationId = 101;
        QVERIFY(ActivityDecoder::decodeRecord(&api, &batch));
        CUpti_ActivityOverhead3 overhead;
        memset(&overhead, 0, sizeof(overhead));
        overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
        QVERIFY(!ActivityDecoder::decodeRecord(&overhead, &batch));

        QCOMPARE(batch.records.size(), size_t(4));
        const ActivityRecord& k = batch.records[0];
        QCOMPARE(k.kind, ActivityRecord::Kind::Kernel);
        QCOMPARE(batch.text(k.nameOffset, k.nameLength), std::string_view("my_kernel"));
        QCOMPARE(k.grid[0], 128);
        QCOMPARE(k.registers, 32);
        QCOMPARE(k.dynamicShared, 1024);
        QCOMPARE(batch.records[1].dstKind, uint8_t(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE));
        QCOMPARE(batch.records[2].syncType,
                 uint32_t(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE));
        QCOMPARE(batch.records[2].eventId, ActivityRecord::kInvalid);
        QCOMPARE(batch.records[3].tid, 1234);
        QCOMPARE(batch.records[3].domain, uint8_t(2));
    }

    void callbackEnterExitCapturesStack() {
        drainAll();
        CallbackHandler handler(&m_classifier);
        handler.setStacks(true, 64);
        stallscopeTestSyncSite(&handler, 101);
        std::vector<HostEvent> events = drainAll();
        QCOMPARE(events.size(), size_t(1));
        const HostEvent& e = events[0];
        QCOMPARE(e.correlationId, 101u);
        QCOMPARE(ApiClass(e.apiClass), ApiClass::StreamSync);
        QVERIFY(e.endNs >= e.startNs);
        QVERIFY(e.depth > 2);
        QVERIFY(e.captureNs > 0);
        auto begin = reinterpret_cast<uintptr_t>(&stallscopeTestSyncSite);
        bool found = false;
        for (int i = 0; i < e.depth; ++i)
            found |= e.pcs[i] > begin && e.pcs[i] < begin + 512;
        QVERIFY2(found, "the calling function's address is in the stack");

        // A driver-API callback nested in a runtime call adds nothing; a disabled handler nothing.
        CUpti_CallbackData enter = callbackData(CUPTI_API_ENTER, 5);
        handler.onApi(ApiClassifier::kRuntimeDomain,
                      CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &enter);
        CUpti_CallbackData inner = callbackData(CUPTI_API_ENTER, 6);
        handler.onApi(ApiClassifier::kDriverDomain, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
                      &inner);
        inner.callbackSite = CUPTI_API_EXIT;
        handler.onApi(ApiClassifier::kDriverDomain, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
                      &inner);
        enter.callbackSite = CUPTI_API_EXIT;
        handler.onApi(ApiClassifier::kRuntimeDomain,
                      CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &enter);
        QCOMPARE(drainAll().size(), size_t(1));
        handler.setEnabled(false);
        stallscopeTestSyncSite(&handler, 7);
        QCOMPARE(drainAll().size(), size_t(0));
    }

    void sinkJoinsAndInternsStacks() {
        ScratchSession session("join.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        SessionSink sink(session.writer.get());
        sink.beginProcess(getpid(), "host", "test", 1);
        drainAll();
        CallbackHandler handler(&m_classifier);
        for (uint32_t correlation : {201u, 202u, 203u})
            stallscopeTestSyncSite(&handler, correlation); // same site: one interned stack
        std::vector<HostEvent> events = drainAll();
        QCOMPARE(events.size(), size_t(3));
        // Order 1: host event first, then the activity record.
        sink.consumeHostEvent(events[0]);
        ActivityBatch batch;
        ActivityRecord sync;
        sync.kind = ActivityRecord::Kind::Sync;
        sync.syncType = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
        sync.correlationId = 201;
        sync.contextId = 1;
        sync.streamId = 7;
        sync.startNs = 100;
        sync.endNs = 200;
        batch.records.push_back(sync);
        // Order 2: the activity record first.
        sync.correlationId = 202;
        sync.syncType = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
        sync.streamId = ActivityRecord::kInvalid;
        batch.records.push_back(sync);
        sink.consumeBatch(batch);
        sink.consumeHostEvent(events[1]);
        // No record at all (e.g. SYNCHRONIZATION disabled): emitted on expiry, with its stack.
        sink.consumeHostEvent(events[2]);
        sink.expirePending(INT64_MAX, 0);
        sink.finishProcess(1000);
        QVERIFY(session.writer->finish(fmt::kStatusComplete));
        QCOMPARE(queryInt(session.path, "select count(*) from syncs"), 3);
        QCOMPARE(queryInt(session.path, "select count(*) from syncs where stack_id is not null"),
                 3);
        QCOMPARE(queryInt(session.path, "select count(*) from stacks"), 1);
        QCOMPARE(queryInt(session.path,
                          "select count(*) from syncs where kind = 2 and correlation_id = 202"),
                 1);
        QCOMPARE(
            queryInt(
                session.path,
                "select count(*) from syncs where correlation_id = 201 and stream_id is not null"),
            1);
        QVERIFY(queryInt(session.path, "select count(*) from modules") > 2);
        // Frames point into modules: the test executable is among them.
        QVERIFY(queryInt(session.path, "select count(*) from frames where module_id is not null") >
                0);
    }

    // Without CUPTI's SYNCHRONIZATION records (the default) each sync is the callback's host event:
    // written at once with its stack, host interval, correlation id and the stream the callback
    // noted; a device sync names no stream. A late record for it (were the records on after all)
    // must not make a second row.
    void sinkTakesSyncsFromCallbacks() {
        ScratchSession session("callback-syncs.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        SessionSink sink(session.writer.get());
        sink.setSyncRecords(false);
        sink.beginProcess(getpid(), "host", "test", 1);
        drainAll();
        CallbackHandler handler(&m_classifier);
        // One call site (a volatile count: no unrolled copies), so both stacks are the same.
        volatile uint32_t calls = 2;
        for (uint32_t i = 0; i < calls; ++i)
            stallscopeTestSyncSite(&handler, 301 + i);
        std::vector<HostEvent> events = drainAll();
        QCOMPARE(events.size(), size_t(2));
        // The first walk from this loop meets new PCs; the second, the same stack, only cached
        // ones.
        QVERIFY(events[0].captureMisses > 0);
        QCOMPARE(int(events[1].captureMisses), 0);
        events[0].captureNs = 9'000;
        events[1].captureNs = 400;
        events[0].contextId = 1;
        events[0].streamId = 7;
        events[0].deviceId = 1; // the second GPU, named before CUPTI's DEVICE record arrives
        events[0].startNs = 1'000;
        events[0].endNs = 5'000;
        events[1].apiClass = uint8_t(ApiClass::DeviceSync);
        sink.consumeHostEvent(events[0]);
        sink.consumeHostEvent(events[1]);
        ActivityBatch late;
        ActivityRecord sync;
        sync.kind = ActivityRecord::Kind::Sync;
        sync.syncType = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
        sync.correlationId = 301;
        sync.startNs = 2'000;
        sync.endNs = 3'000;
        late.records.push_back(sync);
        ActivityRecord device;
        device.kind = ActivityRecord::Kind::Device;
        device.deviceId = 1;
        device.nameOffset = uint32_t(late.arena.size());
        late.arena += "NVIDIA H200";
        device.nameLength = uint32_t(late.arena.size()) - device.nameOffset;
        device.computeMajor = 9;
        device.value = 132;
        late.records.push_back(device);
        sink.consumeBatch(late);
        sink.expirePending(INT64_MAX, 0);
        sink.finishProcess(10'000);
        QVERIFY(session.writer->finish(fmt::kStatusComplete));
        QCOMPARE(queryInt(session.path, "select count(*) from syncs"), 2);
        QCOMPARE(queryInt(session.path, "select count(*) from syncs where stack_id is not null"),
                 2);
        QCOMPARE(queryInt(session.path,
                          "select end_ns - start_ns from syncs where correlation_id = 301"),
                 4'000);
        QCOMPARE(queryInt(session.path, "select s.stream_id from syncs y join streams s on "
                                        "s.id = y.stream_id where y.correlation_id = 301"),
                 7);
        // The stream is on the GPU the callback named (not GPU 0), whose row the late DEVICE
        // record completed rather than adding a second one.
        QCOMPARE(queryInt(session.path, "select d.device_index from syncs y join streams s on "
                                        "s.id = y.stream_id join devices d on d.id = s.device_id "
                                        "where y.correlation_id = 301"),
                 1);
        QCOMPARE(queryInt(session.path, "select count(*) from devices"), 1);
        QCOMPARE(queryInt(session.path,
                          "select count(*) from devices where name = 'NVIDIA H200' and "
                          "device_index = 1 and compute_major = 9 and sm_count = 132"),
                 1);
        QCOMPARE(queryInt(session.path, "select count(*) from syncs where correlation_id = 302 "
                                        "and kind = 2 and stream_id is null"),
                 1);
        // Capture times, all and split by warm (every rule cached) and cold.
        auto meta = [&](const char* key) {
            return queryInt(session.path,
                            qPrintable(QString("select cast(value as integer) from meta where "
                                               "key = '%1'")
                                           .arg(key)));
        };
        QCOMPARE(meta("stack_capture_count"), 2);
        QCOMPARE(meta("stack_capture_warm_count"), 1);
        QCOMPARE(meta("stack_capture_warm_median_ns"), 400);
        QCOMPARE(meta("stack_capture_cold_count"), 1);
        QCOMPARE(meta("stack_capture_cold_median_ns"), 9'000);
    }

    // Records without a valid span (zero times from a forced flush during teardown, an end before
    // the start) are counted in `dropped` by reason and never become events; a record on the
    // edge (zero duration) is kept.
    void sinkDropsRecordsWithoutValidSpan() {
        ScratchSession session("spans.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        SessionSink sink(session.writer.get());
        sink.beginProcess(getpid(), "host", "test", 1);
        ActivityBatch batch;
        auto add = [&batch](ActivityRecord::Kind kind, int64_t start, int64_t end) {
            ActivityRecord r;
            r.kind = kind;
            r.startNs = start;
            r.endNs = end;
            r.contextId = 1;
            r.streamId = 7;
            r.correlationId = uint32_t(batch.records.size() + 1);
            batch.records.push_back(r);
        };
        add(ActivityRecord::Kind::Kernel, 1000, 2000); // kept
        add(ActivityRecord::Kind::Kernel, 3000, 3000); // kept: zero duration is a span
        add(ActivityRecord::Kind::Kernel, 0, 0);       // incomplete
        add(ActivityRecord::Kind::Kernel, 4000, 0);    // incomplete
        add(ActivityRecord::Kind::Memcpy, 0, 5000);    // incomplete
        add(ActivityRecord::Kind::Memset, 6000, 5999); // end before start
        add(ActivityRecord::Kind::Api, 7000, 6000);    // end before start
        add(ActivityRecord::Kind::Api, 7000, 7100);    // kept
        sink.consumeBatch(batch);
        sink.finishProcess(10000);
        QVERIFY(session.writer->finish(fmt::kStatusComplete));
        QCOMPARE(queryInt(session.path, "select count(*) from kernels"), 2);
        QCOMPARE(queryInt(session.path, "select min(start_ns) from kernels"), 1000);
        QCOMPARE(queryInt(session.path, "select count(*) from memcpys"), 0);
        QCOMPARE(queryInt(session.path, "select count(*) from memsets"), 0);
        QCOMPARE(queryInt(session.path, "select count(*) from api_calls"), 1);
        QCOMPARE(queryInt(session.path, "select sum(count) from dropped where source = "
                                        "'incomplete-record'"),
                 3);
        QCOMPARE(queryInt(session.path, "select sum(count) from dropped where source = "
                                        "'end-before-start'"),
                 2);
        QCOMPARE(sink.stats().droppedRecords, 5);
    }

    // Which copies block the host: every synchronous cudaMemcpy, and an async one whose host side
    // is pageable memory, either way (the driver stages it, so the host waits).
    void copySyncKinds_data() {
        QTest::addColumn<int>("apiClass");
        QTest::addColumn<int>("copyKind");
        QTest::addColumn<int>("srcKind");
        QTest::addColumn<int>("dstKind");
        QTest::addColumn<int>("expectedSyncKind"); // 0: no sync
        const int sync = int(ApiClass::CopySync), async = int(ApiClass::CopyAsync);
        const int dtoh = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, htod = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
        const int pageable = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
        const int pinned = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
        const int device = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
        QTest::newRow("sync DtoH pageable")
            << sync << dtoh << device << pageable << int(fmt::SyncKind::PageableCopy);
        QTest::newRow("sync DtoH pinned")
            << sync << dtoh << device << pinned << int(fmt::SyncKind::BlockingCopy);
        QTest::newRow("sync HtoD pinned")
            << sync << htod << pinned << device << int(fmt::SyncKind::BlockingCopy);
        QTest::newRow("sync HtoD pageable")
            << sync << htod << pageable << device << int(fmt::SyncKind::PageableCopy);
        QTest::newRow("async DtoH pageable")
            << async << dtoh << device << pageable << int(fmt::SyncKind::PageableCopy);
        QTest::newRow("async DtoH pinned") << async << dtoh << device << pinned << 0;
        QTest::newRow("async HtoD pinned") << async << htod << pinned << device << 0;
        QTest::newRow("async HtoD pageable")
            << async << htod << pageable << device << int(fmt::SyncKind::PageableCopy);
    }

    void copySyncKinds() {
        QFETCH(int, apiClass);
        QFETCH(int, copyKind);
        QFETCH(int, srcKind);
        QFETCH(int, dstKind);
        QFETCH(int, expectedSyncKind);
        ScratchSession session("copy.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        SessionSink sink(session.writer.get());
        sink.beginProcess(getpid(), "host", "test", 1);
        HostEvent e;
        e.apiClass = uint8_t(apiClass);
        e.correlationId = 300;
        e.tid = getpid();
        e.startNs = 10;
        e.endNs = 50;
        sink.consumeHostEvent(e);
        ActivityBatch batch;
        ActivityRecord copy;
        copy.kind = ActivityRecord::Kind::Memcpy;
        copy.copyKind = uint8_t(copyKind);
        copy.srcKind = uint8_t(srcKind);
        copy.dstKind = uint8_t(dstKind);
        copy.correlationId = 300;
        copy.bytes = 1 << 20;
        copy.startNs = 20;
        copy.endNs = 45;
        batch.records.push_back(copy);
        sink.consumeBatch(batch);
        sink.finishProcess(100);
        QVERIFY(session.writer->finish(fmt::kStatusComplete));
        if (expectedSyncKind == 0) {
            QCOMPARE(queryInt(session.path, "select count(*) from syncs"), 0);
            return;
        }
        QCOMPARE(queryInt(session.path, "select count(*) from syncs"), 1);
        QCOMPARE(queryInt(session.path, "select kind from syncs"), int64_t(expectedSyncKind));
        QCOMPARE(queryInt(session.path, "select end_ns - start_ns from syncs"), 40);
        QCOMPARE(queryInt(session.path, "select correlation_id from syncs"), 300);
    }

    void moduleTableAcrossDlopen() {
        ModuleTable table;
        std::vector<ModuleTable::Module> first = table.refresh();
        QVERIFY(!first.empty());
        QVERIFY(!table.changed());
        QVERIFY(table.refresh().empty());
        void* handle = dlopen(STALLSCOPE_TINY_MODULE, RTLD_NOW);
        QVERIFY2(handle, dlerror());
        QVERIFY(table.changed());
        std::vector<ModuleTable::Module> added = table.refresh();
        QCOMPARE(added.size(), size_t(1));
        QVERIFY(added[0].path.find("stallscope_tiny_module") != std::string::npos);
        QCOMPARE(added[0].buildId.size(), size_t(40)); // GNU build-id: SHA-1
        auto pc = reinterpret_cast<uintptr_t>(dlsym(handle, "stallscopeTinyModuleFunction"));
        int index = table.find(pc);
        QVERIFY(index >= 0);
        QCOMPARE(table.modules()[size_t(index)].path, added[0].path);
        dlclose(handle);
    }

    void writerSurvivesSigkill() {
        QTemporaryDir dir;
        QString path = dir.filePath("killed.stallscope");
        int ready[2];
        QVERIFY(pipe(ready) == 0);
        pid_t child = fork();
        if (child == 0) {
            std::string error;
            auto writer = fmt::SessionWriter::create(path.toStdString(), &error);
            SessionSink sink(writer.get());
            sink.beginProcess(getpid(), "host", "child", 1);
            ActivityBatch batch;
            ActivityRecord kernel;
            kernel.kind = ActivityRecord::Kind::Kernel;
            kernel.startNs = 100;
            kernel.endNs = 200;
            for (int i = 0; i < 1000; ++i)
                batch.records.push_back(kernel);
            sink.consumeBatch(batch);
            writer->commit();
            (void)!write(ready[1], "x", 1);
            for (;;) { // keeps writing uncommitted rows until killed
                sink.consumeBatch(batch);
                usleep(1000);
            }
        }
        char c;
        QCOMPARE(read(ready[0], &c, 1), ssize_t(1));
        usleep(20000);
        kill(child, SIGKILL);
        int status = 0;
        waitpid(child, &status, 0);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(queryText(path, "select value from meta where key = 'status'"),
                 QString("recording"));
        int64_t kernels = queryInt(path, "select count(*) from kernels");
        QVERIFY2(kernels >= 1000, qPrintable(QString::number(kernels)));
        QCOMPARE(queryInt(path, "select count(*) from processes"), 1);
    }

    void forkDisablesRecordingInChild() {
        // The child handler installed by pthread_atfork: recording stops, nothing is written.
        drainAll();
        pid_t child = fork();
        if (child == 0) {
            Recorder::instance().onForkChild();
            bool quiet =
                !Recorder::instance().handler().enabled() && !Recorder::instance().active();
            _exit(quiet ? 0 : 1);
        }
        int status = 0;
        waitpid(child, &status, 0);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        QVERIFY(Recorder::instance().handler().enabled()); // the parent is untouched
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRecorder)
#include "tst_recorder.moc"
