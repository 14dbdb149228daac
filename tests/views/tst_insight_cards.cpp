// InsightCard and InsightCardsWidget on hand-made reports: order, texts, the chip for exact,
// def-line and unknown sites, the summary and no-findings cards, and the clicks.
#include "tests/support/test_suite.h"
#include "views/panels/insight_card.h"
#include "views/panels/insight_cards_widget.h"

#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

using namespace stallscope;
using namespace stallscope::views;

namespace {

model::Insight makeInsight(model::InsightRule rule, model::Severity severity, const char* title,
                           model::SourceSite site, int64_t savings, uint32_t firstEvent) {
    model::Insight insight;
    insight.rule = rule;
    insight.severity = severity;
    insight.title = title;
    insight.evidence = std::string("evidence of ") + title;
    insight.recommendation = "fix it";
    insight.site = std::move(site);
    insight.savingsNs = savings;
    insight.events = std::make_shared<model::EventSpans>(
        model::EventSpans{{{model::EventKind::Sync, 0, 0, firstEvent}, 3}});
    insight.eventCount = 3;
    return insight;
}

std::shared_ptr<const model::InsightReport> makeReport() {
    auto report = std::make_shared<model::InsightReport>();
    report->summary.wallNs = 2'000'000'000;
    report->summary.gpuBusyShare = 0.25;
    report->summary.hostBlockedShare = 0.5;
    report->summary.hostSyncCount = 40;
    report->summary.hostBlockedNs = 1'000'000'000;
    const model::SourceSite python{"/src/train.py", 90, "train_step",
                                   model::SourceLanguage::Python};
    const model::SourceSite native{"/src/main.cu", 12, "run", model::SourceLanguage::Native};
    const model::SourceSite unknown{"<unknown>", 0, "libfoo.so+0x1a2b",
                                    model::SourceLanguage::Native};
    report->insights.push_back(makeInsight(model::InsightRule::InLoopSync, model::Severity::High,
                                           "In-loop sync", python, 900'000'000, 0));
    report->insights.push_back(makeInsight(model::InsightRule::SyncAttribution,
                                           model::Severity::Medium, "Stream sync", native,
                                           300'000'000, 10));
    report->insights.push_back(makeInsight(model::InsightRule::DeviceSync, model::Severity::Low,
                                           "Device sync", unknown, 0, 20));
    return report;
}

} // namespace

