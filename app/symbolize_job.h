// SymbolizeJob: when a session opens whose native frames are unresolved but whose binaries (or
// debug files) exist on this machine, resolves them in the background with LLVM's symbolizer
// (symbolize/finalize_symbols.h) and reports how many it resolved, so the window can reload.
// Writes into the session file, as `stallscope-record --symbolize` does.
#pragma once

#include "model/session/background_worker.h"

#include <QObject>
#include <QString>

namespace stallscope::app {

class SymbolizeJob : public QObject {
    Q_OBJECT
public:
    explicit SymbolizeJob(QObject* parent = nullptr);
    ~SymbolizeJob() override; // waits for the worker

    // False when this build has no symbolizer (built without LLVM).
    static bool available();
    void start(const QString& sessionPath);
    void wait();

signals:
    // Exactly one follows each start(). `resolved` counts frames that now have a function name.
    void symbolized(const QString& path, qint64 resolved);
    void nothingToDo(const QString& path);
    void failed(const QString& path, const QString& error);

private:
    model::BackgroundWorker m_worker;
};

} // namespace stallscope::app
