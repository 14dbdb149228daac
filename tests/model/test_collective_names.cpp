// Which kernels are collectives and how they are shown (model/session/collective_names.h): NCCL's
// kernels as CUPTI records them (mangled) and as traces write them (plain), and kernels that only
// look alike; what NCCL's profiler plugin said about a launch (format v4 collective_calls), as
// shown and as joined to its kernel by process and correlation id.
#include "model/session/collective_names.h"
#include "model/session/event_ref.h"
#include "model/session/session_summary.h"
#include "tests/support/generated_session.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <set>

using namespace stallscope;

class TestCollectiveNames : public QObject {
    Q_OBJECT
private slots:
    void collectivesAreToldByName_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("collective");
        QTest::addColumn<QString>("label");
        QTest::newRow("recorded (mangled)")
            << "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"
            << true << "NCCL AllReduce · Sum · f32 · RING_LL";
        QTest::newRow("plain")
            << "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)" << true
            << "NCCL AllGather · RING_LL";
        QTest::newRow("older NCCL") << "ncclKernel_Broadcast_RING_SIMPLE_Sum_int8_t" << true
                                    << "NCCL Broadcast · RING_SIMPLE · Sum · int8_t";
        QTest::newRow("other nccl kernel") << "ncclDevKernel_Generic" << true << "NCCL Generic";
        QTest::newRow("gemm") << "ampere_sgemm_128x64_nn" << false << "";
        QTest::newRow("nested mangled name") << "_ZN4nccl6kernelEv" << false << "";
        QTest::newRow("length past the end") << "_Z99ncclDevKernel" << false << "";
        QTest::newRow("mangled, not nccl") << "_Z6kernelPf" << false << "";
    }
    void collectivesAreToldByName() {
        QFETCH(QString, name);
        QFETCH(bool, collective);
        QFETCH(QString, label);
        QCOMPARE(model::isCollectiveKernelName(name.toStdString()), collective);
        QCOMPARE(QString::fromStdString(model::collectiveLabel(name.toStdString())), label);
        if (collective && !label.isEmpty())
            QCOMPARE(QString::fromStdString(model::readableKernelName(name.toStdString())), label);
    }

    void callTextSaysSizeAndType_data() {
        QTest::addColumn<QString>("function");
        QTest::addColumn<QString>("datatype");
        QTest::addColumn<qint64>("count");
        QTest::addColumn<qint64>("bytes"); // -1: unknown
        QTest::addColumn<qint64>("calls");
        QTest::addColumn<QString>("text");
        QTest::newRow("DDP bucket")
            << "AllReduce"
            << "ncclFloat32" << qint64(6553600) << qint64(25 << 20) << qint64(1)
            << "AllReduce · 25.0 MiB (6,553,600 × ncclFloat32)";
        QTest::newRow("group of three, mixed types")
            << "AllReduce+Broadcast"
            << "" << qint64(3000) << qint64(10000) << qint64(3)
            << "AllReduce+Broadcast ×3 · 9.8 KiB (3,000)";
        QTest::newRow("type without a size")
            << "Send"
            << "Unknown" << qint64(1000) << qint64(-1) << qint64(1) << "Send (1,000 × Unknown)";
        QTest::newRow("one byte") << "Recv"
                                  << "ncclInt8" << qint64(1) << qint64(1) << qint64(1)
                                  << "Recv · 1 B (1 × ncclInt8)";
        QTest::newRow("no name") << ""
                                 << "ncclFloat16" << qint64(2) << qint64(4) << qint64(1)
                                 << "NCCL call · 4 B (2 × ncclFloat16)";
    }
    void callTextSaysSizeAndType() {
        QFETCH(QString, function);
        QFETCH(QString, datatype);
        QFETCH(qint64, count);
        QFETCH(qint64, bytes);
        QFETCH(qint64, calls);
        QFETCH(QString, text);
        format::CollectiveCallRow call;
        call.function = function.toStdString();
        call.datatype = datatype.toStdString();
        call.count = count;
        if (bytes >= 0)
            call.bytes = bytes;
        call.calls = calls;
        QCOMPARE(QString::fromStdString(model::collectiveCallText(call)), text);
    }

    // The kernel's label says the size right after the collective.
    void labelSaysTheSize() {
        const std::string allReduce =
            "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
        format::CollectiveCallRow call;
        call.function = "AllReduce";
        call.datatype = "ncclFloat32";
        call.count = 16785408;
        call.bytes = 67141632;
        QCOMPARE(QString::fromStdString(model::collectiveLabel(allReduce, call)),
                 QString("NCCL AllReduce · 64.0 MiB · Sum · f32 · RING_LL"));
        call.calls = 3;
        call.bytes.reset();
        QCOMPARE(QString::fromStdString(model::collectiveLabel(allReduce, call)),
                 QString("NCCL AllReduce · 16,785,408 elements in 3 calls · Sum · f32 · RING_LL"));
        QCOMPARE(QString::fromStdString(model::collectiveLabel("ncclDevKernel_Generic", call)),
                 QString("NCCL Generic · 16,785,408 elements in 3 calls"));
        QCOMPARE(QString::fromStdString(model::collectiveLabel("other_kernel", call)),
                 QString("AllReduce ×3 (16,785,408 × ncclFloat32)"));
    }

    // Two ranks in one file number their launches from 1 each, alike: a kernel's call is its own
    // process's, never the other rank's launch of the same correlation id.
    void eachCollectiveKernelHasItsOwnCall() {
        testing::ScratchDir dir;
        model::SyntheticOptions options;
        options.ranks = 2;
        options.rankSteps = 12;
        options.collectiveBytes = 4 << 20;
        const testing::GeneratedSession run = testing::generateSession(dir, "ranks", options);
        QVERIFY(run.ok());
        const model::Session& session = *run.session;
        QCOMPARE(run.stats.rowsIn(format::tables::kCollectiveCalls), qint64(24));
        int64_t withCall = 0, collectives = 0;
        std::set<int64_t> processes;
        for (size_t l = 0; l < session.streamLanes.size(); ++l) {
            const model::StreamLane& lane = session.streamLanes[l];
            const int32_t process =
                session.devices[session.streams[lane.streamIndex].deviceIndex].processIndex;
            for (size_t i = 0; i < lane.kernels.size(); ++i) {
                const bool collective =
                    model::isCollectiveKernelName(session.string(lane.kernels.nameId[i]));
                const format::CollectiveCallRow* call =
                    session.collectiveCall(lane.kernels.rowId[i]);
                QCOMPARE(call != nullptr, collective);
                collectives += collective;
                if (!call)
                    continue;
                ++withCall;
                // Its own process's launch: both ranks have launches of this correlation id.
                QCOMPARE(call->processId, session.processes[process].rowId);
                QCOMPARE(call->correlationId, int64_t(lane.kernels.correlationId[i]));
                processes.insert(call->processId);
                QCOMPARE(QString::fromStdString(model::collectiveCallText(*call)),
                         QString("AllReduce · 4.0 MiB (1,048,576 × ncclFloat32)"));
                const model::EventRef kernel{model::EventKind::Kernel, int32_t(l), 0, uint32_t(i)};
                QVERIFY2(kernel.name(session).find(" · 4.0 MiB") != std::string::npos,
                         kernel.name(session).c_str());
            }
        }
        QCOMPARE(collectives, qint64(24));
        QCOMPARE(withCall, qint64(24));
        QCOMPARE(processes.size(), size_t(2));
        QVERIFY(!session.collectiveCall(0));
        QCOMPARE(session.collectiveCalls.size(), size_t(24));
    }

    void recordingsWithoutThePluginHaveNoCalls() {
        testing::ScratchDir dir;
        model::SyntheticOptions options;
        options.ranks = 2;
        options.rankSteps = 3;
        options.collectiveBytes = 0;
        const testing::GeneratedSession run = testing::generateSession(dir, "plain", options);
        QVERIFY(run.ok());
        for (const model::StreamLane& lane : run.session->streamLanes)
            for (size_t i = 0; i < lane.kernels.size(); ++i)
                QVERIFY(!run.session->collectiveCall(lane.kernels.rowId[i]));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestCollectiveNames)
#include "test_collective_names.moc"
