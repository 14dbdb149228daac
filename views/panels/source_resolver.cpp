#include "views/panels/source_resolver.h"

#include "model/session/session_database.h"

#include <QFile>
#include <QFileInfo>

namespace stallscope::views {

void SourceResolver::setDatabase(std::shared_ptr<const model::SessionDatabase> database) {
    m_database = std::move(database);
}

QStringList SourceResolver::candidates(const QString& recordedPath) const {
    // Only where a rule of the user's vouches for it: never the recorded path itself, and never a
    // path whose ".." climbs out of the rule's folder.
    if (const auto remapped = format::remapByRules(recordedPath.toStdString(), m_rules))
        return {QString::fromStdString(*remapped)};
    return {};
}

SourceLookup SourceResolver::find(const QString& recordedPath) const {
    SourceLookup lookup;
    if (recordedPath.isEmpty())
        return lookup;
    if (m_database) {
        if (auto source = m_database->source(recordedPath.toStdString())) {
            lookup.origin = SourceLookup::Origin::Embedded;
            lookup.text = QString::fromStdString(source->text);
            lookup.shownPath = recordedPath;
            lookup.truncated = source->truncated;
            return lookup;
        }
    }
    lookup.tried = candidates(recordedPath);
    for (const QString& path : std::as_const(lookup.tried)) {
        const QFileInfo info(path);
        if (!info.isFile() || info.size() > kMaxDiskBytes)
            continue;
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            continue;
        lookup.origin = SourceLookup::Origin::Disk;
        lookup.text = QString::fromUtf8(file.readAll());
        lookup.shownPath = path;
        lookup.rule = *format::findRemapRule(recordedPath.toStdString(), m_rules);
        return lookup;
    }
    return lookup;
}

} // namespace stallscope::views
