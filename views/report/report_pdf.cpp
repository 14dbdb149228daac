#include "views/report/report_pdf.h"

#include "views/panels/breakable_text.h"

#include "views/report/report_names.h"

#include <QBuffer>
#include <QFontDatabase>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>

#include <algorithm>

namespace stallscope::views {

namespace {

QFont base(double points, bool bold = false) {
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(points);
    font.setBold(bold);
    return font;
}

QFont mono(double points) {
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setFamily(QStringLiteral("DejaVu Sans Mono"));
    font.setPointSizeF(points);
    return font;
}

const QColor kInk(0x22, 0x22, 0x22), kGrey(0x55, 0x55, 0x55), kLink(0x1a, 0x55, 0x99);

// Lays blocks out top to bottom, a new page when the next one does not fit; the footer of each
// page says its number ("page N of M", M from the first pass).
class PdfPainter {
public:
    PdfPainter(QPdfWriter& writer, QPainter& painter, QString footer, int totalPages)
        : m_writer(writer), m_painter(painter), m_footer(std::move(footer)), m_total(totalPages),
          m_width(painter.viewport().width()) {
        m_painter.setFont(base(8));
        m_footerHeight = m_painter.fontMetrics().height() * 2;
        m_height = painter.viewport().height() - m_footerHeight;
    }

    int page() const { return m_page; }
    int width() const { return m_width; }

