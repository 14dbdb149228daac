// print(loss) in a training loop: the one call formats the tensor through several syncs, each from
// another line of torch/_tensor_str.py, with the formatting's kernels launched between them. That
// is one call of the user's a step (SyncSites::continuesCall), and its fix — print every N steps —
// takes the formatting with the reads (siteFixOf: WhatIf::removedLaunches), not the waits alone.
// A value read later (or decided on the GPU) is not copied either: `.item()`'s scalar copy goes.
#include "model/analysis/insight_engine.h"
#include "model/analysis/sync_operations.h"
#include "model/whatif/replay.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace stallscope;
using format::SyncKind;
using testing::InsightFixture;

namespace {

constexpr int kSteps = 40;
constexpr int64_t kPeriod = 200'000;

int64_t pythonFrame(InsightFixture& f, const std::string& file, int64_t line,
                    const std::string& function) {
    format::FrameRow frame;
    frame.kind = format::FrameKind::Python;
    frame.file = file;
    frame.line = line;
    frame.function = function;
    return f.writer().addFrame(frame);
}

// Each 200 µs step: the training step's launch of a 50 µs kernel at +0, then print(loss) at
// train.py:47: a read at +60 µs (2 µs), two formatting launches at +70 and +80 µs, a read at +90,
// a launch at +100 and a read at +110, each read from its own line of torch/_tensor_str.py. With
// `oneStack` every read comes from one stack instead: three calls a step, as `.item()` three
// times on one line would be. Nothing when the fixture failed (which failed the test).
std::optional<model::InsightReport> analyzePrintLoop(const QTemporaryDir& dir, bool oneStack) {
    const std::string path =
        dir.filePath(oneStack ? "reads.stallscope" : "print.stallscope").toStdString();
    InsightFixture f(path, 20'000'000);
    const std::string lib = "/venv/lib/python3.12/site-packages/torch/_tensor_str.py";
    const int64_t user = pythonFrame(f, "/home/u/train.py", 47, "step");
    int64_t stacks[3];
    for (int k = 0; k < 3; ++k)
        stacks[k] = f.stackOf(
            {f.driverFrame(), pythonFrame(f, lib, 154 + 20 * k, "__init__"),
             pythonFrame(f, "/venv/lib/python3.12/site-packages/torch/_tensor.py", 574, "__repr__"),
             user});
    for (int i = 0; i < kSteps; ++i) {
        const int64_t t = 10'000 + kPeriod * i;
        f.launch(t, t + 2'000, t + 52'000);
        f.sync(SyncKind::Stream, t + 60'000, t + 62'000, stacks[0], f.stream);
        f.launch(t + 70'000, t + 71'000, t + 72'000);
        f.launch(t + 80'000, t + 81'000, t + 82'000);
        f.sync(SyncKind::Stream, t + 90'000, t + 92'000, stacks[oneStack ? 0 : 1], f.stream);
        f.launch(t + 100'000, t + 101'000, t + 102'000);
        f.sync(SyncKind::Stream, t + 110'000, t + 112'000, stacks[oneStack ? 0 : 2], f.stream);
    }
    const testing::LoadedFixture loaded = f.load();
    if (!loaded.ok())
        return std::nullopt;
    return loaded.analyze();
}

// Each 200 µs step: a 50 µs kernel, then `total += loss.item()` at train.py:47: the scalar's
// cudaMemcpyAsync (4 µs, its 4-byte copy after the kernel) and the stream sync that waits for it.
// Nothing when the fixture failed (which failed the test).
std::optional<model::InsightReport> analyzeItemLoop(const QTemporaryDir& dir) {
    const std::string path = dir.filePath("item.stallscope").toStdString();
    InsightFixture f(path, 20'000'000);
    const int64_t item =
        f.stackOf({f.driverFrame(),
                   pythonFrame(f, "/venv/lib/python3.12/site-packages/torch/_tensor.py", 1, "item"),
                   pythonFrame(f, "/home/u/train.py", 47, "step")});
    const int64_t memcpyName = f.writer().internString("cudaMemcpyAsync_v3020");
    for (int i = 0; i < kSteps; ++i) {
        const int64_t t = 10'000 + kPeriod * i;
        f.launch(t, t + 2'000, t + 52'000);
        const int64_t copy =
            f.memcpy(t + 62'000, t + 63'000, format::CopyKind::DtoH, format::MemoryKind::Device,
                     format::MemoryKind::Pageable, 4, true);
        f.writer().addApiCall({f.thread, format::ApiDomain::Runtime, 41, memcpyName, t + 60'000,
                               t + 64'000, copy, 0});
        f.sync(SyncKind::Stream, t + 64'000, t + 66'000, item, f.stream);
    }
    const testing::LoadedFixture loaded = f.load();
    if (!loaded.ok())
        return std::nullopt;
    return loaded.analyze();
}

const model::Insight* printFinding(const model::InsightReport& report) {
    for (const model::Insight& insight : report.insights)
        if (insight.site.line == 47)
            return &insight;
    return nullptr;
}

} // namespace

class TestReadLaterCall : public QObject {
    Q_OBJECT
private slots:
    // One print a step is one call, its three reads and the launches between them one fix.
    void printIsOneCallAStepAndTakesItsFormatting() {
        QTemporaryDir dir;
        const std::optional<model::InsightReport> report = analyzePrintLoop(dir, false);
        QVERIFY(report);
        const model::Insight* print = printFinding(*report);
        QVERIFY(print);
        QVERIFY(print->operation);
        QCOMPARE(std::string(print->operation->id), std::string("print-tensor"));
        QCOMPARE(report->sites.size(), size_t(1));
        QCOMPARE(report->sites[0].count, int64_t(3 * kSteps));
        const int64_t steps = report->summary.steps;
        QVERIFY2(steps >= kSteps - 2, qPrintable(QString::number(steps)));
        // One call a step of the loop (the window may hold the step before its first too).
        QVERIFY2(print->count >= steps && print->count <= steps + 1,
                 qPrintable(QString::number(print->count)));
        // The replayed fix takes the three launches between each call's reads with it (the last
        // call's last read lies past the window, which ends with the last kernel).
        QVERIFY(print->change);
        const auto removed = int64_t(print->change->removedLaunches.size());
        QVERIFY2(removed >= 3 * print->count - 1 && removed <= 3 * print->count,
                 qPrintable(QString::number(removed)));
        // From the first read's start to the last one's end, 52 µs of each step go.
        QVERIFY2(print->savingsNs / print->count >= 50'000,
                 qPrintable(QString::number(print->savingsNs / print->count)));
    }

    // A value read later is not copied to the host in the loop: the fix of `.item()` takes the
    // scalar's copy call launched before each wait, with its time.
    void itemLosesItsScalarCopy() {
        QTemporaryDir dir;
        const std::optional<model::InsightReport> report = analyzeItemLoop(dir);
        QVERIFY(report);
        const model::Insight* item = printFinding(*report);
        QVERIFY(item);
        QVERIFY(item->operation);
        QCOMPARE(std::string(item->operation->id), std::string("item"));
        QVERIFY(item->change);
        const auto removed = int64_t(item->change->removedLaunches.size());
        QVERIFY2(removed >= item->count - 1 && removed <= item->count,
                 qPrintable(QString::number(removed)));
    }

    // The same reads from one stack are three calls a step (the line's next call starts at its
    // first stack), and the launches between them stay: they are not one call's formatting.
    void readsFromOneStackAreCallsOfTheirOwn() {
        QTemporaryDir dir;
        const std::optional<model::InsightReport> report = analyzePrintLoop(dir, true);
        QVERIFY(report);
        const model::Insight* reads = printFinding(*report);
        QVERIFY(reads);
        QVERIFY(reads->count >= 3 * (kSteps - 2));
        QVERIFY(!reads->change || reads->change->removedLaunches.empty());
        QVERIFY2(reads->savingsNs / (reads->count / 3) < 50'000,
                 qPrintable(QString::number(reads->savingsNs / (reads->count / 3))));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestReadLaterCall)
#include "test_read_later_call.moc"
