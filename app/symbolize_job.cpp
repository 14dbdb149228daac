#include "app/symbolize_job.h"

#ifdef STALLSCOPE_HAVE_SYMBOLIZER
#include "symbolize/finalize_symbols.h"
#endif

namespace stallscope::app {

SymbolizeJob::SymbolizeJob(QObject* parent) : QObject(parent) {}

SymbolizeJob::~SymbolizeJob() {
    wait();
}

bool SymbolizeJob::available() {
#ifdef STALLSCOPE_HAVE_SYMBOLIZER
    return true;
#else
    return false;
#endif
}

void SymbolizeJob::start(const QString& sessionPath) {
    wait();
    const std::string path = sessionPath.toStdString();
    m_worker.start([this, sessionPath, path] {
#ifdef STALLSCOPE_HAVE_SYMBOLIZER
        symbolize::SymbolizeOptions options;
        std::string error;
        const int64_t resolvable = symbolize::countResolvableFrames(path, options, &error);
        if (resolvable < 0) {
            emit failed(sessionPath, QString::fromStdString(error));
            return;
        }
        if (resolvable == 0) {
            emit nothingToDo(sessionPath);
            return;
        }
        symbolize::SymbolizeStats stats;
        if (!symbolize::finalizeSymbols(path, options, &error, &stats))
            emit failed(sessionPath, QString::fromStdString(error));
        else
            emit symbolized(sessionPath, stats.resolvedFrames);
#else
        (void)path;
        emit nothingToDo(sessionPath);
#endif
    });
}

void SymbolizeJob::wait() {
    m_worker.wait();
}

} // namespace stallscope::app
