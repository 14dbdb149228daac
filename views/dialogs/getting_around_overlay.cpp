#include "views/dialogs/getting_around_overlay.h"

#include <QLabel>
#include <QPainter>
#include <QTextDocument>
#include <QVBoxLayout>

namespace stallscope::views {

namespace {

QString cardHtml() {
    const auto row = [](const QString& keys, const QString& what) {
        return QStringLiteral("<tr><td align='right' style='padding-right:14px'><b>%1</b></td>"
                              "<td>%2</td></tr>")
            .arg(keys, what);
    };
    QString html = QObject::tr("<h2>Getting around</h2><table cellspacing='4'>");
    html += row(QObject::tr("W / S"), QObject::tr("zoom the timeline in / out"));
    html += row(QObject::tr("A / D, ← / →"), QObject::tr("pan"));
    html += row(QObject::tr("↑ / ↓"), QObject::tr("scroll the lanes"));
    html += row(QObject::tr("Click"),
                QObject::tr("select an event, a finding, a source line or a table row: every "
                            "panel follows"));
    html += row(QObject::tr("Drag on the ruler"), QObject::tr("select a time range"));
    html += row(QObject::tr("Esc"), QObject::tr("clear the selection, from any panel"));
    html += row(QObject::tr("Ctrl+1 … 5"),
                QObject::tr("Insights, Source, Stack, Statistics, Details in front"));
    html += row(QObject::tr("F1"), QObject::tr("every shortcut"));
    html += QObject::tr("</table><p>The keys work wherever the focus is, except while you type "
                        "in a text field.</p><p><i>Press any key or click to go on. Help ▸ "
                        "Getting Around shows this again.</i></p>");
    return html;
}

} // namespace

GettingAroundOverlay::GettingAroundOverlay(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("gettingAroundOverlay"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setFocusPolicy(Qt::NoFocus);
    auto* layout = new QVBoxLayout(this);
    m_card = new QLabel(cardHtml(), this);
    m_card->setTextFormat(Qt::RichText);
    m_card->setWordWrap(true);
    m_card->setMaximumWidth(560);
    m_card->setMargin(20);
    m_card->setAutoFillBackground(true);
    m_card->setFrameShape(QFrame::StyledPanel);
    m_card->setBackgroundRole(QPalette::Window);
    layout->addWidget(m_card, 0, Qt::AlignCenter);
}

QString GettingAroundOverlay::text() const {
    QTextDocument document;
    document.setHtml(m_card->text());
    return document.toPlainText();
}

void GettingAroundOverlay::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), QColor(0, 0, 0, 110)); // dims the window behind the card
}

} // namespace stallscope::views
