// SourceResolver: finds the text of a source file named in a session — first the copy embedded
// in the session (SessionDatabase::source), then the disk: the path rewritten by the path
// remapping rules, the path as recorded, and a relative path next to the session file. Reports
// every place it tried so the source view can say why a file is missing.
#pragma once

#include "format/path_remap.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace stallscope::model {
class SessionDatabase;
}

namespace stallscope::views {

struct SourceLookup {
    enum class Origin { Embedded, Disk, Missing };
    Origin origin = Origin::Missing;
    QString text;
    QString shownPath; // where the text came from (the recorded path when embedded)
    QStringList tried; // disk paths looked at, in order
    bool truncated = false;

    bool found() const { return origin != Origin::Missing; }
};

class SourceResolver {
public:
    // Files larger than this are not read from disk: a source view is not a hex viewer.
    static constexpr qint64 kMaxDiskBytes = 16 << 20;

    void setDatabase(std::shared_ptr<const model::SessionDatabase> database);
    void setSessionDirectory(const QString& directory) { m_sessionDirectory = directory; }
    void setRules(std::vector<format::PathRemapRule> rules) { m_rules = std::move(rules); }
    const std::vector<format::PathRemapRule>& rules() const { return m_rules; }

    SourceLookup find(const QString& recordedPath) const;
    // The disk paths find() tries for a recorded path, in order, without duplicates.
    QStringList candidates(const QString& recordedPath) const;

private:
    std::shared_ptr<const model::SessionDatabase> m_database;
    QString m_sessionDirectory;
    std::vector<format::PathRemapRule> m_rules;
};

} // namespace stallscope::views
