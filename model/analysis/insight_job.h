// InsightJob: runs InsightEngine::analyze on a worker thread for the views and delivers the report
// through queued signals (slots run on the receiver's thread); cancel() stops it early. The
// worker opens its own SessionDatabase on the session's file (one connection per thread).
#pragma once

#include "model/analysis/insight.h"
#include "model/analysis/insight_thresholds.h"
#include "model/session/session.h"

#include "model/session/background_worker.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace stallscope::model {

class InsightJob : public QObject {
    Q_OBJECT
public:
    explicit InsightJob(QObject* parent = nullptr);
    ~InsightJob() override; // cancels and waits for the worker

    // Keeps `session` alive until the worker ends. A running analysis is cancelled first.
    void start(std::shared_ptr<const Session> session, const InsightThresholds& thresholds = {});
    void cancel();
    bool isRunning() const;
    // Blocks until the worker ends (tests and batch mode).
    void wait();

signals:
    // Exactly one of these follows each start().
    void finished(std::shared_ptr<const stallscope::model::InsightReport> report);
    void failed(const QString& error);
    void cancelled();

private:
    BackgroundWorker m_worker;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace stallscope::model
