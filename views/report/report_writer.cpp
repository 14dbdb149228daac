#include "views/report/report_writer.h"

#include "model/analysis/insight.h"
#include "model/analysis/insight_text.h"
#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/panels/insight_card.h"
#include "views/timeline/event_style.h"
#include "views/timeline/timeline_widget.h"

#include <QBuffer>
#include <QDateTime>
#include <QFileInfo>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>

#include <algorithm>

namespace stallscope::views {

namespace {

QString text(const std::string& value) {
    return QString::fromStdString(value);
}

// Lays text out top to bottom on A4 pages, starting a new page when the next block does not fit.
class ReportPainter {
public:
    ReportPainter(QPdfWriter& writer, QPainter& painter)
        : m_writer(writer), m_painter(painter), m_width(painter.viewport().width()),
          m_height(painter.viewport().height()) {}

    int width() const { return m_width; }

    // Height of `value` wrapped to `width` in `font`.
    int measure(const QString& value, const QFont& font, int width) {
        m_painter.setFont(font);
        return m_painter.boundingRect(QRect(0, 0, width, 100000), Qt::TextWordWrap, value).height();
    }
    void ensureSpace(int height) {
        if (m_y + height > m_height && m_y > 0) {
            m_writer.newPage();
            m_y = 0;
        }
    }
    void paragraph(const QString& value, const QFont& font, const QColor& colour = Qt::black,
                   int indent = 0, int spaceAfter = -1) {
        const int height = measure(value, font, m_width - indent);
        ensureSpace(height);
        m_painter.setFont(font);
        m_painter.setPen(colour);
        m_painter.drawText(QRect(indent, m_y, m_width - indent, height), Qt::TextWordWrap, value);
        m_y += height + (spaceAfter < 0 ? height / 4 : spaceAfter);
    }
    void heading(const QString& value) {
        QFont font = base(13);
        font.setBold(true);
        ensureSpace(measure(value, font, m_width) * 4); // keep a heading with what follows
        m_y += measure(value, font, m_width) / 2;
        paragraph(value, font, QColor(0x22, 0x22, 0x22));
        m_painter.setPen(QPen(QColor(0xbb, 0xbb, 0xbb), 2));
        m_painter.drawLine(0, m_y - 6, m_width, m_y - 6);
    }
    // A row of cells at fixed column positions (fractions of the width); the last cell elides.
    void row(const QStringList& cells, const std::vector<double>& columns, bool bold = false) {
        QFont font = base(8.5);
        font.setBold(bold);
        m_painter.setFont(font);
        const int height = m_painter.fontMetrics().height() + 4;
        ensureSpace(height);
        m_painter.setPen(Qt::black);
        for (int i = 0; i < cells.size() && i < int(columns.size()); ++i) {
            const int x = int(columns[i] * m_width);
            const int next = i + 1 < int(columns.size()) ? int(columns[i + 1] * m_width) : m_width;
            const QString value =
                m_painter.fontMetrics().elidedText(cells[i], Qt::ElideMiddle, next - x - 8);
            m_painter.drawText(QRect(x, m_y, next - x - 8, height), Qt::AlignVCenter, value);
        }
        m_y += height;
    }
    void image(const QImage& picture) {
        const int height = int(double(picture.height()) * m_width / picture.width());
        ensureSpace(height);
        m_painter.drawImage(QRect(0, m_y, m_width, height), picture);
        m_y += height + 20;
    }
    // An insight: severity tag, title, evidence, site, fix, savings — kept on one page.
    void insight(const model::Insight& insight) {
        QFont title = base(10.5);
        title.setBold(true);
        const QFont body = base(9);
        const int indent = 24;
        const QString fix = QStringLiteral("Fix: ") + text(insight.recommendation);
        const QString where = QStringLiteral("Where: ") + text(insight.site.label()) +
                              (insight.simulated ? QStringLiteral("   ·   simulated saving ")
                                                 : QStringLiteral("   ·   estimated savings ")) +
                              text(model::formatDuration(insight.savingsNs)) +
                              QStringLiteral("   ·   rule ") +
                              QString::fromLatin1(model::ruleId(insight.rule).data());
        const int height = measure(text(insight.title), title, m_width - indent) +
                           measure(text(insight.evidence), body, m_width - indent) +
                           measure(where, body, m_width - indent) +
                           measure(fix, body, m_width - indent) + 60;
        ensureSpace(height);
        const QColor colour = InsightCard::severityColor(insight.severity);
        m_painter.fillRect(QRect(0, m_y, 8, height - 30), colour);
        paragraph(QString::fromLatin1(model::severityName(insight.severity).data()) +
                      QStringLiteral("  ") + text(insight.title),
                  title, Qt::black, indent, 4);
        paragraph(text(insight.evidence), body, QColor(0x33, 0x33, 0x33), indent, 4);
        paragraph(where, body, QColor(0x1a, 0x55, 0x99), indent, 4);
        paragraph(fix, body, QColor(0x33, 0x33, 0x33), indent, 30);
    }
    static QFont base(double points) {
        QFont font(QStringLiteral("DejaVu Sans"));
        font.setPointSizeF(points);
        return font;
    }

private:
    QPdfWriter& m_writer;
    QPainter& m_painter;
    int m_width;
    int m_height;
    int m_y = 0;
};

// The timeline as the app shows it after loading (framed on the GPU activity), rendered offscreen.
QImage timelinePicture(const std::shared_ptr<const model::Session>& session) {
    TimelineWidget timeline;
    timeline.setSession(session);
    const int lanes = int(timeline.layout().lanes().size());
    // Narrow enough that lane names and ruler labels stay readable once scaled to the page.
    timeline.resize(1200, std::clamp(TimelineWidget::kRulerHeight + lanes * 24 + 16, 200, 900));
    timeline.zoomToActivity();
    return timeline.grab().toImage();
}

} // namespace

bool ReportWriter::write(const std::shared_ptr<const model::Session>& session,
                         const model::InsightReport& report, const QString& outPath,
                         const format::OutputPolicy& policy, QString* error) {
    std::string problem = format::checkOutputPath(outPath.toStdString(), policy);
    if (!problem.empty()) { // before painting, which takes a while
        *error = QString::fromStdString(problem);
        return false;
    }
    QBuffer pdf;
    pdf.open(QIODevice::WriteOnly);
    QPdfWriter writer(&pdf);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    writer.setResolution(150);
    writer.setTitle(
        QStringLiteral("Stallscope report — %1").arg(QFileInfo(text(session->path)).fileName()));
    writer.setCreator(QStringLiteral("Stallscope"));
    QPainter painter;
    if (!painter.begin(&writer)) {
        *error = outPath + QStringLiteral(": cannot paint the report");
        return false;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    ReportPainter page(writer, painter);

    QFont title = ReportPainter::base(18);
    title.setBold(true);
    page.paragraph(QStringLiteral("Stallscope report"), title);
    page.paragraph(QFileInfo(text(session->path)).fileName() + QStringLiteral(" — created ") +
                       QDateTime::currentDateTime().toString(Qt::ISODate),
                   ReportPainter::base(9), QColor(0x55, 0x55, 0x55));

    page.heading(QStringLiteral("Summary"));
    const model::SessionStatistics& stats = report.summary;
    QFont big = ReportPainter::base(11);
    big.setBold(true);
    page.paragraph(
        QStringLiteral("Wall time %1   ·   GPU busy %2   ·   host blocked %3 in %4 syncs")
            .arg(text(model::formatDuration(stats.wallNs)),
                 text(model::formatShare(stats.gpuBusyShare)),
                 text(model::formatShare(stats.hostBlockedShare)),
                 text(model::formatCount(stats.hostSyncCount))),
        big);
    // The shares above are over the analysis window; start-up before it counts in none.
    page.paragraph(QStringLiteral("Window: ") + text(model::windowDescription(stats)) +
                       (stats.startupNs > 0
                            ? QStringLiteral("   ·   start-up %1 before it (not counted in shares)")
                                  .arg(text(model::formatDuration(stats.startupNs)))
                            : QString()),
                   ReportPainter::base(9));
    for (const auto& [label, value] : model::SessionSummary::of(*session).rows)
        if (label != "File")
            page.row({text(label), text(value)}, {0.0, 0.2});

    page.heading(QStringLiteral("Findings, largest savings first"));
    if (report.insights.empty())
        page.paragraph(QStringLiteral("No findings: no sync, copy or launch pattern worth fixing "
                                      "was detected."),
                       ReportPainter::base(10));
    for (const model::Insight& insight : report.insights)
        page.insight(insight);

    page.heading(QStringLiteral("Timeline (the span with GPU work)"));
    page.image(timelinePicture(session));

    page.heading(QStringLiteral("Top sync sites"));
    const std::vector<double> siteColumns = {0.0, 0.48, 0.6, 0.72, 0.84};
    page.row({QStringLiteral("Site"), QStringLiteral("Syncs"), QStringLiteral("Blocked"),
              QStringLiteral("Median"), QStringLiteral("Share")},
             siteColumns, true);
    for (int32_t index : stats.topSites) {
        const model::SyncSiteStats& site = report.sites[size_t(index)];
        page.row({text(site.site.label()), text(model::formatCount(site.count)),
                  text(model::formatDuration(site.blockedNs)),
                  text(model::formatDuration(site.medianBlockedNs)),
                  text(model::formatShare(site.share))},
                 siteColumns);
    }

    page.heading(QStringLiteral("Top kernels"));
    const std::vector<double> kernelColumns = {0.0, 0.56, 0.65, 0.75, 0.85};
    page.row({QStringLiteral("Kernel"), QStringLiteral("Count"), QStringLiteral("Total"),
              QStringLiteral("Longest"), QStringLiteral("GPU share")},
             kernelColumns, true);
    for (const model::KernelStats& kernel : stats.topKernels)
        page.row({kernelDisplayName(kernel.name), text(model::formatCount(kernel.count)),
                  text(model::formatDuration(kernel.totalNs)),
                  text(model::formatDuration(kernel.maxNs)),
                  text(model::formatShare(kernel.shareOfGpu))},
                 kernelColumns);
    if (!report.warning.empty())
        page.paragraph(QStringLiteral("Note: ") + text(report.warning), ReportPainter::base(9),
                       QColor(0x99, 0x55, 0x00));
    if (!painter.end() || pdf.data().isEmpty()) {
        *error = outPath + QStringLiteral(": cannot finish the report");
        return false;
    }
    if (!format::writeOutputFile(
            outPath.toStdString(),
            std::string_view(pdf.data().constData(), size_t(pdf.data().size())), policy,
            &problem)) {
        *error = QString::fromStdString(problem);
        return false;
    }
    return true;
}

} // namespace stallscope::views
