// The headless modes of `stallscope`: they need no display and print to stdout/stderr.
// Each returns the process exit status: 0 on success, 1 for a bad input file or an output that
// cannot be written, 2 for bad usage (an output that would replace an input, or an existing file
// without `replace`). Outputs go through format::OutputFile: written beside the target under a
// temporary name and renamed when complete; nothing is left behind on failure. Text from the
// file reaches the terminal through format::terminalSafe.
#pragma once

#include "model/analysis/insight.h"
#include "views/report/report_writer.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <string>

namespace stallscope::app {

// The commands that read FILE read several as one run (the ranks of one job, see
// app/session_openers.h: openFiles).
//
// --info FILE: the session summary.
int runInfo(const QStringList& files);
// --summary [--json] RUN: the fleet summary of a run folder (or one session file), every rank's
// file streamed with bounded memory, never loaded (model/fleet/fleet_summary.h, docs/fleet.md).
int runSummary(const QString& path, bool json);
// What --insights and --compare hand to CI (docs/compare.md): the gate (exit 3 when a finding,
// or a new or worse site, of `failAt` or above exists) and the SARIF and JUnit XML reports.
struct CiOutputs {
    std::optional<model::Severity> failAt;
    QString sarif; // empty: none
    QString junit;
    bool replace = false; // --force: replace existing report files
    bool any() const { return !sarif.isEmpty() || !junit.isEmpty(); }
};

// --insights [--json] [--window SPEC] FILE: the insight report as text or JSON, over the window
// SPEC (model::parseWindow; the active window without one). A bad SPEC is bad usage.
int runInsights(const QStringList& files, bool json, const std::optional<std::string>& windowSpec,
                const CiOutputs& ci = {});
// --compare BEFORE AFTER [--json]: the two runs per site, kernel and total
// (model/compare/session_compare.h), with the gate on new and worse sites.
int runCompare(const QString& before, const QString& after, bool json, const CiOutputs& ci = {});
// The commands that write OUT replace an existing OUT only with `replace` (--force).
// --convert TRACE -o OUT: a torch.profiler trace (or folder of rank traces) to a session file.
int runConvert(const QString& input, const QString& output, bool replace);
// --export-chrome OUT FILE: a session (or trace) as Chrome/Perfetto trace JSON.
int runExportChrome(const QString& output, const QStringList& inputs, bool replace);
// --report OUT.pdf|OUT.html [--page-size a4|letter] FILE: the report, PDF or self-contained HTML
// by OUT's extension (needs a QApplication; the offscreen platform will do).
int runReport(const QString& output, const QStringList& inputs, bool replace,
              const views::ReportOptions& options = {});
// --clear-cache: removes the import cache's sessions (model/interop/import_cache.h).
int runClearCache();

// "stallscope: <message>" on stderr, on one line, control characters escaped.
void printError(const QString& message);

} // namespace stallscope::app
