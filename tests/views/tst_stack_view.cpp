// StackModel and StackView: frames as stored (Python and native merged), user frames bold,
// unresolved frames as module+offset, a frame click asks for its source; the model passes
// QAbstractItemModelTester.
#include "model/session/session_database.h"
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
};

QTEST_MAIN(StackViewTest)
#include "tst_stack_view.moc"