class InsightCardsTest : public QObject {
    Q_OBJECT
private slots:
    void chipText_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("function");
        QTest::addColumn<int>("language");
        QTest::addColumn<bool>("defLine");
        QTest::addColumn<QString>("expected");
        const int py = int(model::SourceLanguage::Python);
        const int cc = int(model::SourceLanguage::Native);
        QTest::newRow("python exact") << "/a/b/train.py" << 90 << "train_step" << py << false
                                      << QStringLiteral("train.py:90 · train_step");
        QTest::newRow("python def line") << "/a/b/train.py" << 77 << "train" << py << true
                                         << QStringLiteral("train.py · train()");
        QTest::newRow("native ignores def")
            << "/src/k.cu" << 5 << "launch" << cc << true << QStringLiteral("k.cu:5 · launch");
        QTest::newRow("no function")
            << "/src/k.cu" << 5 << "" << cc << false << QStringLiteral("k.cu:5");
        QTest::newRow("unknown") << "<unknown>" << 0 << "libcuda.so.1+0x2a" << cc << false
                                 << QStringLiteral("<unknown> (libcuda.so.1+0x2a)");
    }
    void chipText() {
        QFETCH(QString, file);
        QFETCH(int, line);
        QFETCH(QString, function);
        QFETCH(int, language);
        QFETCH(bool, defLine);
        QFETCH(QString, expected);
        const model::SourceSite site{file.toStdString(), line, function.toStdString(),
                                     model::SourceLanguage(language)};
        QCOMPARE(InsightCard::chipText(site, defLine), expected);
    }

    void cardsInReportOrder() {
        InsightCardsWidget widget;
        widget.resize(400, 800);
        widget.setReport(makeReport(), false);
        QCOMPARE(int(widget.cards().size()), 3);
        QCOMPARE(widget.card(0)->title(), QStringLiteral("In-loop sync"));
        QCOMPARE(widget.card(0)->evidence(), QStringLiteral("evidence of In-loop sync"));
        QCOMPARE(widget.card(0)->chipText(), QStringLiteral("train.py:90 · train_step"));
        QCOMPARE(widget.card(1)->chipText(), QStringLiteral("main.cu:12 · run"));
        QVERIFY(widget.card(0)->chip()->isEnabled());
        QVERIFY(!widget.card(2)->chip()->isEnabled()); // nothing to open
        QCOMPARE(widget.summaryText(),
                 QStringLiteral("Wall time 2.000 s · GPU busy 25.0 % · host blocked 50.0 %"));
        QVERIFY(widget.messageText().isEmpty());
        // Severity colours differ.
        QVERIFY(InsightCard::severityColor(model::Severity::High) !=
                InsightCard::severityColor(model::Severity::Low));
    }

    // The saving with what it assumes, and the rules as chips (main first); nothing saved, no
    // saving line.
    void savingsAndRules() {
        auto report = std::make_shared<model::InsightReport>(*makeReport());
        model::Insight& top = report->insights[0];
        top.savingsNs = 367'000'000;
        top.share = 0.15;
        top.simulated = true;
        top.assumption = "if the host did not wait here";
        top.rules = {model::InsightRule::PageableCopy, model::InsightRule::InLoopSync,
                     model::InsightRule::SyncAttribution};
        report->insights[2].share = 0.0;
        InsightCardsWidget widget;
        widget.resize(400, 800);
        widget.setReport(report, false);
        QCOMPARE(widget.card(0)->savingsText(),
                 QStringLiteral("Saves ≈ 367 ms (15.0 %) if the host did not wait here"));
        QCOMPARE(widget.card(0)->rulesText(),
                 QStringLiteral("pageable-copy · in-loop-sync · sync-attribution"));
        // Without `rules` (a GPU rule), the main rule alone; without an assumption, no clause.
        QCOMPARE(widget.card(1)->rulesText(), QStringLiteral("sync-attribution"));
        QCOMPARE(widget.card(1)->savingsText(), QStringLiteral("Saves ≈ 300 ms (0.0 %)"));
        QVERIFY(widget.card(2)->savingsText().isEmpty()); // saves 0
        auto* label = widget.card(0)->findChild<QLabel*>(QStringLiteral("ruleChips"));
        QVERIFY(label);
        QVERIFY(label->text().contains(QStringLiteral("<b>pageable-copy</b>")));
        QVERIFY(!label->text().contains(QStringLiteral("<b>in-loop-sync</b>")));
    }

    void noFindings() {
        InsightCardsWidget widget;
        auto report = std::make_shared<model::InsightReport>();
        report->summary.wallNs = 1'000'000;
        widget.setReport(report, false);
        QVERIFY(widget.cards().empty());
        QVERIFY2(widget.messageText().contains(QStringLiteral("No findings")),
                 qPrintable(widget.messageText()));
        QVERIFY(!widget.summaryText().isEmpty());
        widget.setMessage(QStringLiteral("Analyzing…"));
        QCOMPARE(widget.messageText(), QStringLiteral("Analyzing…"));
        QVERIFY(widget.summaryText().isEmpty());
    }

    // Issue 42: a long title (a C++ template name) widened the list; clicking a card then scrolled
    // the panel sideways and hid the left half of every card. Cards wrap to the panel's width.
    void longNamesNeverScrollSideways() {
        auto report = std::make_shared<model::InsightReport>(*makeReport());
        const std::string longName =
            "c10::impl::wrap_kernel_functor_unboxed_<c10::impl::detail::WrapFunctionIntoFunctor_<"
            "c10::CompileTimeFunctionPointer<at::Tensor(const_at::Tensor&),&at::wrapper_CUDA__"
            "nonzero>,at::Tensor,c10::guts::typelist::typelist<const_at::Tensor&>>,at::Tensor("
            "const_at::Tensor&)>::call";
        report->insights[2].title = "Stream sync × 3 at " + longName;
        report->insights[2].evidence = longName + longName;
        report->insights[2].recommendation = "rewrite " + longName;
        report->insights[0].site.function = longName; // its chip names it
        InsightCardsWidget widget;
        widget.resize(300, 700);
        widget.setReport(report, false);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        // Nothing asks the dock for more room than a narrow panel has.
        QVERIFY2(widget.minimumSizeHint().width() < 250 && widget.sizeHint().width() < 600,
                 qPrintable(QStringLiteral("minimum %1, hint %2")
                                .arg(widget.minimumSizeHint().width())
                                .arg(widget.sizeHint().width())));
        for (int index : {2, 0, 1, 2}) {
            QTest::mouseClick(widget.card(index), Qt::LeftButton, {}, QPoint(20, 8));
            QVERIFY(widget.card(index)->isSelected());
            QCOMPARE(widget.horizontalScrollBar()->value(), 0);
            QVERIFY2(widget.widget()->width() <= widget.viewport()->width(),
                     qPrintable(QStringLiteral("%1 > %2")
                                    .arg(widget.widget()->width())
                                    .arg(widget.viewport()->width())));
            for (int c = 0; c < 3; ++c) {
                const QRect card = widget.card(c)->geometry();
                QVERIFY2(card.left() >= 0 && card.right() < widget.viewport()->width(),
                         qPrintable(QStringLiteral("card %1 spans %2..%3 of %4")
                                        .arg(c)
                                        .arg(card.left())
                                        .arg(card.right())
                                        .arg(widget.viewport()->width())));
            }
        }
        QCOMPARE(widget.card(2)->title(), QString::fromStdString("Stream sync × 3 at " + longName));
    }

    void clickCardAndChip() {
        InsightCardsWidget widget;
        widget.resize(420, 900);
        widget.setReport(makeReport(), false);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QSignalSpy activated(&widget, &InsightCardsWidget::insightActivated);
        QSignalSpy source(&widget, &InsightCardsWidget::sourceRequested);
        InsightCard* card = widget.card(1);
        // On the card's body (its title label passes the click up), away from the chip.
        QTest::mouseClick(card, Qt::LeftButton, {}, QPoint(card->width() - 10, 8));
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated.front().at(0).toInt(), 1);
        QVERIFY(card->isSelected());
        // The fix is on every card, selected or not (issue 42).
        QVERIFY(card->recommendation().contains(QStringLiteral("fix it")));
        QVERIFY(widget.card(0)->recommendation().contains(QStringLiteral("fix it")));
        QVERIFY(!widget.card(0)->isSelected());
        QCOMPARE(widget.selectedIndex(), 1);
        QCOMPARE(source.size(), 0);
        QTest::mouseClick(widget.card(0)->chip(), Qt::LeftButton);
        QCOMPARE(source.size(), 1);
        const auto site = source.front().at(0).value<model::SourceSite>();
        QCOMPARE(QString::fromStdString(site.file), QStringLiteral("/src/train.py"));
        QCOMPARE(site.line, int64_t(90));
        QCOMPARE(activated.size(), 1); // the chip does not also activate the card
    }

    // The user's line rewritten (model::fixText) comes first in the card's fix and its tooltip.
    void rewrittenLineBeforeTheRecipe() {
        model::Insight insight = makeInsight(
            model::InsightRule::InLoopSync, model::Severity::High, "In-loop sync",
            {"/src/train.py", 90, "train_step", model::SourceLanguage::Python}, 900'000'000, 0);
        insight.lineRewrite = model::LineRewrite{"total += loss.detach()", "read it once"};
        const InsightCard card(insight, false);
        const QString fix =
            QStringLiteral("Your line, rewritten: `total += loss.detach()` (read it once). fix it");
        QVERIFY2(card.recommendation().contains(fix), qPrintable(card.recommendation()));
        QVERIFY(card.toolTip().contains(fix));
    }
};

STALLSCOPE_TEST_MAIN(InsightCardsTest)
#include "tst_insight_cards.moc"
