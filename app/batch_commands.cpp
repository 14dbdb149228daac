#include "app/batch_commands.h"

#include "app/session_openers.h"

#include "model/analysis/insight_engine.h"
#include "model/analysis/insight_json.h"
#include "model/analysis/insight_text.h"
#include "model/interop/chrome_trace_export.h"
#include "model/interop/kineto_importer.h"
#include "model/session/session_database.h"
#include "model/session/session_summary.h"
#include "views/report/report_writer.h"

#include <cstdio>
#include <string>

namespace stallscope::app {

namespace {

// Sessions load directly; traces are converted (and cached) first. Prints the error itself.
model::LoadResult loadOrReport(const QString& file) {
    model::LoadResult result = standardSessionOpener().open(file.toStdString());
    if (!result.ok()) {
        printError(QString::fromStdString(result.error)); // already starts with the path
        return result;
    }
    if (!result.session->warning.empty())
        std::fprintf(stderr, "stallscope: warning: %s: %s\n", file.toLocal8Bit().constData(),
                     result.session->warning.c_str());
    return result;
}

void printText(const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (!text.empty() && text.back() != '\n')
        std::fputc('\n', stdout);
}

} // namespace

void printError(const QString& message) {
    std::fprintf(stderr, "stallscope: %s\n", message.toLocal8Bit().constData());
}

int runInfo(const QString& file) {
    const model::LoadResult result = loadOrReport(file);
    if (!result.ok())
        return 1;
    printText(model::SessionSummary::of(*result.session).toText());
    return 0;
}

int runInsights(const QString& file, bool json, const std::optional<std::string>& windowSpec) {
    const model::LoadResult result = loadOrReport(file);
    if (!result.ok())
        return 1;
    model::AnalysisOptions options;
    if (windowSpec) {
        std::string error;
        options.window = model::parseWindow(*windowSpec, *result.session, &error);
        if (!options.window) {
            printError(QStringLiteral("--window: ") + QString::fromStdString(error));
            return 2;
        }
    }
    model::SessionDatabase database;
    std::string error;
    if (!database.open(result.session->path, &error)) {
        printError(QStringLiteral("%1: %2").arg(file, QString::fromStdString(error)));
        return 1;
    }
    const model::InsightReport report =
        model::InsightEngine::analyze(*result.session, database, options);
    if (json) {
        const QByteArray text = model::insightReportToJson(report);
        std::fwrite(text.constData(), 1, static_cast<size_t>(text.size()), stdout);
    } else {
        printText(model::insightReportToText(report));
    }
    return 0;
}

int runConvert(const QString& input, const QString& output) {
    if (output.isEmpty()) {
        printError(QStringLiteral("--convert needs an output file: -o OUT.stallscope"));
        return 2;
    }
    const model::KinetoImportResult result =
        model::KinetoImporter::convert(input.toStdString(), output.toStdString());
    if (!result.ok) {
        printError(QString::fromStdString(result.error));
        return 1;
    }
    std::printf("stallscope: wrote %s\n", output.toLocal8Bit().constData());
    return runInfo(output);
}

int runReport(const QString& output, const QString& input) {
    model::LoadResult result = loadOrReport(input);
    if (!result.ok())
        return 1;
    const std::shared_ptr<const model::Session> session = std::move(result.session);
    model::SessionDatabase database;
    std::string error;
    if (!database.open(session->path, &error)) {
        printError(QStringLiteral("%1: %2").arg(input, QString::fromStdString(error)));
        return 1;
    }
    const model::InsightReport report = model::InsightEngine::analyze(*session, database);
    QString message;
    if (!views::ReportWriter::write(session, report, output, &message)) {
        printError(message);
        return 1;
    }
    std::printf("stallscope: wrote %s\n", output.toLocal8Bit().constData());
    return 0;
}

int runExportChrome(const QString& output, const QString& input) {
    const model::LoadResult result = loadOrReport(input);
    if (!result.ok())
        return 1;
    model::SessionDatabase database;
    std::string error;
    if (!database.open(result.session->path, &error) ||
        !model::exportChromeTrace(*result.session, database, output.toStdString(), &error)) {
        printError(QString::fromStdString(error));
        return 1;
    }
    std::printf("stallscope: wrote %s (open it in https://ui.perfetto.dev or chrome://tracing)\n",
                output.toLocal8Bit().constData());
    return 0;
}

} // namespace stallscope::app
