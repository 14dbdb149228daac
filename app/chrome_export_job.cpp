#include "app/chrome_export_job.h"

#include "model/interop/chrome_trace_export.h"
#include "model/session/session.h"
#include "model/session/session_database.h"

namespace stallscope::app {

ChromeExportJob::ChromeExportJob(QObject* parent) : QObject(parent) {}

ChromeExportJob::~ChromeExportJob() {
    wait();
}

void ChromeExportJob::start(std::shared_ptr<const model::Session> session, const QString& outPath) {
    wait();
    m_worker.start([this, session = std::move(session), outPath] {
        model::SessionDatabase database; // its own connection, on this thread
        std::string error;
        if (!database.open(session->path, &error) ||
            !model::exportChromeTrace(*session, database, outPath.toStdString(), &error))
            emit failed(QString::fromStdString(error));
        else
            emit exported(outPath);
    });
}

bool ChromeExportJob::isRunning() const {
    return m_worker.isRunning();
}

void ChromeExportJob::wait() {
    m_worker.wait();
}

} // namespace stallscope::app
