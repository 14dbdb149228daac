#include "app/command_line.h"

#include "app/batch_commands.h"
#include "app/color_scheme.h"
#include "app/compare_launcher.h"
#include "app/main_window.h"
#include "app/session_openers.h"
#include "format/output_file.h"
#include "format/path_remap.h"
#include "model/analysis/analysis_window.h"
#include "model/compare/ci_reports.h"
#include "views/panels/analysis_panels.h"
#include "views/panels/source_view.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

namespace stallscope::app {
namespace {

struct Options {
    QCommandLineOption info{QStringLiteral("info"),
                            QStringLiteral("Print the session summary of FILE and exit.")};
    QCommandLineOption insights{
        QStringLiteral("insights"),
        QStringLiteral("Print the insights of FILE (what to fix, where, what it costs) and exit.")};
    QCommandLineOption summary{
        QStringLiteral("summary"),
        QStringLiteral("Print the fleet summary of a run folder (or one session) and exit: per "
                       "rank its steps, sync and GPU time, which rank arrived last at the "
                       "collectives, the top sync sites over all ranks. Each rank's file is "
                       "streamed with bounded memory, never loaded (docs/fleet.md).")};
    QCommandLineOption json{QStringLiteral("json"),
                            QStringLiteral("With --insights, --compare or --summary: print JSON "
                                           "(docs/insights.md, docs/compare.md, docs/fleet.md).")};
    QCommandLineOption window{
        QStringLiteral("window"),
        QStringLiteral("With --insights: the stretch that shares and severity are over: %1.")
            .arg(QString::fromUtf8(model::kWindowSpecForms.data(),
                                   static_cast<qsizetype>(model::kWindowSpecForms.size()))),
        QStringLiteral("SPEC")};
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
        QStringLiteral("Write the report of FILE (summary, findings with their source, a stalled "
                       "step before and after the fix, top sync sites and kernels) to OUT and "
                       "exit: a PDF, or one self-contained HTML file when OUT ends in .html."),
        QStringLiteral("OUT")};
    QCommandLineOption pageSize{QStringLiteral("page-size"),
                                QStringLiteral("With --report: a4 (the default) or letter."),
                                QStringLiteral("SIZE")};
    QCommandLineOption exportChrome{
        QStringLiteral("export-chrome"),
        QStringLiteral("Write FILE as Chrome/Perfetto trace JSON to OUT (.json or .json.gz) and "
                       "exit."),
        QStringLiteral("OUT")};
    QCommandLineOption force{
        QStringLiteral("force"),
        QStringLiteral(
            "With --convert, --export-chrome, --report: replace OUT if it exists. Without "
            "it an existing OUT is left alone; an OUT that is an input is always "
            "refused.")};
    QCommandLineOption clearCache{
        QStringLiteral("clear-cache"),
        QStringLiteral("Remove the sessions converted from traces (the import cache, "
                       "$STALLSCOPE_IMPORT_CACHE or ~/.cache/stallscope/imports) and the cached "
                       "columns of large sessions ($STALLSCOPE_COLUMN_CACHE or "
                       "~/.cache/stallscope/columns), and exit.")};
    QCommandLineOption colorScheme{QStringLiteral("color-scheme"),
                                   QStringLiteral("light or dark instead of the desktop's scheme."),
                                   QStringLiteral("SCHEME")};
    QCommandLineOption compare{
        QStringLiteral("compare"),
        QStringLiteral("Compare two runs, BEFORE and AFTER (sessions or traces), per sync site, "
                       "kernel and total, and exit (docs/compare.md).")};
    QCommandLineOption compareWith{
        QStringLiteral("compare-with"),
        QStringLiteral("Open FILE in the window and compare it with AFTER there, as File ▸ "
                       "Compare With… does."),
        QStringLiteral("AFTER")};
    QCommandLineOption failOn{
        QStringLiteral("fail-on"),
        QStringLiteral("With --insights: exit 3 when a finding of LEVEL (high, medium, low) or "
                       "above exists."),
        QStringLiteral("LEVEL")};
    QCommandLineOption failOnNew{
        QStringLiteral("fail-on-new"),
        QStringLiteral("With --compare: exit 3 when a new or worse sync site of LEVEL (high, "
                       "medium, low) or above appears."),
        QStringLiteral("LEVEL")};
    QCommandLineOption sarif{
        QStringLiteral("sarif"),
        QStringLiteral("With --insights or --compare: write the findings (the new and worse "
                       "sites) as SARIF 2.1.0 to OUT."),
        QStringLiteral("OUT")};
    QCommandLineOption junit{
        QStringLiteral("junit"),
        QStringLiteral("With --insights or --compare: write JUnit XML to OUT, one test case per "
                       "finding (per site); those the gate fails on fail."),
        QStringLiteral("OUT")};
    QCommandLineOption remap{
        QStringLiteral("remap"),
        QStringLiteral("Read sources recorded under OLD from NEW (repeatable; this run only)."),
        QStringLiteral("OLD=NEW")};
};

void configure(QCommandLineParser& parser, const Options& options) {
    parser.setApplicationDescription(
        QStringLiteral("Stallscope: find the lines of code that make the host wait for the GPU."));
    parser.addHelpOption();
    parser.addVersionOption();
    for (const QCommandLineOption* option :
         {&options.info,    &options.insights,    &options.summary,     &options.json,
          &options.window,  &options.convert,     &options.output,      &options.exportChrome,
          &options.report,  &options.pageSize,    &options.force,       &options.clearCache,
          &options.compare, &options.compareWith, &options.failOn,      &options.failOnNew,
          &options.sarif,   &options.junit,       &options.colorScheme, &options.remap})
        parser.addOption(*option);
    parser.addPositionalArgument(
        QStringLiteral("FILE"),
        QStringLiteral("A session file (*.stallscope), a run folder (one session per rank), "
                       "several sessions of one run, or a torch.profiler trace (.json, .json.gz, "
                       "a folder of rank traces); --compare takes two, BEFORE and AFTER."),
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

// The headless modes; each wants exactly one FILE except --convert (none) and --compare (two).
int runBatch(const QCommandLineParser& parser, const Options& options) {
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(options.window) && !parser.isSet(options.insights)) {
        printError(QStringLiteral("--window goes with --insights (see --help)"));
        return 2;
    }
    const bool force = parser.isSet(options.force);
    const bool writesCiReports = parser.isSet(options.sarif) || parser.isSet(options.junit);
    if (force && !parser.isSet(options.convert) && !parser.isSet(options.exportChrome) &&
        !parser.isSet(options.report) && !writesCiReports) {
        printError(QStringLiteral(
            "--force goes with --convert, --export-chrome, --report, --sarif or --junit"));
        return 2;
    }
    views::ReportOptions reportOptions;
    if (parser.isSet(options.pageSize) &&
        (!parser.isSet(options.report) ||
         !views::ReportWriter::parsePageSize(parser.value(options.pageSize),
                                             &reportOptions.pageSize))) {
        printError(parser.isSet(options.report) ? QStringLiteral("--page-size wants a4 or letter")
                                                : QStringLiteral("--page-size goes with --report"));
        return 2;
    }
    const bool compare = parser.isSet(options.compare);
    const bool insights = parser.isSet(options.insights);
    const struct {
        const QCommandLineOption* option;
        bool allowed;
        const char* goesWith;
    } pairings[] = {{&options.compareWith, false, "the window (no batch mode)"},
                    {&options.failOn, insights, "--insights"},
                    {&options.failOnNew, compare, "--compare"},
                    {&options.sarif, insights || compare, "--insights or --compare"},
                    {&options.junit, insights || compare, "--insights or --compare"}};
    for (const auto& [option, allowed, goesWith] : pairings)
        if (parser.isSet(*option) && !allowed) {
            printError(QStringLiteral("--%1 goes with %2 (see --help)")
                           .arg(option->names().front(), QLatin1String(goesWith)));
            return 2;
        }
    CiOutputs ci;
    ci.replace = force;
    ci.sarif = parser.value(options.sarif);
    ci.junit = parser.value(options.junit);
    for (const QCommandLineOption* gate : {&options.failOn, &options.failOnNew}) {
        if (!parser.isSet(*gate))
            continue;
        ci.failAt = model::parseSeverity(parser.value(*gate).toStdString());
        if (!ci.failAt) {
            printError(QStringLiteral("--%1 wants high, medium or low, got %2")
                           .arg(gate->names().front(), parser.value(*gate)));
            return 2;
        }
    }
    if (parser.isSet(options.summary)) {
        if (files.size() != 1) {
            printError(QStringLiteral("--summary takes one run folder or session file (see "
                                      "--help)"));
            return 2;
        }
        return runSummary(files.front(), parser.isSet(options.json));
    }
    if (compare) {
        if (files.size() != 2) {
            printError(QStringLiteral("--compare needs two files, BEFORE and AFTER (see --help)"));
            return 2;
        }
        return runCompare(files[0], files[1], parser.isSet(options.json), ci);
    }
    if (parser.isSet(options.clearCache)) {
        if (!files.isEmpty()) {
            printError(QStringLiteral("--clear-cache takes no FILE"));
            return 2;
        }
        return runClearCache();
    }
    if (parser.isSet(options.convert)) {
        if (!files.isEmpty()) {
            printError(QStringLiteral("--convert takes no FILE; give the output with -o"));
            return 2;
        }
        return runConvert(parser.value(options.convert), parser.value(options.output), force);
    }
    const char* mode = parser.isSet(options.insights)       ? "--insights"
                       : parser.isSet(options.exportChrome) ? "--export-chrome"
                       : parser.isSet(options.report)       ? "--report"
                                                            : "--info";
    if (files.isEmpty()) {
        printError(QStringLiteral("%1 needs a FILE (see --help)").arg(mode));
        return 2;
    }
    // Several sessions are one run (the ranks of a job), read as one session.
    if (parser.isSet(options.insights))
        return runInsights(files, parser.isSet(options.json),
                           parser.isSet(options.window)
                               ? std::optional(parser.value(options.window).toStdString())
                               : std::nullopt,
                           ci);
    if (parser.isSet(options.exportChrome))
        return runExportChrome(parser.value(options.exportChrome), files, force);
    if (parser.isSet(options.report))
        return runReport(parser.value(options.report), files, force, reportOptions);
    return runInfo(files);
}

// --remap rules into `rules`; false (after saying why) on one that is not OLD=NEW.
bool parseRemapRules(const QStringList& texts, std::vector<format::PathRemapRule>* rules) {
    for (const QString& text : texts) {
        format::PathRemapRule rule;
        if (!format::parsePathRemapRule(text.toStdString(), &rule)) {
            printError(QStringLiteral("--remap wants OLD=NEW, got %1").arg(text));
            return false;
        }
        rules->push_back(rule);
    }
    return true;
}

int runGui(QApplication& app, const QCommandLineParser& parser, const Options& options) {
    const QString scheme = parser.value(options.colorScheme);
    if (!scheme.isEmpty() && scheme != QLatin1String("light") && scheme != QLatin1String("dark")) {
        printError(QStringLiteral("--color-scheme wants light or dark"));
        return 2;
    }
    applyColorScheme(app, scheme.isEmpty() ? std::nullopt
                                           : std::optional(scheme == QLatin1String("dark")
                                                               ? ColorScheme::Dark
                                                               : ColorScheme::Light));
    installColorSchemeFollower(app);
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1 && parser.isSet(options.compareWith)) {
        printError(QStringLiteral("--compare-with takes one FILE (see --help)"));
        return 2;
    }
    if (parser.isSet(options.compareWith) && files.isEmpty()) {
        printError(QStringLiteral("--compare-with needs the FILE to compare with AFTER"));
        return 2;
    }
    std::vector<format::PathRemapRule> rules;
    if (!parseRemapRules(parser.values(options.remap), &rules))
        return 2;
    MainWindow window;
    if (!rules.empty())
        window.panels()->sourceView()->resolver().setRules(std::move(rules));
    window.show();
    if (parser.isSet(options.compareWith))
        window.compareLauncher()->compareWhenLoaded(parser.value(options.compareWith));
    if (!files.isEmpty())
        window.openFiles(files); // several: the ranks of one run
    return app.exec();
}

void describe(QCoreApplication& app) {
    app.setApplicationName(QStringLiteral("stallscope"));
    app.setApplicationVersion(QStringLiteral(STALLSCOPE_VERSION));
    app.setOrganizationName(QStringLiteral("Stallscope"));
}

// The report paints the timeline: a GUI application, but it needs no display.
void preferOffscreenPlatform() {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // What Qt would pick itself, minus its warning on stderr for a batch run.
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
        const QByteArray runtime = "/tmp/runtime-" + QByteArray::number(uint(getuid()));
        if (mkdir(runtime.constData(), 0700) == 0 || errno == EEXIST)
            qputenv("XDG_RUNTIME_DIR", runtime);
    }
}

} // namespace

int runCommandLine(int argc, char** argv) {
    // A writer stopped by Ctrl+C, `timeout` or a closed terminal leaves no half-written output.
    format::removeTemporaryOutputsOnSignals();
    Options options;
    QCommandLineParser parser;
    configure(parser, options);
    if (hasAnyFlag(argc, argv, {"--report"})) {
        preferOffscreenPlatform();
        QApplication app(argc, argv);
        describe(app);
        parser.process(app);
        return runBatch(parser, options);
    }
    if (hasAnyFlag(argc, argv,
                   {"--info", "--insights", "--summary", "--compare", "--convert",
                    "--export-chrome", "--clear-cache", "-v", "--version", "-h", "--help",
                    "--help-all", "-?"})) {
        QCoreApplication app(argc, argv);
        describe(app);
        parser.process(app); // handles --help and --version (and exits)
        return runBatch(parser, options);
    }
    QApplication app(argc, argv);
    describe(app);
    parser.process(app);
    return runGui(app, parser, options);
}

} // namespace stallscope::app
