// Fuzz target: the bytes of a session file through the report (issue 40): loaded, analyzed and
// written as a PDF and as one HTML file, as `stallscope --report` does. Hostile meta values and
// names (a 300 MB command crashed the PDF in QTextEngine) must give a report or one error.
// Seeds: the session-file corpus and sessions with hostile meta (corpus/fuzz_report/).
#include "model/analysis/insight_engine.h"
#include "model/session/session_database.h"
#include "tests/fuzz/fuzz_support.h"
#include "views/report/report_writer.h"

#include <QApplication>

#include <memory>

using namespace stallscope;

namespace {

// The report paints with Qt Widgets: one offscreen application for the process.
void ensureGuiApplication() {
    static int argc = 1;
    static char name[] = "fuzz_report";
    static char* argv[] = {name, nullptr};
    if (QApplication::instance())
        return;
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static QApplication app(argc, argv);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ensureGuiApplication();
    const std::string path = fuzz::scratchPath("input.stallscope");
    fuzz::writeFile(path, data, size);
    model::LoadResult loaded = model::SessionLoader::load(path);
    if (!loaded.ok()) {
        fuzz::require(!loaded.error.empty(), "a failed load gave no error", path);
        return 0;
    }
    const std::shared_ptr<const model::Session> session = std::move(loaded.session);
    model::SessionDatabase database;
    std::string error;
    if (!database.open(session->path, &error))
        return 0;
    const model::InsightReport report = model::InsightEngine::analyze(*session, database);
    format::OutputPolicy replace;
    replace.replaceExisting = true;
    replace.inputs = {session->path};
    for (const char* name : {"report.pdf", "report.html"}) {
        QString message;
        if (!views::ReportWriter::write(session, report,
                                        QString::fromStdString(fuzz::scratchPath(name)), replace,
                                        &message))
            fuzz::require(!message.isEmpty(), "a failed report gave no error", session->path);
    }
    return 0;
}
