// Chrome trace export: a real imported trace and a recorder-shaped session go out as Chrome
// JSON and come back through the Kineto importer with the same counts, times, kinds and stacks.
#include "tests/interop/interop_support.h"

#include "model/interop/chrome_trace_export.h"
#include "tests/support/event_counts_text.h"
#include "tests/support/test_suite.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace interop;

namespace {

// Every lane's events, as (start, end) per kind, for comparing two sessions lane by lane.
std::vector<std::vector<int64_t>> laneTimes(const Session& s) {
    std::vector<std::vector<int64_t>> lanes;
    auto add = [&](const IntervalColumns& c) {
        std::vector<int64_t> times;
        for (size_t i = 0; i < c.size(); ++i) {
            times.push_back(c.start[i]);
            times.push_back(c.end[i]);
        }
        lanes.push_back(std::move(times));
    };
    for (const HostLane& lane : s.hostLanes) {
        add(lane.apiCalls);
        add(lane.syncs);
        for (const RangeColumns& r : lane.rangesByDepth)
            add(r);
    }
    for (const StreamLane& lane : s.streamLanes) {
        add(lane.kernels);
        add(lane.memcpys);
        add(lane.memsets);
    }
    return lanes;
}

} // namespace

class TestChromeExport : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data() {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QString>("out");
        QTest::newRow("item_loop json") << "item_loop.json.gz"
                                        << "export.json";
        QTest::newRow("cpu_loop gz") << "cpu_loop.json.gz"
                                     << "export.json.gz";
        QTest::newRow("event_loop json") << "event_loop.json.gz"
                                         << "export.json";
    }
    void roundTrip() {
        QFETCH(QString, trace);
        QFETCH(QString, out);
        QTemporaryDir dir;
        auto first = importTrace(dir, dataPath(trace.toStdString()), "first.stallscope");
        QVERIFY2(first->ok(), first->error.c_str());
        const std::string exported = dir.filePath(out).toStdString();
        std::string error;
        ChromeExportStats stats;
        QVERIFY2(ChromeTraceExporter::write(*first->session, first->database, exported, {}, &error,
                                            &stats),
                 error.c_str());
        QVERIFY(stats.events > first->session->counts.total());

        auto second = importTrace(dir, exported, "second.stallscope");
        QVERIFY2(second->ok(), second->error.c_str());
        const Session& a = *first->session;
        const Session& b = *second->session;
        QCOMPARE(b.counts, a.counts);
        QCOMPARE(b.startNs, a.startNs);
        QCOMPARE(b.endNs, a.endNs);
        QCOMPARE(b.hostLanes.size(), a.hostLanes.size());
        QCOMPARE(b.streamLanes.size(), a.streamLanes.size());
        QVERIFY(laneTimes(b) == laneTimes(a));
        QCOMPARE(syncsBySite(b, second->database), syncsBySite(a, first->database));
        for (size_t l = 0; l < a.hostLanes.size(); ++l) {
            QVERIFY(a.hostLanes[l].syncs.kind == b.hostLanes[l].syncs.kind);
            QVERIFY(a.hostLanes[l].syncs.correlationId == b.hostLanes[l].syncs.correlationId);
            for (size_t i = 0; i < a.hostLanes[l].syncs.size(); ++i) {
                const auto sa = first->database.stack(a.hostLanes[l].syncs.stackId[i]);
                const auto sb = second->database.stack(b.hostLanes[l].syncs.stackId[i]);
                QCOMPARE(sb.size(), sa.size());
                for (size_t f = 0; f < sa.size(); ++f) {
                    QCOMPARE(sb[f].function, sa[f].function);
                    QCOMPARE(sb[f].line, sa[f].line);
                    QCOMPARE(sb[f].column, sa[f].column);
                }
            }
        }
        for (size_t l = 0; l < a.streamLanes.size(); ++l) {
            QVERIFY(a.streamLanes[l].memcpys.dstKind == b.streamLanes[l].memcpys.dstKind);
            QVERIFY(a.streamLanes[l].memcpys.bytes == b.streamLanes[l].memcpys.bytes);
            QVERIFY(a.streamLanes[l].kernels.correlationId ==
                    b.streamLanes[l].kernels.correlationId);
        }
    }

    // The exported file is plain Chrome trace JSON: an object with traceEvents, syncs in their
    // own category, flow arrows from launches to kernels, metadata naming the lanes.
    void chromeShape() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("item_loop.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const std::string path = dir.filePath("shape.json").toStdString();
        std::string error;
        QVERIFY2(exportChromeTrace(*imported->session, imported->database, path, {}, &error),
                 error.c_str());
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
        QVERIFY2(parseError.error == QJsonParseError::NoError,
                 qPrintable(parseError.errorString()));
        const QJsonArray events = doc.object().value("traceEvents").toArray();
        int syncs = 0, flowStarts = 0, flowEnds = 0, threadNames = 0;
        QSet<int> stacksWritten; // each stack once, with the first sync that has it
        for (const QJsonValue& v : events) {
            const QJsonObject e = v.toObject();
            const QString ph = e.value("ph").toString();
            if (e.value("cat").toString() == "sync") {
                ++syncs;
                const QJsonObject args = e.value("args").toObject();
                const int stackId = args.value("stack_id").toInt(-1);
                QVERIFY(stackId > 0);
                QCOMPARE(args.contains("stack"), !stacksWritten.contains(stackId));
                if (args.contains("stack"))
                    QVERIFY(args.value("stack").toArray().size() >= 3);
                stacksWritten.insert(stackId);
            }
            flowStarts += ph == "s";
            flowEnds += ph == "f";
            threadNames += ph == "M" && e.value("name").toString() == "thread_name";
        }
        QCOMPARE(syncs, int(imported->session->counts.syncs));
        QVERIFY(stacksWritten.size() < syncs); // the trace's syncs share stacks
        QVERIFY(flowStarts > 0);
        QCOMPARE(flowStarts, flowEnds);
        QVERIFY(threadNames >= 3); // two host threads and a stream
    }

    void unwritablePath() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("clean_loop.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        std::string error;
        const std::string path = "/nonexistent-dir/out.json";
        QVERIFY(!exportChromeTrace(*imported->session, imported->database, path, {}, &error));
        QVERIFY2(error.find(path) == 0, error.c_str());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestChromeExport)
#include "test_chrome_export.moc"
