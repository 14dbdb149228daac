// Running the `stallscope` executable as a user does, headless (header-only test support for the
// suites in tests/app that define STALLSCOPE_EXECUTABLE).
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>

namespace stallscope::testing {

struct StallscopeRun {
    int exitCode = -1; // -2: crashed; -1: did not finish within the time limit
    QString out;
    QString err;
};

// Offscreen: for the window mode's checks of its arguments.
enum class Display { None, Offscreen };

// Runs stallscope with `arguments`, no display (unless Offscreen) and its import cache in
// `importCache` (its column cache in importCache/columns); `inChild` runs in the child before the
// program starts (limits, signals).
inline StallscopeRun runStallscope(const QStringList& arguments, const QString& importCache,
                                   Display display = Display::None,
                                   std::function<void()> inChild = {}) {
    QProcess process;
    // Headless modes must not need a display at all: no platform plugin hint either.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("QT_QPA_PLATFORM"));
    if (display == Display::Offscreen)
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    environment.insert(QStringLiteral("STALLSCOPE_IMPORT_CACHE"), importCache);
    environment.insert(QStringLiteral("STALLSCOPE_COLUMN_CACHE"), importCache + "/columns");
    process.setProcessEnvironment(environment);
    if (inChild)
        process.setChildProcessModifier(inChild);
    process.start(QStringLiteral(STALLSCOPE_EXECUTABLE), arguments);
    if (!process.waitForFinished(30000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    StallscopeRun result;
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

} // namespace stallscope::testing
