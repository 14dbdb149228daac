#include "app/background_work.h"

#include "model/interop/chrome_trace_export.h"
#include "model/session/session.h"
#include "model/session/session_database.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

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

#ifdef STALLSCOPE_HAVE_SYMBOLIZER
namespace {

// <cache>/<name>-<hash of path, size and modification time>.stallscope
QString symbolizedCopyPath(const QString& sessionPath, const QString& cacheDirectory) {
    const QFileInfo info(sessionPath);
    const QString key = info.absoluteFilePath() + QLatin1Char('|') + QString::number(info.size()) +
                        QLatin1Char('|') + QString::number(info.lastModified().toMSecsSinceEpoch());
    const QByteArray hash =
        QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha256).toHex().left(16);
    return QDir(cacheDirectory)
        .filePath(info.completeBaseName() + QLatin1Char('-') + QString::fromLatin1(hash) +
                  QStringLiteral(".stallscope"));
}

} // namespace
#endif

SymbolizeOutcome symbolizeSessionFile(const std::string& sessionPath,
                                      const std::string& cacheDirectory) {
    SymbolizeOutcome outcome;
#ifdef STALLSCOPE_HAVE_SYMBOLIZER
    symbolize::SymbolizeOptions options;
    options.embedSources = false;
    const int64_t resolvable =
        symbolize::countResolvableFrames(sessionPath, options, &outcome.error);
    if (resolvable < 0) {
        outcome.kind = SymbolizeOutcome::Kind::Failed;
        return outcome;
    }
    if (resolvable == 0)
        return outcome;
    const QString cache = QString::fromStdString(cacheDirectory);
    const QString copy = symbolizedCopyPath(QString::fromStdString(sessionPath), cache);
    outcome.copyPath = copy.toStdString();
    outcome.kind = SymbolizeOutcome::Kind::Symbolized;
    outcome.resolvedFrames = resolvable;
    if (QFileInfo::exists(copy))
        return outcome; // made earlier from this very file
    symbolize::SymbolizeStats stats;
    if (!QDir().mkpath(cache)) {
        outcome.error = "cannot create the cache folder " + cacheDirectory;
        outcome.kind = SymbolizeOutcome::Kind::Failed;
    } else if (!symbolize::writeSymbolizedCopy(sessionPath, outcome.copyPath, options,
                                               &outcome.error, &stats)) {
        outcome.kind = SymbolizeOutcome::Kind::Failed;
    }
    outcome.resolvedFrames = stats.resolvedFrames;
#else
    (void)sessionPath;
    (void)cacheDirectory;
#endif
    return outcome;
}

QString copyFileAtomically(const QString& from, const QString& to) {
    QFile in(from);
    if (!in.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read %1: %2").arg(from, in.errorString());
    QSaveFile out(to); // writes a temporary file next to `to`, renamed by commit()
    if (!out.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write %1: %2").arg(to, out.errorString());
    while (!in.atEnd()) {
        const QByteArray chunk = in.read(1 << 20);
        if (chunk.isEmpty() && in.error() != QFileDevice::NoError)
            return QStringLiteral("cannot read %1: %2").arg(from, in.errorString());
        if (out.write(chunk) != chunk.size())
            return QStringLiteral("cannot write %1: %2").arg(to, out.errorString());
    }
    if (!out.commit())
        return QStringLiteral("cannot write %1: %2").arg(to, out.errorString());
    return {};
}

std::string exportChromeTraceFile(const model::Session& session, const std::string& outPath,
                                  const format::OutputPolicy& policy) {
    model::SessionDatabase database; // its own connection, on the calling thread
    std::string error;
    if (!database.open(session, &error) ||
        !model::exportChromeTrace(session, database, outPath, policy, &error))
        return error.empty() ? "cannot export " + outPath : error;
    return {};
}

} // namespace stallscope::app
