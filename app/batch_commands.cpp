#include "app/batch_commands.h"

#include "app/session_openers.h"

#include "format/output_file.h"
#include "format/terminal_text.h"
#include "model/analysis/insight_engine.h"
#include "model/analysis/insight_json.h"
#include "model/analysis/insight_text.h"
#include "model/compare/ci_reports.h"
#include "model/compare/compare_output.h"
#include "model/compare/session_compare.h"
#include "model/fleet/fleet_output.h"
#include "model/fleet/fleet_summary.h"
#include "model/interop/chrome_trace_export.h"
#include "model/interop/import_cache.h"
#include "model/interop/kineto_importer.h"
#include "model/session/column_cache.h"
#include "model/session/session_database.h"
#include "model/session/session_summary.h"
#include "views/report/report_writer.h"

#include <QDir>
#include <QFileInfo>
#include <QStringList>

#include <cstdio>
#include <optional>
#include <string>

namespace stallscope::app {

namespace {

// Several lines of text (possibly from the file) to stdout.
void printText(const std::string& text) {
    const std::string safe = format::terminalSafe(text);
    std::fwrite(safe.data(), 1, safe.size(), stdout);
    if (!safe.empty() && safe.back() != '\n')
        std::fputc('\n', stdout);
}

// JSON to stdout as it is: it escapes control characters itself.
void printJson(const QByteArray& json) {
    std::fwrite(json.constData(), 1, static_cast<size_t>(json.size()), stdout);
}

void printWrote(const QString& output, const char* note = "") {
    printText("stallscope: wrote " + output.toStdString() + note);
}

// Sessions load directly; traces are converted (and cached) first; several files are one run.
// Prints the error itself.
model::LoadResult loadOrReport(const QStringList& files) {
    // A large session's columns from the column cache when the window cached them. The commands
    // never write it: on two cores the write costs a one-shot --insights (a CI gate) more than a
    // reopen saves (bench/RESULTS.md).
    model::LoadOptions options;
    options.useColumnCache = true;
    model::LoadResult result = openFiles(files, options);
    if (!result.ok()) {
        printError(QString::fromStdString(result.error)); // already starts with the path
        return result;
    }
    if (!result.session->warning.empty())
        printError(QStringLiteral("warning: %1: %2")
                       .arg(files.front(), QString::fromStdString(result.session->warning)));
    return result;
}

// What OUT of a command reading `inputs` may replace: never an input, an existing file only with
// --force.
format::OutputPolicy outputPolicy(const QStringList& inputs, bool replace) {
    format::OutputPolicy policy;
    policy.replaceExisting = replace;
    policy.inputs = filesReadToOpen(inputs);
    policy.replaceHint = "add --force to replace it";
    return policy;
}

// Whether two output paths name one file (another spelling of it, or the same link).
bool sameOutput(const QString& a, const QString& b) {
    const QFileInfo first(a), second(b);
    return first.absoluteFilePath() == second.absoluteFilePath() ||
           (first.exists() && second.exists() &&
            first.canonicalFilePath() == second.canonicalFilePath());
}

// Refuses OUT before any work is done; the writers check again when they create it.
bool outputAllowed(const QString& output, const format::OutputPolicy& policy) {
    const std::string problem = format::checkOutputPath(output.toStdString(), policy);
    if (!problem.empty())
        printError(QString::fromStdString(problem));
    return problem.empty();
}

// What the CI report paths may replace, once they are checked before any work is done (an input,
// an existing file without --force, one file named for both are refused, as every command refuses
// its OUT); nullopt when one is refused. Without a report asked for, the inputs are not examined
// (a run folder's rank files would be opened for nothing) and the policy is empty.
std::optional<format::OutputPolicy> ciOutputPolicy(const CiOutputs& ci, const QStringList& inputs) {
    if (!ci.any())
        return format::OutputPolicy{};
    if (!ci.sarif.isEmpty() && !ci.junit.isEmpty() && sameOutput(ci.sarif, ci.junit)) {
        printError(QStringLiteral("%1: named by both --sarif and --junit; give each its own file")
                       .arg(ci.junit));
        return std::nullopt;
    }
    format::OutputPolicy policy = outputPolicy(inputs, ci.replace);
    for (const QString& path : {ci.sarif, ci.junit})
        if (!path.isEmpty() && !outputAllowed(path, policy))
            return std::nullopt;
    return policy;
}

// The SARIF and JUnit files CI asked for, under the policy ciOutputPolicy gave; false (after
// saying why) when one cannot be written.
bool writeCiReports(const CiOutputs& ci, const format::OutputPolicy& policy,
                    const QByteArray& sarif, const QByteArray& junit) {
    if (!ci.any())
        return true;
    for (const auto& [path, bytes] : {std::pair{ci.sarif, sarif}, std::pair{ci.junit, junit}}) {
        if (path.isEmpty())
            continue;
        std::string error;
        if (!format::writeOutputFile(path.toStdString(),
                                     std::string_view(bytes.constData(), size_t(bytes.size())),
                                     policy, &error)) {
            printError(QString::fromStdString(error));
            return false;
        }
        printError(QStringLiteral("wrote %1").arg(path)); // stderr: stdout may be JSON
    }
    return true;
}

// An input's session and its analysis, for --insights and --compare.
struct Analyzed {
    model::LoadResult loaded;
    model::SessionDatabase database;
    model::InsightReport report;
};

// Loads and analyzes `files` over the active window (or `windowSpec`); false after saying why,
// with *exitCode 1 (bad input) or 2 (bad window).
bool analyze(const QStringList& files, const std::optional<std::string>& windowSpec, Analyzed* run,
             int* exitCode) {
    *exitCode = 1;
    run->loaded = loadOrReport(files);
    if (!run->loaded.ok())
        return false;
    model::AnalysisOptions options;
    if (windowSpec) {
        std::string error;
        options.window = model::parseWindow(*windowSpec, *run->loaded.session, &error);
        if (!options.window) {
            printError(QStringLiteral("--window: ") + QString::fromStdString(error));
            *exitCode = 2;
            return false;
        }
    }
    std::string error;
    if (!run->database.open(*run->loaded.session, &error)) {
        printError(QStringLiteral("%1: %2").arg(files.front(), QString::fromStdString(error)));
        return false;
    }
    run->report = model::InsightEngine::analyze(*run->loaded.session, run->database, options);
    return true;
}

std::string currentDirectory() {
    return QDir::currentPath().toStdString();
}

} // namespace

void printError(const QString& message) {
    const std::string line = "stallscope: " + message.toStdString();
    std::fprintf(stderr, "%s\n", format::terminalSafe(line, false).c_str());
}

int runClearCache() {
    const std::string dir = model::importCacheDir();
    model::ImportCacheTrim removed;
    std::string error;
    if (!model::clearImportCache(dir, &removed, &error)) {
        printError(QString::fromStdString(error));
        return 1;
    }
    printText("stallscope: removed " + std::to_string(removed.removedFiles) + " cached session" +
              (removed.removedFiles == 1 ? "" : "s") + " (" +
              model::formatBytes(removed.removedBytes) + ") from " + dir);
    if (const std::string columns = model::columnCacheFolder(); !columns.empty()) {
        const model::ColumnCacheCleared cleared = model::clearColumnCache(columns);
        printText("stallscope: removed " + std::to_string(cleared.files) + " cached column file" +
                  (cleared.files == 1 ? "" : "s") + " (" + model::formatBytes(cleared.bytes) +
                  ") from " + columns);
    }
    return 0;
}

int runInfo(const QStringList& files) {
    const model::LoadResult result = loadOrReport(files);
    if (!result.ok())
        return 1;
    printText(model::SessionSummary::of(*result.session).toText());
    return 0;
}

int runSummary(const QString& path, bool json) {
    const model::fleet::FleetResult result = model::fleet::summarizeRun(path.toStdString());
    if (!result.ok()) {
        printError(QString::fromStdString(result.error)); // names the file at fault
        return 1;
    }
    if (json)
        printJson(model::fleet::fleetSummaryToJson(*result.summary));
    else
        printText(model::fleet::fleetSummaryToText(*result.summary));
    return 0;
}

int runInsights(const QStringList& files, bool json, const std::optional<std::string>& windowSpec,
                const CiOutputs& ci) {
    const std::optional<format::OutputPolicy> ciPolicy = ciOutputPolicy(ci, files);
    if (!ciPolicy)
        return 2;
    Analyzed run;
    int exitCode = 0;
    if (!analyze(files, windowSpec, &run, &exitCode))
        return exitCode;
    const model::InsightReport& report = run.report;
    if (json)
        printJson(model::insightReportToJson(report));
    else
        printText(model::insightReportToText(report));
    const model::Severity failAt = ci.failAt.value_or(model::Severity::High);
    if (!writeCiReports(ci, *ciPolicy,
                        ci.sarif.isEmpty() ? QByteArray()
                                           : model::insightsToSarif(report, currentDirectory()),
                        ci.junit.isEmpty()
                            ? QByteArray()
                            : model::insightsToJUnit(report, files.front().toStdString(), failAt)))
        return 1;
    if (ci.failAt && model::insightsFail(report, *ci.failAt)) {
        printError(
            QStringLiteral("%1: findings of severity %2 or above: failing (exit 3)")
                .arg(files.front(), QString::fromUtf8(model::severityName(*ci.failAt).data())));
        return 3;
    }
    return 0;
}

int runCompare(const QString& before, const QString& after, bool json, const CiOutputs& ci) {
    const std::optional<format::OutputPolicy> ciPolicy = ciOutputPolicy(ci, {before, after});
    if (!ciPolicy)
        return 2;
    Analyzed beforeRun, afterRun;
    int exitCode = 0;
    if (!analyze({before}, std::nullopt, &beforeRun, &exitCode) ||
        !analyze({after}, std::nullopt, &afterRun, &exitCode))
        return exitCode;
    const model::SessionComparison comparison = model::compareSessions(
        {beforeRun.loaded.session.get(), &beforeRun.database, &beforeRun.report},
        {afterRun.loaded.session.get(), &afterRun.database, &afterRun.report});
    if (json)
        printJson(model::comparisonToJson(comparison));
    else
        printText(model::comparisonToText(comparison));
    const model::Severity failAt = ci.failAt.value_or(model::Severity::High);
    if (!writeCiReports(
            ci, *ciPolicy,
            ci.sarif.isEmpty() ? QByteArray()
                               : model::comparisonToSarif(comparison, currentDirectory()),
            ci.junit.isEmpty() ? QByteArray() : model::comparisonToJUnit(comparison, failAt)))
        return 1;
    if (ci.failAt && model::comparisonFails(comparison, *ci.failAt)) {
        printError(QStringLiteral("new or worse sync sites of severity %1 or above: failing "
                                  "(exit 3)")
                       .arg(QString::fromUtf8(model::severityName(*ci.failAt).data())));
        return 3;
    }
    return 0;
}

int runConvert(const QString& input, const QString& output, bool replace) {
    if (output.isEmpty()) {
        printError(QStringLiteral("--convert needs an output file: -o OUT.stallscope"));
        return 2;
    }
    model::KinetoImportOptions options;
    options.output = outputPolicy({input}, replace);
    if (!outputAllowed(output, options.output))
        return 2;
    const model::KinetoImportResult result =
        model::KinetoImporter::convert(input.toStdString(), output.toStdString(), options);
    if (!result.ok) {
        printError(QString::fromStdString(result.error));
        return 1;
    }
    printWrote(output);
    return runInfo({output});
}

int runReport(const QString& output, const QStringList& inputs, bool replace,
              const views::ReportOptions& options) {
    format::OutputPolicy policy = outputPolicy(inputs, replace);
    if (!outputAllowed(output, policy))
        return 2;
    model::LoadResult result = loadOrReport(inputs);
    if (!result.ok())
        return 1;
    const std::shared_ptr<const model::Session> session = std::move(result.session);
    for (const std::string& file : session->files()) // a converted trace's cached session
        policy.inputs.push_back(file);
    model::SessionDatabase database;
    std::string error;
    if (!database.open(*session, &error)) {
        printError(QStringLiteral("%1: %2").arg(inputs.front(), QString::fromStdString(error)));
        return 1;
    }
    const model::InsightReport report = model::InsightEngine::analyze(*session, database);
    QString message;
    if (!views::ReportWriter::write(session, report, output, policy, &message, options)) {
        printError(message);
        return 1;
    }
    printWrote(output);
    return 0;
}

int runExportChrome(const QString& output, const QStringList& inputs, bool replace) {
    format::OutputPolicy policy = outputPolicy(inputs, replace);
    if (!outputAllowed(output, policy))
        return 2;
    const model::LoadResult result = loadOrReport(inputs);
    if (!result.ok())
        return 1;
    for (const std::string& file : result.session->files()) // a converted trace's cached session
        policy.inputs.push_back(file);
    model::SessionDatabase database;
    std::string error;
    if (!database.open(*result.session, &error) ||
        !model::exportChromeTrace(*result.session, database, output.toStdString(), policy,
                                  &error)) {
        printError(QString::fromStdString(error));
        return 1;
    }
    printWrote(output, " (open it in https://ui.perfetto.dev or chrome://tracing)");
    return 0;
}

} // namespace stallscope::app
