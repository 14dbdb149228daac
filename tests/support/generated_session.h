// A generated session written, loaded and opened for analysis: what the analysis tests of generated
// jobs share (header-only test support). A generator or loader failure fails the running test and
// gives a session that is not ok().
#pragma once

#include "model/analysis/insight_engine.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_failure.h"

#include <memory>

namespace stallscope::testing {

struct GeneratedSession {
    std::shared_ptr<model::Session> session;
    std::unique_ptr<model::SessionDatabase> database;
    model::SyntheticStats stats;

    // False when the session could not be written, loaded or opened: nothing to analyze.
    bool ok() const { return session && database; }
    model::InsightReport analyze(const model::InsightThresholds& thresholds = {}) const {
        model::AnalysisOptions options;
        options.thresholds = thresholds;
        return model::InsightEngine::analyze(*session, *database, options);
    }
};

[[nodiscard]] inline GeneratedSession generateSession(const ScratchDir& dir, const char* name,
                                                      const model::SyntheticOptions& options) {
    const std::string path = dir.file(name);
    std::string error;
    GeneratedSession generated;
    if (!model::writeSyntheticSession(path, options, &generated.stats, &error)) {
        STALLSCOPE_FAIL("cannot generate %s: %s", path.c_str(), error.c_str());
        return {};
    }
    auto loaded = model::SessionLoader::load(path);
    if (!loaded.ok()) {
        STALLSCOPE_FAIL("cannot load %s: %s", path.c_str(), loaded.error.c_str());
        return {};
    }
    auto database = std::make_unique<model::SessionDatabase>();
    if (!database->open(path, &error)) {
        STALLSCOPE_FAIL("cannot open %s: %s", path.c_str(), error.c_str());
        return {};
    }
    generated.session = std::move(loaded.session);
    generated.database = std::move(database);
    return generated;
}

} // namespace stallscope::testing
