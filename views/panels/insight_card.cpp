#include "views/panels/insight_card.h"

#include "model/session/session_summary.h"
#include "views/panels/breakable_text.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolButton>
#include <QVBoxLayout>

namespace stallscope::views {

namespace {
constexpr int kStripeWidth = 5;

// The finding's rule ids, main first (`rules` lists them; older reports only have `rule`).
QStringList ruleIds(const model::Insight& insight) {
    QStringList ids;
    for (model::InsightRule rule : insight.rules)
        ids << QString::fromUtf8(model::ruleId(rule));
    if (ids.isEmpty())
        ids << QString::fromUtf8(model::ruleId(insight.rule));
    return ids;
}

// A word-wrapped label of plain text from the file (a name with '<' is not markup).
QLabel* plainLabel(const QString& text, QWidget* parent) {
    auto* label = new QLabel(breakableText(text), parent);
    label->setTextFormat(Qt::PlainText);
    wrapToWidth(label);
    return label;
}
} // namespace

InsightCard::InsightCard(const model::Insight& insight, bool defLineSites, QWidget* parent)
    : QFrame(parent), m_insight(insight) {
    setObjectName(QStringLiteral("insightCard"));
    setFrameShape(QFrame::StyledPanel);
    setCursor(Qt::PointingHandCursor);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(kStripeWidth + 8, 6, 8, 6);
    layout->setSpacing(3);

    auto* header = new QHBoxLayout;
    header->setSpacing(6);
    auto* badge = new QLabel(QString::fromUtf8(model::severityName(insight.severity)), this);
    badge->setObjectName(QStringLiteral("severityBadge"));
    const QColor colour = severityColor(insight.severity);
    badge->setStyleSheet(QStringLiteral("QLabel { background: %1; color: white; border-radius: 3px;"
                                        " padding: 0px 4px; font-size: 8pt; font-weight: bold; }")
                             .arg(colour.name()));
    header->addWidget(badge, 0, Qt::AlignTop);
    // The rules as chips: the main one (it decides the fix) in bold.
    const QString chip = QStringLiteral(
        "<span style='background-color:%1; color:%2; font-size:8pt'>&nbsp;%3&nbsp;</span>");
    QStringList chips;
    const QString chipBackground = palette().color(QPalette::AlternateBase).darker(108).name();
    const QString chipColour = palette().color(QPalette::Text).name();
    for (const QString& id : ruleIds(insight)) {
        const QString text = chips.isEmpty() ? QStringLiteral("<b>%1</b>").arg(id) : id;
        chips << chip.arg(chipBackground, chipColour, text);
    }
    m_rules = new QLabel(chips.join(QStringLiteral(" ")), this);
    m_rules->setObjectName(QStringLiteral("ruleChips"));
    m_rules->setTextFormat(Qt::RichText);
    wrapToWidth(m_rules);
    m_rules->setToolTip(tr("The rules whose evidence this finding carries; the first decides the "
                           "fix"));
    header->addWidget(m_rules, 1);
    layout->addLayout(header);

    // A crafted name could make a title pages long (title() stays whole).
    m_title = plainLabel(elidedText(QString::fromStdString(insight.title), kShownTitleChars), this);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    layout->addWidget(m_title);

    m_savings = new QLabel(savingsText(insight), this);
    m_savings->setObjectName(QStringLiteral("savingsLabel"));
    wrapToWidth(m_savings);
    m_savings->setToolTip(
        (insight.simulated ? tr("Simulated: the run replayed without this finding's waits; "
                                "select the card to see the GPU work moved on the timeline")
                           : tr("Estimated time saved if fixed")) +
        tr(". The share is of the analysis window (of a step when the window is the loop)."));
    m_savings->setStyleSheet(QStringLiteral("QLabel { color: %1; font-weight: 600; }")
                                 .arg(QColor(0x12, 0x8A, 0x50).name()));
    m_savings->setVisible(!m_savings->text().isEmpty());
    layout->addWidget(m_savings);

    m_evidence = plainLabel(QString::fromStdString(insight.evidence), this);
    layout->addWidget(m_evidence);
    // What, where, how much, and the fix: readable without a click (issue 42).
    // The user's line rewritten, where a template fits it, then the recipe.
    const QString fix = QString::fromStdString(model::fixText(insight));
    m_recommendation =
        new QLabel(tr("<b>Fix:</b> %1").arg(breakableText(fix).toHtmlEscaped()), this);
    m_recommendation->setObjectName(QStringLiteral("recommendation"));
    m_recommendation->setTextFormat(Qt::RichText);
    wrapToWidth(m_recommendation);
    m_recommendation->setVisible(!fix.isEmpty());
    layout->addWidget(m_recommendation);
    if (!fix.isEmpty())
        setToolTip(QStringLiteral("<p>%1</p>").arg(fix.toHtmlEscaped()));

    m_chip = new QToolButton(this);
    m_chip->setObjectName(QStringLiteral("sourceChip"));
    m_chip->setText(chipText(insight.site, defLineSites));
    m_chip->setToolTip(insight.site.hasLocation()
                           ? tr("Open %1 at line %2")
                                 .arg(QString::fromStdString(insight.site.file))
                                 .arg(insight.site.line)
                           : tr("No source location"));
    m_chip->setEnabled(insight.site.hasLocation());
    m_chip->setAutoRaise(false);
    m_chip->setCursor(Qt::PointingHandCursor);
    m_chip->setStyleSheet(QStringLiteral(
        "QToolButton { border: 1px solid palette(mid); border-radius: 9px; padding: 1px 8px;"
        " font-family: monospace; background: palette(alternate-base); }"
        "QToolButton:hover { border-color: palette(highlight); }"
        "QToolButton:disabled { color: palette(mid); }"));
    // A long location ("file.cu:45 · a_long_function_name") may be cut off, never widen the card
    // past the insight list (which would cut every line of the card instead).
    m_chip->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_chip->setMinimumWidth(m_chip->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 12);
    connect(m_chip, &QToolButton::clicked, this, [this] { emit sourceRequested(m_insight.site); });
    auto* chipRow = new QHBoxLayout;
    chipRow->addWidget(m_chip);
    chipRow->addStretch(1);
    layout->addLayout(chipRow);
}

QString InsightCard::title() const {
    return QString::fromStdString(m_insight.title);
}

QString InsightCard::evidence() const {
    return QString::fromStdString(m_insight.evidence);
}

QString InsightCard::savingsText() const {
    return m_savings->text();
}

QString InsightCard::rulesText() const {
    return ruleIds(m_insight).join(QStringLiteral(" · "));
}

QString InsightCard::savingsText(const model::Insight& insight) {
    if (insight.savingsNs <= 0)
        return {};
    // Per step of the loop when the analysis window is the loop (its share is then of a step).
    QString text =
        insight.stepSavingsNs > 0
            ? tr("Saves ≈ %1 a step (%2)")
                  .arg(QString::fromStdString(model::formatDuration(insight.stepSavingsNs)),
                       QString::fromStdString(model::formatShare(insight.share)))
            : tr("Saves ≈ %1 (%2)")
                  .arg(QString::fromStdString(model::formatDuration(insight.savingsNs)),
                       QString::fromStdString(model::formatShare(insight.share)));
    if (!insight.assumption.empty())
        text += QLatin1Char(' ') + QString::fromStdString(insight.assumption);
    return text;
}

QString InsightCard::recommendation() const {
    return m_recommendation->isVisibleTo(this)
               ? QString(m_recommendation->text()).remove(QChar(0x200B))
               : QString();
}

QString InsightCard::chipText() const {
    return m_chip->text();
}

QString InsightCard::chipText(const model::SourceSite& site, bool defLineOnly) {
    if (!site.hasLocation())
        return QString::fromStdString(site.label());
    const QString file = QFileInfo(QString::fromStdString(site.file)).fileName();
    // A chip is one short line: a C++ template name is cut (the tooltip names the file and line).
    const QString function = elidedText(QString::fromStdString(site.function), 60);
    // A def line is not where the sync happened: name the function instead of a wrong line.
    if (defLineOnly && site.language == model::SourceLanguage::Python)
        return function.isEmpty() ? file : QStringLiteral("%1 · %2()").arg(file, function);
    const QString location = QStringLiteral("%1:%2").arg(file).arg(site.line);
    return function.isEmpty() ? location : QStringLiteral("%1 · %2").arg(location, function);
}

QColor InsightCard::severityColor(model::Severity severity) {
    // Saturated mid-tones: they read on light and dark backgrounds alike.
    switch (severity) {
    case model::Severity::High:
        return QColor(0xD3, 0x2F, 0x2F);
    case model::Severity::Medium:
        return QColor(0xEF, 0x8A, 0x00);
    case model::Severity::Low:
        break;
    }
    return QColor(0x3B, 0x82, 0xC4);
}

void InsightCard::setSelected(bool selected) {
    if (m_selected == selected)
        return;
    m_selected = selected;
    update();
}

void InsightCard::mousePressEvent(QMouseEvent* event) {
    // Accepted so the release comes back to this card (a click is press + release here).
    if (event->button() == Qt::LeftButton) {
        event->accept();
        return;
    }
    QFrame::mousePressEvent(event);
}

void InsightCard::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && rect().contains(event->position().toPoint())) {
        emit activated();
        event->accept();
        return;
    }
    QFrame::mouseReleaseEvent(event);
}

void InsightCard::paintEvent(QPaintEvent* event) {
    QFrame::paintEvent(event);
    QPainter painter(this);
    painter.fillRect(QRect(0, 0, kStripeWidth, height()), severityColor(m_insight.severity));
    if (m_selected) {
        QPen pen(palette().color(QPalette::Highlight), 2);
        painter.setPen(pen);
        painter.drawRect(rect().adjusted(1, 1, -1, -1));
    }
}

} // namespace stallscope::views
