// The in-memory run merge (RunMerger::load) against the former merge through one SQLite file
// (tests/support/sql_run_merge.h) on generated runs (model/testing: writeSyntheticRun): the same
// model to the last column — processes and their ranks, labels, lanes event by event, strings,
// meta, warning — the same stacks, modules, CUDA events and kernel rows read back through
// SessionDatabase, and the same findings (the straggler above all); on one host and on two hosts
// whose clocks are aligned on the collectives. Then what only the new path has: a bad rank file
// names itself, a cancelled open stops, progress rises to 1.
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/sqlite_database.h"
#include "model/analysis/insight_engine.h"
#include "model/interop/run_merge.h"
#include "model/session/session_database.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/sql_run_merge.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <set>
#include <tuple>

using namespace stallscope;

namespace {

// The tuple of a row's fields, for comparing rows that have no operator==.
auto fields(const model::ProcessInfo& p) {
    return std::tuple(p.rowId, p.pid, p.host, p.command, p.startNs, p.endNs, p.exitCode,
                      p.rank.has_value(), p.rank ? p.rank->processId : 0, p.rank ? p.rank->rank : 0,
                      p.rank ? p.rank->localRank : std::nullopt,
                      p.rank ? p.rank->worldSize : std::nullopt,
                      p.rank ? p.rank->launcher : std::string(), p.rank ? p.rank->clockShiftNs : 0);
}
auto fields(const model::ThreadInfo& t) {
    return std::tuple(t.rowId, t.processIndex, t.processId, t.tid, t.name);
}
auto fields(const model::DeviceInfo& d) {
    return std::tuple(d.rowId, d.processIndex, d.processId, d.deviceIndex, d.name, d.uuid,
                      d.computeMajor, d.computeMinor, d.smCount, d.globalMemoryBytes);
}
auto fields(const model::StreamInfo& s) {
    return std::tuple(s.rowId, s.deviceIndex, s.deviceId, s.contextId, s.streamId, s.isDefault,
                      s.priority);
}
auto fields(const model::FrameInfo& f) {
    return std::tuple(f.id, f.kind, f.address, f.moduleId, f.function, f.file, f.line, f.column,
                      f.symbolized, f.isUser);
}
auto fields(const model::ModuleInfo& m) {
    return std::tuple(m.id, m.processId, m.path, m.loadBias, m.startAddress, m.endAddress,
                      m.buildId, m.loadedNs);
}
auto fields(const model::CudaEventInfo& e) {
    return std::tuple(e.id, e.streamId, e.eventId, e.correlationId, e.recordNs);
}
auto fields(const format::KernelRow& k) {
    return std::tuple(k.streamId, k.nameId, k.startNs, k.endNs, k.correlationId, k.grid[0],
                      k.block[0], k.registersPerThread, k.dynamicSharedBytes);
}

template <typename Row> bool sameRows(const std::vector<Row>& a, const std::vector<Row>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const Row& x, const Row& y) { return fields(x) == fields(y); });
}

// Every column of a lane's events.
template <typename Kind>
bool sameColumns(const model::EventColumns<Kind>& a, const model::EventColumns<Kind>& b) {
    return a.start == b.start && a.end == b.end && a.rowId == b.rowId &&
           a.maxDuration == b.maxDuration &&
           Kind::kindColumns(static_cast<const Kind&>(a)) ==
               Kind::kindColumns(static_cast<const Kind&>(b));
}

