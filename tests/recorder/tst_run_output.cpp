// RecordingOutput (recorder/recording_output.h) at the end of a run of several processes, on real
// session files made with SessionWriter: the CUDA processes' sessions go into one folder named by
// rank (by pid without one, or when a rank is claimed twice), sessions of processes that never used
// CUDA leave no file, a run of one CUDA process stays one file, and an existing recording (file or
// folder) is replaced only with --force-overwrite, never a folder with the user's own files. Also
// the recorder's sink writing the process's rank row.
#include "recorder/launch_environment.h"
#include "recorder/recording_output.h"
#include "recorder/session_sink.h"

#include "format/session_meta.h"
#include "format/session_writer.h"
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/support/test_suite.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <optional>
#include <string>
#include <vector>

using stallscope::recorder::RecordingOutput;

namespace {

struct Process {
    int64_t pid = 0;
    std::optional<int64_t> rank;
    bool usedCuda = true;
};

// A finished session of one process: its rank row, and an API call when it used CUDA.
bool writeSession(const QString& path, const Process& process) {
    std::string error;
    auto writer = stallscope::format::SessionWriter::create(path.toStdString(), &error);
    if (!writer)
        return false;
    stallscope::format::ProcessRow row;
    row.pid = process.pid;
    row.host = "node7";
    row.command = "python3 train.py";
    row.startNs = 1000;
    const int64_t processId = writer->addProcess(row);
    if (process.rank) {
        stallscope::format::ProcessRankRow rank;
        rank.processId = processId;
        rank.rank = *process.rank;
        rank.worldSize = 2;
        rank.launcher = "torchrun";
        writer->addProcessRank(rank);
    }
    if (process.usedCuda) {
        stallscope::format::ThreadRow thread;
        thread.processId = processId;
        thread.tid = process.pid;
        stallscope::format::ApiCallRow call;
        call.threadId = writer->addThread(thread);
        call.nameId = writer->internString("cudaLaunchKernel");
        call.startNs = 2000;
        call.endNs = 3000;
        writer->addApiCall(call);
    }
    writer->finishProcess(processId, 5000, 0);
    return writer->finish("complete");
}

// The partial root (pid 100) and its children, as the recorders of a run leave them.
void writeRun(const RecordingOutput& output, const Process& root,
              const std::vector<Process>& children) {
    QVERIFY(writeSession(QString::fromStdString(output.partialPath()), root));
    const QString partial = QString::fromStdString(output.partialPath());
    const QString stem = partial.left(partial.size() - int(strlen(".stallscope")));
    for (const Process& child : children)
        QVERIFY(writeSession(stem + '.' + QString::number(child.pid) + ".stallscope", child));
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name);
}

std::optional<RecordingOutput> plan(const QString& path, bool overwrite, std::string* error) {
    return RecordingOutput::plan(path.toStdString(), overwrite, error);
}

} // namespace

class TestRunOutput : public QObject {
    Q_OBJECT
private slots:
    // torchrun: the launcher (no CUDA), two ranks, a tokenizer worker (no CUDA), a CUDA process
    // without a rank, and rank 0's own CUDA subprocess (it inherits RANK=0).
    void ranksGoIntoOneFolder() {
        QTemporaryDir dir;
        std::string error;
        const auto output = plan(dir.filePath("run.stallscope"), false, &error);
        QVERIFY2(output, error.c_str());
        QCOMPARE(QString::fromStdString(output->folderPath()), dir.filePath("run"));
        writeRun(*output, {100, std::nullopt, false},
                 {{102, 1}, {101, 0}, {103, std::nullopt, false}, {104, std::nullopt}, {105, 0}});
        RecordingOutput::Published published;
        QVERIFY2(output->publish(&published, &error), error.c_str());
        QVERIFY(published.folder);
        QCOMPARE(published.ranks, 3);
        QCOMPARE(published.launcher, std::string("torchrun"));
        QCOMPARE(published.dropped, 2);
        QCOMPARE(entries(dir.path()), QStringList{"run"});
        QCOMPARE(entries(dir.filePath("run")),
                 (QStringList{"pid104.stallscope", "pid105.stallscope", "rank0.stallscope",
                              "rank1.stallscope"}));
        QCOMPARE(published.files.size(), size_t(4));
        for (int rank : {0, 1}) {
            const auto loaded = stallscope::model::SessionLoader::load(
                dir.filePath(QStringLiteral("run/rank%1.stallscope").arg(rank)).toStdString());
            QVERIFY2(loaded.ok(), loaded.error.c_str());
            const auto& process = loaded.session->processes.at(0);
            QCOMPARE(process.pid, int64_t(101 + rank));
            QVERIFY(process.rank);
            QCOMPARE(process.rank->rank, int64_t(rank));
        }
    }

