#include "app/background_work.h"

#include "model/interop/chrome_trace_export.h"
#include "model/session/session.h"
#include "model/session/session_database.h"

#ifdef STALLSCOPE_HAVE_SYMBOLIZER
#include "symbolize/finalize_symbols.h"
#endif

namespace stallscope::app {

bool symbolizerAvailable() {
#ifdef STALLSCOPE_HAVE_SYMBOLIZER
    return true;
#else
    return false;
#endif
}

SymbolizeOutcome symbolizeSessionFile(const std::string& sessionPath) {
    SymbolizeOutcome outcome;
#ifdef STALLSCOPE_HAVE_SYMBOLIZER
    symbolize::SymbolizeOptions options;
    const int64_t resolvable =
        symbolize::countResolvableFrames(sessionPath, options, &outcome.error);
    if (resolvable < 0) {
        outcome.kind = SymbolizeOutcome::Kind::Failed;
        return outcome;
    }
    if (resolvable == 0)
        return outcome;
    symbolize::SymbolizeStats stats;
    if (!symbolize::finalizeSymbols(sessionPath, options, &outcome.error, &stats)) {
        outcome.kind = SymbolizeOutcome::Kind::Failed;
        return outcome;
    }
    outcome.kind = SymbolizeOutcome::Kind::Symbolized;
    outcome.resolvedFrames = stats.resolvedFrames;
#else
    (void)sessionPath;
#endif
    return outcome;
}

std::string exportChromeTraceFile(const model::Session& session, const std::string& outPath,
                                  const format::OutputPolicy& policy) {
    model::SessionDatabase database; // its own connection, on the calling thread
    std::string error;
    if (!database.open(session.path, &error) ||
        !model::exportChromeTrace(session, database, outPath, policy, &error))
        return error.empty() ? "cannot export " + outPath : error;
    return {};
}

} // namespace stallscope::app
