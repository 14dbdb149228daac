// The "after fix" ghosts (issue 12): selecting a finding replays its fix in the background and the
// timeline holds the replayed positions; another finding supersedes, clearing removes them; a
// ghost sits where the replay puts its operation; a lane yields at most one ghost per pixel.
#include "model/analysis/insight_engine.h"
#include "model/session/session_loader.h"
#include "model/session/session_summary.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"
#include "tests/views/insight_session.h"
#include "views/panels/after_fix_preview.h"
#include "views/panels/analysis_panels.h"
#include "views/timeline/after_fix_bars.h"
#include "views/timeline/timeline_widget.h"

#include <QMainWindow>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using namespace stallscope::views;
namespace fixture = insight_session;

namespace {

// The replay's shifts as the timeline holds them.
const std::vector<int64_t>& heldEndShifts(const TimelineWidget& timeline) {
    return timeline.afterFix().replay->opEndShift;
}

} // namespace

class AfterFixTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const model::Session> m_session;
    std::shared_ptr<const model::InsightReport> m_report;
    int m_finding = -1; // the first simulated finding

    const model::Insight& finding() const { return m_report->insights[size_t(m_finding)]; }

    // The finding with only the first half of its syncs: a different fix of the same site.
    model::Insight halfFinding() const {
        model::Insight half = finding();
        model::EventSpans spans;
        for (const model::EventSpan& span : *half.events)
            if (span.first.kind == model::EventKind::Sync && span.count > 1)
                spans.push_back({span.first, span.count / 2});
        half.events = std::make_shared<const model::EventSpans>(std::move(spans));
        return half;
    }

    // The global operation of a kernel, found without AfterFixBars.
    uint32_t globalOpOfKernel(int32_t lane, uint32_t index) const {
        const auto& stream = m_report->runGraph->streams()[lane];
        for (uint32_t k = 0; k < stream.ops.size(); ++k)
            if (stream.ops[k] == index &&
                m_report->runGraph->opKind(lane, k) == model::whatif::RunGraph::OpKind::Kernel)
                return stream.firstOp + k;
        return model::whatif::kNone;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QString path;
        const auto database = fixture::writeAndOpen(m_dir, &path);
        QVERIFY(database);
        model::LoadResult loaded = model::SessionLoader::load(path.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        m_session = std::shared_ptr<const model::Session>(std::move(loaded.session));
        m_report = std::make_shared<const model::InsightReport>(
            model::InsightEngine::analyze(*m_session, *database));
        QVERIFY(m_report->runGraph);
        for (size_t i = 0; i < m_report->insights.size() && m_finding < 0; ++i)
            if (m_report->insights[i].simulated && m_report->insights[i].savingsNs > 0)
                m_finding = int(i);
        QVERIFY2(m_finding >= 0, "the fixture's in-loop sync must be simulated");
    }

    // The replay behind the ghosts: every operation has a start and an end shift, and work
    // after the removed syncs runs sooner.
    void replayKeepsShifts() {
        const auto result = AfterFixPreview::replay(*m_report, finding());
        QVERIFY(result);
        const size_t ops = m_report->runGraph->opCount();
        QCOMPARE(result->opStartShift.size(), ops);
        QCOMPARE(result->opEndShift.size(), ops);
        QVERIFY(result->stepShift.empty()); // not kept: the ghosts are GPU work only
        QVERIFY(result->opEndShift.back() < 0);
        QVERIFY(result->opEndShift.front() == 0); // launched before the first sync
        // Half the syncs removed: less moves.
        const auto half = AfterFixPreview::replay(*m_report, halfFinding());
        QVERIFY(half);
        QVERIFY(half->opEndShift.back() > result->opEndShift.back());
    }

    void selectingACardShowsGhostsAndClearingRemovesThem() {
        QMainWindow window;
        auto* timeline = new TimelineWidget;
        window.setCentralWidget(timeline);
        AnalysisPanels panels(&window, timeline);
        window.resize(1200, 800);
        timeline->setSession(m_session);
        QSignalSpy analysed(&panels, &AnalysisPanels::analysisFinished);
        panels.setSession(m_session);
        QVERIFY(analysed.wait(10'000));
        const auto report = panels.report();
        QVERIFY(report && int(report->insights.size()) > m_finding);
        const model::Insight& insight = report->insights[size_t(m_finding)];

        QSignalSpy shown(panels.afterFix(), &AfterFixPreview::shown);
        QSignalSpy status(&panels, &AnalysisPanels::statusMessage);
        panels.activateInsight(m_finding);
        QVERIFY(shown.wait(10'000));
        QCOMPARE(shown.front().at(0).toLongLong(), insight.savingsNs);
        QVERIFY(timeline->hasAfterFix());
        QCOMPARE(heldEndShifts(*timeline), AfterFixPreview::replay(*report, insight)->opEndShift);
        const QString saving = QString::fromStdString(model::formatDuration(insight.savingsNs));
        QCOMPARE(timeline->afterFixLegend(),
                 QStringLiteral("After fix: ends %1 sooner").arg(saving));
        QVERIFY(status.back().at(0).toString().contains(saving));
        QVERIFY(!timeline->ghostBlocks().empty());

        // Escape clears the selection, and the ghosts with it.
        timeline->setFocus();
        QTest::keyClick(timeline, Qt::Key_Escape);
        QVERIFY(!timeline->hasAfterFix());
        QVERIFY(timeline->ghostBlocks().empty());
        QVERIFY(timeline->afterFixLegend().isEmpty());

        // Another highlight (a sync-site row, the find box) removes them too.
        panels.activateInsight(m_finding);
        QVERIFY(shown.wait(10'000));
        QVERIFY(timeline->hasAfterFix());
        panels.highlightEvents(*insight.events, QStringLiteral("site"));
        QVERIFY(!timeline->hasAfterFix());
        QVERIFY(!panels.afterFix()->isRunning());

        // A new report (Analyze Selected Range) removes them.
        panels.activateInsight(m_finding);
        QVERIFY(shown.wait(10'000));
        panels.analyzeWindow(std::nullopt);
        QVERIFY(analysed.wait(10'000));
        QVERIFY(!timeline->hasAfterFix());
    }

    void anotherFindingSupersedes() {
        TimelineWidget timeline;
        timeline.setSession(m_session);
        AfterFixPreview preview(&timeline);
        QSignalSpy shown(&preview, &AfterFixPreview::shown);
        const model::Insight half = halfFinding();
        preview.show(m_report, finding());
        preview.show(m_report, half); // before the first replay could deliver
        QVERIFY(shown.wait(10'000));
        preview.waitForDone();
        QCoreApplication::processEvents(); // whatever the first job might still deliver
        QCOMPARE(shown.size(), 1);
        QCOMPARE(heldEndShifts(timeline), AfterFixPreview::replay(*m_report, half)->opEndShift);
        QVERIFY(heldEndShifts(timeline) !=
                AfterFixPreview::replay(*m_report, finding())->opEndShift);

        // Cleared while running: nothing arrives.
        preview.show(m_report, finding());
        QVERIFY(!timeline.hasAfterFix()); // the previous ghosts went at once
        preview.clear();
        preview.waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(shown.size(), 1);
        QVERIFY(!timeline.hasAfterFix());

        // A finding without a replay gets no ghosts.
        model::Insight estimated = finding();
        estimated.simulated = false;
        preview.show(m_report, estimated);
        QVERIFY(!preview.isRunning());
        QVERIFY(!timeline.hasAfterFix());
    }

    // A launch-bound finding has no syncs to remove: its ghosts are its stretch replayed as CUDA
    // graphs, the change its saving came from (Insight::change). 41 launches 10 µs apart, each
    // call 0.5 µs and its 2 µs kernel 5 µs after the call: kernels 1..40 are the stretch (kernel
    // 0 has no gap before it), one graph, whose nodes a graph spaces 0.25 µs apart.
    void launchBoundFindingShowsItsGraphs() {
        testing::InsightFixture fixture(m_dir.filePath("launch-bound.stallscope").toStdString());
        for (int i = 0; i <= 40; ++i) {
            const int64_t call = 10'000 + 10'000 * i;
            fixture.launch(call, call + 5'000, call + 7'000);
        }
        const testing::LoadedFixture loaded = fixture.load();
        QVERIFY(loaded.ok());
        const auto report = std::make_shared<const model::InsightReport>(loaded.analyze());
        const model::Insight* bound = nullptr;
        for (const model::Insight& insight : report->insights)
            if (insight.rule == model::InsightRule::LaunchBound)
                bound = &insight;
        QVERIFY(bound && bound->simulated && bound->change);

        const auto result = AfterFixPreview::replay(*report, *bound);
        QVERIFY(result);
        const auto& stream = report->runGraph->streams()[0];
        auto endShift = [&](uint32_t kernel) {
            for (uint32_t k = 0; k < stream.ops.size(); ++k)
                if (stream.ops[k] == kernel)
                    return result->opEndShift[stream.firstOp + k];
            return int64_t(1); // not found: no shift is positive
        };
        QCOMPARE(endShift(0), int64_t(0)); // before the stretch
        QVERIFY(endShift(1) < 0);          // the graph's launch loses its first launch's dispatch
        for (uint32_t kernel = 2; kernel <= 40; ++kernel) // each 8 µs gap becomes 0.25 µs
            QCOMPARE(endShift(kernel) - endShift(kernel - 1), int64_t(-7'750));
        QCOMPARE(endShift(40), -bound->savingsNs); // the legend's number: the run ends sooner

        TimelineWidget timeline;
        timeline.resize(1200, 600);
        timeline.setSession(loaded.session);
        AfterFixPreview preview(&timeline);
        QSignalSpy shown(&preview, &AfterFixPreview::shown);
        preview.show(report, *bound);
        QVERIFY(shown.wait(10'000));
        QCOMPARE(shown.front().at(0).toLongLong(), bound->savingsNs);
        QVERIFY(timeline.hasAfterFix());
        QCOMPARE(heldEndShifts(timeline), result->opEndShift);
        QVERIFY(!timeline.ghostBlocks().empty());
    }

    // The last kernel's ghost: the replayed interval, drawn where the viewport maps it.
    void ghostIsWhereTheReplaySays() {
        TimelineWidget timeline;
        timeline.resize(1200, 600);
        timeline.setSession(m_session);
        const auto result = AfterFixPreview::replay(*m_report, finding());
        timeline.setAfterFix({m_report->runGraph, result, finding().savingsNs});
        QVERIFY(timeline.hasAfterFix());

        const int32_t lane = 0;
        const model::KernelColumns& kernels = m_session->streamLanes[lane].kernels;
        const uint32_t index = uint32_t(kernels.size() - 1);
        const model::EventRef kernel{model::EventKind::Kernel, lane, 0, index};
        const uint32_t op = globalOpOfKernel(lane, index);
        QVERIFY(op != model::whatif::kNone);
        const int64_t start = kernels.start[index] + result->opStartShift[op];
        const int64_t end = kernels.end[index] + result->opEndShift[op];
        QVERIFY(start < kernels.start[index]); // sooner
        const auto interval = timeline.afterFixInterval(kernel);
        QVERIFY(interval);
        QCOMPARE(interval->first, start);
        QCOMPARE(interval->second, end);
        QVERIFY(!timeline.afterFixInterval({model::EventKind::Sync, 0, 0, 0}));
        QVERIFY2(timeline.toolTipFor(kernel).contains(
                     QStringLiteral("after fix: starts %1 sooner")
                         .arg(QString::fromStdString(
                             model::formatDuration(kernels.start[index] - start)))),
                 qPrintable(timeline.toolTipFor(kernel)));
        QVERIFY(!timeline.toolTipFor({model::EventKind::Sync, 0, 0, 0}).contains("after fix"));

        timeline.setVisibleRange(start - (end - start), end + (end - start));
        const int row = timeline.rowOf(kernel);
        const GhostBlock* ghost = nullptr;
        for (const GhostBlock& block : timeline.ghostBlocks())
            if (int(block.lane) == row && block.count == 1 &&
                m_report->runGraph->streams()[lane].firstOp + block.firstOp == op)
                ghost = &block;
        QVERIFY(ghost);
        const TimelineViewport& viewport = timeline.viewport();
        QVERIFY(std::abs(ghost->x0 - viewport.xForTime(start)) < 1.0);
        QVERIFY(std::abs(ghost->x1 - viewport.xForTime(end)) < 1.0);
        // A third of the view on either side of it.
        QVERIFY(ghost->x0 > viewport.width() * 0.3 && ghost->x1 < viewport.width() * 0.7);

        // Zoomed out, the ghosts still stay within the lane's pixels.
        timeline.zoomToFit();
        int ghosts = 0;
        for (const GhostBlock& block : timeline.ghostBlocks()) {
            ghosts += int(block.lane) == row;
            QVERIFY(block.x1 >= block.x0 + 1.0f);
        }
        QVERIFY(ghosts > 0 && ghosts <= timeline.viewport().width());

        // Escape on the timeline alone (no panels listening) clears them.
        QSignalSpy cleared(&timeline, &TimelineWidget::selectionCleared);
        QTest::keyClick(&timeline, Qt::Key_Escape);
        QCOMPARE(cleared.size(), 1);
        QVERIFY(!timeline.hasAfterFix());
        QVERIFY(timeline.ghostBlocks().empty());
        QVERIFY(!timeline.toolTipFor(kernel).contains(QStringLiteral("after fix")));
    }

    // 400 000 kernels moved by 500 ns: at most one ghost per pixel column, and the ghosts'
    // counts add up to every operation of the lane.
    void ghostsFollowPixelsNotOperations() {
        constexpr uint32_t kKernels = 400'000;
        auto session = std::make_shared<model::Session>();
        session->strings = {"", "gemm"};
        session->devices.push_back({});
        model::StreamInfo info;
        info.deviceIndex = 0;
        session->streams.push_back(info);
        model::StreamLane stream;
        stream.streamIndex = 0;
        for (uint32_t i = 0; i < kKernels; ++i) {
            stream.kernels.pushInterval(int64_t(i) * 2'000, int64_t(i) * 2'000 + 1'000, i);
            stream.kernels.nameId.push_back(1);
            stream.kernels.correlationId.push_back(0);
        }
        session->streamLanes.push_back(std::move(stream));
        session->counts.kernels = kKernels;
        session->startNs = 0;
        session->endNs = int64_t(kKernels) * 2'000;
        auto graph = std::make_shared<model::whatif::RunGraph>();
        QVERIFY(graph->build(*session, std::span<const model::CudaEventInfo>{}, nullptr));
        QCOMPARE(graph->opCount(), size_t(kKernels));
        auto replay = std::make_shared<model::whatif::ReplayResult>();
        replay->opStartShift.assign(kKernels, -500);
        replay->opEndShift.assign(kKernels, -500);

        TimelineWidget timeline;
        timeline.resize(1000, 400);
        timeline.setSession(session);
        timeline.setAfterFix({graph, replay, 500});
        QVERIFY(timeline.hasAfterFix());
        timeline.zoomToFit();
        const auto& ghosts = timeline.ghostBlocks();
        QVERIFY(!ghosts.empty());
        QVERIFY(int(ghosts.size()) <= timeline.viewport().width() + 1);
        int64_t operations = 0;
        for (const GhostBlock& block : ghosts)
            operations += block.count;
        QCOMPARE(operations, int64_t(kKernels));
        QCOMPARE(ghosts.front().firstOp, 0u);
        QCOMPARE(ghosts.back().firstOp + ghosts.back().count, kKernels);

        // Nothing moved: no ghosts.
        auto still = std::make_shared<model::whatif::ReplayResult>();
        still->opStartShift.assign(kKernels, 0);
        still->opEndShift.assign(kKernels, 0);
        timeline.setAfterFix({graph, still, 0});
        QVERIFY(timeline.ghostBlocks().empty());
        // A replay of another session's graph is refused.
        timeline.setAfterFix({m_report->runGraph, replay, 500});
        QVERIFY(!timeline.hasAfterFix());
    }
};

STALLSCOPE_TEST_MAIN(AfterFixTest)
#include "tst_after_fix.moc"