// Sets QTest's failure (then the caller returns) when the two sessions differ anywhere but their
// path and parts.
void expectSameModel(const model::Session& a, const model::Session& b) {
    QVERIFY(a.meta == b.meta);
    QCOMPARE(a.status, b.status);
    QCOMPARE(a.warning, b.warning);
    QCOMPARE(a.formatVersion, b.formatVersion);
    QCOMPARE(a.startNs, b.startNs);
    QCOMPARE(a.endNs, b.endNs);
    QCOMPARE(a.counts, b.counts);
    QCOMPARE(a.droppedRecords, b.droppedRecords);
    QCOMPARE(a.untimedEvents, b.untimedEvents);
    QCOMPARE(a.hostSamples, b.hostSamples);
    QVERIFY(a.strings == b.strings);
    QVERIFY(sameRows(a.processes, b.processes));
    QVERIFY(sameRows(a.threads, b.threads));
    QVERIFY(sameRows(a.devices, b.devices));
    QVERIFY(sameRows(a.streams, b.streams));
    QCOMPARE(a.hostLanes.size(), b.hostLanes.size());
    for (size_t i = 0; i < a.hostLanes.size(); ++i) {
        const model::HostLane& x = a.hostLanes[i];
        const model::HostLane& y = b.hostLanes[i];
        QCOMPARE(x.threadIndex, y.threadIndex);
        QCOMPARE(a.threadLabel(a.threads[x.threadIndex]), b.threadLabel(b.threads[y.threadIndex]));
        QVERIFY2(sameColumns(x.apiCalls, y.apiCalls), qPrintable(QString::number(i)));
        QVERIFY2(sameColumns(x.syncs, y.syncs), qPrintable(QString::number(i)));
        QVERIFY2(sameColumns(x.samples, y.samples), qPrintable(QString::number(i)));
        QCOMPARE(x.rangesByDepth.size(), y.rangesByDepth.size());
        for (size_t d = 0; d < x.rangesByDepth.size(); ++d)
            QVERIFY(sameColumns(x.rangesByDepth[d], y.rangesByDepth[d]));
    }
    QCOMPARE(a.streamLanes.size(), b.streamLanes.size());
    for (size_t i = 0; i < a.streamLanes.size(); ++i) {
        const model::StreamLane& x = a.streamLanes[i];
        const model::StreamLane& y = b.streamLanes[i];
        QCOMPARE(x.streamIndex, y.streamIndex);
        QCOMPARE(a.streamLabel(a.streams[x.streamIndex]), b.streamLabel(b.streams[y.streamIndex]));
        QVERIFY(sameColumns(x.kernels, y.kernels));
        QVERIFY(sameColumns(x.memcpys, y.memcpys));
        QVERIFY(sameColumns(x.memsets, y.memsets));
    }
    // NCCL's calls (collective_calls), by kernel row id, each with its rank's moved process id.
    QCOMPARE(a.collectiveCalls.size(), b.collectiveCalls.size());
    QVERIFY(!a.collectiveCalls.empty());
    for (const auto& [kernel, x] : a.collectiveCalls) {
        const format::CollectiveCallRow* y = b.collectiveCall(kernel);
        QVERIFY(y);
        QCOMPARE(
            std::tuple(x.processId, x.correlationId, x.function, x.count, x.bytes, x.calls),
            std::tuple(y->processId, y->correlationId, y->function, y->count, y->bytes, y->calls));
    }
}

// What SessionDatabase reads back: every stack the syncs name, modules, sources, CUDA events,
// diagnostics, and the first and last kernel row of each stream.
void expectSameDatabase(const model::Session& session, const model::SessionDatabase& a,
                        const model::SessionDatabase& b) {
    std::set<uint32_t> stacks;
    for (const model::HostLane& lane : session.hostLanes) {
        stacks.insert(lane.syncs.stackId.begin(), lane.syncs.stackId.end());
        stacks.insert(lane.samples.stackId.begin(), lane.samples.stackId.end());
    }
    QVERIFY(stacks.size() > 1);
    for (uint32_t stack : stacks)
        QVERIFY2(sameRows(a.stack(stack), b.stack(stack)), qPrintable(QString::number(stack)));
    QVERIFY(sameRows(a.modules(), b.modules()));
    QVERIFY(!a.modules().empty());
    QCOMPARE(a.sourcePaths(), b.sourcePaths());
    QVERIFY(sameRows(a.cudaEvents(), b.cudaEvents()));
    QCOMPARE(a.diagnostics().size(), b.diagnostics().size());
    for (const model::StreamLane& lane : session.streamLanes)
        for (const uint32_t row :
             lane.kernels.empty()
                 ? std::vector<uint32_t>()
                 : std::vector<uint32_t>{lane.kernels.rowId.front(), lane.kernels.rowId.back()}) {
            const auto x = a.kernelDetails(row), y = b.kernelDetails(row);
            QVERIFY(x && y);
            QVERIFY(fields(*x) == fields(*y));
        }
}

