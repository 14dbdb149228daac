#include "app/session_openers.h"

#include "model/interop/kineto_importer.h"
#include "model/interop/run_merge.h"
#include "model/interop/side_file_snapshot.h"

#include <QDir>
#include <QFileInfo>

namespace stallscope::app {

model::SessionOpener standardSessionOpener() {
    model::SessionOpener opener;
    model::registerKinetoImporter(opener);
    model::registerRunImporter(opener);
    model::registerSideFileSnapshotImporter(opener);
    return opener;
}

std::vector<std::string> filesReadToOpen(const QStringList& files) {
    const model::SessionOpener opener = standardSessionOpener();
    std::vector<std::string> read;
    for (const QString& file : files)
        for (std::string& path : opener.inputsOf(file.toStdString()))
            read.push_back(std::move(path));
    return read;
}

model::LoadResult openFiles(const QStringList& files, const model::LoadOptions& options) {
    if (files.size() == 1)
        return standardSessionOpener().open(files.front().toStdString(), options);
    std::vector<std::string> paths;
    for (const QString& file : files)
        paths.push_back(file.toStdString());
    return model::RunMerger::load(paths, options);
}

QString shownName(const QString& path) {
    const QString name = QFileInfo(QDir::cleanPath(path)).fileName();
    return name.isEmpty() ? path : name;
}

} // namespace stallscope::app
