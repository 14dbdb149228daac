// Helpers shared by the timeline test suites: the tiny session (tiny_session.h) written to a
// temporary directory and loaded, and a viewport over a time range.
#pragma once

#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/views/tiny_session.h"
#include "views/timeline/timeline_viewport.h"

#include <QTemporaryDir>

#include <memory>

namespace tinyload {

// Stops the run (qFatal) when the fixture cannot be written or loaded, so a suite may load it in a
// member initializer.
inline std::shared_ptr<const stallscope::model::Session> load(const QTemporaryDir& dir,
                                                              QString* path = nullptr) {
    const QString file = dir.filePath(QStringLiteral("tiny.stallscope"));
    QString error;
    if (!tiny::write(file, &error))
        qFatal("cannot write the fixture: %s", qPrintable(error));
    stallscope::model::LoadResult result =
        stallscope::model::SessionLoader::load(file.toStdString());
    if (!result.ok())
        qFatal("cannot load the fixture: %s", result.error.c_str());
    if (path)
        *path = file;
    return std::shared_ptr<const stallscope::model::Session>(std::move(result.session));
}

inline stallscope::views::TimelineViewport viewport(int64_t origin, int64_t start, int64_t end,
                                                    int width) {
    stallscope::views::TimelineViewport viewport;
    viewport.setOrigin(origin);
    viewport.setWidth(width);
    viewport.setDataRange(origin, std::max(end, origin + 1000));
    viewport.setVisibleRange(start, end);
    return viewport;
}

} // namespace tinyload
