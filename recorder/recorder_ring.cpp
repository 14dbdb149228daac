// The flight recorder in the Recorder (stallscope-record --ring, --trigger-slow-step;
// flight_recorder.h): the writer thread marks each commit, discards the rows older than the ring,
// and writes the ring to a snapshot file on SIGUSR1 or a slow step, while the recording goes on.
#include "recorder/recorder.h"

#include "format/session_meta.h"
#include "format/session_rows.h"
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "recorder/callback_handler.h"
#include "recorder/session_sink.h"
#include "recorder/snapshot_names.h"

#include <cupti.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace stallscope::recorder {

namespace {

void snapshotTrampoline(int signal) {
    Recorder::instance().onSnapshotSignal(signal);
}

} // namespace

void Recorder::startRing() {
    const CaptureSettings& settings = m_config.capture;
    if (settings.ringNs <= 0)
        return;
    m_flight = std::make_unique<FlightRecorder>(settings.ringNs, settings.slowStepFactor);
    m_writer->setMeta(format::meta::kRingNs, std::to_string(settings.ringNs));
    m_writer->setMeta(format::meta::kRingSlowStepFactor, settings.slowStepText());
    m_sink->watchSteps(&m_flight->clock());
    // SIGUSR1 asks for a snapshot, where the program left it its default action (which would
    // kill it): a program with a SIGUSR1 of its own keeps it.
    if (!takeIfDefault(SIGUSR1, snapshotTrampoline)) {
        m_writer->addDiagnostic(CallbackHandler::nowNs(), "warning",
                                "the program handles SIGUSR1 itself: no snapshot on SIGUSR1");
    }
}

void Recorder::onSnapshotSignal(int signal) {
    // Async-signal context: only an atomic store and sem_post.
    if (getpid() != m_pid || !m_active.load(std::memory_order_relaxed)) {
        ::signal(signal, SIG_DFL); // a forked child, or after the recording: as if we were not here
        raise(signal);
        return;
    }
    m_snapshotRequested.store(true);
    sem_post(&m_wake);
}

void Recorder::cutRing(int64_t nowNs, bool committed) { // the writer thread
    if (!m_flight)
        return;
    // Every row written so far describes something that ended by now.
    if (committed)
        m_flight->written(nowNs, m_writer->rowMarks());
    if (const std::optional<FlightRecorder::Cut> cut = m_flight->cutDue(nowNs))
        m_writer->discardThrough(cut->marks, cut->atNs, format::capture_reason::kRing);
}

void Recorder::stepRing(int64_t seenUpToNs, bool committed) { // the writer thread
    if (!m_flight)
        return;
    const int64_t nowNs = CallbackHandler::nowNs();
    cutRing(nowNs, committed);
    std::string reason;
    if (m_snapshotRequested.exchange(false))
        reason = "SIGUSR1";
    else if (const std::optional<std::string> slow = m_flight->slowStepTrigger(seenUpToNs))
        reason = *slow;
    if (!reason.empty())
        writeSnapshot(reason, nowNs);
}

void Recorder::writeSnapshot(const std::string& reason, int64_t atNs) {
    if (!m_flight->takeSnapshot()) {
        reportError("snapshot not written (" + reason + "): this process wrote " +
                        std::to_string(FlightRecorder::kMaxSnapshots) + " already",
                    0);
        return;
    }
    // What CUPTI holds of the work that has ended goes in too (a hang's snapshot shows the last
    // kernels before it); records of work still running come when it ends, into the ring.
    cuptiActivityFlushAll(0);
    drainOnce();
    const std::vector<std::pair<std::string, std::string>> meta = {
        {std::string(format::meta::kSnapshotReason), reason},
        {std::string(format::meta::kSnapshotNs), std::to_string(atNs)},
        {std::string(format::meta::kEndNs), std::to_string(atNs)}};
    // Written under a name of its own, then linked to the first free snapshot name: an earlier
    // run's snapshots are never replaced.
    const std::string temporary = m_outputPath + ".snapshot-" + std::to_string(m_pid) + ".tmp";
    unlink(temporary.c_str());
    std::string error;
    if (!m_writer->writeSnapshot(temporary, atNs, format::capture_reason::kSnapshot,
                                 format::kStatusComplete, meta, &error)) {
        unlink(temporary.c_str());
        reportError("snapshot not written (" + reason + "): " + error, 0);
        return;
    }
    std::string path;
    for (int n = m_flight->snapshots(); n < m_flight->snapshots() + 1000; ++n) {
        const std::string candidate = snapshotPath(m_outputPath, n);
        if (link(temporary.c_str(), candidate.c_str()) == 0) {
            path = candidate;
            break;
        }
        if (errno != EEXIST)
            break;
    }
    unlink(temporary.c_str());
    if (path.empty()) {
        reportError("snapshot not written (" + reason + "): no free name beside " + m_outputPath,
                    0);
        return;
    }
    m_snapshotPaths += (m_snapshotPaths.empty() ? "" : "\n") + path;
    m_writer->setMeta(format::meta::kRingSnapshots, m_snapshotPaths);
    m_writer->commit();
    fprintf(stderr, "stallscope: snapshot of the last %s s written to %s (%s)\n",
            secondsText(m_flight->ringNs()).c_str(), path.c_str(), reason.c_str());
}

} // namespace stallscope::recorder
