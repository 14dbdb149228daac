// stallscope: the desktop application and its batch modes.
//   stallscope [FILE]          open the main window (and FILE in it)
//   stallscope --info FILE     print the session summary and exit (no GUI, no display needed)
//   stallscope --insights [--json] FILE, --convert TRACE -o OUT, --export-chrome OUT FILE,
//   stallscope --report OUT.pdf FILE
//                              the other batch modes (app/batch_commands.h)
// FILE may be a session or a torch.profiler trace (.json, .json.gz, or a folder of rank traces).
//   --color-scheme light|dark  override the desktop's scheme; --remap OLD=NEW  a source path rule
// Hidden, for docs and CI: --screenshot OUT.png [--window-size WxH] [--visible-range FROM:TO]
// [--select-insight N] [--open-source FILE:LINE] [--raise-dock NAME] grabs the window once FILE
// has loaded and its analysis ended, then exits (non-zero if it did not load). FROM and TO are
// milliseconds since the session start; N counts insight cards from 1. --select-sync N selects
// the N-th host-blocking sync (from 0, time order over all threads) to show its link and details;
// without --visible-range the view frames the sync, the work it waited for and that work's launch.
#include "app/batch_commands.h"
#include "app/color_scheme.h"
#include "app/main_window.h"
#include "format/path_remap.h"
#include "model/session/session.h"
#include "views/panels/analysis_panels.h"
#include "views/panels/source_view.h"
#include "views/timeline/event_style.h"
#include "views/timeline/timeline_widget.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QTimer>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace {

using stallscope::app::MainWindow;

struct Options {
    QCommandLineOption info{QStringLiteral("info"),
                            QStringLiteral("Print the session summary of FILE and exit.")};
    QCommandLineOption insights{
        QStringLiteral("insights"),
        QStringLiteral("Print the insights of FILE (what to fix, where, what it costs) and exit.")};
    QCommandLineOption json{QStringLiteral("json"),
                            QStringLiteral("With --insights: print JSON (docs/insights.md).")};
    QCommandLineOption convert{
        QStringLiteral("convert"),
        QStringLiteral("Convert a torch.profiler trace (or a folder of rank traces) to a session "
                       "file given with -o, and exit."),
        QStringLiteral("TRACE")};
    QCommandLineOption output{{QStringLiteral("o"), QStringLiteral("output")},
                              QStringLiteral("Output file of --convert."),
                              QStringLiteral("OUT")};
    QCommandLineOption report{
        QStringLiteral("report"),
        QStringLiteral("Write the PDF report of FILE (summary, findings, timeline, top sync sites "
                       "and kernels) to OUT and exit."),
        QStringLiteral("OUT")};
    QCommandLineOption exportChrome{
        QStringLiteral("export-chrome"),
        QStringLiteral("Write FILE as Chrome/Perfetto trace JSON to OUT (.json or .json.gz) and "
                       "exit."),
        QStringLiteral("OUT")};
    QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QStringLiteral("Save a picture of the window to PNG once FILE has loaded, then exit."),
        QStringLiteral("PNG")};
    QCommandLineOption windowSize{QStringLiteral("window-size"),
                                  QStringLiteral("Initial window size."), QStringLiteral("WxH")};
    QCommandLineOption visibleRange{
        QStringLiteral("visible-range"),
        QStringLiteral("Time range shown after loading, in ms since the session start."),
        QStringLiteral("FROM:TO")};
    QCommandLineOption colorScheme{QStringLiteral("color-scheme"),
                                   QStringLiteral("light or dark instead of the desktop's scheme."),
                                   QStringLiteral("SCHEME")};
    QCommandLineOption remap{
        QStringLiteral("remap"),
        QStringLiteral("Read sources recorded under OLD from NEW (repeatable; this run only)."),
        QStringLiteral("OLD=NEW")};
    QCommandLineOption selectInsight{
        QStringLiteral("select-insight"),
        QStringLiteral("Click the N-th insight card after the analysis."), QStringLiteral("N")};
    QCommandLineOption openSource{
        QStringLiteral("open-source"),
        QStringLiteral("Open FILE (as recorded) at LINE in the source view."),
        QStringLiteral("FILE:LINE")};
    QCommandLineOption raiseDock{QStringLiteral("raise-dock"),
                                 QStringLiteral("Bring a dock to the front: source, statistics."),
                                 QStringLiteral("NAME")};
    QCommandLineOption selectSync{
        QStringLiteral("select-sync"),
        QStringLiteral("Select the N-th host-blocking sync after loading (0 = the first)."),
        QStringLiteral("N")};
};

