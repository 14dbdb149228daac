#include "views/report/report_html.h"

#include "views/report/report_names.h"

#include <QBuffer>

namespace stallscope::views {

namespace {

// Kernel names in the top tables: shortened as in the PDF, the full name in the tooltip.
constexpr int kNameChars = 90;

QString esc(const QString& value) {
    return value.toHtmlEscaped();
}

const char* kStyle = R"(
body { font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; color: #222;
       max-width: 1100px; margin: 2em auto; padding: 0 1.5em; line-height: 1.4; }
h1 { font-size: 1.9em; margin-bottom: 0.1em; }
h2 { border-bottom: 2px solid #bbb; padding-bottom: 0.2em; margin-top: 2em; }
h3 { margin: 1.4em 0 0.4em; }
.subtitle { color: #555; font-size: 1.2em; margin-top: 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
th, td { text-align: left; padding: 0.25em 0.6em; border-bottom: 1px solid #e4e4e4;
         vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
table.facts th { width: 28%; font-weight: normal; color: #555; }
.toc ol { padding-left: 1.4em; } .toc a { color: #1a5599; text-decoration: none; }
.finding { border-left: 8px solid #999; padding: 0.2em 0 0.2em 1em; margin-bottom: 1.2em; }
.saving { font-weight: bold; } .where { color: #1a5599; } .fix { margin: 0.4em 0; }
.note { color: #995500; }
pre.source { background: #f6f6f6; padding: 0.4em 0; overflow-x: auto; font-size: 0.85em;
             font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre.source span.line { display: block; padding: 0 0.6em; white-space: pre; }
pre.source span.guilty { background: #ffe9a8; }
pre.source span.cost { display: inline-block; width: 9em; text-align: right; color: #b03020; }
pre.source span.no { display: inline-block; width: 3.5em; text-align: right; color: #777;
                     margin-right: 1em; }
.path { color: #555; font-size: 0.85em; }
.pictures { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; flex: 1 1 520px; } figure img { width: 100%; border: 1px solid #ccc; }
figcaption { color: #555; font-size: 0.85em; margin-bottom: 0.3em; }
@media print { body { max-width: none; margin: 0; } h2 { break-before: page; }
               .finding, figure { break-inside: avoid; } }
)";

QString image(const QImage& picture) {
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    picture.save(&buffer, "PNG");
    return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
}

void facts(QString& out, const std::vector<std::pair<QString, QString>>& rows) {
    out += QStringLiteral("<table class=\"facts\">\n");
    for (const auto& [label, value] : rows)
        out += QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(esc(label), esc(value));
    out += QStringLiteral("</table>\n");
}

void excerpt(QString& out, const ReportSourceExcerpt& source) {
    out += QStringLiteral("<div class=\"path\">%1</div>\n<pre class=\"source\">")
               .arg(esc(source.path));
    for (int i = 0; i < source.lines.size(); ++i) {
        const int line = source.firstLine + i;
        const bool guilty = line >= source.guiltyLine && line <= source.guiltyLast;
        const auto cost = source.costs.find(line);
        out += QStringLiteral("<span class=\"line%1\"><span class=\"cost\">%2</span>"
                              "<span class=\"no\">%3</span>%4</span>")
                   .arg(guilty ? QStringLiteral(" guilty") : QString(),
                        cost != source.costs.end() ? esc(cost->second) : QString())
                   .arg(line)
                   .arg(esc(source.lines[i]));
    }
    out += QStringLiteral("</pre>\n");
}

void finding(QString& out, const ReportFinding& f) {
    out += QStringLiteral("<div class=\"finding\" style=\"border-left-color: %1\">\n")
               .arg(f.colour.name());
    out +=
        QStringLiteral("<div class=\"saving\">%1 · %2</div>\n").arg(esc(f.severity), esc(f.saving));
    out += QStringLiteral("<div class=\"where\">Where: %1 · rules: %2</div>\n")
               .arg(esc(f.where), esc(f.rules));
    for (const QString& evidence : f.evidence)
        out += QStringLiteral("<p class=\"evidence\">%1</p>\n").arg(esc(evidence));
    for (const QString& fix : f.fixes)
        out += QStringLiteral("<p class=\"fix\"><b>Fix:</b> %1</p>\n").arg(esc(fix));
    out += QStringLiteral("</div>\n");
    if (f.source)
        excerpt(out, *f.source);
    else if (!f.sourceMissing.isEmpty())
        out += QStringLiteral("<p class=\"path\">%1</p>\n").arg(esc(f.sourceMissing));
}

void table(QString& out, const ReportTable& t) {
    out += QStringLiteral("<table class=\"top\">\n<tr>");
    for (int i = 0; i < t.header.size(); ++i)
        out += QStringLiteral("<th%1>%2</th>")
                   .arg(i == 0 ? QString() : QStringLiteral(" class=\"num\""), esc(t.header[i]));
    out += QStringLiteral("</tr>\n");
    for (const QStringList& cells : t.rows) {
        out += QStringLiteral("<tr>");
        for (int i = 0; i < cells.size(); ++i) {
            if (i == t.nameColumn)
                out += QStringLiteral("<td title=\"%1\">%2</td>")
                           .arg(esc(cells[i]), esc(elideTemplateName(cells[i], kNameChars)));
            else
                out += QStringLiteral("<td class=\"num\">%1</td>").arg(esc(cells[i]));
        }
        out += QStringLiteral("</tr>\n");
    }
    out += QStringLiteral("</table>\n");
}

void block(QString& out, const ReportBlock& b) {
    switch (b.kind) {
    case ReportBlock::Kind::Paragraph:
        out += QStringLiteral("<p>%1</p>\n").arg(esc(b.text));
        break;
    case ReportBlock::Kind::Emphasis:
        out += QStringLiteral("<p><b>%1</b></p>\n").arg(esc(b.text));
        break;
    case ReportBlock::Kind::Note:
        out += QStringLiteral("<p class=\"note\">%1</p>\n").arg(esc(b.text));
        break;
    case ReportBlock::Kind::Facts:
        facts(out, b.facts);
        break;
    case ReportBlock::Kind::Table:
        table(out, b.table);
        break;
    case ReportBlock::Kind::Finding:
        finding(out, b.finding);
        break;
    case ReportBlock::Kind::Pictures:
        out += QStringLiteral("<div class=\"pictures\">\n");
        for (const ReportPicture& picture : b.pictures)
            out += QStringLiteral("<figure><figcaption>%1</figcaption><img alt=\"%1\" src=\"%2\">"
                                  "</figure>\n")
                       .arg(esc(picture.caption), image(picture.image));
        out += QStringLiteral("</div>\n");
        break;
    }
}

} // namespace

QByteArray reportHtml(const ReportDocument& doc, QPageSize::PageSizeId pageSize) {
    QString out = QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
                                 "charset=\"utf-8\">\n<title>%1 — %2</title>\n<style>")
                      .arg(esc(doc.title), esc(doc.subtitle));
    out += QString::fromLatin1(kStyle);
    out +=
        QStringLiteral("@page { size: %1; margin: 15mm; }\n</style>\n</head>\n<body>\n")
            .arg(pageSize == QPageSize::Letter ? QStringLiteral("letter") : QStringLiteral("A4"));
    out += QStringLiteral("<header>\n<h1>%1</h1>\n<p class=\"subtitle\">%2</p>\n")
               .arg(esc(doc.title), esc(doc.subtitle));
    facts(out, doc.titleFacts);
    out += QStringLiteral("</header>\n<nav class=\"toc\">\n<h2>Contents</h2>\n<ol>\n");
    bool inSub = false;
    for (const ReportSection& section : doc.sections) {
        if (section.level == 2 && !inSub) {
            out += QStringLiteral("<ol>\n");
            inSub = true;
        } else if (section.level == 1 && inSub) {
            out += QStringLiteral("</ol>\n");
            inSub = false;
        }
        out += QStringLiteral("<li><a href=\"#%1\">%2</a></li>\n")
                   .arg(esc(section.anchor), esc(section.title));
    }
    out += inSub ? QStringLiteral("</ol>\n</ol>\n</nav>\n") : QStringLiteral("</ol>\n</nav>\n");
    for (const ReportSection& section : doc.sections) {
        const QString tag = section.level == 1 ? QStringLiteral("h2") : QStringLiteral("h3");
        out += QStringLiteral("<section id=\"%1\">\n<%2>%3</%2>\n")
                   .arg(esc(section.anchor), tag, esc(section.title));
        for (const ReportBlock& b : section.blocks)
            block(out, b);
        out += QStringLiteral("</section>\n");
    }
    out += QStringLiteral("</body>\n</html>\n");
    return out.toUtf8();
}

} // namespace stallscope::views
