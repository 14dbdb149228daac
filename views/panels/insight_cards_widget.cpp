#include "views/panels/insight_cards_widget.h"

#include "model/analysis/insight_text.h"
#include "model/session/session_summary.h"
#include "views/panels/breakable_text.h"
#include "views/panels/duration_text.h"
#include "views/panels/insight_card.h"

#include <QLabel>
#include <QScrollBar>
#include <QVBoxLayout>

namespace stallscope::views {

namespace {

QString percent(double share) {
    return QString::fromStdString(model::formatShare(share));
}

// The summary card's rich text: three headline numbers, then the devices.
QString summaryHtml(const model::SessionStatistics& s) {
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='2' width='100%'><tr>");
    const auto cell = [](const QString& value, const QString& label) {
        return QStringLiteral("<td align='center'><span style='font-size:13pt; font-weight:bold'>"
                              "%1</span><br><small>%2</small></td>")
            .arg(value, label);
    };
    html += cell(durationText(s.wallNs), QObject::tr("wall time"));
    // The session's share; the timeline's busy lanes say the visible range's, "(view)".
    html += cell(percent(s.gpuBusyShare), QObject::tr("GPU busy (session)"));
    // Several processes (a run's ranks): the mean one's share.
    const QString whose = QString::fromStdString(model::hostBlockedWhose(s));
    html += cell(percent(s.hostBlockedShare), whose.isEmpty()
                                                  ? QObject::tr("host blocked")
                                                  : QObject::tr("host blocked, %1").arg(whose));
    html += QStringLiteral("</tr></table>");
    // The shares are over the analysis window; start-up before it counts in none.
    html += QObject::tr("<small>Window: %1</small><br>")
                .arg(QString::fromStdString(model::windowDescription(s)).toHtmlEscaped());
    if (s.steps > 0 && (s.warmupNs > 0 || s.tailNs > 0))
        html += QObject::tr("<small>Outside the loop: start-up %1, warm-up %2, tail %3 (not "
                            "counted in shares)</small><br>")
                    .arg(durationText(s.startupNs - s.warmupNs), durationText(s.warmupNs),
                         durationText(s.tailNs));
    else if (s.startupNs > 0)
        html += QObject::tr("<small>Start-up: %1 before the window (not counted in shares)</small>"
                            "<br>")
                    .arg(durationText(s.startupNs));
    if (s.hostSyncCount > 0)
        html += QObject::tr("<small>%1 host-blocking syncs, %2 blocked in total</small>")
                    .arg(QString::fromStdString(model::formatCount(s.hostSyncCount)),
                         durationText(s.hostBlockedNs));
    return html;
}

// Plain text of the same, for tests and copying.
QString summaryPlain(const model::SessionStatistics& s) {
    return QObject::tr("Wall time %1 · GPU busy %2 · host blocked %3")
        .arg(durationText(s.wallNs), percent(s.gpuBusyShare),
             QString::fromStdString(model::hostBlockedText(s)));
}

} // namespace

InsightCardsWidget::InsightCardsWidget(QWidget* parent) : QScrollArea(parent) {
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::NoFrame);
    m_content = new QWidget(this);
    m_layout = new QVBoxLayout(m_content);
    m_layout->setContentsMargins(6, 6, 6, 6);
    m_layout->setSpacing(6);

    m_summary = new QLabel(m_content);
    m_summary->setObjectName(QStringLiteral("summaryCard"));
    m_summary->setFrameShape(QFrame::StyledPanel);
    m_summary->setAutoFillBackground(true);
    m_summary->setBackgroundRole(QPalette::AlternateBase);
    m_summary->setMargin(6);
    wrapToWidth(m_summary);
    m_summary->hide();
    m_layout->addWidget(m_summary);

    m_message = new QLabel(m_content);
    m_message->setObjectName(QStringLiteral("messageCard"));
    wrapToWidth(m_message);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setFrameShape(QFrame::StyledPanel);
    m_message->setMargin(12);
    m_layout->addWidget(m_message);
    m_layout->addStretch(1);
    setWidget(m_content);
    setMessage(tr("Open a session to see what makes the host wait for the GPU."));
}

void InsightCardsWidget::removeCards() {
    for (InsightCard* card : m_cards)
        delete card;
    m_cards.clear();
    m_selected = -1;
}

void InsightCardsWidget::clear() {
    setMessage(tr("Open a session to see what makes the host wait for the GPU."));
}

void InsightCardsWidget::setMessage(const QString& message) {
    removeCards();
    m_report.reset();
    m_summary->hide();
    m_summary->setText({});
    m_message->setText(message);
    m_message->show();
}

void InsightCardsWidget::setReport(std::shared_ptr<const model::InsightReport> report,
                                   bool defLineSites) {
    removeCards();
    m_report = std::move(report);
    if (!m_report) {
        clear();
        return;
    }
    // What every saving assumes, once here rather than on each card; in full on hover.
    QString summary = summaryHtml(m_report->summary);
    QString tip = summaryPlain(m_report->summary);
    if (!m_report->assumptions.empty()) {
        summary += tr("<br><small>Savings are simulated; hover here for what they assume.</small>");
        tip +=
            tr("\n\nEvery saving assumes: %1.").arg(QString::fromStdString(m_report->assumptions));
    }
    m_summary->setText(summary);
    m_summary->setToolTip(tip);
    m_summary->show();
    QString message;
    if (m_report->insights.empty())
        message = tr("<b>No findings.</b><br>No sync, copy or launch pattern here costs enough "
                     "time to be worth fixing.");
    if (!m_report->warning.empty())
        message += (message.isEmpty() ? QString() : QStringLiteral("<br><br>")) +
                   QString::fromStdString(m_report->warning).toHtmlEscaped();
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
    // Cards go between the summary/message and the trailing stretch.
    int at = m_layout->indexOf(m_message) + 1;
    for (size_t i = 0; i < m_report->insights.size(); ++i) {
        auto* card = new InsightCard(m_report->insights[i], defLineSites, m_content);
        const int index = static_cast<int>(i);
        connect(card, &InsightCard::activated, this, [this, index] { activate(index); });
        connect(card, &InsightCard::sourceRequested, this, &InsightCardsWidget::sourceRequested);
        m_layout->insertWidget(at++, card);
        m_cards.push_back(card);
    }
}

InsightCard* InsightCardsWidget::card(int index) const {
    return index >= 0 && index < static_cast<int>(m_cards.size()) ? m_cards[index] : nullptr;
}

QString InsightCardsWidget::summaryText() const {
    return m_report ? summaryPlain(m_report->summary) : QString();
}

QString InsightCardsWidget::messageText() const {
    return m_message->isVisibleTo(this) ? m_message->text() : QString();
}

void InsightCardsWidget::markSelected(int index) {
    InsightCard* target = card(index);
    for (InsightCard* c : m_cards)
        c->setSelected(c == target);
    m_selected = target ? index : -1;
    if (target) {
        // The cards wrap to the panel's width (InsightCard breaks long names); the list only
        // ever scrolls vertically.
        ensureWidgetVisible(target, 0);
        horizontalScrollBar()->setValue(0);
    }
}

void InsightCardsWidget::activate(int index) {
    InsightCard* target = card(index);
    if (!target)
        return;
    markSelected(index);
    emit insightActivated(index, target->insight());
}

} // namespace stallscope::views
