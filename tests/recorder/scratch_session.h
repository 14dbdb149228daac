// A session file in a temporary directory and its writer: the set-up of the recorder tests that
// feed a SessionSink and then read the file back.
#pragma once

#include "format/session_writer.h"

#include <QString>
#include <QTemporaryDir>

#include <memory>
#include <string>

namespace stallscope::testing {

struct ScratchSession {
    explicit ScratchSession(const char* name)
        : path(dir.filePath(name)),
          writer(format::SessionWriter::create(path.toStdString(), &error)) {}

    QTemporaryDir dir;
    QString path;
    std::string error; // why `writer` is null
    std::unique_ptr<format::SessionWriter> writer;
};

} // namespace stallscope::testing
