// SourceView: embedded sources at the right line, the gutter marks and their clicks, the
// missing-file banner (no modal), path remapping from disk, the highlighter's languages and the
// PathRemapDialog's settings round trip.
#include "model/session/session_database.h"
#include "tests/support/test_suite.h"
#include "tests/views/insight_session.h"
#include "views/dialogs/path_remap_dialog.h"
#include "views/panels/source_editor.h"
#include "views/panels/source_highlighter.h"
#include "views/panels/source_view.h"

#include <QApplication>
#include <QFile>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>

using namespace stallscope;
using namespace stallscope::views;
namespace fixture = insight_session;

class SourceViewTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_session;
    std::shared_ptr<model::SessionDatabase> m_database;

    std::vector<model::SyncSiteStats> sites() const {
        model::SyncSiteStats train;
        train.site = {fixture::kTrainPath, fixture::kTrainLine, "train_step",
                      model::SourceLanguage::Python};
        train.count = 10;
        train.calls = 10;
        train.blockedNs = 10'000'000;
        model::SyncSiteStats other;
        other.site = {fixture::kModelPath, fixture::kModelLine, "forward",
                      model::SourceLanguage::Python};
        other.count = 4;
        other.calls = 4;
        other.blockedNs = 80'000;
        return {train, other};
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_database = fixture::writeAndOpen(m_dir, &m_session);
        QVERIFY(m_database);
    }

    void embeddedSourceAtLine() {
        SourceView view;
        view.resize(800, 400);
        view.resolver().setDatabase(m_database);
        view.show();
        QVERIFY(view.showLocation(QString::fromLatin1(fixture::kTrainPath), fixture::kTrainLine));
        QVERIFY(!view.isSourceMissing());
        QCOMPARE(view.currentLine(), fixture::kTrainLine);
        QCOMPARE(view.selectedLineText(), QString::fromLatin1(fixture::kSyncLineText));
        QCOMPARE(view.editor()->selectedLine(), fixture::kTrainLine);
        QCOMPARE(view.editor()->textCursor().blockNumber() + 1, fixture::kTrainLine);
        QVERIFY(view.headerText().contains(QStringLiteral("embedded")));
        // Scrolled so the line is on screen.
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(!view.editor()->gutterLineRect(fixture::kTrainLine).isEmpty());
    }

    // A torch.profiler trace names a function by its def line: the whole function is
    // highlighted (def line to the last line of its body) and the header says the exact line
    // needs a recording. The embedded train_step: def at 40, body lines 46 and 48, the next
    // def at 58.
    void defLineHighlightsTheWholeFunction() {
        SourceView view;
        view.resolver().setDatabase(m_database);
        QVERIFY(view.showLocation(QString::fromLatin1(fixture::kTrainPath), 40, true));
        QCOMPARE(view.editor()->selectedLine(), 40);
        QCOMPARE(view.editor()->selectedLastLine(), fixture::kTrainLine);
        QCOMPARE(view.editor()->extraSelections().size(), fixture::kTrainLine - 40 + 1);
        QVERIFY2(view.headerText().contains(QStringLiteral("def line")) &&
                     view.headerText().contains(QStringLiteral("Stallscope recording")),
                 qPrintable(view.headerText()));
        // An exact line stays one line, and says nothing about def lines.
        QVERIFY(view.showLocation(QString::fromLatin1(fixture::kTrainPath), fixture::kTrainLine));
        QCOMPARE(view.editor()->selectedLastLine(), fixture::kTrainLine);
        QCOMPARE(view.editor()->extraSelections().size(), 1);
        QVERIFY(!view.headerText().contains(QStringLiteral("def line")));
    }

    // The block of a def: through a decorator and a signature over two lines, blank lines and
    // comments inside, up to the first line indented no deeper than the def; a def on the last
    // line is its own block.
    void pythonBlockEnds() {
        SourceEditor editor;
        editor.setSourceText(QStringLiteral("@decorator\n"              // 1
                                            "def f(a,\n"                // 2
                                            "      b):\n"               // 3
                                            "    x = a\n"               // 4
                                            "\n"                        // 5
                                            "# a comment at column 0\n" // 6
                                            "    return x\n"            // 7
                                            "y = f(1, 2)\n"             // 8
                                            "def g(): pass"));          // 9
        QCOMPARE(SourceView::pythonBlockEnd(editor, 1), 7);
        QCOMPARE(SourceView::pythonBlockEnd(editor, 2), 7);
        QCOMPARE(SourceView::pythonBlockEnd(editor, 9), 9);
    }

    void gutterMarksAndClick() {
        SourceView view;
        view.resize(800, 400);
        view.resolver().setDatabase(m_database);
        view.setSites(sites());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.showLocation(QString::fromLatin1(fixture::kTrainPath), fixture::kTrainLine));
        const auto& marks = view.editor()->lineMarks();
        QCOMPARE(int(marks.size()), 1); // model.py's site is not in this file
        QCOMPARE(marks.at(fixture::kTrainLine).calls, int64_t(10));
        QCOMPARE(marks.at(fixture::kTrainLine).blockedNs, int64_t(10'000'000));
        QSignalSpy activated(&view, &SourceView::siteActivated);
        // A line without a mark does nothing.
        const QRect plain = view.editor()->gutterLineRect(fixture::kTrainLine - 1);
        QVERIFY(!plain.isEmpty());
        QTest::mouseClick(view.editor()->gutter(), Qt::LeftButton, {}, plain.center());
        QCOMPARE(activated.size(), 0);
        const QRect marked = view.editor()->gutterLineRect(fixture::kTrainLine);
        QTest::mouseClick(view.editor()->gutter(), Qt::LeftButton, {}, marked.center());
        QCOMPARE(activated.size(), 1);
        const auto site = activated.front().at(0).value<model::SyncSiteStats>();
        QCOMPARE(site.site.line, int64_t(fixture::kTrainLine));
        QCOMPARE(site.count, int64_t(10));
        // The gutter is wide enough for "10.0 ms ×10" and the line numbers.
        QVERIFY(view.editor()->gutterWidth() >
                view.editor()->fontMetrics().horizontalAdvance(QStringLiteral("10.0 ms ×10")));
    }

    void missingFileShowsRemapPrompt() {
        SourceView view;
        view.resolver().setDatabase(m_database);
        view.resolver().setRules({});
        view.show();
        QSignalSpy remap(&view, &SourceView::remapRequested);
        QVERIFY(!view.showLocation(QString::fromLatin1(fixture::kModelPath), fixture::kModelLine));
        QVERIFY(view.isSourceMissing());
        QVERIFY2(view.bannerText().contains(QString::fromLatin1(fixture::kModelPath)),
                 qPrintable(view.bannerText()));
        QVERIFY(view.remapButton()->isVisible());
        QVERIFY(view.editor()->toPlainText().isEmpty());
        QVERIFY(QApplication::activeModalWidget() == nullptr); // nothing blocks
        QTest::mouseClick(view.remapButton(), Qt::LeftButton);
        QCOMPARE(remap.size(), 1);
        QCOMPARE(remap.front().at(0).toString(), QString::fromLatin1(fixture::kModelPath));
    }

    void remappingLoadsFromDisk() {
        const QString local = fixture::writeCheckout(m_dir);
        QVERIFY(!local.isEmpty());

        SourceView view;
        view.resolver().setDatabase(m_database);
        view.show();
        QVERIFY(!view.showLocation(QString::fromLatin1(fixture::kModelPath), fixture::kModelLine));
        QVERIFY(view.isSourceMissing());
        view.resolver().setRules({{fixture::kRecordedDir, local.toStdString()}});
        QVERIFY(view.reload());
        QVERIFY(!view.isSourceMissing());
        QCOMPARE(view.selectedLineText(), QString::fromLatin1(fixture::kModelLineText));
        QVERIFY(view.headerText().contains(local));
        QVERIFY2(
            view.headerText().contains(QStringLiteral("via your remap %1 → %2")
                                           .arg(QString::fromLatin1(fixture::kRecordedDir), local)),
            qPrintable(view.headerText()));
        // The embedded copy still wins for train.py, whatever the rules say.
        QVERIFY(view.showLocation(QString::fromLatin1(fixture::kTrainPath), fixture::kTrainLine));
        QVERIFY(view.headerText().contains(QStringLiteral("embedded")));
    }

    // A session naming a local file that exists does not make the view show it (issue 13): only
    // the user's own rule does.
    void existingLocalFileNeedsTheUsersRule() {
        const QString checkout = fixture::writeCheckout(m_dir);
        QVERIFY(!checkout.isEmpty());
        const QString local = checkout + QStringLiteral("/model.py");
        QVERIFY(QFile::exists(local));
        SourceView view;
        view.resolver().setDatabase(m_database);
        view.resolver().setRules({});
        view.show();
        QVERIFY(!view.showLocation(local, fixture::kModelLine));
        QVERIFY(view.isSourceMissing());
        QVERIFY(view.editor()->toPlainText().isEmpty());
        QVERIFY2(view.bannerText().contains(QStringLiteral("none of your path remapping rules")),
                 qPrintable(view.bannerText()));
        // A rule for another folder vouches for nothing here either.
        view.resolver().setRules({{"/elsewhere", local.toStdString()}});
        QVERIFY(!view.reload());
        view.resolver().setRules({{local.toStdString(), local.toStdString()}});
        QVERIFY(view.reload());
        QCOMPARE(view.selectedLineText(), QString::fromLatin1(fixture::kModelLineText));
    }

    void remapDialogRoundTrip() {
        QSettings settings;
        PathRemapDialog::saveRules(settings, {{"/a", "/b"}, {"/ci/src", "/home/me/src"}});
        const auto rules = PathRemapDialog::loadRules(settings);
        QCOMPARE(int(rules.size()), 2);
        QCOMPARE(QString::fromStdString(rules[1].to), QStringLiteral("/home/me/src"));
        PathRemapDialog dialog;
        dialog.setRules(rules);
        dialog.setMissingPath(QStringLiteral("/x/y/z.py"));
        QCOMPARE(dialog.table()->rowCount(), 3);
        QCOMPARE(dialog.table()->item(2, 0)->text(), QStringLiteral("/x/y"));
        // A row without a local prefix maps to "": kept, as the user may still be typing.
        dialog.table()->item(2, 1)->setText(QStringLiteral("/local/y"));
        QCOMPARE(QString::fromStdString(dialog.rules()[2].to), QStringLiteral("/local/y"));
        PathRemapDialog::saveRules(settings, {});
        QVERIFY(PathRemapDialog::loadRules(settings).empty());
    }

    void highlighterLanguages() {
        QCOMPARE(SourceHighlighter::languageFor(QStringLiteral("a/train.py")),
                 SourceHighlighter::Language::Python);
        QCOMPARE(SourceHighlighter::languageFor(QStringLiteral("k.cu")),
                 SourceHighlighter::Language::Cpp);
        QCOMPARE(SourceHighlighter::languageFor(QStringLiteral("k.cuh")),
                 SourceHighlighter::Language::Cpp);
        QCOMPARE(SourceHighlighter::languageFor(QStringLiteral("notes.txt")),
                 SourceHighlighter::Language::Plain);

        // Keywords bold, comments italic, strings neither, in both languages.
        const auto formatsOf = [](const QString& text, SourceHighlighter::Language language) {
            QTextDocument document;
            document.setPlainText(text);
            SourceHighlighter highlighter(&document);
            highlighter.setLanguage(language, false);
            return document.firstBlock().layout()->formats();
        };
        const auto at = [](const QList<QTextLayout::FormatRange>& ranges, int position) {
            for (const QTextLayout::FormatRange& range : ranges)
                if (position >= range.start && position < range.start + range.length)
                    return range.format;
            return QTextCharFormat();
        };
        const auto py = formatsOf(QStringLiteral("def f(): return 'x'  # note"),
                                  SourceHighlighter::Language::Python);
        QCOMPARE(at(py, 0).fontWeight(), int(QFont::Bold));         // def
        QVERIFY(at(py, 22).fontItalic());                           // # note
        QVERIFY(at(py, 17).foreground() != at(py, 0).foreground()); // 'x'
        const auto cpp = formatsOf(QStringLiteral("__global__ void k() { /* c */ }"),
                                   SourceHighlighter::Language::Cpp);
        QCOMPARE(at(cpp, 0).fontWeight(), int(QFont::Bold)); // __global__
        QVERIFY(at(cpp, 23).fontItalic());                   // /* c */
    }
};

STALLSCOPE_TEST_MAIN(SourceViewTest)
#include "tst_source_view.moc"
