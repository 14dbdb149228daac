// The report as one self-contained HTML file: the same document as the PDF, CSS inline, pictures
// inline as data: URIs (PNG), a linked table of contents; everything that comes from the session
// (names, paths, source text, meta) HTML-escaped. Print CSS sets the page size.
#pragma once

#include "views/report/report_document.h"

#include <QByteArray>
#include <QPageSize>

namespace stallscope::views {

// UTF-8 bytes of the page.
QByteArray reportHtml(const ReportDocument& doc, QPageSize::PageSizeId pageSize);

} // namespace stallscope::views
