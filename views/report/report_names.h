// Kernel and site names that stay apart when shortened: a long demangled name loses its parameter
// list first ("(…)"), then the end of its template arguments ("<128, 4, …>"), never its middle,
// so `elementwise_kernel<128, 4, …>` and `elementwise_kernel<512, 1, …>` stay distinguishable.
#pragma once

#include <QString>

#include <functional>

namespace stallscope::views {

// The longest form of `name` that `fits` accepts, shortened as above (then cut at the end when
// even the bare function name does not fit).
QString elideTemplateName(const QString& name, const std::function<bool(const QString&)>& fits);
// The same with a character budget (the HTML report, tests).
QString elideTemplateName(const QString& name, int maxChars);

} // namespace stallscope::views
