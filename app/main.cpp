// stallscope: the desktop application and its batch modes.
//   stallscope [FILE]          open the main window (and FILE in it)
//   stallscope --info FILE     print the session summary and exit (no GUI, no display needed)
// Hidden, for docs and CI: --screenshot OUT.png [--window-size WxH] [--visible-range FROM:TO] grabs
// the window once FILE has loaded and exits (non-zero if it did not load). FROM and TO are
// milliseconds since the session start.
#include "main_window.h"
#include "session.h"
#include "session_loader.h"
#include "session_summary.h"
#include "timeline_widget.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QTimer>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

namespace {

using stallscope::views::MainWindow;

struct Options {
    QCommandLineOption info{QStringLiteral("info"),
                            QStringLiteral("Print the session summary of FILE and exit.")};
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
};

void configure(QCommandLineParser& parser, Options& options) {
    parser.setApplicationDescription(
        QStringLiteral("Stallscope: find the lines of code that make the host wait for the GPU."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption(options.info);
    options.screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
    options.windowSize.setFlags(QCommandLineOption::HiddenFromHelp);
    options.visibleRange.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(options.screenshot);
    parser.addOption(options.windowSize);
    parser.addOption(options.visibleRange);
    parser.addPositionalArgument(QStringLiteral("FILE"),
                                 QStringLiteral("A session file (*.stallscope) to open."),
                                 QStringLiteral("[FILE]"));
}

// Modes that must not need a display decide the application class before Qt parses anything.
bool isHeadless(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const char* arg = argv[i];
        if (std::strcmp(arg, "--") == 0)
            break;
        for (const char* flag : {"--info", "-v", "--version", "-h", "--help", "--help-all", "-?"})
            if (std::strcmp(arg, flag) == 0)
                return true;
    }
    return false;
}

void printError(const QString& message) {
    std::fprintf(stderr, "stallscope: %s\n", message.toLocal8Bit().constData());
}

int runInfo(const QStringList& files) {
    if (files.size() != 1) {
        printError(QStringLiteral("--info needs exactly one FILE (see --help)"));
        return 2;
    }
    const QString& file = files.front();
    if (!QFileInfo::exists(file)) {
        printError(QStringLiteral("%1: no such file").arg(file));
        return 1;
    }
    const stallscope::model::LoadResult result =
        stallscope::model::SessionLoader::load(file.toStdString());
    if (!result.ok()) {
        // The loader's message already starts with the path.
        printError(QString::fromStdString(result.error));
        return 1;
    }
    const std::string text = stallscope::model::SessionSummary::of(*result.session).toText();
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (!text.empty() && text.back() != '\n')
        std::fputc('\n', stdout);
    if (!result.session->warning.empty())
        std::fprintf(stderr, "stallscope: warning: %s\n", result.session->warning.c_str());
    return 0;
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
    const QString screenshot = parser.value(options.screenshot);
    if (!screenshot.isEmpty()) {
        if (files.isEmpty()) {
            printError(QStringLiteral("--screenshot needs a FILE"));
            return 2;
        }
        window.setErrorDialogsEnabled(false);
        QObject::connect(&window, &MainWindow::sessionLoaded, &app, [&window, &app, screenshot] {
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
    if (isHeadless(argc, argv)) {
        QCoreApplication app(argc, argv);
        describe(app);
        parser.process(app); // handles --help and --version (and exits)
        return runInfo(parser.positionalArguments());
    }
    QApplication app(argc, argv);
    describe(app);
    parser.process(app);
    return runGui(app, parser, options);
}
