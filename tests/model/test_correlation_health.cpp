// A session whose API calls repeat one correlation id call after call (CUPTI's ids collapsed after
// a mid-run switch: model/session/correlation_health.h) opens with a warning that says so and from
// when; a sound session, and a few stray repeats, open without one. Both sides of each threshold.
#include "format/session_writer.h"
#include "model/session/correlation_health.h"
#include "model/session/session_loader.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <string>

using namespace stallscope;

namespace {

constexpr int64_t kProcessStartNs = 1'000'000;

// One thread of `calls` API calls, 10 µs apart; from call `collapseFrom` on (when below `calls`)
// every call carries the id of the call before it.
model::LoadResult sessionWith(const QTemporaryDir& dir, int calls, int collapseFrom) {
    const std::string path =
        dir.filePath(QString("s-%1-%2.stallscope").arg(calls).arg(collapseFrom)).toStdString();
    std::string error;
    auto writer = format::SessionWriter::create(path, &error);
    if (!writer)
        return {};
    const int64_t process = writer->addProcess({77, "box", "python x.py", kProcessStartNs, 0, 0});
    const int64_t thread = writer->addThread({process, 77, "python"});
    const int64_t name = writer->internString("cudaLaunchKernel");
    int64_t id = 1;
    for (int i = 0; i < calls; ++i) {
        format::ApiCallRow call;
        call.threadId = thread;
        call.nameId = name;
        call.cbid = 211;
        call.startNs = kProcessStartNs + 10'000 * int64_t(i);
        call.endNs = call.startNs + 4'000;
        call.correlationId = i < collapseFrom ? ++id : id;
        writer->addApiCall(call);
    }
    writer->finishProcess(process, kProcessStartNs + 10'000 * int64_t(calls), 0);
    if (!writer->finish(format::kStatusComplete))
        return {};
    return model::SessionLoader::load(path);
}

} // namespace

class TestCorrelationHealth : public QObject {
    Q_OBJECT
private slots:
    void soundSessionHasNoWarning() {
        QTemporaryDir dir;
        const model::LoadResult loaded = sessionWith(dir, 1'000, 1'000);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(model::apiCallsSharingIds(*loaded.session).calls, int64_t(0));
        QCOMPARE(loaded.session->warning, std::string());
    }

    // 1,000 calls, the last 101 repeating one id: 100 share the id of the call before them (the
    // least that counts), 10 % of the lane's calls; the first of them 9 ms into the session.
    void collapseIsWarnedFromItsStart() {
        QTemporaryDir dir;
        const model::LoadResult loaded = sessionWith(dir, 1'000, 900);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const model::SharedCorrelationIds shared = model::apiCallsSharingIds(*loaded.session);
        QCOMPARE(shared.calls, int64_t(100));
        QCOMPARE(shared.laneCalls, int64_t(1'000));
        QCOMPARE(shared.firstNs, kProcessStartNs + 10'000 * 899);
        QVERIFY(shared.collapsed());
        const std::string& warning = loaded.session->warning;
        QVERIFY2(warning.find("100 API calls share their correlation id") != std::string::npos,
                 warning.c_str());
        QVERIFY2(warning.find("from 8.99 ms into the session") != std::string::npos,
                 warning.c_str());
    }

    // One repeat fewer than kMinCalls: no warning.
    void fewerThanTheLeastIsNoCollapse() {
        QTemporaryDir dir;
        const model::LoadResult loaded = sessionWith(dir, 1'000, 901);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(model::apiCallsSharingIds(*loaded.session).calls, int64_t(99));
        QCOMPARE(loaded.session->warning, std::string());
    }

    // The share threshold: 100 repeats are a collapse in a lane of 1,000 calls and not in one of
    // 1,001 (under a tenth of it).
    void shareOfTheLaneDecides() {
        model::SharedCorrelationIds shared;
        shared.calls = 100;
        shared.laneCalls = 1'000;
        QVERIFY(shared.collapsed());
        shared.laneCalls = 1'001;
        QVERIFY(!shared.collapsed());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestCorrelationHealth)
#include "test_correlation_health.moc"
