// A process's state as /proc shows it, for the recorder's command-line tests (header-only test
// support).
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

namespace stallscope::testing {

// The state letter of /proc/PID/stat ('Z' for a zombie); 0 when the process is gone.
inline char processState(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray line = stat.readAll();
    const qsizetype paren = line.lastIndexOf(')');
    return paren > 0 && paren + 2 < line.size() ? line.at(paren + 2) : 0;
}

} // namespace stallscope::testing
