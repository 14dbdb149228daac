// A generated session written, loaded and opened for analysis: what the analysis tests of generated
// jobs share (header-only test support). A generator or loader failure ends the test run.
#pragma once

#include "model/analysis/insight_engine.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/scratch_dir.h"

#include <QtGlobal>

#include <memory>

namespace stallscope::testing {

struct GeneratedSession {
    std::shared_ptr<model::Session> session;
    std::unique_ptr<model::SessionDatabase> database;
    model::SyntheticStats stats;

    model::InsightReport analyze(const model::InsightThresholds& thresholds = {}) const {
        model::AnalysisOptions options;
        options.thresholds = thresholds;
        return model::InsightEngine::analyze(*session, *database, options);
    }
};

inline GeneratedSession generateSession(const ScratchDir& dir, const char* name,
                                        const model::SyntheticOptions& options) {
    const std::string path = dir.file(name);
    std::string error;
    GeneratedSession generated;
    if (!model::writeSyntheticSession(path, options, &generated.stats, &error))
        qFatal("%s", error.c_str());
    auto loaded = model::SessionLoader::load(path);
    if (!loaded.ok())
        qFatal("%s", loaded.error.c_str());
    generated.session = std::move(loaded.session);
    generated.database = std::make_unique<model::SessionDatabase>();
    if (!generated.database->open(path, &error))
        qFatal("%s", error.c_str());
    return generated;
}

} // namespace stallscope::testing