    // The root used CUDA (torch.multiprocessing: the parent holds tensors too): it is one of the
    // run's sessions.
    void rootWithCudaJoinsTheFolder() {
        QTemporaryDir dir;
        std::string error;
        const auto output = plan(dir.filePath("mp.stallscope"), false, &error);
        QVERIFY2(output, error.c_str());
        writeRun(*output, {200, std::nullopt}, {{201, 0}, {202, 1}});
        RecordingOutput::Published published;
        QVERIFY2(output->publish(&published, &error), error.c_str());
        QCOMPARE(entries(dir.filePath("mp")),
                 (QStringList{"pid200.stallscope", "rank0.stallscope", "rank1.stallscope"}));
        QCOMPARE(published.dropped, 0);
    }

    // One CUDA process (children that never used CUDA): one file, as always, even for a root that
    // never used CUDA either (its session says so).
    void oneCudaProcessStaysOneFile_data() {
        QTest::addColumn<bool>("rootUsedCuda");
        QTest::newRow("root used CUDA") << true;
        QTest::newRow("nothing used CUDA") << false;
    }
    void oneCudaProcessStaysOneFile() {
        QFETCH(bool, rootUsedCuda);
        QTemporaryDir dir;
        std::string error;
        const auto output = plan(dir.filePath("one.stallscope"), false, &error);
        QVERIFY2(output, error.c_str());
        writeRun(*output, {300, std::nullopt, rootUsedCuda}, {{301, std::nullopt, false}});
        RecordingOutput::Published published;
        QVERIFY2(output->publish(&published, &error), error.c_str());
        QVERIFY(!published.folder);
        QCOMPARE(published.dropped, 1);
        QCOMPARE(entries(dir.path()), QStringList{"one.stallscope"});
    }

