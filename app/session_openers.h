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

// The files that opening `files` reads, as the importer that opens each says
// (SessionOpener::inputsOf): each file itself, and for a run folder or a folder of rank traces
// each file in it. An output must replace none of them (format::OutputPolicy::inputs).
std::vector<std::string> filesReadToOpen(const QStringList& files);

// Opens `files` as one session: one file or folder through standardSessionOpener(); several
// session files (the ranks of one job) as one run (model/interop/run_merge.h).
model::LoadResult openFiles(const QStringList& files, const model::LoadOptions& options = {});

// A file's or a run folder's name for a title or a list: a folder given as "run/" still has one.
QString shownName(const QString& path);

} // namespace stallscope::app