    void newPage() {
        paintFooter();
        m_writer.newPage();
        ++m_page;
        m_y = 0;
    }
    void finish() { paintFooter(); }
    void ensureSpace(int height) {
        if (m_y + height > m_height && m_y > 0)
            newPage();
    }
    void skip(int height) { m_y += height; }
    // Names from the file break anywhere in their long runs: no heading runs off the page.
    int measure(const QString& value, const QFont& font, int width) {
        m_painter.setFont(font);
        return m_painter
            .boundingRect(QRect(0, 0, width, 100000), Qt::TextWordWrap, breakableText(value))
            .height();
    }
    void paragraph(const QString& value, const QFont& font, const QColor& colour = kInk,
                   int indent = 0, int spaceAfter = -1) {
        const int height = measure(value, font, m_width - indent);
        ensureSpace(height);
        m_painter.setFont(font);
        m_painter.setPen(colour);
        m_painter.drawText(QRect(indent, m_y, m_width - indent, height), Qt::TextWordWrap,
                           breakableText(value));
        m_y += height + (spaceAfter < 0 ? height / 4 : spaceAfter);
    }
    void heading(const QString& value, int level) {
        const QFont font = base(level == 1 ? 14 : 11, true);
        const int height = measure(value, font, m_width);
        ensureSpace(height * 5); // keep a heading with what follows
        m_y += height / 2;
        paragraph(value, font, kInk, 0, height / 3);
        if (level == 1) {
            m_painter.setPen(QPen(QColor(0xbb, 0xbb, 0xbb), 2));
            m_painter.drawLine(0, m_y - 4, m_width, m_y - 4);
            m_y += 6;
        }
    }
    // Cells at fixed column positions (fractions of the width); `nameColumn` elides at the end
    // of its template arguments, the others on the right.
    void row(const QStringList& cells, const std::vector<double>& columns, bool bold,
             int nameColumn = -1, int indent = 0) {
        m_painter.setFont(base(8.5, bold));
        const QFontMetrics metrics = m_painter.fontMetrics();
        const int height = metrics.height() + 6;
        ensureSpace(height);
        m_painter.setPen(kInk);
        const int width = m_width - indent;
        for (int i = 0; i < cells.size() && i < int(columns.size()); ++i) {
            const int x = indent + int(columns[i] * width);
            const int next =
                i + 1 < int(columns.size()) ? indent + int(columns[i + 1] * width) : m_width;
            const int room = next - x - 10;
            const QString value =
                i == nameColumn ? elideTemplateName(cells[i],
                                                    [&](const QString& t) {
                                                        return metrics.horizontalAdvance(t) <= room;
                                                    })
                                : metrics.elidedText(cells[i], Qt::ElideRight, room);
            m_painter.drawText(QRect(x, m_y, room, height), Qt::AlignVCenter, value);
        }
        m_y += height;
    }
    void image(const QImage& picture, const QString& caption) {
        const int height = int(double(picture.height()) * m_width / std::max(1, picture.width()));
        const QFont font = base(8.5);
        ensureSpace(height + measure(caption, font, m_width) + 10);
        paragraph(caption, font, kGrey, 0, 6);
        m_painter.drawImage(QRect(0, m_y, m_width, height), picture);
        m_painter.setPen(QPen(QColor(0xcc, 0xcc, 0xcc), 1));
        m_painter.drawRect(QRect(0, m_y, m_width - 1, height));
        m_y += height + 24;
    }
    void excerpt(const ReportSourceExcerpt& source, int indent) {
        const QFont code = mono(8);
        m_painter.setFont(code);
        const QFontMetrics metrics = m_painter.fontMetrics();
        const int lineHeight = metrics.height() + 2;
        int costWidth = metrics.horizontalAdvance(QStringLiteral("00.0 ms ×000"));
        for (const auto& [line, cost] : source.costs)
            costWidth = std::max(costWidth, metrics.horizontalAdvance(cost));
        const int numberWidth = metrics.horizontalAdvance(QStringLiteral("00000"));
        // The path stays with its lines.
        ensureSpace(measure(source.path, base(8), m_width - indent) + 4 +
                    lineHeight * int(source.lines.size()) + 8);
        paragraph(source.path, base(8), kGrey, indent, 4);
        for (int i = 0; i < source.lines.size(); ++i) {
            const int line = source.firstLine + i;
            const bool guilty = line >= source.guiltyLine && line <= source.guiltyLast;
            const QRect box(indent, m_y, m_width - indent, lineHeight);
            m_painter.fillRect(box, guilty ? QColor(0xff, 0xe9, 0xa8) : QColor(0xf6, 0xf6, 0xf6));
            m_painter.setFont(code);
            const auto cost = source.costs.find(line);
            m_painter.setPen(QColor(0xb0, 0x30, 0x20));
            if (cost != source.costs.end())
                m_painter.drawText(QRect(indent + 4, m_y, costWidth, lineHeight),
                                   Qt::AlignVCenter | Qt::AlignRight, cost->second);
            m_painter.setPen(kGrey);
            const int numberX = indent + costWidth + 14;
            m_painter.drawText(QRect(numberX, m_y, numberWidth, lineHeight),
                               Qt::AlignVCenter | Qt::AlignRight, QString::number(line));
            const int textX = numberX + numberWidth + 12;
            m_painter.setPen(kInk);
            QString code = source.lines[i];
            code.replace(u'\t', QStringLiteral("    "));
            m_painter.drawText(QRect(textX, m_y, m_width - textX, lineHeight), Qt::AlignVCenter,
                               metrics.elidedText(code, Qt::ElideRight, m_width - textX - 4));
            m_y += lineHeight;
        }
        m_y += 16;
    }
    void finding(const ReportFinding& finding) {
        const int indent = 24;
        const int top = m_y, topPage = m_page;
        paragraph(finding.severity + QStringLiteral(" · ") + finding.saving, base(9.5, true),
                  finding.colour.darker(130), indent, 4);
        paragraph(QStringLiteral("Where: ") + finding.where + QStringLiteral("   ·   rules: ") +
                      finding.rules,
                  base(9), kLink, indent, 6);
        for (const QString& evidence : finding.evidence)
            paragraph(evidence, base(9), QColor(0x33, 0x33, 0x33), indent, 4);
        for (const QString& fix : finding.fixes)
            paragraph(QStringLiteral("Fix: ") + fix, base(9), kInk, indent, 6);
        if (m_page == topPage) // the severity bar, when the finding stayed on one page
            m_painter.fillRect(QRect(0, top, 8, m_y - top), finding.colour);
        if (finding.source)
            excerpt(*finding.source, indent);
        else if (!finding.sourceMissing.isEmpty())
            paragraph(finding.sourceMissing, base(8.5), kGrey, indent, 8);
        m_y += 12;
    }

private:
    void paintFooter() {
        m_painter.setFont(base(8));
        m_painter.setPen(kGrey);
        const QRect box(0, m_height + m_footerHeight / 2, m_width, m_footerHeight / 2);
        m_painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, m_footer);
        m_painter.drawText(box, Qt::AlignRight | Qt::AlignVCenter,
                           m_total > 0 ? QStringLiteral("page %1 of %2").arg(m_page).arg(m_total)
                                       : QStringLiteral("page %1").arg(m_page));
    }

