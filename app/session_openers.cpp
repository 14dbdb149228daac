#include "app/session_openers.h"

#include "model/interop/kineto_importer.h"
#include "model/interop/run_merge.h"

namespace stallscope::app {

model::SessionOpener standardSessionOpener() {
    model::SessionOpener opener;
    model::registerKinetoImporter(opener);
    model::registerRunImporter(opener);
    return opener;
}

std::vector<std::string> filesReadToOpen(const QString& file) {
    std::string ignored; // a missing file is the opener's error to report
    std::vector<std::string> files =
        model::RunMerger::looksLikeRun(file.toStdString())
            ? model::RunMerger::runFiles({file.toStdString()}, &ignored).sessions
            : model::KinetoImporter::traceFiles(file.toStdString(), &ignored);
    files.push_back(file.toStdString());
    return files;
}

QString mergedRunOf(const QStringList& files, QString* error) {
    std::vector<std::string> paths;
    for (const QString& file : files)
        paths.push_back(file.toStdString());
    model::LoadResult failed;
    const std::string merged = model::RunMerger::mergeIntoCache(paths, {}, &failed);
    if (merged.empty())
        *error = QString::fromStdString(failed.error);
    return QString::fromStdString(merged);
}

} // namespace stallscope::app
