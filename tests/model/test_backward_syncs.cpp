// One fix, one finding: the syncs of a line's op in its backward pass (on the autograd thread)
// join the line's (model/analysis/aten_frames.h: isBackwardOf names the autograd node of an op).
#include "model/analysis/aten_frames.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using testing::insightAt;
using testing::InsightFixture;
using Kind = format::SyncKind;

namespace {

constexpr int64_t kBackwardStepNs = 1'000'000;
constexpr int64_t kBackwardLoopStartNs = 1'000'000'000; // a second of start-up before the loop

} // namespace

class TestBackwardSyncs : public QObject {
    Q_OBJECT
private slots:
    void backwardOfAnOp_data();
    void backwardOfAnOp();
    void backwardPassSyncsJoinTheirLine();

private:
    std::string path(const std::string& name) { return m_dir.filePath(name.c_str()).toStdString(); }
    QTemporaryDir m_dir;
};

void TestBackwardSyncs::backwardOfAnOp_data() {
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("op");
    QTest::addColumn<bool>("backward");
    QTest::newRow("overload") << "IndexBackward0"
                              << "index_Tensor" << true;
    QTest::newRow("plain") << "IndexBackward0"
                           << "index" << true;
    QTest::newRow("another op") << "IndexBackward0"
                                << "index_select" << false;
    QTest::newRow("in place") << "IndexPutBackward0"
                              << "index_put_" << true;
    QTest::newRow("longer node") << "IndexPutBackward0"
                                 << "index" << false;
    QTest::newRow("not a node") << "Backward0"
                                << "index" << false;
}

void TestBackwardSyncs::backwardOfAnOp() {
    QFETCH(QString, node);
    QFETCH(QString, op);
    QFETCH(bool, backward);
    QCOMPARE(model::isBackwardOf(node.toStdString(), op.toStdString()), backward);
}

void TestBackwardSyncs::backwardPassSyncsJoinTheirLine() {
    // `logits[mask]` at train.py:59 syncs in `index` (nonzero) on the main thread, and again in
    // IndexBackward0 on the autograd thread; a `torch.unique` backward elsewhere has no line of
    // its op that synced, and keeps a readable name of its own.
    InsightFixture f(path("backward.stallscope"), 2'000'000'000);
    const int64_t autograd = f.addThread(4243);
    auto native = [&](const std::string& function) { return f.nativeFrame("", 0, function); };
    format::FrameRow line;
    line.kind = format::FrameKind::Python;
    line.file = "/home/u/train.py";
    line.line = 59;
    line.function = "train_step";
    const int64_t python = f.writer().addFrame(line);
    const int64_t nonzero = native("at::_ops::nonzero::call(at::Tensor const&)");
    const int64_t forward = f.stackOf(
        {f.driverFrame(), nonzero,
         native("at::_ops::index_Tensor::call(at::Tensor const&, c10::List<> const&)"), python});
    const int64_t engine = native("torch::autograd::Engine::thread_main(std::shared_ptr<> const&)");
    const int64_t backward = f.stackOf(
        {f.driverFrame(), nonzero,
         native("torch::autograd::generated::IndexBackward0::apply(std::vector<> &&)"), engine});
    const int64_t other = f.stackOf(
        {f.driverFrame(), nonzero,
         native("torch::autograd::generated::UniqueBackward0::apply(std::vector<> &&)"), engine});
    for (int i = 0; i < 20; ++i) {
        const int64_t t0 = kBackwardLoopStartNs + i * kBackwardStepNs;
        f.setKernelName("forward");
        f.launch(t0, t0 + 10'000, t0 + 200'000);
        f.sync(Kind::Stream, t0 + 5'000, t0 + 205'000, forward, f.stream);
        f.setKernelName("backward");
        f.launch(t0 + 300'000, t0 + 310'000, t0 + 500'000, std::nullopt, autograd);
        f.sync(Kind::Stream, t0 + 305'000, t0 + 505'000, backward, f.stream, autograd);
        f.sync(Kind::Stream, t0 + 600'000, t0 + 601'000, other, f.stream, autograd);
    }
    const auto loaded = f.load({python});
    QVERIFY(loaded.ok());
    const model::InsightReport report = loaded.analyze();
    const model::Insight* masked = insightAt(report, 59);
    QVERIFY(masked);
    QCOMPARE(masked->site.file, std::string("/home/u/train.py"));
    QVERIFY2(masked->evidence.find("20 of its syncs in the backward pass (IndexBackward0") !=
                 std::string::npos,
             masked->evidence.c_str());
    const model::SyncSiteStats& site = report.sites[masked->siteIndex];
    QCOMPARE(site.count, int64_t(40)); // the first and the last of the joined syncs both count
    QCOMPARE(site.backwardSyncs, int64_t(20));
    QCOMPARE(site.blockedNs, int64_t(40 * 200'000));
    // The finding's events are its syncs on both threads.
    int64_t onAutograd = 0;
    for (const model::EventSpan& span : *masked->events)
        if (span.first.kind == model::EventKind::Sync &&
            loaded.session->hostLanes[span.first.lane].threadIndex !=
                loaded.session->hostLanes[0].threadIndex)
            onAutograd += span.count;
    QCOMPARE(onAutograd, int64_t(20));
    // The unique backward: its own site, named by its op and node, never a C++ template.
    bool named = false;
    for (const model::SyncSiteStats& s : report.sites) {
        QVERIFY2(s.site.function.find("IndexBackward0") == std::string::npos,
                 s.site.function.c_str());
        named |= s.site.label() == "nonzero in the backward pass (UniqueBackward0)";
    }
    QVERIFY(named);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestBackwardSyncs)
#include "test_backward_syncs.moc"
