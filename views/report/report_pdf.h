// The report as a PDF: a title page, a table of contents with page numbers, the sections, and
// "page N of M" on every page. Painted twice with QPdfWriter (the first pass finds the page of
// each section); needs a QGuiApplication (the offscreen platform is enough).
#pragma once

#include "views/report/report_document.h"

#include <QByteArray>
#include <QPageSize>

namespace stallscope::views {

// The PDF's bytes; empty when painting failed.
QByteArray reportPdf(const ReportDocument& doc, QPageSize::PageSizeId pageSize);

} // namespace stallscope::views
