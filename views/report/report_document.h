// ReportDocument: what the report says, once, for both of its forms — the PDF (report_pdf.h) and
// the self-contained HTML file (report_html.h). Built from a session and its analysis by
// buildReportDocument (report_content.h); plain values, no painting.
#pragma once

#include <QColor>
#include <QImage>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace stallscope::views {

// The guilty line and a few around it, with the source gutter's cost per line.
struct ReportSourceExcerpt {
    QString path;      // as recorded
    int firstLine = 1; // number of lines[0]
    QStringList lines;
    int guiltyLine = 0;
    int guiltyLast = 0;           // == guiltyLine unless a whole function is meant
    std::map<int, QString> costs; // line -> "2.23 ms ×300", as the source gutter writes it
};

// One finding per site: several rules on one line (in-loop, device-wide, pageable copy) are one
// section, each distinct evidence and fix once.
struct ReportFinding {
    QString severity; // "HIGH"
    QColor colour;
    QString title;
    QString saving; // "simulated saving 1.20 ms (3.1 %)"
    QString where;  // the site's label
    QString rules;  // "in-loop-sync, device-sync"
    QStringList evidence;
    QStringList fixes;
    std::optional<ReportSourceExcerpt> source;
    QString sourceMissing; // why there is no excerpt (empty when there is one or no location)
};

struct ReportTable {
    QStringList header;
    std::vector<double> columns; // left edge of each column, as a fraction of the width
    std::vector<QStringList> rows;
    int nameColumn = -1; // cells that elide at the end of their template arguments
};

struct ReportPicture {
    QString caption;
    QImage image;
};

struct ReportBlock {
    enum class Kind { Paragraph, Emphasis, Note, Facts, Table, Finding, Pictures };
    Kind kind = Kind::Paragraph;
    QString text;
    std::vector<std::pair<QString, QString>> facts;
    ReportTable table;
    ReportFinding finding;
    std::vector<ReportPicture> pictures;
};

struct ReportSection {
    QString anchor; // unique, [a-z0-9-]
    QString title;
    int level = 1; // 1: a chapter, 2: one finding under "Findings"
    std::vector<ReportBlock> blocks;
};

struct ReportDocument {
    QString title;                                       // "Stallscope report"
    QString subtitle;                                    // the session file
    std::vector<std::pair<QString, QString>> titleFacts; // program, command, host, GPUs, ...
    std::vector<ReportSection> sections;
};

} // namespace stallscope::views
