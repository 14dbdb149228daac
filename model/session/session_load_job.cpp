#include "model/session/session_load_job.h"

namespace stallscope::model {

SessionLoadJob::SessionLoadJob(SessionOpener opener, QObject* parent)
    : QObject(parent), m_opener(std::move(opener)) {
    qRegisterMetaType<std::shared_ptr<const stallscope::model::Session>>();
}

SessionLoadJob::~SessionLoadJob() {
    cancel();
    wait();
}

void SessionLoadJob::start(const QString& path) {
    cancel();
    wait();
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancelFlag = m_cancel;
    const std::string file = path.toStdString();
    // The worker only emits; queued connections deliver to the receivers' threads.
    m_worker.start([this, cancelFlag, file] {
        LoadOptions options;
        options.cancel = cancelFlag.get();
        options.progress = [this](double fraction) { emit progress(fraction); };
        LoadResult result = m_opener.open(file, options);
        if (result.cancelled || cancelFlag->load())
            emit cancelled();
        else if (result.ok())
            emit loaded(std::shared_ptr<const Session>(std::move(result.session)));
        else
            emit failed(QString::fromStdString(result.error));
    });
}

void SessionLoadJob::cancel() {
    if (m_cancel)
        m_cancel->store(true);
}

bool SessionLoadJob::isRunning() const {
    return m_worker.isRunning();
}

void SessionLoadJob::wait() {
    m_worker.wait();
}

} // namespace stallscope::model