    // An earlier run folder is kept without --force-overwrite, replaced with it (only once the
    // new one is complete); a folder with other files in it is never deleted.
    void existingFolderIsReplacedOnlyWhenAsked() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("run"));
        QVERIFY(writeSession(dir.filePath("run/rank0.stallscope"), {7, 0}));
        std::string error;
        QVERIFY(!plan(dir.filePath("run.stallscope"), false, &error));
        QVERIFY2(error.find("--force-overwrite") != std::string::npos, error.c_str());
        QCOMPARE(entries(dir.filePath("run")), QStringList{"rank0.stallscope"});
        // `-o run` names the folder itself.
        QVERIFY(!plan(dir.filePath("run"), false, &error));
        QVERIFY2(error.find("--force-overwrite") != std::string::npos, error.c_str());

        const auto output = plan(dir.filePath("run.stallscope"), true, &error);
        QVERIFY2(output, error.c_str());
        QCOMPARE(entries(dir.filePath("run")), QStringList{"rank0.stallscope"}); // not yet
        writeRun(*output, {100, std::nullopt, false}, {{101, 1}, {102, std::nullopt}});
        RecordingOutput::Published published;
        QVERIFY2(output->publish(&published, &error), error.c_str());
        QCOMPARE(entries(dir.filePath("run")),
                 (QStringList{"pid102.stallscope", "rank1.stallscope"}));
        QCOMPARE(entries(dir.path()), QStringList{"run"});
    }

    void folderWithOtherFilesIsNeverReplaced() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("run"));
        QFile notes(dir.filePath("run/notes.txt"));
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("mine");
        notes.close();
        std::string error;
        // A single-process run may still go ahead: its file does not touch the folder.
        const auto output = plan(dir.filePath("run.stallscope"), true, &error);
        QVERIFY2(output, error.c_str());
        writeRun(*output, {100, std::nullopt, false}, {{101, 0}, {102, 1}});
        RecordingOutput::Published published;
        QVERIFY(!output->publish(&published, &error));
        QVERIFY2(error.find("run.recording.d") != std::string::npos, error.c_str());
        QCOMPARE(entries(dir.filePath("run")), QStringList{"notes.txt"});
        // The new sessions are kept where the message says.
        QCOMPARE(entries(dir.filePath("run.recording.d")),
                 (QStringList{"rank0.stallscope", "rank1.stallscope"}));
        // `-o run` when run/ is the user's folder: refused before the program starts.
        QVERIFY(!plan(dir.filePath("run"), true, &error));
        QVERIFY2(error.find("is a folder") != std::string::npos, error.c_str());
    }

    // A run that becomes a folder replaces an earlier single-file recording of the same name
    // (--force-overwrite), and an unfinished staging folder is not replaced silently.
    void folderReplacesAnEarlierFile() {
        QTemporaryDir dir;
        QVERIFY(writeSession(dir.filePath("run.stallscope"), {9, std::nullopt}));
        std::string error;
        QVERIFY(!plan(dir.filePath("run.stallscope"), false, &error));
        const auto output = plan(dir.filePath("run.stallscope"), true, &error);
        QVERIFY2(output, error.c_str());
        writeRun(*output, {100, std::nullopt, false}, {{101, 0}, {102, 1}});
        RecordingOutput::Published published;
        QVERIFY2(output->publish(&published, &error), error.c_str());
        QCOMPARE(entries(dir.path()), QStringList{"run"});

        QVERIFY(QDir(dir.path()).mkpath("b.recording.d"));
        QVERIFY(!plan(dir.filePath("b.stallscope"), false, &error));
        QVERIFY2(error.find("unfinished") != std::string::npos, error.c_str());
    }

    // The recorder's sink writes the launcher's facts as the process's rank row, and a diagnostic
    // for a variable it ignored.
    void sinkWritesTheRankRow() {
        QTemporaryDir dir;
        const QString path = dir.filePath("sink.stallscope");
        std::string error;
        {
            auto writer = stallscope::format::SessionWriter::create(path.toStdString(), &error);
            QVERIFY2(writer, error.c_str());
            stallscope::recorder::SessionSink sink(writer.get());
            sink.beginProcess(4242, "node7", "python3 train.py", 1000);
            const char* environment[] = {"RANK=1", "LOCAL_RANK=x", "WORLD_SIZE=2",
                                         "TORCHELASTIC_RUN_ID=7", nullptr};
            sink.setLaunch(stallscope::recorder::LaunchEnvironment::parse(environment), 1000);
            sink.finishProcess(2000);
            QVERIFY(writer->finish("complete"));
        }
        const auto loaded = stallscope::model::SessionLoader::load(path.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const auto& rank = loaded.session->processes.at(0).rank;
        QVERIFY(rank);
        QCOMPARE(rank->rank, int64_t(1));
        QCOMPARE(rank->worldSize, std::optional<int64_t>(2));
        QVERIFY(!rank->localRank);
        QCOMPARE(rank->launcher, std::string("torchrun"));
        QCOMPARE(RecordingOutput::inspect(path.toStdString()).usedCuda, false);
    }

    // The snapshots a partial session lists are symbolized after the run only when they are its
    // own: beside it, named as its snapshots, existing. A listed path elsewhere (a file the session
    // names, not one the run wrote) is never touched.
    void onlyTheSessionsOwnSnapshotsAreListed() {
        QTemporaryDir dir;
        const QString partial = dir.filePath("run.recording.stallscope");
        const QString own = dir.filePath("run.snapshot-1.stallscope");
        const QString child = dir.filePath("run.snapshot-2.77.stallscope");
        QVERIFY(writeSession(own, {1, std::nullopt, true}) &&
                writeSession(child, {2, std::nullopt, true}));
        QVERIFY(QDir(dir.path()).mkdir("run.snapshot-3"));
        QVERIFY(writeSession(dir.filePath("run.snapshot-3/x.stallscope"), {3, std::nullopt, true}));
        QTemporaryDir elsewhere;
        const QString foreign = elsewhere.filePath("run.snapshot-1.stallscope");
        QVERIFY(writeSession(foreign, {4, std::nullopt, true}));
        std::string error;
        {
            auto writer = stallscope::format::SessionWriter::create(partial.toStdString(), &error);
            QVERIFY2(writer, error.c_str());
            const QStringList listed = {own,
                                        child,
                                        dir.filePath("run.snapshot-9.stallscope"), // never written
                                        dir.filePath("run.snapshot-3/x.stallscope"),
                                        foreign,
                                        dir.filePath("other.snapshot-1.stallscope")};
            writer->setMeta(stallscope::format::meta::kRingSnapshots,
                            listed.join('\n').toStdString());
            QVERIFY(writer->finish("complete"));
        }
        std::vector<std::string> found = RecordingOutput::snapshots(partial.toStdString());
        QCOMPARE(found, (std::vector<std::string>{own.toStdString(), child.toStdString()}));
        // A session without the ".recording" name has no snapshots of its own.
        QVERIFY(RecordingOutput::snapshots(own.toStdString()).empty());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRunOutput)
#include "tst_run_output.moc"