void expectSameFindings(const model::InsightReport& a, const model::InsightReport& b) {
    QCOMPARE(a.insights.size(), b.insights.size());
    for (size_t i = 0; i < a.insights.size(); ++i) {
        QCOMPARE(a.insights[i].title, b.insights[i].title);
        QCOMPARE(a.insights[i].evidence, b.insights[i].evidence);
        QCOMPARE(a.insights[i].savingsNs, b.insights[i].savingsNs);
        QCOMPARE(a.insights[i].straggler.has_value(), b.insights[i].straggler.has_value());
        if (a.insights[i].straggler) {
            QCOMPARE(a.insights[i].straggler->label, b.insights[i].straggler->label);
            QCOMPARE(a.insights[i].straggler->waitNs, b.insights[i].straggler->waitNs);
            QCOMPARE(a.insights[i].straggler->cause, b.insights[i].straggler->cause);
        }
    }
}

const model::Insight* straggler(const model::InsightReport& report) {
    for (const model::Insight& insight : report.insights)
        if (insight.rule == model::InsightRule::Straggler)
            return &insight;
    return nullptr;
}

// Moves every time of `file` by `deltaNs` and puts its process on `host` (a rank recorded on
// another machine, whose monotonic clock reads differently).
void moveToHost(const std::string& file, const std::string& host, int64_t deltaNs) {
    format::Database db;
    std::string error;
    QVERIFY2(db.open(file, format::Database::Mode::ReadWrite, &error), error.c_str());
    QVERIFY2(db.exec("UPDATE processes SET host = '" + host + "'", &error), error.c_str());
    for (const format::Table* table : format::kTables)
        for (const format::Column& column : table->columns)
            if (format::isInstantColumn(column))
                QVERIFY2(db.exec("UPDATE " + std::string(table->name) + " SET " +
                                     std::string(column.name) + " = " + std::string(column.name) +
                                     " + " + std::to_string(deltaNs),
                                 &error),
                         error.c_str());
}

// Renumbers the strings of `file` in reverse order (and every name_id with them): the same
// texts under other ids, as a rank that interned its names in another order has them.
void reverseStrings(const std::string& file) {
    format::Database db;
    std::string error;
    QVERIFY2(db.open(file, format::Database::Mode::ReadWrite, &error), error.c_str());
    const std::string reversed = "(SELECT count(*) FROM strings) + 1 - ";
    QVERIFY2(db.exec("UPDATE strings SET id = -id; UPDATE strings SET id = " + reversed + "(-id)",
                     &error),
             error.c_str());
    for (const format::Table* table : format::kTables)
        if (format::hasColumn(*table, "name_id"))
            QVERIFY2(db.exec("UPDATE " + std::string(table->name) + " SET name_id = " + reversed +
                                 "name_id",
                             &error),
                     error.c_str());
}

} // namespace

class TestRunMergeEquivalence : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void oneHostRunEqualsTheMergedFile();
    void evenRunEqualsTheMergedFile();
    void twoHostRunEqualsTheMergedFile();
    void oldFormatRankEqualsTheMergedFile();
    void badRankFileIsNamed();
    void cancelledOpenStops();
    void progressRisesToOne();

