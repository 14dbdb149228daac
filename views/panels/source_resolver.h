// SourceResolver: finds the text of a source file named in a session — the copy embedded in the
// session (SessionDatabase::source), else a local file only where the user's own path remapping
// rule vouches for it: the path rewritten by the longest matching rule. A session never chooses
// a local file by itself (not the path as recorded, not one next to the session file), so a
// crafted session cannot make the view show a file the user did not point it at (issue 13).
// Reports the place it tried so the source view can say why a file is missing.
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
    QString shownPath;          // where the text came from (the recorded path when embedded)
    format::PathRemapRule rule; // Disk: the user's rule that led to shownPath
    QStringList tried;          // disk paths looked at, in order
    bool truncated = false;

    bool found() const { return origin != Origin::Missing; }
};

class SourceResolver {
public:
    // Files larger than this are not read from disk: a source view is not a hex viewer.
    static constexpr qint64 kMaxDiskBytes = 16 << 20;

    void setDatabase(std::shared_ptr<const model::SessionDatabase> database);
    void setRules(std::vector<format::PathRemapRule> rules) { m_rules = std::move(rules); }
    const std::vector<format::PathRemapRule>& rules() const { return m_rules; }

    SourceLookup find(const QString& recordedPath) const;
    // The disk path find() tries for a recorded path: the remapped one, or none without a rule.
    QStringList candidates(const QString& recordedPath) const;

private:
    std::shared_ptr<const model::SessionDatabase> m_database;
    std::vector<format::PathRemapRule> m_rules;
};

} // namespace stallscope::views