void configure(QCommandLineParser& parser, Options& options) {
    parser.setApplicationDescription(
        QStringLiteral("Stallscope: find the lines of code that make the host wait for the GPU."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption(options.info);
    parser.addOption(options.insights);
    parser.addOption(options.json);
    parser.addOption(options.convert);
    parser.addOption(options.output);
    parser.addOption(options.exportChrome);
    parser.addOption(options.report);
    parser.addOption(options.colorScheme);
    parser.addOption(options.remap);
    for (QCommandLineOption* hidden :
         {&options.screenshot, &options.windowSize, &options.visibleRange, &options.selectInsight,
          &options.openSource, &options.raiseDock, &options.selectSync}) {
        hidden->setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(*hidden);
    }
    parser.addPositionalArgument(
        QStringLiteral("FILE"),
        QStringLiteral("A session file (*.stallscope), or a torch.profiler trace (.json, .json.gz, "
                       "a folder of rank traces)."),
        QStringLiteral("[FILE]"));
}

// Modes that must not need a display decide the application class before Qt parses anything.
bool hasAnyFlag(int argc, char** argv, std::initializer_list<const char*> flags) {
    for (int i = 1; i < argc; ++i) {
        const char* arg = argv[i];
        if (std::strcmp(arg, "--") == 0)
            break;
        for (const char* flag : flags)
            if (std::strcmp(arg, flag) == 0)
                return true;
    }
    return false;
}

using stallscope::app::printError;

// The headless modes; each wants exactly one FILE except --convert.
int runBatch(const QCommandLineParser& parser, const Options& options) {
    namespace batch = stallscope::app;
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(options.convert)) {
        if (!files.isEmpty()) {
            printError(QStringLiteral("--convert takes no FILE; give the output with -o"));
            return 2;
        }
        return batch::runConvert(parser.value(options.convert), parser.value(options.output));
    }
    const char* mode = parser.isSet(options.insights)       ? "--insights"
                       : parser.isSet(options.exportChrome) ? "--export-chrome"
                       : parser.isSet(options.report)       ? "--report"
                                                            : "--info";
    if (files.size() != 1) {
        printError(QStringLiteral("%1 needs exactly one FILE (see --help)").arg(mode));
        return 2;
    }
    if (parser.isSet(options.insights))
        return batch::runInsights(files.front(), parser.isSet(options.json));
    if (parser.isSet(options.exportChrome))
        return batch::runExportChrome(parser.value(options.exportChrome), files.front());
    if (parser.isSet(options.report))
        return batch::runReport(parser.value(options.report), files.front());
    return batch::runInfo(files.front());
}

// The hidden navigation options, applied once the analysis has ended. False on a bad value.
bool applyAfterAnalysis(MainWindow& window, const QCommandLineParser& parser,
                        const Options& options) {
    using stallscope::views::AnalysisPanels;
    int insight = 0;
    if (parser.isSet(options.selectInsight)) {
        insight = parser.value(options.selectInsight).toInt();
        if (insight < 1) {
            printError(QStringLiteral("--select-insight wants a card number from 1"));
            return false;
        }
    }
    QString sourceFile;
    int sourceLine = 0;
    if (parser.isSet(options.openSource)) {
        const QString value = parser.value(options.openSource);
        const qsizetype colon = value.lastIndexOf(QLatin1Char(':'));
        sourceFile = value.left(colon);
        sourceLine = colon > 0 ? value.mid(colon + 1).toInt() : 0;
        if (sourceFile.isEmpty() || sourceLine < 1) {
            printError(QStringLiteral("--open-source wants FILE:LINE"));
            return false;
        }
    }
    const QString dock = parser.value(options.raiseDock);
    QObject::connect(&window, &MainWindow::analysisFinished, &window,
                     [&window, insight, sourceFile, sourceLine, dock] {
                         AnalysisPanels* panels = window.panels();
                         if (insight > 0)
                             panels->activateInsight(insight - 1);
                         if (!sourceFile.isEmpty())
                             panels->openSource(sourceFile, sourceLine);
                         if (dock == QLatin1String("statistics"))
                             panels->tablesDock()->raise();
                         else if (dock == QLatin1String("source"))
                             panels->sourceDock()->raise();
                     });
    return true;
}

// The n-th host-blocking sync in start order over all host lanes, selected (and framed with
// the work it waited for and that work's launch call).
void selectSync(stallscope::views::TimelineWidget& timeline, int n, bool frame) {
    using stallscope::model::EventRef;
    const auto& session = *timeline.session();
    std::vector<std::pair<int64_t, EventRef>> syncs;
    for (size_t lane = 0; lane < session.hostLanes.size(); ++lane) {
        const auto& columns = session.hostLanes[lane].syncs;
        for (size_t i = 0; i < columns.size(); ++i)
            if (stallscope::model::isHostBlocking(columns.kind[i])) {
                syncs.emplace_back(columns.start[i], EventRef::sync(static_cast<int32_t>(lane),
                                                                    static_cast<uint32_t>(i)));
            }
    }
    std::stable_sort(syncs.begin(), syncs.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (n >= static_cast<int>(syncs.size())) {
        printError(QStringLiteral("--select-sync %1: the session has %2 host-blocking syncs")
                       .arg(n)
                       .arg(syncs.size()));
        return;
    }
    const EventRef sync = syncs[n].second;
    timeline.selectEvent(sync);
    if (!frame)
        return;
    const auto& link = timeline.syncLink();
    int64_t start = sync.start(session);
    const int64_t end = sync.end(session);
    if (link.work.isValid())
        start = std::min(start, link.work.start(session));
    if (link.launch.isValid())
        start = std::min(start, link.launch.start(session));
    const int64_t margin = std::max<int64_t>((end - start) / 4, 20'000);
    timeline.setVisibleRange(start - margin, end + margin);
}

int runGui(QApplication& app, const QCommandLineParser& parser, const Options& options) {
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1) {
        printError(QStringLiteral("at most one FILE (see --help)"));
        return 2;
    }
    MainWindow window;
    if (parser.isSet(options.windowSize)) {
        const QStringList parts = parser.value(options.windowSize).split(QLatin1Char('x'));
        if (parts.size() == 2 && parts[0].toInt() > 0 && parts[1].toInt() > 0)
            window.resize(parts[0].toInt(), parts[1].toInt());
    }
    if (parser.isSet(options.visibleRange)) {
        const QStringList parts = parser.value(options.visibleRange).split(QLatin1Char(':'));
        bool fromOk = false;
        bool toOk = false;
        const double from = parts.value(0).toDouble(&fromOk);
        const double to = parts.size() == 2 ? parts[1].toDouble(&toOk) : 0.0;
        if (!fromOk || !toOk || to <= from) {
            printError(QStringLiteral("--visible-range wants FROM:TO in milliseconds, FROM < TO"));
            return 2;
        }
        QObject::connect(&window, &MainWindow::sessionLoaded, &window, [&window, from, to] {
            const int64_t start = window.session()->startNs;
            window.timelineWidget()->setVisibleRange(start + std::llround(from * 1e6),
                                                     start + std::llround(to * 1e6));
        });
    }
    if (parser.isSet(options.remap)) {
        std::vector<stallscope::format::PathRemapRule> rules;
        for (const QString& text : parser.values(options.remap)) {
            stallscope::format::PathRemapRule rule;
            if (!stallscope::format::parsePathRemapRule(text.toStdString(), &rule)) {
                printError(QStringLiteral("--remap wants OLD=NEW, got %1").arg(text));
                return 2;
            }
            rules.push_back(rule);
        }
        window.panels()->sourceView()->resolver().setRules(std::move(rules));
    }
    if (!applyAfterAnalysis(window, parser, options))
        return 2;
    if (parser.isSet(options.selectSync)) {
        bool ok = false;
        const int n = parser.value(options.selectSync).toInt(&ok);
        if (!ok || n < 0) {
            printError(QStringLiteral("--select-sync wants a sync number (0 = the first)"));
            return 2;
        }
        const bool keepRange = parser.isSet(options.visibleRange);
        QObject::connect(&window, &MainWindow::sessionLoaded, &window, [&window, n, keepRange] {
            selectSync(*window.timelineWidget(), n, !keepRange);
            // Show the sync's details (the dock shares its place with others).
            if (auto* details = window.findChild<QDockWidget*>(QStringLiteral("detailsDock")))
                details->raise();
        });
    }
    const QString screenshot = parser.value(options.screenshot);
    if (!screenshot.isEmpty()) {
        if (files.isEmpty()) {
            printError(QStringLiteral("--screenshot needs a FILE"));
            return 2;
        }
        window.setErrorDialogsEnabled(false);
        // After the analysis, so the insight dock shows its cards rather than "Analyzing…".
        QObject::connect(&window, &MainWindow::analysisFinished, &app, [&window, &app, screenshot] {
            // Let layouts and the first paint settle before grabbing.
            QTimer::singleShot(300, &app, [&window, &app, screenshot] {
                const bool saved = window.grab().save(screenshot, "PNG");
                if (!saved)
                    printError(QStringLiteral("%1: cannot write the screenshot").arg(screenshot));
                app.exit(saved ? 0 : 1);
            });
        });
        QObject::connect(&window, &MainWindow::loadFailed, &app, [&app](const QString& error) {
            printError(error);
            app.exit(1);
        });
    }
    window.show();
    if (!files.isEmpty())
        window.openFile(files.front());
    return app.exec();
}

void describe(QCoreApplication& app) {
    app.setApplicationName(QStringLiteral("stallscope"));
    app.setApplicationVersion(QStringLiteral(STALLSCOPE_VERSION));
    app.setOrganizationName(QStringLiteral("Stallscope"));
}

} // namespace

int main(int argc, char** argv) {
    Options options;
    QCommandLineParser parser;
    configure(parser, options);
    if (hasAnyFlag(argc, argv, {"--report"})) {
        // The report paints the timeline: a GUI application, but it needs no display.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        // What Qt would pick itself, minus its warning on stderr for a batch run.
        if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
            const QByteArray runtime = "/tmp/runtime-" + QByteArray::number(uint(getuid()));
            if (mkdir(runtime.constData(), 0700) == 0 || errno == EEXIST)
                qputenv("XDG_RUNTIME_DIR", runtime);
        }
        QApplication app(argc, argv);
        describe(app);
        parser.process(app);
        return runBatch(parser, options);
    }
    if (hasAnyFlag(argc, argv,
                   {"--info", "--insights", "--convert", "--export-chrome", "-v", "--version", "-h",
                    "--help", "--help-all", "-?"})) {
        QCoreApplication app(argc, argv);
        describe(app);
        parser.process(app); // handles --help and --version (and exits)
        return runBatch(parser, options);
    }
    QApplication app(argc, argv);
    describe(app);
    parser.process(app);
    const QString scheme = parser.value(options.colorScheme);
    if (!scheme.isEmpty() && scheme != QLatin1String("light") && scheme != QLatin1String("dark")) {
        printError(QStringLiteral("--color-scheme wants light or dark"));
        return 2;
    }
    using stallscope::app::ColorScheme;
    stallscope::app::applyColorScheme(app, scheme.isEmpty()
                                               ? std::nullopt
                                               : std::optional(scheme == QLatin1String("dark")
                                                                   ? ColorScheme::Dark
                                                                   : ColorScheme::Light));
    stallscope::app::installColorSchemeFollower(app);
    return runGui(app, parser, options);
}