private:
    // A generated data-parallel job of `ranks` ranks as a run folder; empty when it cannot be
    // written (which fails the test).
    std::string writeRun(const char* name, int ranks, int stragglerRank) {
        const std::string folder = m_dir.filePath(name).toStdString();
        model::SyntheticOptions options;
        options.seed = 7;
        options.ranks = ranks;
        options.rankSteps = 30;
        options.kernelsPerStep = 8;
        options.stragglerRank = stragglerRank;
        options.stragglerDelayNs = stragglerRank >= 0 ? 20'000'000 : 0;
        options.rankJitterNs = 50'000;
        options.sampleHz = 200; // the straggler's host work sampled (host_samples)
        std::string error;
        if (!model::writeSyntheticRun(folder, options, nullptr, &error)) {
            STALLSCOPE_FAIL("cannot write the run %s: %s", folder.c_str(), error.c_str());
            return {};
        }
        return folder;
    }

    // Opens `paths` both ways and checks they agree everywhere; the new path's report (empty once
    // the test failed).
    model::InsightReport expectSameBothWays(const std::vector<std::string>& paths,
                                            const char* merged) {
        const model::LoadResult now = model::RunMerger::load(paths);
        const model::LoadResult before =
            testing::loadThroughMergedFile(paths, m_dir.filePath(merged).toStdString());
        if (!now.ok() || !before.ok()) {
            STALLSCOPE_FAIL("cannot open %s both ways: %s | %s", paths.front().c_str(),
                            now.error.c_str(), before.error.c_str());
            return {};
        }
        if (now.session->parts.size() != before.session->processes.size()) {
            STALLSCOPE_FAIL("%s: one part per rank file expected, %zu parts for %zu processes",
                            paths.front().c_str(), now.session->parts.size(),
                            before.session->processes.size());
            return {};
        }
        expectSameModel(*now.session, *before.session);
        if (QTest::currentTestFailed())
            return {};
        model::SessionDatabase nowDb, beforeDb;
        std::string error;
        if (!nowDb.open(*now.session, &error) || !beforeDb.open(*before.session, &error)) {
            STALLSCOPE_FAIL("cannot open the databases of %s: %s", paths.front().c_str(),
                            error.c_str());
            return {};
        }
        expectSameDatabase(*now.session, nowDb, beforeDb);
        if (QTest::currentTestFailed())
            return {};
        model::InsightReport report = model::InsightEngine::analyze(*now.session, nowDb);
        expectSameFindings(report, model::InsightEngine::analyze(*before.session, beforeDb));
        return report;
    }

    QTemporaryDir m_dir;
};

void TestRunMergeEquivalence::oneHostRunEqualsTheMergedFile() {
    const std::string run = writeRun("one-host", 4, 2);
    QVERIFY(!run.empty());
    reverseStrings(run + "/rank1.stallscope"); // its names under other ids than rank 0's
    const model::InsightReport report = expectSameBothWays({run}, "one-host.stallscope");
    const model::Insight* late = straggler(report);
    QVERIFY(late);
    QCOMPARE(late->straggler->label, std::string("rank 2"));
    QVERIFY2(late->evidence.find("sampled") != std::string::npos, late->evidence.c_str());
}

void TestRunMergeEquivalence::evenRunEqualsTheMergedFile() {
    const std::string run = writeRun("even", 3, -1);
    QVERIFY(!run.empty());
    const model::InsightReport report = expectSameBothWays({run}, "even.stallscope");
    QVERIFY(!QTest::currentTestFailed());
    QVERIFY(!straggler(report));
}

