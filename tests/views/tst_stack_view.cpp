// StackModel and StackView: frames as stored (Python and native merged), user frames bold,
// unresolved frames as module+offset, a frame click asks for its source; the model passes
// QAbstractItemModelTester.
#include "format/session_enums.h"
#include "model/session/session_database.h"
#include "tests/support/test_suite.h"
#include "tests/views/insight_session.h"
#include "views/panels/stack_model.h"
#include "views/panels/stack_view.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using namespace stallscope::views;
namespace fixture = insight_session;

class StackViewTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::vector<model::FrameInfo> m_frames;
    std::unordered_map<int64_t, model::ModuleInfo> m_modules;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const auto database = fixture::writeAndOpen(m_dir);
        QVERIFY(database);
        m_frames = database->stack(1);
        QCOMPARE(int(m_frames.size()), 3);
        for (model::ModuleInfo& module : database->modules())
            m_modules.emplace(module.id, module);
    }

    void modelTester() {
        StackModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStack(m_frames, &m_modules);
        QCOMPARE(model.rowCount(), 3);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        model.setStack(m_frames, &m_modules);
    }

    void framesAsStored() {
        StackModel model;
        model.setStack(m_frames, &m_modules);
        const auto text = [&](int row, int column) {
            return model.index(row, column).data().toString();
        };
        // Innermost: the unresolved driver frame, named by module and offset.
        QCOMPARE(text(0, StackModel::FunctionColumn),
                 QStringLiteral("libcuda.so.1+0x%1").arg(fixture::kLibcudaOffset, 0, 16));
        QCOMPARE(text(0, StackModel::ModuleColumn), QStringLiteral("libcuda.so.1"));
        QVERIFY(text(0, StackModel::LocationColumn).isEmpty());
        QVERIFY(!model.hasSource(0));
        QVERIFY(!model.index(0, 1).data(Qt::FontRole).value<QFont>().bold());
        // Then the Python frames, user code in bold.
        QCOMPARE(text(1, StackModel::FunctionColumn), QStringLiteral("train_step"));
        QCOMPARE(text(1, StackModel::LocationColumn),
                 QStringLiteral("train.py:%1").arg(fixture::kTrainLine));
        QCOMPARE(text(1, StackModel::ModuleColumn), QStringLiteral("python"));
        QVERIFY(model.index(1, 1).data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(model.index(1, 0).data(StackModel::IsUserRole).toBool());
        QCOMPARE(text(2, StackModel::FunctionColumn), QStringLiteral("train"));
        QVERIFY(model.hasSource(2));
    }

    // A function inlined into its caller (frame_inlines) says so; the caller, the frame that
    // holds the PC, and a frame without inlining do not.
    void inlinedFunctionsSaySo() {
        std::vector<model::FrameInfo> frames = m_frames;
        model::FrameInfo wrapper = frames[1], caller = frames[1];
        wrapper.kind = caller.kind = format::FrameKind::Native;
        wrapper.function = "cudaMemcpyToSymbol<float [64]>";
        caller.function = "main";
        caller.inlineDepth = 1;
        frames.insert(frames.begin() + 1, {wrapper, caller});
        StackModel model;
        model.setStack(frames, &m_modules);
        const auto function = [&](int row) {
            return model.index(row, StackModel::FunctionColumn).data().toString();
        };
        QCOMPARE(function(1), QStringLiteral("cudaMemcpyToSymbol<float [64]> (inlined)"));
        QCOMPARE(function(2), QStringLiteral("main"));
        QCOMPARE(function(3), QStringLiteral("train_step"));
    }

    // Issue 42: the stack opened on 20 recorder and CUPTI frames, the user's line at #21. Those
    // frames are one row until it is clicked; the model stays valid through the unfolding.
    void recorderFramesFolded() {
        std::unordered_map<int64_t, model::ModuleInfo> modules = m_modules;
        const std::vector<std::pair<int64_t, const char*>> above = {
            {901, "/opt/stallscope/lib/libstallscope_recorder.so"},
            {902, "/usr/local/cuda/lib64/libcupti.so.13"},
            {903, "/usr/lib/x86_64-linux-gnu/libcuda.so.1"}};
        std::vector<model::FrameInfo> frames;
        for (const auto& [id, path] : above) {
            model::ModuleInfo module;
            module.id = id;
            module.path = path;
            modules.emplace(id, module);
            for (int i = 0; i < 3; ++i) {
                model::FrameInfo frame;
                frame.kind = format::FrameKind::Native;
                frame.moduleId = id;
                frame.function = "internal" + std::to_string(i);
                frames.push_back(frame);
            }
        }
        frames.insert(frames.end(), m_frames.begin() + 1, m_frames.end()); // then the program's
        StackModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStack(frames, &modules);
        QCOMPARE(model.foldedFrames(), 9);
        QCOMPARE(model.rowCount(), 1 + 2); // the folded row, then train_step and train
        QVERIFY(model.isFoldRow(0) && !model.frame(0));
        QVERIFY2(
            model.index(0, StackModel::FunctionColumn).data().toString().contains("9 CUDA frames"),
            qPrintable(model.index(0, StackModel::FunctionColumn).data().toString()));
        QCOMPARE(model.index(1, StackModel::FunctionColumn).data().toString(),
                 QStringLiteral("train_step"));
        QCOMPARE(model.index(1, StackModel::IndexColumn).data().toInt(), 9); // its real depth
        QCOMPARE(model.frame(2)->function, std::string("train"));

        StackView view;
        view.resize(600, 300);
        view.setStack(QStringLiteral("sync"), frames, &modules);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto* table = view.findChild<QTableView*>();
        QSignalSpy source(&view, &StackView::sourceRequested);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(table->model()->index(0, 1)).center());
        QCOMPARE(source.size(), 0); // the fold row opens no source: it unfolds
        QCOMPARE(table->model()->rowCount(), int(frames.size()));
        QCOMPARE(table->model()->index(0, StackModel::FunctionColumn).data().toString(),
                 QStringLiteral("internal0"));
        QCOMPARE(table->model()
                     ->index(int(frames.size()) - 1, StackModel::FunctionColumn)
                     .data()
                     .toString(),
                 QStringLiteral("train"));
    }

    void defLineFrames() {
        model::FrameInfo frame;
        frame.kind = format::FrameKind::Python;
        frame.file = "/x/train.py";
        frame.line = 77;
        frame.column = -1; // model::kDefLineColumn: Kineto's def line
        frame.function = "train";
        StackModel model;
        model.setStack({frame}, nullptr);
        QCOMPARE(model.index(0, StackModel::LocationColumn).data().toString(),
                 QStringLiteral("train.py:77 (its def line)"));
        QVERIFY(model.index(0, StackModel::LocationColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("is where train is defined")));
        frame.column = 0; // a recorded (executing) line: no def wording
        model.setStack({frame}, nullptr);
        QCOMPARE(model.index(0, StackModel::LocationColumn).data().toString(),
                 QStringLiteral("train.py:77"));
    }

    void frameClickRequestsSource() {
        StackView view;
        view.resize(600, 300);
        view.setStack(QStringLiteral("Stream sync"), m_frames, &m_modules);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.caption().contains(QStringLiteral("Stream sync")));
        QSignalSpy requested(&view, &StackView::sourceRequested);
        QTableView* table = view.table();
        const auto clickRow = [table](int row) {
            const QRect cell = table->visualRect(table->model()->index(row, 1));
            QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        };
        clickRow(0); // unresolved: nothing to open
        QCOMPARE(requested.size(), 0);
        clickRow(2);
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested.front().at(0).toString(), QString::fromLatin1(fixture::kTrainPath));
        QCOMPARE(requested.front().at(1).toInt(), fixture::kCallerLine);
    }

    // A stack set while its dock was hidden behind another tab still opens on the user's frame
    // once shown (60 library frames above it: far below the first screen).
    void hiddenViewScrollsToTheUsersFrameWhenShown() {
        std::vector<model::FrameInfo> frames;
        for (int i = 0; i < 60; ++i) {
            model::FrameInfo frame;
            frame.kind = format::FrameKind::Native;
            frame.function = "library" + std::to_string(i);
            frame.isUser = false;
            frames.push_back(frame);
        }
        frames.insert(frames.end(), m_frames.begin() + 1, m_frames.end());
        StackView view;
        view.resize(600, 200);
        view.setStack(QStringLiteral("sync"), frames, &m_modules); // never shown yet
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTableView* table = view.table();
        const auto userRowShown = [table] { // train_step
            return table->viewport()->rect().intersects(
                table->visualRect(table->model()->index(60, 1)));
        };
        QTRY_VERIFY(userRowShown());
    }
};

STALLSCOPE_TEST_MAIN(StackViewTest)
#include "tst_stack_view.moc"
