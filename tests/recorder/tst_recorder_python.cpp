// CI test of the Python frame capture (no GPU): an embedded CPython (this machine's python3) runs
// tests/recorder/python/frames_script.py, whose C functions capture the Python stack with the GIL
// held and released, from nested functions and a generator, and make a fake sync through the
// recorder's CUPTI callback (stack + Python frames merged and written to a session). Expected lines
// come from the script's MARK comments.
#include "recorder/api_classifier.h"
#include "recorder/callback_handler.h"
#include "recorder/event_ring.h"
#include "recorder/python_frames.h"
#include "recorder/session_sink.h"
#include "recorder/stack_interner.h"
#include "tests/recorder/python_host.h"
#include "tests/recorder/scratch_session.h"
#include "tests/support/script_markers.h"

#include "format/session_writer.h"
#include "tests/support/test_suite.h"
#include <cupti.h>
#include <sqlite3.h>

#include <QMap>
#include <QtTest>

using namespace stallscope::recorder;
using stallscope::testing::ScratchSession;

namespace {

const char* kScript = STALLSCOPE_SOURCE_DIR "/tests/recorder/python/frames_script.py";
CallbackHandler* g_handler = nullptr;

void syncHook(uint32_t correlation) {
    CUpti_CallbackData data;
    memset(&data, 0, sizeof(data));
    data.correlationId = correlation;
    data.functionName = "cudaStreamSynchronize";
    data.callbackSite = CUPTI_API_ENTER;
    g_handler->onApi(ApiClassifier::kRuntimeDomain,
                     CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &data);
    data.callbackSite = CUPTI_API_EXIT;
    g_handler->onApi(ApiClassifier::kRuntimeDomain,
                     CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &data);
}

QMap<QString, int> markers() {
    return stallscope::testing::scriptMarkers(kScript);
}

bool evalAlways(uintptr_t) {
    return true;
}

} // namespace

class TestRecorderPython : public QObject {
    Q_OBJECT

private:
    ApiClassifier m_classifier;
    QMap<QString, int> m_lines;
    std::vector<HostEvent> m_events;

    const pyhost::Capture* find(const char* label) {
        for (const pyhost::Capture& c : pyhost::captures())
            if (c.label == label)
                return &c;
        return nullptr;
    }
    void expectFrames(const char* label, bool gilHeld,
                      const std::vector<std::pair<const char*, const char*>>& expected) {
        const pyhost::Capture* c = find(label);
        QVERIFY2(c, label);
        QCOMPARE(c->gilHeld, gilHeld);
        QCOMPARE(c->frames.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
            const pyhost::Frame& f = c->frames[i];
            QCOMPARE(QString::fromStdString(f.function), QString(expected[i].first));
            QCOMPARE(f.line, m_lines.value(expected[i].second, -1));
            QCOMPARE(QString::fromStdString(f.file), QString(kScript));
        }
    }

private slots:
    void initTestCase() {
        m_lines = markers();
        QVERIFY(m_lines.size() >= 10);
        m_classifier.set(ApiClassifier::kRuntimeDomain,
                         CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
                         ApiClass::StreamSync);
        static CallbackHandler handler(&m_classifier);
        g_handler = &handler;
        // The symbols are there before the interpreter starts (linked in, like the GPU machine's
        // python3); capture finds no thread state until it runs.
        QVERIFY2(PythonFrames::initialize(), PythonFrames::status());
        handler.setStacks(true, 64);
        handler.setPython(true);
        std::string error;
        QVERIFY2(pyhost::runScript(kScript, syncHook, &error), error.c_str());
        QVERIFY(QString(PythonFrames::version()).startsWith("3."));
        EventRing::forEach(
            [](EventRing* ring, void* out) {
                ring->drain([out](const HostEvent& e) {
                    static_cast<std::vector<HostEvent>*>(out)->push_back(e);
                });
            },
            &m_events);
    }

    void gilHeldNested() {
        expectFrames("gil", true,
                     {{"inner_gil", "gil"}, {"outer", "outer_gil"}, {"<module>", "module_outer"}});
    }

    void gilReleasedNested() {
        expectFrames(
            "nogil", false,
            {{"inner_nogil", "nogil"}, {"outer", "outer_nogil"}, {"<module>", "module_outer"}});
    }

    void generatorFrames() {
        expectFrames("gen0", false, {{"numbers", "gen"}, {"<module>", "module_gen"}});
        expectFrames("gen1", false, {{"numbers", "gen"}, {"<module>", "module_gen"}});
    }

