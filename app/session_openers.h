// The formats the application opens: session files, and torch.profiler traces (files or per-rank
// folders) through model/interop. One place, used by the window and the batch commands alike.
#pragma once

#include "model/session/session_opener.h"

#include <QString>

#include <string>
#include <vector>

namespace stallscope::app {

model::SessionOpener standardSessionOpener();

// The files that opening `file` reads: the file itself, and for a folder of rank traces each
// trace in it. An output must replace none of them (format::OutputPolicy::inputs).
std::vector<std::string> filesReadToOpen(const QString& file);

} // namespace stallscope::app