void TestRunMergeEquivalence::twoHostRunEqualsTheMergedFile() {
    // Ranks 2 and 3 ran on node-b, whose clock reads 5 s ahead; rank 0 and 1's clock started
    // just before the job (its times near 0), and node-b loaded a module 50 ms before its
    // process started: on rank 0's clock that is before 0, so every host is moved on.
    const std::string run = writeRun("two-hosts", 4, 1);
    QVERIFY(!run.empty());
    const int64_t rank0Start = [&] {
        const model::LoadResult rank0 = model::SessionLoader::load(run + "/rank0.stallscope");
        return rank0.ok() ? rank0.session->startNs : 0;
    }();
    QVERIFY(rank0Start > 1'000'000'000);
    for (const char* file : {"/rank0.stallscope", "/rank1.stallscope"})
        moveToHost(run + file, "node-a", 1'000'000 - rank0Start);
    for (const char* file : {"/rank2.stallscope", "/rank3.stallscope"})
        moveToHost(run + file, "node-b", 5'000'000'000 + 1'000'000 - rank0Start);
    {
        format::Database db;
        std::string error;
        QVERIFY(db.open(run + "/rank2.stallscope", format::Database::Mode::ReadWrite, &error));
        QVERIFY(db.exec("UPDATE modules SET loaded_ns = loaded_ns - 50000000", &error));
    }
    const model::InsightReport report = expectSameBothWays({run}, "two-hosts.stallscope");
    QVERIFY(!QTest::currentTestFailed());
    const model::LoadResult loaded = model::RunMerger::load({run});
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    const model::Session& s = *loaded.session;
    const std::string alignment = s.metaValue(format::meta::kRunClockAlignment);
    QVERIFY2(alignment.find("node-b: -5000.0") != std::string::npos, alignment.c_str());
    // Everyone moved on by what node-b's early module needed.
    QVERIFY(s.processes[0].rank->clockShiftNs > 40'000'000);
    QCOMPARE(s.processLabel(3), std::string("rank 3 · node-b"));
    const model::Insight* late = straggler(report);
    QVERIFY(late);
    QCOMPARE(late->straggler->label, std::string("rank 1 · node-a"));
}

void TestRunMergeEquivalence::oldFormatRankEqualsTheMergedFile() {
    // A v1 file (no process_ranks) beside a current one: both paths upgrade it alike.
    const std::string run = writeRun("mixed", 1, -1);
    QVERIFY(!run.empty());
    const std::string v1 = STALLSCOPE_SOURCE_DIR "/tests/format/data/format-v1.stallscope";
    expectSameBothWays({run + "/rank0.stallscope", v1}, "mixed.stallscope");
}

void TestRunMergeEquivalence::badRankFileIsNamed() {
    const std::string run = writeRun("bad", 8, -1);
    QVERIFY(!run.empty());
    const std::string bad = run + "/rank5.stallscope";
    {
        format::Database db;
        std::string error;
        QVERIFY(db.open(bad, format::Database::Mode::ReadWrite, &error));
        QVERIFY(db.exec("UPDATE kernels SET end_ns = start_ns - 1 WHERE id = "
                        "(SELECT max(id) FROM kernels)",
                        &error));
    }
    const model::LoadResult loaded = model::RunMerger::load({run});
    QVERIFY(!loaded.ok());
    QVERIFY(!loaded.cancelled);
    QVERIFY2(loaded.error.rfind(bad + ": corrupt session: kernels row ", 0) == 0,
             loaded.error.c_str());
    QVERIFY2(loaded.error.find("ends before it starts") != std::string::npos, loaded.error.c_str());
}

void TestRunMergeEquivalence::cancelledOpenStops() {
    const std::string run = writeRun("cancelled", 2, -1);
    QVERIFY(!run.empty());
    std::atomic<bool> cancel{true};
    model::LoadOptions options;
    options.cancel = &cancel;
    const model::LoadResult loaded = model::RunMerger::load({run}, options);
    QVERIFY(!loaded.ok());
    QVERIFY(loaded.cancelled);
    QVERIFY2(loaded.error.rfind(run + ": ", 0) == 0, loaded.error.c_str());
}

void TestRunMergeEquivalence::progressRisesToOne() {
    const std::string run = writeRun("progress", 3, -1);
    QVERIFY(!run.empty());
    std::vector<double> fractions;
    model::LoadOptions options;
    options.progress = [&](double f) { fractions.push_back(f); };
    QVERIFY(model::RunMerger::load({run}, options).ok());
    QVERIFY(fractions.size() > 1);
    QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
    QCOMPARE(fractions.back(), 1.0);
    QVERIFY(fractions.front() >= 0.0);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestRunMergeEquivalence)
#include "test_run_merge_equivalence.moc"