    QPdfWriter& m_writer;
    QPainter& m_painter;
    QString m_footer;
    int m_total;
    int m_width;
    int m_height = 0;
    int m_footerHeight = 0;
    int m_page = 1;
    int m_y = 0;
};

void paintBlock(PdfPainter& page, const ReportBlock& block) {
    switch (block.kind) {
    case ReportBlock::Kind::Paragraph:
        page.paragraph(block.text, base(9.5));
        break;
    case ReportBlock::Kind::Emphasis:
        page.paragraph(block.text, base(10.5, true));
        break;
    case ReportBlock::Kind::Note:
        page.paragraph(block.text, base(9), QColor(0x99, 0x55, 0x00));
        break;
    case ReportBlock::Kind::Facts:
        for (const auto& [label, value] : block.facts)
            page.row({label, value}, {0.0, 0.3}, false);
        page.skip(12);
        break;
    case ReportBlock::Kind::Table:
        page.row(block.table.header, block.table.columns, true);
        for (const QStringList& cells : block.table.rows)
            page.row(cells, block.table.columns, false, block.table.nameColumn);
        page.skip(12);
        break;
    case ReportBlock::Kind::Finding:
        page.finding(block.finding);
        break;
    case ReportBlock::Kind::Pictures:
        for (const ReportPicture& picture : block.pictures)
            page.image(picture.image, picture.caption);
        break;
    }
}

// Paints the whole report; returns the page count and each section's first page.
int paint(QPdfWriter& writer, const ReportDocument& doc, int totalPages,
          const std::vector<int>& sectionPages, std::vector<int>* pagesOut) {
    QPainter painter;
    if (!painter.begin(&writer))
        return 0;
    painter.setRenderHint(QPainter::Antialiasing);
    PdfPainter page(writer, painter, doc.title + QStringLiteral(" — ") + doc.subtitle, totalPages);

    // Title page.
    page.skip(page.width() / 6);
    page.paragraph(doc.title, base(24, true), kInk, 0, 20);
    page.paragraph(doc.subtitle, base(13), kGrey, 0, 60);
    for (const auto& [label, value] : doc.titleFacts)
        page.paragraph(label + QStringLiteral(":  ") + value, base(10), kInk, 0, 10);
    page.newPage();

    // Contents: the page numbers come from the first pass (0 there; the layout is the same).
    page.heading(QStringLiteral("Contents"), 1);
    for (size_t i = 0; i < doc.sections.size(); ++i) {
        const ReportSection& section = doc.sections[i];
        const int indent = section.level == 1 ? 0 : 30;
        page.row({section.title,
                  i < sectionPages.size() ? QString::number(sectionPages[i]) : QStringLiteral("0")},
                 {0.0, 0.92}, section.level == 1, -1, indent);
    }
    page.newPage();

    pagesOut->clear();
    for (const ReportSection& section : doc.sections) {
        if (section.level == 1 && section.anchor != doc.sections.front().anchor)
            page.ensureSpace(page.width() / 3); // a chapter starts with room below its heading
        page.heading(section.title, section.level);
        pagesOut->push_back(page.page());
        for (const ReportBlock& block : section.blocks)
            paintBlock(page, block);
    }
    page.finish();
    return painter.end() ? page.page() : 0;
}

} // namespace

QByteArray reportPdf(const ReportDocument& doc, QPageSize::PageSizeId pageSize) {
    std::vector<int> sectionPages;
    int total = 0;
    QByteArray bytes;
    for (int pass = 0; pass < 2; ++pass) {
        QBuffer pdf;
        pdf.open(QIODevice::WriteOnly);
        QPdfWriter writer(&pdf);
        writer.setPageSize(QPageSize(pageSize));
        writer.setPageMargins(QMarginsF(15, 15, 15, 12), QPageLayout::Millimeter);
        writer.setResolution(150);
        writer.setTitle(doc.title + QStringLiteral(" — ") + doc.subtitle);
        writer.setCreator(QStringLiteral("Stallscope"));
        std::vector<int> pages;
        total = paint(writer, doc, total, sectionPages, &pages);
        if (total == 0)
            return {};
        sectionPages = std::move(pages);
        pdf.close();
        bytes = pdf.data();
    }
    return bytes;
}

} // namespace stallscope::views
