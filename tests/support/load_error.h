// What a rejected session file must give (header-only test support): no session, not marked
// cancelled, and one line that starts with the file's path and names the problem.
#pragma once

#include "model/session/session_loader.h"

#include <QString>
#include <QTest>

#include <string>

namespace stallscope::testing {

// Loads `file` and fails the calling test unless the load fails with such a line containing
// `expected`.
inline void expectLoadError(const std::string& file, const QString& expected) {
    const auto result = model::SessionLoader::load(file);
    QVERIFY(!result.ok());
    QVERIFY(!result.cancelled);
    const QString error = QString::fromStdString(result.error);
    QVERIFY2(error.startsWith(QString::fromStdString(file) + ": "), qPrintable(error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY2(!error.contains('\n'), qPrintable(error));
}

} // namespace stallscope::testing
