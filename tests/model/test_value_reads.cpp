// A cudaMemcpy that reads a value (a norm, a flag: device->host, at most kValueReadBytes) is told
// as such (`cuda-memcpy-value`, fix: read it less often or decide on the GPU), not as a copy to
// pin: pinning a 4-byte read saves nothing. The copies are joined to their syncs by correlation
// id (sitesReadingValues); every copy of the site must be a value read. Its saving is replayed
// with the value's copies gone from the GPU, not made pinned (WhatIf::removedOps).
#include "format/session_enums.h"
#include "model/analysis/sync_copies.h"
#include "model/analysis/sync_operations.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <optional>
#include <string>

using namespace stallscope;
using format::CopyKind;
using format::MemoryKind;
using format::SyncKind;

namespace {

struct Read {
    CopyKind direction = CopyKind::DtoH;
    int64_t bytes = 4;
};

// What the card of a site says: its operation and what its saving assumes.
struct Told {
    std::string operation;
    std::string assumption;
    int64_t stepSavingsNs = 0;
};

// A Jacobi-style loop: each 48 µs step launches a 33 µs sweep, then reads its norm with a
// blocking cudaMemcpy at before.cu:87 (`reads` cycles through the steps); the card of that site.
Told cardOfLoop(const std::string& file, std::vector<Read> reads,
                SyncKind kind = SyncKind::PageableCopy) {
    testing::InsightFixture fixture(file, 40'000'000);
    const int64_t main = fixture.nativeFrame("before.cu", 87, "main");
    const int64_t call = fixture.nativeFrame("", 0, "cudaMemcpy");
    const int64_t stack = fixture.stackOf({fixture.driverFrame(), call, main});
    for (int i = 0; i < 400; ++i) {
        const int64_t t = 10'000'000 + i * 48'000;
        const Read& read = reads[i % reads.size()];
        fixture.launch(t, t + 5'000, t + 38'000);
        const MemoryKind host =
            kind == SyncKind::PageableCopy ? MemoryKind::Pageable : MemoryKind::Pinned;
        const bool down = read.direction == CopyKind::DtoH;
        const int64_t copy =
            fixture.memcpy(t + 40'000, t + 41'000, read.direction, down ? MemoryKind::Device : host,
                           down ? host : MemoryKind::Device, read.bytes, false);
        fixture.sync(kind, t + 2'000, t + 46'000, stack, fixture.stream, {}, copy);
    }
    const testing::LoadedFixture loaded = fixture.load();
    if (!loaded.ok())
        return {"(not loaded)", {}};
    const model::InsightReport report = loaded.analyze(testing::everySimulatedSiteAFinding());
    for (const model::Insight& insight : report.insights)
        if (insight.site.line == 87)
            return {insight.operation ? std::string(insight.operation->id) : "(none)",
                    insight.assumption, insight.stepSavingsNs};
    return {"(no card)", {}};
}

std::string operationOfLoop(const std::string& file, std::vector<Read> reads,
                            SyncKind kind = SyncKind::PageableCopy) {
    return cardOfLoop(file, std::move(reads), kind).operation;
}

} // namespace

class TestValueReads : public QObject {
    Q_OBJECT
private slots:
    void valueReadsAtTheThreshold() {
        QTemporaryDir dir;
        QCOMPARE(model::kValueReadBytes, uint64_t(64));
        const Told four = cardOfLoop(dir.filePath("4.stallscope").toStdString(), {{}});
        QCOMPARE(four.operation, std::string("cuda-memcpy-value"));
        // What the saving assumes is the card's fix, not a pinned copy.
        QCOMPARE(four.assumption,
                 std::string("if the host read the value later, not waiting here"));
        QCOMPARE(
            operationOfLoop(dir.filePath("64.stallscope").toStdString(), {{CopyKind::DtoH, 64}}),
            std::string("cuda-memcpy-value"));
        QCOMPARE(
            operationOfLoop(dir.filePath("65.stallscope").toStdString(), {{CopyKind::DtoH, 65}}),
            std::string("cuda-memcpy-pageable"));
        // From pinned memory too: what the host waits for is the value, not the staging.
        QCOMPARE(operationOfLoop(dir.filePath("pinned.stallscope").toStdString(), {{}},
                                 SyncKind::BlockingCopy),
                 std::string("cuda-memcpy-value"));
    }

    void everyCopyOfTheSiteMustReadAValue() {
        QTemporaryDir dir;
        // One buffer among the values: the site copies data, pinning may pay.
        QCOMPARE(operationOfLoop(dir.filePath("mixed.stallscope").toStdString(),
                                 {{}, {}, {}, {CopyKind::DtoH, 1 << 20}}),
                 std::string("cuda-memcpy-pageable"));
        // Four bytes uploaded are no value read.
        QCOMPARE(
            operationOfLoop(dir.filePath("upload.stallscope").toStdString(), {{CopyKind::HtoD, 4}}),
            std::string("cuda-memcpy-pageable"));
    }

    void theReadLeavesTheGpuWithItsWait() {
        // Read every N iterations, the sweeps run back to back: 33 µs each and the GPU's queue
        // gap (1 µs: the staged copies' 2 µs delays after their sweeps are no measure of it), so
        // the 48 µs step saves 14 µs. Replayed before as a copy made pinned, kept every step at
        // its recorded delay, with those delays taken for the queue gap: 10 µs.
        QTemporaryDir dir;
        const Told four = cardOfLoop(dir.filePath("4.stallscope").toStdString(), {{}});
        QVERIFY2(std::abs(four.stepSavingsNs - 14'000) <= 140,
                 std::to_string(four.stepSavingsNs).c_str());
    }

    void theCardSaysWhatToDo() {
        const model::SyncOperation* operation = model::syncOperationById("cuda-memcpy-value");
        QVERIFY(operation);
        QCOMPARE(operation->fix, model::SyncFix::ReadLater);
        QVERIFY(operation->rewrite(model::SourceLanguage::Native).find("every N iterations") !=
                std::string_view::npos);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestValueReads)
#include "test_value_reads.moc"
