// Which CUDA calls the recorder cares about (recorder/api_classifier.h) and which asynchronous
// copies get a host event and a stack (CallbackHandler::asyncCopyMayBlock): every copy with a host
// side may be from or into pageable memory, and then blocks the host. A free waits for the device:
// its host event is a sync row of its own.
#include "recorder/api_classifier.h"
#include "recorder/callback_handler.h"
#include "recorder/session_sink.h"

#include "format/session_enums.h"
#include "tests/recorder/scratch_session.h"
#include "tests/recorder/session_query.h"
#include "tests/support/test_suite.h"

#include <cupti.h>

#include <QtTest>

using namespace stallscope::recorder;
using stallscope::testing::queryInt;
using stallscope::testing::ScratchSession;

class TestApiClasses : public QObject {
    Q_OBJECT
private slots:
    void classifierNames() {
        QCOMPARE(ApiClassifier::classify("cudaStreamSynchronize_ptsz"), ApiClass::StreamSync);
        QCOMPARE(ApiClassifier::classify("cuCtxSynchronize"), ApiClass::DeviceSync);
        QCOMPARE(ApiClassifier::classify("cudaEventSynchronize"), ApiClass::EventSync);
        QCOMPARE(ApiClassifier::classify("cudaStreamWaitEvent_ptsz"), ApiClass::StreamWaitEvent);
        QCOMPARE(ApiClassifier::classify("cudaMemcpy"), ApiClass::CopySync);
        QCOMPARE(ApiClassifier::classify("cudaMemcpyAsync"), ApiClass::CopyAsync);
        // A host->device copy reads host memory, which may be pageable.
        QCOMPARE(ApiClassifier::classify("cuMemcpyHtoDAsync_v2"), ApiClass::CopyAsync);
        QCOMPARE(ApiClassifier::classify("cuMemcpyDtoDAsync_v2"), ApiClass::CopyAsyncDevice);
        QCOMPARE(ApiClassifier::classify("cudaLaunchKernel"), ApiClass::Launch);
        QCOMPARE(ApiClassifier::classify("cudaLaunchHostFunc"), ApiClass::None);
        QCOMPARE(ApiClassifier::classify("cudaGetDevice"), ApiClass::None);
        // Frees wait for the device, the stream-ordered ones do not; allocations are not syncs.
        QCOMPARE(ApiClassifier::classify("cudaFree"), ApiClass::Free);
        QCOMPARE(ApiClassifier::classify("cudaFreeHost"), ApiClass::Free);
        QCOMPARE(ApiClassifier::classify("cuMemFree_v2"), ApiClass::Free);
        QCOMPARE(ApiClassifier::classify("cudaFreeAsync"), ApiClass::Alloc);
        QCOMPARE(ApiClassifier::classify("cuMemFreeAsync_ptsz"), ApiClass::Alloc);
        QCOMPARE(ApiClassifier::classify("cudaMalloc"), ApiClass::Alloc);
        QVERIFY(ApiClassifier::isSync(ApiClass::Free));
        QVERIFY(ApiClassifier::wantsStack(ApiClass::Free));
        QVERIFY(!ApiClassifier::wantsStack(ApiClass::Alloc));
    }

    // A free's host event becomes a BlockingAlloc sync at once, with its host interval and
    // stack, even where CUPTI's synchronization records are on (none comes for a free).
    void freeIsABlockingAllocSync() {
        ScratchSession session("free.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        {
            SessionSink sink(session.writer.get());
            sink.setSyncRecords(true);
            sink.beginProcess(getpid(), "host", "test", 1);
            HostEvent free{};
            free.type = HostEvent::Type::ApiCall;
            free.apiClass = uint8_t(ApiClass::Free);
            free.domain = uint8_t(ApiClassifier::kRuntimeDomain);
            free.correlationId = 41;
            free.tid = 7;
            free.startNs = 1'000;
            free.endNs = 9'000;
            free.depth = 1;
            free.pcs[0] = reinterpret_cast<uintptr_t>(&stallscope::testing::queryInt);
            free.stackHash = 0x5eed;
            free.streamId = HostEvent::kNoStream;
            free.deviceId = HostEvent::kNoStream;
            sink.consumeHostEvent(free);
            // Nothing pending: a later expiry must not write it twice.
            sink.expirePending(INT64_MAX, 0);
            sink.finishProcess(10'000);
        }
        QVERIFY(session.writer->finish("complete"));
        session.writer.reset();
        QCOMPARE(queryInt(session.path, "select count(*) from syncs"), 1);
        QCOMPARE(queryInt(session.path, "select kind from syncs"),
                 int64_t(stallscope::format::SyncKind::BlockingAlloc));
        QCOMPARE(queryInt(session.path, "select end_ns - start_ns from syncs"), 8'000);
        QCOMPARE(queryInt(session.path, "select count(*) from syncs where stack_id is not null"),
                 1);
    }

    void asyncCopiesThatMayBlock_data() {
        QTest::addColumn<int>("kind"); // cudaMemcpyKind
        QTest::addColumn<bool>("mayBlock");
        QTest::newRow("host to host") << 0 << false;
        QTest::newRow("host to device") << 1 << true;
        QTest::newRow("device to host") << 2 << true;
        QTest::newRow("device to device") << 3 << false;
        QTest::newRow("default (inferred)") << 4 << true;
    }

    void asyncCopiesThatMayBlock() {
        QFETCH(int, kind);
        QFETCH(bool, mayBlock);
        struct { // cudaMemcpyAsync_v3020_params
            void* dst;
            const void* src;
            size_t count;
            int kind;
            void* stream;
        } params{nullptr, nullptr, 64, kind, nullptr};
        CUpti_CallbackData data{};
        data.functionParams = &params;
        QCOMPARE(CallbackHandler::asyncCopyMayBlock(ApiClassifier::kRuntimeDomain,
                                                    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
                                                    &data),
                 mayBlock);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestApiClasses)
#include "test_api_classes.moc"
