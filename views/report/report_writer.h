// ReportWriter: the report (`stallscope --report OUT.pdf|OUT.html FILE`, File ▸ Export Report):
// a title page, the summary over the analysis window, one section per finding site with its
// source excerpt, a stalled step before and after the fix, the top sync sites and kernels, a
// table of contents and page numbers (report_content.h builds it once; report_pdf.h and
// report_html.h write it). The extension picks the format: .html/.htm writes one self-contained
// HTML file, anything else a PDF. Needs a QGuiApplication (the offscreen platform is enough).
#pragma once

#include "format/output_file.h"

#include <QPageSize>
#include <QString>

#include <memory>

namespace stallscope::model {
class Session;
struct InsightReport;
} // namespace stallscope::model

namespace stallscope::views {

struct ReportOptions {
    QPageSize::PageSizeId pageSize = QPageSize::A4; // A4 or Letter
};

class ReportWriter {
public:
    // Returns false and sets *error ("<outPath>: <problem>") when `policy` refuses the path or the
    // report cannot be written; nothing is left at `outPath` then. The report is made in memory
    // and written with format::writeOutputFile (temporary name + rename, never over an input).
    // The sources excerpted are those embedded in the session file (opened read-only here).
    static bool write(const std::shared_ptr<const model::Session>& session,
                      const model::InsightReport& report, const QString& outPath,
                      const format::OutputPolicy& policy, QString* error,
                      const ReportOptions& options = {});
    static bool isHtmlPath(const QString& path);
    // "a4" or "letter" (any case); false for anything else.
    static bool parsePageSize(const QString& text, QPageSize::PageSizeId* size);
};

} // namespace stallscope::views
