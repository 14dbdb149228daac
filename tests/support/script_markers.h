// The lines a test script marks with "# MARK:name" comments, by name (header-only test support):
// the tests expect their captured and sampled lines from these, never from numbers of their own.
#pragma once

#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QString>

namespace stallscope::testing {

inline QMap<QString, int> scriptMarkers(const QString& path) {
    QMap<QString, int> lines;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return lines;
    int number = 0;
    const QRegularExpression mark("# MARK:(\\w+)");
    while (!file.atEnd()) {
        ++number;
        const QRegularExpressionMatch m = mark.match(QString::fromUtf8(file.readLine()));
        if (m.hasMatch())
            lines[m.captured(1)] = number;
    }
    return lines;
}

} // namespace stallscope::testing
