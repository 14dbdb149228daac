// Which kernels are collectives and how they are shown (model/session/collective_names.h): NCCL's
// kernels as CUPTI records them (mangled) and as traces write them (plain), and kernels that only
// look alike.
#include "model/session/collective_names.h"
#include "model/session/session_summary.h"

#include <QTest>

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
};

QTEST_GUILESS_MAIN(TestCollectiveNames)
#include "test_collective_names.moc"
