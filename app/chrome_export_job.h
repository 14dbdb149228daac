// ChromeExportJob: writes the open session as Chrome/Perfetto trace JSON on a worker thread
// (model/chrome_trace_export.h), for File ▸ Export Chrome Trace.
#pragma once

#include "model/session/background_worker.h"

#include <QObject>
#include <QString>

#include <memory>

namespace stallscope::model {
class Session;
}

namespace stallscope::app {

class ChromeExportJob : public QObject {
    Q_OBJECT
public:
    explicit ChromeExportJob(QObject* parent = nullptr);
    ~ChromeExportJob() override; // waits for the worker

    void start(std::shared_ptr<const model::Session> session, const QString& outPath);
    bool isRunning() const;
    void wait();

signals:
    // Exactly one follows each start().
    void exported(const QString& outPath);
    void failed(const QString& error);

private:
    model::BackgroundWorker m_worker;
};

} // namespace stallscope::app
