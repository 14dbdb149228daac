// A removed sync's statement takes its own work on the value with it (WhatIf::statementShareAfter):
// the share of the CPU time after the sync, up to the thread's next call, that the Python sampler
// saw on the sync's line (sampledShareAfter) — a .tolist()'s list, print's formatting, which
// reading later moves out of the loop. Hand-computed on a host-bound loop, both sides of the
// samples' minimum.
#include "model/analysis/insight_engine.h"
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"
#include "tests/model/insight_fixture.h"
#include "tests/model/whatif_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace stallscope;
using format::SyncKind;
using model::whatif::Replayer;
using model::whatif::WhatIf;
using testing::InsightFixture;

namespace {

constexpr int64_t kStatementPeriod = 500'000;
constexpr int64_t kGapAfter = 390'000; // sync end (+110 µs) to the next launch (+500 µs)

// Steps 500 µs apart: a launch [+0, +0.5 µs] of a 100 µs kernel [+5, +105 µs], a stream sync
// [+1, +110 µs] from `stack`, then host work until the next step. With `sampleStacks`, each step's
// work after the sync holds one sample per line named, at +200 µs, +300 µs, ...
void writeLoop(InsightFixture& f, int steps, int64_t stack,
               const std::vector<int64_t>& sampleStacks = {}) {
    for (const int64_t t : testing::stepStarts(steps, kStatementPeriod)) {
        f.launch(t, t + 5'000, t + 105'000);
        f.sync(SyncKind::Stream, t + 1'000, t + 110'000, stack, f.stream);
        int64_t at = t + 200'000;
        for (const int64_t sampled : sampleStacks) {
            f.writer().addHostSample({f.thread, at, at, 1, sampled});
            at += 100'000;
        }
    }
}

} // namespace

class TestStatementTime : public QObject {
    Q_OBJECT
private slots:
    // The loop stays host-bound (a step of at least 196 µs against a 100 µs kernel), so each of
    // the nine gaps after a removed sync gives back exactly its share; none before the first.
    void shareOfTheGapAfterARemovedSync() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("after.stallscope").toStdString();
        InsightFixture f(file, 100'000'000);
        const int64_t stack = f.nativeStack("eval.cu", 38, "evaluate");
        writeLoop(f, 10, stack);
        QVERIFY(f.load().ok());
        const std::unique_ptr<testing::Built> built = testing::buildGraph(file);
        QVERIFY(built);
        WhatIf removed;
        removed.removedSyncs = testing::syncsOfStack(*built->session, stack);
        const int64_t without = testing::replayedEnd(*built, removed);
        removed.statementShareAfter = 0.5;
        QCOMPARE(without - testing::replayedEnd(*built, removed), 9 * kGapAfter / 2);
        removed.statementShareAfter = 0.25;
        QCOMPARE(without - testing::replayedEnd(*built, removed), 9 * kGapAfter / 4);
        // Kept syncs leave the gaps alone, whatever the share.
        WhatIf kept;
        kept.statementShareAfter = 0.5;
        QCOMPARE(testing::replayedEnd(*built, kept), testing::replayedEnd(*built, WhatIf{}));
    }

    // The analysis measures the share with the sampler: half the samples after the sync on its
    // line (38) and half on the next one (40) give back half of each gap, against a loop whose
    // samples there all lie on line 40. Under sampledLines.minSamples (10) samples: no share.
    void sampledShareOfTheLine() {
        QTemporaryDir dir;
        double replayedShare = -1;
        // Nothing when the fixture failed (which failed the test).
        auto saving = [&](int steps, bool onTheLine) -> std::optional<int64_t> {
            const std::string file =
                dir.filePath(QStringLiteral("s%1-%2.stallscope").arg(steps).arg(onTheLine))
                    .toStdString();
            InsightFixture f(file, 100'000'000);
            const int64_t stack = f.pythonStack("/home/u/eval.py", 38, "evaluate");
            const int64_t next = f.pythonStack("/home/u/eval.py", 40, "evaluate");
            writeLoop(f, steps, stack, {onTheLine ? stack : next, next});
            const testing::LoadedFixture loaded = f.load();
            if (!loaded.ok())
                return std::nullopt;
            model::AnalysisOptions options;
            options.window = model::sessionWindow(*loaded.session);
            const model::InsightReport report = loaded.analyze(options);
            // The card carries the change it replayed, for the timeline's after-fix bars.
            for (const model::Insight& insight : report.insights)
                if (insight.site.line == 38)
                    replayedShare = insight.change ? insight.change->statementShareAfter : 0.0;
            for (const model::SyncSiteStats& site : report.sites)
                if (site.site.line == 38)
                    return site.savingsNs;
            return int64_t(-1);
        };
        const std::optional<int64_t> on20 = saving(20, true), off20 = saving(20, false);
        QVERIFY(on20 && off20);
        QCOMPARE(*on20 - *off20, 19 * kGapAfter / 2);
        QCOMPARE(replayedShare, 0.0); // the samples after the sync all on line 40
        QVERIFY(saving(20, true));
        QCOMPARE(replayedShare, 0.5);
        // The last sync has no next call, so its samples are not counted: 5 steps give 8 samples,
        // 6 give 10.
        const std::optional<int64_t> on5 = saving(5, true), off5 = saving(5, false);
        QVERIFY(on5 && off5);
        QCOMPARE(*on5, *off5);
        const std::optional<int64_t> on6 = saving(6, true), off6 = saving(6, false);
        QVERIFY(on6 && off6);
        QCOMPARE(*on6 - *off6, 5 * kGapAfter / 2);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestStatementTime)
#include "test_statement_time.moc"
