// GPU test (ctest label "gpu"): records tests/recorder/gpu/sync_sites with stallscope-record and
// checks counts, kinds, streams and call-site stacks with check_sync_sites.py; records the PyTorch
// script tests/recorder/gpu/torch_syncs.py and checks with check_python_syncs.py that its .item(),
// torch.cuda.synchronize() and .cpu() syncs carry their exact script lines. Skips visibly without a
// GPU (and the PyTorch part without PyTorch).
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

class TestRecorderGpu : public QObject {
    Q_OBJECT
private slots:
    void syncSites() {
        if (!QFile::exists("/dev/nvidia0") && !QFile::exists("/dev/nvidiactl"))
            QSKIP("SKIP: no GPU");
        if (QString(STALLSCOPE_SYNC_SITES).isEmpty())
            QSKIP("SKIP: sync_sites not built (no nvcc)");
        QTemporaryDir dir;
        QString session = dir.filePath("sync_sites.stallscope");
        QProcess record;
        record.setProcessChannelMode(QProcess::ForwardedChannels);
        record.start(STALLSCOPE_RECORD, {"-o", session, "--", STALLSCOPE_SYNC_SITES});
        QVERIFY(record.waitForFinished(120000));
        QCOMPARE(record.exitCode(), 0);
        QProcess check;
        check.setProcessChannelMode(QProcess::ForwardedChannels);
        check.start("python3", {STALLSCOPE_SOURCE_DIR "/tests/recorder/gpu/check_sync_sites.py",
                                session, STALLSCOPE_SYNC_SITES ".syms"});
        QVERIFY(check.waitForFinished(60000));
        QCOMPARE(check.exitCode(), 0);
    }

    void pythonSyncLines() {
        if (!QFile::exists("/dev/nvidia0") && !QFile::exists("/dev/nvidiactl"))
            QSKIP("SKIP: no GPU");
        QProcess probe;
        probe.start("python3",
                    {"-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"});
        if (!probe.waitForFinished(120000) || probe.exitCode() != 0)
            QSKIP("SKIP: no PyTorch with CUDA for python3");
        QTemporaryDir dir;
        QString session = dir.filePath("torch_syncs.stallscope");
        QString script = STALLSCOPE_SOURCE_DIR "/tests/recorder/gpu/torch_syncs.py";
        QProcess record;
        record.setProcessChannelMode(QProcess::ForwardedChannels);
        record.start(STALLSCOPE_RECORD, {"-o", session, "--", "python3", script});
        QVERIFY(record.waitForFinished(300000));
        QCOMPARE(record.exitCode(), 0);
        QProcess check;
        check.setProcessChannelMode(QProcess::ForwardedChannels);
        check.start("python3", {STALLSCOPE_SOURCE_DIR "/tests/recorder/gpu/check_python_syncs.py",
                                session, script});
        QVERIFY(check.waitForFinished(60000));
        QCOMPARE(check.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(TestRecorderGpu)
#include "tst_recorder_gpu.moc"