    void activationsEndAtEntryFrames() {
        // The outermost frame of the stack always ends an eval-loop activation.
        const pyhost::Capture* c = find("gil");
        QVERIFY(c && !c->frames.empty());
        QVERIFY(c->frames.back().activationEnd);
    }

    void mergeReplacesEvalFrames() {
        // native: [a, EVAL, b, EVAL, c]; python: [p0 p1(end)] [p2(end)] p3 -> leftover at the end
        uintptr_t pcs[] = {1, 2, 3, 4, 5};
        uint64_t py[] = {PythonFrames::pack(1, 10, false), PythonFrames::pack(2, 20, true),
                         PythonFrames::pack(3, 30, true), PythonFrames::pack(4, 40, true)};
        auto isEval = [](uintptr_t pc) { return pc == 2 || pc == 4; };
        StackInterner::Entry out[16];
        int n = StackInterner::merge(pcs, 5, py, 4, isEval, out, 16);
        QCOMPARE(n, 7);
        QVERIFY(!out[0].python && out[0].pc == 1);
        QVERIFY(out[1].python && PythonFrames::lineOf(out[1].word) == 10);
        QVERIFY(out[2].python && PythonFrames::lineOf(out[2].word) == 20);
        QVERIFY(!out[3].python && out[3].pc == 3);
        QVERIFY(out[4].python && PythonFrames::lineOf(out[4].word) == 30);
        QVERIFY(!out[5].python && out[5].pc == 5);
        QVERIFY(out[6].python && PythonFrames::lineOf(out[6].word) == 40);
        // No eval frames seen: all Python frames after the native ones.
        n = StackInterner::merge(pcs, 1, py, 2, nullptr, out, 16);
        QCOMPARE(n, 3);
        QVERIFY(!out[0].python && out[1].python && out[2].python);
        // Every native frame an eval frame, more eval frames than activations: extras stay native.
        n = StackInterner::merge(pcs, 5, py, 1, evalAlways, out, 16);
        QCOMPARE(n, 5);
        QVERIFY(out[0].python && !out[1].python);
    }

    void syncStackMergedIntoSession() {
        const HostEvent* sync = nullptr;
        for (const HostEvent& e : m_events)
            if (e.correlationId == 7)
                sync = &e;
        QVERIFY(sync);
        QVERIFY(sync->depth > 0);
        QCOMPARE(sync->pythonDepth, 3); // key, through_c, <module>
        QVERIFY(sync->pythonCaptureNs > 0);
        ScratchSession session("python.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        {
            SessionSink sink(session.writer.get());
            sink.beginProcess(getpid(), "host", "test", 0);
            sink.consumeHostEvent(*sync);
            sink.finishProcess(1000);
            QCOMPARE(sink.pythonCapture().count(), int64_t(1));
        }
        QVERIFY(session.writer->finish("complete"));
        session.writer.reset();
        sqlite3* db = nullptr;
        QCOMPARE(
            sqlite3_open_v2(session.path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
        sqlite3_stmt* s = nullptr;
        QCOMPARE(sqlite3_prepare_v2(db,
                                    "select sf.position, f.kind, f.function, f.line, f.address "
                                    "from syncs y join stack_frames sf on sf.stack_id = y.stack_id "
                                    "join frames f on f.id = sf.frame_id order by sf.position",
                                    -1, &s, nullptr),
                 SQLITE_OK);
        QStringList order;
        int evalLeft = 0;
        while (sqlite3_step(s) == SQLITE_ROW) {
            if (sqlite3_column_int(s, 1) == 2) {
                order << QString("%1:%2").arg(
                    reinterpret_cast<const char*>(sqlite3_column_text(s, 2)),
                    QString::number(sqlite3_column_int(s, 3)));
            } else {
                if (PythonFrames::isEvalLoopPc(uintptr_t(sqlite3_column_int64(s, 4))))
                    ++evalLeft;
                if (order.isEmpty() || order.back() != "native")
                    order << "native";
            }
        }
        sqlite3_finalize(s);
        sqlite3_close(db);
        QCOMPARE(evalLeft, 0); // every eval-loop frame was replaced by its Python frames
        // native (callback, probe) | key | native (sorted's C frames) | through_c, <module> |
        // native
        QStringList expected = {"native",
                                QString("key:%1").arg(m_lines["sync"]),
                                "native",
                                QString("through_c:%1").arg(m_lines["through_c"]),
                                QString("<module>:%1").arg(m_lines["module_through_c"]),
                                "native"};
        QCOMPARE(order, expected);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRecorderPython)
#include "tst_recorder_python.moc"
