// The formats the application opens: session files, run folders (one session per rank) and
// torch.profiler traces (files or per-rank folders) through model/interop. One place, used by the
// window and the batch commands alike.
#pragma once

#include "model/session/session_opener.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace stallscope::app {

model::SessionOpener standardSessionOpener();

// The files that opening `file` reads: the file itself, and for a folder of rank traces each
// trace in it. An output must replace none of them (format::OutputPolicy::inputs).
std::vector<std::string> filesReadToOpen(const QString& file);

// Several session files given together (the ranks of one job) merged into one session in the
// import cache (model/interop/run_merge.h): the path to open in their place, or "" and *error.
QString mergedRunOf(const QStringList& files, QString* error);

} // namespace stallscope::app
