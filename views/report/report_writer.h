// ReportWriter: the PDF report (`stallscope --report out.pdf FILE`, File ▸ Export Report): the
// session summary, the insights with their evidence, sites and fixes, a picture of the timeline,
// and the top sync sites and kernels. Painted with QPdfWriter; needs a QGuiApplication (the
// offscreen platform is enough).
#pragma once

#include "format/output_file.h"

#include <QString>

#include <memory>

namespace stallscope::model {
class Session;
struct InsightReport;
} // namespace stallscope::model

namespace stallscope::views {

class ReportWriter {
public:
    // Returns false and sets *error ("<outPath>: <problem>") when `policy` refuses the path or the
    // PDF cannot be written; nothing is left at `outPath` then. The PDF is painted in memory
    // (QPdfWriter reports no write errors) and written with format::writeOutputFile.
    static bool write(const std::shared_ptr<const model::Session>& session,
                      const model::InsightReport& report, const QString& outPath,
                      const format::OutputPolicy& policy, QString* error);
};

} // namespace stallscope::views
