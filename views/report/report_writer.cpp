#include "views/report/report_writer.h"

#include "model/analysis/insight.h"
#include "model/session/session.h"
#include "model/session/session_database.h"
#include "views/report/report_content.h"
#include "views/report/report_html.h"
#include "views/report/report_pdf.h"

namespace stallscope::views {

bool ReportWriter::isHtmlPath(const QString& path) {
    return path.endsWith(QStringLiteral(".html"), Qt::CaseInsensitive) ||
           path.endsWith(QStringLiteral(".htm"), Qt::CaseInsensitive);
}

bool ReportWriter::parsePageSize(const QString& text, QPageSize::PageSizeId* size) {
    if (text.compare(QStringLiteral("a4"), Qt::CaseInsensitive) == 0)
        *size = QPageSize::A4;
    else if (text.compare(QStringLiteral("letter"), Qt::CaseInsensitive) == 0)
        *size = QPageSize::Letter;
    else
        return false;
    return true;
}

bool ReportWriter::write(const std::shared_ptr<const model::Session>& session,
                         const model::InsightReport& report, const QString& outPath,
                         const format::OutputPolicy& policy, QString* error,
                         const ReportOptions& options) {
    std::string problem = format::checkOutputPath(outPath.toStdString(), policy);
    if (!problem.empty()) { // before painting, which takes a while
        *error = QString::fromStdString(problem);
        return false;
    }
    // The embedded sources; a session without them (or a file that moved) gets no excerpts.
    auto database = std::make_shared<model::SessionDatabase>();
    std::string ignored;
    const ReportDocument doc = buildReportDocument(
        session, database->open(*session, &ignored) ? database : nullptr, report);
    const QByteArray bytes =
        isHtmlPath(outPath) ? reportHtml(doc, options.pageSize) : reportPdf(doc, options.pageSize);
    if (bytes.isEmpty()) {
        *error = outPath + QStringLiteral(": cannot make the report");
        return false;
    }
    if (!format::writeOutputFile(outPath.toStdString(),
                                 std::string_view(bytes.constData(), size_t(bytes.size())), policy,
                                 &problem)) {
        *error = QString::fromStdString(problem);
        return false;
    }
    return true;
}

} // namespace stallscope::views
