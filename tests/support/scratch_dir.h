// A test's temporary directory that names its files as std::string, the type the format and model
// APIs take (header-only test support).
#pragma once

#include <QString>
#include <QTemporaryDir>

#include <string>

namespace stallscope::testing {

class ScratchDir : public QTemporaryDir {
public:
    std::string file(const char* name) const {
        return filePath(QString::fromUtf8(name)).toStdString();
    }
};

} // namespace stallscope::testing
