// Writing a file of given bytes into a test's temporary directory, and reading one back
// (header-only test support).
#pragma once

#include "tests/support/test_failure.h"

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

namespace stallscope::testing {

// Writes `bytes` to `dir`/`name` and returns the path; a failure fails the running test and returns
// an empty path.
[[nodiscard]] inline QString writeFile(const QTemporaryDir& dir, const QString& name,
                                       const QByteArray& bytes) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size()) {
        STALLSCOPE_FAIL("cannot write %s: %s", qPrintable(path), qPrintable(file.errorString()));
        return {};
    }
    return path;
}

// The whole content of `path`; empty when it cannot be read.
inline QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace stallscope::testing
