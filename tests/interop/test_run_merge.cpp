// A run folder (one session per rank) opened as one session (issue 16): processes in rank order
// with every row of every file, stacks and sources still resolving to their own rank, hosts'
// clocks aligned on the collectives within the skew the test planted, bad and duplicate files
// skipped by name, and the inputs never written.
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "model/analysis/insight_engine.h"
#include "model/interop/run_merge.h"
#include "model/session/collective_names.h"
#include "model/session/session_database.h"
#include "tests/support/test_suite.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>

using namespace stallscope;

namespace {

struct RankSpec {
    int64_t rank = 0;
    std::string host = "node-a";
    int64_t clockOffsetNs = 0; // this host's clock minus the true time
    int collectives = 5;
    int64_t firstCollectiveNs = 0; // true time of the first collective's end
    // meta cupti_clock_vs_host: what the host's wall clock says about its monotonic clock.
    std::string clockVsHost = "realtime=0 monotonic=0";
    int64_t pid = 0;                     // 0: 4000 + rank
    std::string file = "/work/train.py"; // the sync's Python file, embedded
    std::string source;                  // its text; "" for "rank N"
    int64_t worldSize = 2;               // 0: the recording knows no rank at all
};

constexpr int64_t kBaseNs = 1'000'000'000'000; // an uptime of 1000 s
constexpr int64_t kStepNs = 10'000'000;

// One rank's session: a thread, a GPU stream, per step a compute kernel, an NCCL kernel ending at
// the same true time on every rank, and a sync with a Python stack whose line is 100 + rank.
void writeRank(const std::string& path, const RankSpec& spec) {
    std::string error;
    auto w = format::SessionWriter::create(path, &error);
    QVERIFY2(w, error.c_str());
    const int64_t t0 = kBaseNs + spec.clockOffsetNs;
    w->setMeta(format::meta::kCommand, "python train.py --rank " + std::to_string(spec.rank));
    w->setMeta(format::meta::kCuptiClockVsHost, spec.clockVsHost);
    const int64_t pid = spec.pid ? spec.pid : 4000 + spec.rank;
    const int64_t process =
        w->addProcess({pid, spec.host, "python train.py", t0, t0 + 100 * kStepNs, 0});
    if (spec.worldSize > 0)
        w->addProcessRank({process, spec.rank, spec.rank, spec.worldSize, "torchrun", 0});
    const int64_t thread = w->addThread({process, pid, "python"});
    const int64_t device = w->addDevice({process, spec.rank, "NVIDIA H200", "", 9, 0, 132, 0});
    const int64_t stream = w->addStream({device, 1, 7, 0, 0});
    const int64_t gemm = w->internString("gemm_kernel");
    const int64_t allReduce = w->internString(
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    const int64_t launch = w->internString("cudaLaunchKernel");
    format::FrameRow frame;
    frame.kind = format::FrameKind::Python;
    frame.function = "train_step";
    frame.file = spec.file;
    frame.line = 100 + spec.rank;
    const int64_t frameId = w->addFrame(frame);
    const int64_t stack =
        w->addStack(static_cast<uint64_t>(frameId), std::vector<int64_t>{frameId});
    w->addSource({spec.file, "00", 10, false,
                  spec.source.empty() ? "rank " + std::to_string(spec.rank) : spec.source});
    // The sampler's run of 3 samples at the same line (format v3's host_samples).
    w->addHostSample({thread, t0 + 1'000'000, t0 + 11'000'000, 3, stack});
    for (int step = 0; step < spec.collectives; ++step) {
        const int64_t end = t0 + spec.firstCollectiveNs + step * kStepNs + kStepNs / 2;
        const int64_t correlation = 2 * step + 1;
        w->addApiCall({thread, format::ApiDomain::Runtime, 211, launch, end - 4'000'000,
                       end - 3'990'000, correlation, 0});
        w->addKernel({stream, gemm, end - 3'000'000, end - 2'000'000, correlation});
        w->addApiCall({thread, format::ApiDomain::Runtime, 211, launch, end - 1'900'000,
                       end - 1'890'000, correlation + 1, 0});
        // The collective starts when this rank arrives and ends with the last rank.
        w->addKernel(
            {stream, allReduce, end - 1'500'000 + spec.rank * 100'000, end, correlation + 1});
        w->addSync({thread, format::SyncKind::Stream, end - 1'800'000, end + 10'000,
                    correlation + 100, stream, std::nullopt, stack});
    }
    QVERIFY2(w->finish(format::kStatusComplete), w->lastError().c_str());
}

QByteArray fileHash(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

} // namespace

class TestRunMerge : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void folderOpensAsOneSessionInRankOrder();
    void tracesBesideTheSessionsAreNamed();
    void unrelatedRecordingsAreNotMerged();
    void stacksAndSourcesStayWithTheirRank();
    void rankOneSyncShowsItsStackAndSourceLine();
    void badFrameReferenceStaysInItsRank();
    void hostsAreAlignedOnCollectives();
    void withoutWallClocksTheKthCollectivesPair();
    void wallClockHintPicksThePairing();
    void noCollectivesNoShift();
    void badDuplicateAndPartialFilesAreSkippedByName();
    void inputsAreNeverWritten();
    void brokenReferenceNamesTheInput();
    void emptyFolderIsAnError();
    void recordedDdpRunNamesTheStraggler();
    void unrelatedCollectivesSaveAtMostTheWindow();

private:
    QString folder(const char* name) {
        const QString path = m_dir.filePath(name);
        QDir().mkpath(path);
        return path;
    }
    QTemporaryDir m_dir;
};

void TestRunMerge::initTestCase() {
    QVERIFY(m_dir.isValid());
    qputenv("STALLSCOPE_IMPORT_CACHE", m_dir.filePath("cache").toUtf8());
}

void TestRunMerge::folderOpensAsOneSessionInRankOrder() {
    const QString run = folder("run");
    // Name order is the reverse of rank order: ranks decide.
    writeRank((run + "/a.stallscope").toStdString(), {.rank = 1});
    writeRank((run + "/b.stallscope").toStdString(), {.rank = 0});
    QVERIFY(model::looksLikeRun(run.toStdString()));
    // What opening the folder reads, as the opener's importer says: its files in rank order,
    // then the folder; a plain session file reads only itself.
    model::SessionOpener opener;
    model::registerRunImporter(opener);
    QCOMPARE(opener.inputsOf(run.toStdString()),
             (std::vector<std::string>{(run + "/b.stallscope").toStdString(),
                                       (run + "/a.stallscope").toStdString(), run.toStdString()}));
    QCOMPARE(opener.inputsOf((run + "/a.stallscope").toStdString()),
             std::vector<std::string>{(run + "/a.stallscope").toStdString()});

    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    QCOMPARE(loaded.session->warning, std::string()); // nothing else in the folder
    const model::Session& s = *loaded.session;
    QCOMPARE(s.processes.size(), size_t(2));
    QCOMPARE(s.processes[0].rank->rank, int64_t(0));
    QCOMPARE(s.processes[1].rank->rank, int64_t(1));
    QCOMPARE(s.processes[1].pid, int64_t(4001));
    QCOMPARE(s.counts, (format::EventCounts{.apiCalls = 20, .syncs = 10, .kernels = 20}));
    QCOMPARE(s.streamLabel(s.streams[1]), std::string("rank 1 · GPU 1 · stream 7"));
    QCOMPARE(s.metaValue(format::meta::kImportFormat), std::string("stallscope run"));
    QCOMPARE(s.metaValue(format::meta::kImportSource), run.toStdString());
    QCOMPARE(s.metaValue(format::meta::kCommand), std::string("python train.py --rank 0"));
    QVERIFY(s.metaValue(format::meta::kRunClockAlignment).empty());
    // The first and last event of each lane are the files' own.
    const model::HostLane& rank1 = s.hostLanes[1];
    QCOMPARE(s.threads[rank1.threadIndex].processIndex, 1);
    QCOMPARE(s.string(rank1.apiCalls.nameId[0]), std::string("cudaLaunchKernel"));
    QCOMPARE(s.string(s.streamLanes[1].kernels.nameId.back()).substr(0, 21),
             std::string("ncclDevKernel_AllRedu"));
    QCOMPARE(s.streamLanes[1].kernels.start.front(), kBaseNs + kStepNs / 2 - 3'000'000);
    QCOMPARE(s.streamLanes[1].kernels.end.back(), kBaseNs + 4 * kStepNs + kStepNs / 2);
    // One string per text across the run: the same kernel has one name id on every rank.
    QCOMPARE(s.streamLanes[1].kernels.nameId[1], s.streamLanes[0].kernels.nameId[1]);
    QCOMPARE(s.strings.size(), size_t(3 + 1));
}

// Issue 40: a folder holding sessions and traces opened the sessions without a word about the
// traces.
void TestRunMerge::tracesBesideTheSessionsAreNamed() {
    const QString run = folder("mixed");
    writeRank((run + "/a.stallscope").toStdString(), {.rank = 0});
    for (const char* trace : {"/trace.json", "/rank1.pt.trace.json.gz"})
        QVERIFY(QFile(run + trace).open(QIODevice::WriteOnly));
    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    QCOMPARE(loaded.session->warning,
             run.toStdString() + " also holds 2 profiler trace file(s) (.json, .json.gz), not "
                                 "read: only its sessions were; open a trace by its name");
}

// Issue 42: a folder of two unrelated recordings was merged into one session without a word. A
// folder is one launch's ranks; anything else is refused, naming why.
void TestRunMerge::unrelatedRecordingsAreNotMerged() {
    const QString noRanks = folder("separate");
    writeRank((noRanks + "/a.stallscope").toStdString(), {.rank = 0, .worldSize = 0});
    writeRank((noRanks + "/b.stallscope").toStdString(), {.rank = 0, .pid = 77, .worldSize = 0});
    model::LoadResult loaded = model::RunMerger::load({noRanks.toStdString()});
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error, noRanks.toStdString() +
                               ": holds 2 sessions that are not the ranks of one launch "
                               "(a.stallscope records no rank); open one of them by its name");
    const QString sizes = folder("sizes");
    writeRank((sizes + "/a.stallscope").toStdString(), {.rank = 0});
    writeRank((sizes + "/b.stallscope").toStdString(), {.rank = 1, .worldSize = 4});
    loaded = model::RunMerger::load({sizes.toStdString()});
    QVERIFY(!loaded.ok());
    QVERIFY2(loaded.error.find("their world sizes differ (a.stallscope: 2, b.stallscope: 4)") !=
                 std::string::npos,
             loaded.error.c_str());
    // One file of a folder opens alone, whatever it records.
    const QString single = folder("single");
    writeRank((single + "/a.stallscope").toStdString(), {.rank = 0, .worldSize = 0});
    loaded = model::RunMerger::load({single.toStdString()});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
}

void TestRunMerge::stacksAndSourcesStayWithTheirRank() {
    const QString run = folder("stacks");
    writeRank((run + "/r0.stallscope").toStdString(), {.rank = 0});
    writeRank((run + "/r1.stallscope").toStdString(), {.rank = 1});
    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    const model::Session& s = *loaded.session;
    model::SessionDatabase db;
    std::string error;
    QVERIFY2(db.open(s, &error), error.c_str());
    for (int rank = 0; rank < 2; ++rank) {
        const model::HostLane& lane = s.hostLanes[rank];
        const auto frames = db.stack(lane.syncs.stackId.back());
        QCOMPARE(frames.size(), size_t(1));
        QCOMPARE(frames[0].line, int64_t(100 + rank));
        // host_samples comes along, its thread and stack ids moved with the rank's.
        QCOMPARE(lane.samples.size(), size_t(1));
        QCOMPARE(lane.samples.samples[0], uint32_t(3));
        QCOMPARE(lane.samples.start[0], kBaseNs + 1'000'000);
        QCOMPARE(db.stack(lane.samples.stackId[0])[0].line, int64_t(100 + rank));
    }
    QCOMPARE(s.hostSamples, int64_t(6));
    // Both ranks embedded the same file: kept once, the first rank's copy.
    QCOMPARE(db.sourcePaths(), std::vector<std::string>{"/work/train.py"});
    QCOMPARE(db.source("/work/train.py")->text, std::string("rank 0"));
}

// A rank-1 sync in a run: its stack comes from rank 1's file (line 101) and its source line from
// the file only rank 1 embedded, through the session's SessionDatabase.
void TestRunMerge::rankOneSyncShowsItsStackAndSourceLine() {
    const QString run = folder("rank1-source");
    std::string text;
    for (int line = 1; line <= 120; ++line)
        text += "print('line " + std::to_string(line) + "')\n";
    writeRank((run + "/r0.stallscope").toStdString(), {.rank = 0});
    writeRank((run + "/r1.stallscope").toStdString(),
              {.rank = 1, .file = "/work/rank1_loader.py", .source = text});
    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    const model::Session& s = *loaded.session;
    QCOMPARE(s.parts.size(), size_t(2));
    model::SessionDatabase db;
    std::string error;
    QVERIFY2(db.open(s, &error), error.c_str());
    const model::HostLane& rank1 = s.hostLanes[1];
    QCOMPARE(s.processLabel(s.threads[rank1.threadIndex].processIndex), std::string("rank 1"));
    const auto frames = db.stack(rank1.syncs.stackId.front());
    QCOMPARE(frames.size(), size_t(1));
    QCOMPARE(frames[0].file, std::string("/work/rank1_loader.py"));
    QCOMPARE(frames[0].line, int64_t(101));
    const auto source = db.source(frames[0].file);
    QVERIFY(source);
    const auto lineStart = source->text.find("print('line 101')");
    QVERIFY(lineStart != std::string::npos);
    QCOMPARE(std::count(source->text.begin(), source->text.begin() + lineStart, '\n'), 100L);
    // Rank 0's stack stays rank 0's (the stack ids of both files are 1).
    QCOMPARE(db.stack(s.hostLanes[0].syncs.stackId.front())[0].file, std::string("/work/train.py"));
    QCOMPARE(db.sourcePaths(),
             (std::vector<std::string>{"/work/rank1_loader.py", "/work/train.py"}));
}

// A frame of rank 0 that names a module rank 0 does not have reads as no module, never as the
// module that rank 1's file holds at that id in the run (the loader does not read frames).
void TestRunMerge::badFrameReferenceStaysInItsRank() {
    const QString run = folder("bad-frame");
    const std::string rank0 = (run + "/r0.stallscope").toStdString();
    const std::string rank1 = (run + "/r1.stallscope").toStdString();
    writeRank(rank0, {.rank = 0});
    writeRank(rank1, {.rank = 1});
    {
        format::Database db;
        std::string error;
        QVERIFY(db.open(rank1, format::Database::Mode::ReadWrite, &error));
        QVERIFY(db.exec("INSERT INTO modules (process_id, path, load_bias, start_address, "
                        "end_address, loaded_ns) VALUES (1, '/lib/rank1.so', 0, 0, 4096, 0)",
                        &error));
        QVERIFY(db.open(rank0, format::Database::Mode::ReadWrite, &error));
        QVERIFY(db.exec("UPDATE frames SET module_id = 1", &error));
    }
    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    model::SessionDatabase db;
    std::string error;
    QVERIFY2(db.open(*loaded.session, &error), error.c_str());
    const auto modules = db.modules();
    QCOMPARE(modules.size(), size_t(1));
    QCOMPARE(modules[0].id, int64_t(1)); // rank 1's module, first in the run
    const auto frames = db.stack(loaded.session->hostLanes[0].syncs.stackId.front());
    QCOMPARE(frames.size(), size_t(1));
    QCOMPARE(frames[0].line, int64_t(100));
    QCOMPARE(frames[0].moduleId, int64_t(0));
}

void TestRunMerge::hostsAreAlignedOnCollectives() {
    const QString run = folder("hosts");
    // node-b's monotonic clock reads 5 s more than node-a's at the same moment; its wall clock is
    // 1 ms off (NTP); its recording starts 3 collectives later, so the k-th collectives differ.
    constexpr int64_t kSkewNs = 5'000'000'000;
    writeRank((run + "/r0.stallscope").toStdString(), {.rank = 0, .collectives = 8});
    writeRank((run + "/r1.stallscope").toStdString(),
              {.rank = 1,
               .host = "node-b",
               .clockOffsetNs = kSkewNs,
               .collectives = 5,
               .firstCollectiveNs = 3 * kStepNs,
               .clockVsHost = "realtime=4999000000 monotonic=0"});
    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    const model::Session& s = *loaded.session;
    // On one clock, each of rank 1's collectives ends with rank 0's of the same moment.
    QCOMPARE(s.streamLanes[1].kernels.end[1], s.streamLanes[0].kernels.end[3 * 2 + 1]);
    QCOMPARE(s.streamLanes[1].kernels.end.back(), s.streamLanes[0].kernels.end.back());
    // Rank 0's host is the reference; node-b moved back by the planted skew.
    QCOMPARE(s.processes[0].rank->clockShiftNs, int64_t(0));
    QCOMPARE(s.processes[1].rank->clockShiftNs, -kSkewNs);
    QCOMPARE(s.processes[1].startNs, kBaseNs);
    const std::string alignment = s.metaValue(format::meta::kRunClockAlignment);
    QVERIFY2(alignment.find("node-b: -5000.000 ms (±0.000 ms, 5 collectives)") != std::string::npos,
             alignment.c_str());
    QCOMPARE(s.processLabel(1), std::string("rank 1 · node-b"));
}

void TestRunMerge::withoutWallClocksTheKthCollectivesPair() {
    const model::ClockAlignment a = model::alignOnCollectives({100, 200, 300}, {1090, 1200, 1305});
    QCOMPARE(a.shiftNs, int64_t(-1000));
    QCOMPARE(a.spreadNs, int64_t(5));
    QCOMPARE(a.matched, int64_t(3));
}

void TestRunMerge::wallClockHintPicksThePairing() {
    // The other host missed the first two collectives; its wall clock says about -1000 ns.
    const std::vector<int64_t> reference{100, 200, 300, 400, 500};
    const std::vector<int64_t> other{1300, 1400, 1500};
    QCOMPARE(model::alignOnCollectives(reference, other).shiftNs, int64_t(-1200));
    const model::ClockAlignment hinted = model::alignOnCollectives(reference, other, -990);
    QCOMPARE(hinted.shiftNs, int64_t(-1000));
    QCOMPARE(hinted.matched, int64_t(3));
    QCOMPARE(model::realtimeMinusMonotonic("realtime=7 monotonic=2 monotonic_raw=1"),
             std::optional<int64_t>(-5));
    QCOMPARE(model::realtimeMinusMonotonic("realtime=x monotonic=2"), std::optional<int64_t>());
}

void TestRunMerge::noCollectivesNoShift() {
    const model::ClockAlignment none = model::alignOnCollectives({}, {1, 2});
    QCOMPARE(none.matched, int64_t(0));
    QCOMPARE(none.shiftNs, int64_t(0));
}

void TestRunMerge::badDuplicateAndPartialFilesAreSkippedByName() {
    const QString run = folder("messy");
    writeRank((run + "/rank0.stallscope").toStdString(), {.rank = 0});
    writeRank((run + "/rank1.stallscope").toStdString(), {.rank = 1});
    writeRank((run + "/rank1-copy.stallscope").toStdString(), {.rank = 1});
    writeRank((run + "/run.recording.77.stallscope").toStdString(), {.rank = 0});
    // Rank 1's own CUDA subprocess inherits its rank: another process, kept.
    writeRank((run + "/pid5001.stallscope").toStdString(), {.rank = 1, .pid = 5001});
    QFile junk(run + "/notes.stallscope");
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("not a session");
    junk.close();
    std::string error;
    const model::RunFiles files = model::findRunFiles({run.toStdString()}, &error);
    QCOMPARE(files.sessions.size(), size_t(3));
    QVERIFY(files.sessions[0].ends_with("/rank0.stallscope"));
    QVERIFY(files.sessions[1].ends_with("/pid5001.stallscope"));    // rank 1, first by name
    QVERIFY(files.sessions[2].ends_with("/rank1-copy.stallscope")); // '-' sorts before '.'
    QCOMPARE(files.skipped.size(), size_t(3));
    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    const std::string warning = loaded.session->warning;
    for (const char* name : {"notes.stallscope: not a Stallscope session",
                             "a second copy of rank 1", "run.recording.77.stallscope"})
        QVERIFY2(warning.find(name) != std::string::npos, warning.c_str());
}

void TestRunMerge::inputsAreNeverWritten() {
    const QString run = folder("untouched");
    writeRank((run + "/r0.stallscope").toStdString(), {.rank = 0});
    writeRank((run + "/r1.stallscope").toStdString(), {.rank = 1, .host = "node-b"});
    const QByteArray before0 = fileHash(run + "/r0.stallscope");
    const QByteArray before1 = fileHash(run + "/r1.stallscope");
    const QStringList entries = QDir(run).entryList(QDir::Files);
    QVERIFY(model::RunMerger::load({run.toStdString()}).ok());
    QCOMPARE(fileHash(run + "/r0.stallscope"), before0);
    QCOMPARE(fileHash(run + "/r1.stallscope"), before1);
    QCOMPARE(QDir(run).entryList(QDir::Files), entries); // no journal, no output beside them
}

void TestRunMerge::brokenReferenceNamesTheInput() {
    const QString run = folder("broken");
    const std::string bad = (run + "/r1.stallscope").toStdString();
    writeRank((run + "/r0.stallscope").toStdString(), {.rank = 0});
    writeRank(bad, {.rank = 1});
    {
        format::Database db;
        std::string error;
        QVERIFY(db.open(bad, format::Database::Mode::ReadWrite, &error));
        // Rank 0 has a thread 1 too: moved as a block, this would become rank 0's... or nobody's.
        QVERIFY(db.exec("UPDATE syncs SET thread_id = 2 WHERE id = 1", &error));
    }
    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY(!loaded.ok());
    // The loader's own message for that file: it checks every rank's file as it would alone.
    QVERIFY2(loaded.error.rfind(bad + ": corrupt session: syncs row 1 names unknown thread 2", 0) ==
                 0,
             loaded.error.c_str());
}

void TestRunMerge::emptyFolderIsAnError() {
    const QString run = folder("empty");
    QVERIFY(!model::looksLikeRun(run.toStdString()));
    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY(!loaded.ok());
    QVERIFY2(loaded.error.rfind(run.toStdString() + ": no Stallscope session", 0) == 0,
             loaded.error.c_str());
}

// The bundled recording (resources/sample-ddp/: bench/multigpu/ddp_straggler.py, 20 steps, rank 1
// 20 ms of host work a step, 2 × H200, Python sampled at 200 Hz): two files of one host, ranks in
// order, GPUs by rank, the straggler named with the wait it caused and the line its host sat at.
void TestRunMerge::recordedDdpRunNamesTheStraggler() {
    const model::LoadResult loaded =
        model::RunMerger::load({STALLSCOPE_SOURCE_DIR "/resources/sample-ddp"});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    const model::Session& s = *loaded.session;
    QCOMPARE(s.processes.size(), size_t(2));
    QCOMPARE(s.processes[1].rank->rank, int64_t(1));
    QCOMPARE(s.processes[1].rank->launcher, std::string("torchrun"));
    QVERIFY(s.metaValue(format::meta::kRunClockAlignment).empty()); // one host, one clock
    model::SessionDatabase db;
    std::string error;
    QVERIFY2(db.open(s, &error), error.c_str());
    const model::InsightReport report = model::InsightEngine::analyze(s, db);
    const auto straggler =
        std::find_if(report.insights.begin(), report.insights.end(), [](const model::Insight& i) {
            return i.rule == model::InsightRule::Straggler;
        });
    QVERIFY(straggler != report.insights.end());
    QCOMPARE(straggler->straggler->label, std::string("rank 1"));
    // 20 ms a step over the 20 steps' collectives it was late at: rank 0 waited most of that.
    QVERIFY2(straggler->straggler->waitNs > 300'000'000,
             std::to_string(straggler->straggler->waitNs).c_str());
    QVERIFY2(straggler->evidence.find(
                 "sampled, the host was at ddp_straggler.py:23 in load_batch") != std::string::npos,
             straggler->evidence.c_str());
    QCOMPARE(straggler->site.line, int64_t(23));
    // NCCL's profiler plugin gave every NCCL kernel of both ranks its call: DDP's first step
    // reduces its 64 MiB of gradients in one bucket, the later ones in 16 + 16 + 32 MiB.
    int64_t collectives = 0, sixteenMiB = 0;
    for (const model::StreamLane& lane : s.streamLanes)
        for (size_t i = 0; i < lane.kernels.size(); ++i) {
            if (!model::isCollectiveKernelName(s.string(lane.kernels.nameId[i])))
                continue;
            ++collectives;
            const format::CollectiveCallRow* call = s.collectiveCall(lane.kernels.rowId[i]);
            QVERIFY(call);
            sixteenMiB += call->function == "AllReduce" && call->bytes == 16785408;
        }
    QCOMPARE(collectives, int64_t(128));
    QCOMPARE(s.collectiveCalls.size(), size_t(128));
    QCOMPARE(sixteenMiB, int64_t(2 * 2 * 19));
}

// Rank 1's collectives come 3 steps after rank 0's of the same index (one host, so no alignment):
// each pairing is "late" by 30 ms, 8 × 30 ms in all, more than the run. A delay or a wait counts
// once however many pairings cover it: the saving and each rank's wait stay within the window.
void TestRunMerge::unrelatedCollectivesSaveAtMostTheWindow() {
    const QString run = folder("unrelated");
    writeRank((run + "/r0.stallscope").toStdString(), {.rank = 0, .collectives = 8});
    writeRank((run + "/r1.stallscope").toStdString(),
              {.rank = 1, .collectives = 8, .firstCollectiveNs = 3 * kStepNs});
    const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    model::SessionDatabase db;
    std::string error;
    QVERIFY2(db.open(*loaded.session, &error), error.c_str());
    // Over the whole run (its first steps are the ones that differ between the ranks).
    model::AnalysisOptions options;
    options.window = model::activeWindow(*loaded.session);
    const model::InsightReport report = model::InsightEngine::analyze(*loaded.session, db, options);
    const auto straggler =
        std::find_if(report.insights.begin(), report.insights.end(), [](const model::Insight& i) {
            return i.rule == model::InsightRule::Straggler;
        });
    QVERIFY(straggler != report.insights.end());
    QCOMPARE(straggler->straggler->label, std::string("rank 1"));
    QVERIFY2(straggler->straggler->meanLatenessNs >= 3 * kStepNs - kStepNs / 2,
             std::to_string(straggler->straggler->meanLatenessNs).c_str());
    // Rank 0 arrives at its first collective 3 steps before rank 1's first and waits until
    // rank 1's last arrival: about 10 steps, covered once, not 8 × 3.
    QVERIFY2(straggler->share <= 1.0, std::to_string(straggler->share).c_str());
    QVERIFY2(straggler->savingsNs <= 11 * kStepNs, std::to_string(straggler->savingsNs).c_str());
    QVERIFY2(straggler->savingsNs >= 9 * kStepNs, std::to_string(straggler->savingsNs).c_str());
    QCOMPARE(straggler->straggler->waits.size(), size_t(1));
    QVERIFY2(straggler->straggler->waits[0].share <= 1.0,
             std::to_string(straggler->straggler->waits[0].share).c_str());
    QVERIFY2(straggler->straggler->waitNs <= 11 * kStepNs,
             std::to_string(straggler->straggler->waitNs).c_str());
}

STALLSCOPE_TEST_GUILESS_MAIN(TestRunMerge)
#include "test_run_merge.moc"
