// Which CUDA calls the recorder cares about (recorder/api_classifier.h) and which asynchronous
// copies get a host event and a stack (CallbackHandler::asyncCopyMayBlock): every copy with a host
// side may be from or into pageable memory, and then blocks the host.
#include "recorder/api_classifier.h"
#include "recorder/callback_handler.h"

#include <cupti.h>

#include <QtTest>

using namespace stallscope::recorder;

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

QTEST_GUILESS_MAIN(TestApiClasses)
#include "test_api_classes.moc"
