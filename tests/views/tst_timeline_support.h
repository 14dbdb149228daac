// Helpers shared by the timeline test suites: the tiny session (tiny_session.h) written to a
// temporary directory and loaded, and a viewport over a time range.
#pragma once

#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/support/test_failure.h"
#include "tests/views/tiny_session.h"
#include "views/timeline/timeline_viewport.h"

#include <QTemporaryDir>

#include <memory>

namespace tinyload {

// Null when the fixture cannot be written or loaded, which fails the running test: a suite loads it
// in initTestCase (or a test) and checks it there.
[[nodiscard]] inline std::shared_ptr<const stallscope::model::Session>
load(const QTemporaryDir& dir, QString* path = nullptr) {
    const QString file = dir.filePath(QStringLiteral("tiny.stallscope"));
    QString error;
    if (!tiny::write(file, &error)) {
        STALLSCOPE_FAIL("cannot write the fixture %s: %s", qPrintable(file), qPrintable(error));
        return nullptr;
    }
    stallscope::model::LoadResult result =
        stallscope::model::SessionLoader::load(file.toStdString());
    if (!result.ok()) {
        STALLSCOPE_FAIL("cannot load the fixture %s: %s", qPrintable(file), result.error.c_str());
        return nullptr;
    }
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
