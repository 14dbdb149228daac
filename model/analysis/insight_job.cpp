#include "model/analysis/insight_job.h"

#include "model/analysis/insight_engine.h"
#include "model/session/session_database.h"

namespace stallscope::model {

InsightJob::InsightJob(QObject* parent) : QObject(parent) {
    qRegisterMetaType<std::shared_ptr<const stallscope::model::InsightReport>>();
}

InsightJob::~InsightJob() {
    cancel();
    wait();
}

void InsightJob::start(std::shared_ptr<const Session> session,
                       const InsightThresholds& thresholds) {
    cancel();
    wait();
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancelFlag = m_cancel;
    // The worker only emits; queued connections deliver to the receivers' threads.
    m_worker.start([this, cancelFlag, session, thresholds] {
        if (!session) {
            emit failed(QStringLiteral("no session to analyze"));
            return;
        }
        SessionDatabase database;
        std::string error;
        const bool opened = database.open(session->path, &error);
        AnalysisOptions options;
        options.thresholds = thresholds;
        options.cancel = cancelFlag.get();
        auto report =
            std::make_shared<InsightReport>(InsightEngine::analyze(*session, database, options));
        // Without the file (moved, or an imported trace) the rules still run; sites stay unknown.
        if (!opened && report->warning.empty())
            report->warning = "call stacks unavailable (" + error + "): sync sites are unknown";
        if (report->cancelled || cancelFlag->load())
            emit cancelled();
        else
            emit finished(std::shared_ptr<const InsightReport>(std::move(report)));
    });
}

void InsightJob::cancel() {
    if (m_cancel)
        m_cancel->store(true);
}

bool InsightJob::isRunning() const {
    return m_worker.isRunning();
}

void InsightJob::wait() {
    m_worker.wait();
}

} // namespace stallscope::model
