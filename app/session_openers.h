// The formats the application opens: session files, and torch.profiler traces (files or per-rank
// folders) through model/interop. One place, used by the window and the batch commands alike.
#pragma once

#include "model/session/session_opener.h"

namespace stallscope::app {

model::SessionOpener standardSessionOpener();

} // namespace stallscope::app
