// The loop found from the kernel sequence (model/analysis/steady_state.h) in a loop whose
// iterations are not all alike: host work of data-dependent length spreads the steps around the
// median, and it is still one loop (both sides of the regularity bounds).
#include "model/analysis/analysis_window.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using testing::InsightFixture;

namespace {

constexpr int64_t kShapesLoopStartNs = 1'000'000'000;

// `steps` iterations from kShapesLoopStartNs: the host prepares a batch for `hostNs(i)`, then
// launches "forward" and "backward" (2 ms of GPU work together) and goes on.
template <typename HostNs>
std::unique_ptr<InsightFixture> stepsOfVaryingHostWork(const std::string& file, int steps,
                                                       HostNs hostNs) {
    auto f = std::make_unique<InsightFixture>(file, 4'000'000'000);
    int64_t t = kShapesLoopStartNs;
    for (int i = 0; i < steps; ++i) {
        t += hostNs(i);
        f->setKernelName("forward");
        f->launch(t, t + 5'000, t + 1'005'000);
        f->setKernelName("backward");
        f->launch(t + 1'000, t + 1'005'000, t + 2'005'000);
        t += 2'010'000;
    }
    return f;
}

} // namespace

class TestLoopShapes : public QObject {
    Q_OBJECT
private slots:
    // Steps of 10 ms host work plus 2 ms on the GPU; every fourth step's host work is longer:
    // its step `factor` times the median step. 75 % of the steps lie at the median whatever the
    // factor; the loop holds when the long quarter lies within 2x the median as well (80 % of the
    // steps, and of their time, within 0.5-2x).
    void stepsOfDataDependentLength_data() {
        QTest::addColumn<double>("factor");
        QTest::addColumn<bool>("loop");
        QTest::newRow("1.4x (the corpus's augmentation)") << 1.4 << true;
        QTest::newRow("2x") << 2.0 << true;
        QTest::newRow("2.1x") << 2.1 << false;
    }
    void stepsOfDataDependentLength() {
        QFETCH(double, factor);
        QFETCH(bool, loop);
        QTemporaryDir dir;
        const int64_t stepNs = 12'010'000;
        auto f = stepsOfVaryingHostWork(
            dir.filePath("varying.stallscope").toStdString(), 60, [&](int i) {
                return i % 4 == 3 ? std::llround(factor * stepNs) - 2'010'000 : 10'000'000;
            });
        const auto loaded = f->load();
        const model::AnalysisWindow window = model::defaultWindow(*loaded.session);
        QCOMPARE(window.kind == model::AnalysisWindow::Kind::Loop, loop);
        if (loop)
            QVERIFY(window.steps >= 55);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestLoopShapes)
#include "test_loop_shapes.moc"
