#include "recorder/ring_driver.h"

#include "format/session_meta.h"
#include "format/session_rows.h"
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "recorder/callback_handler.h"
#include "recorder/process_signals.h"
#include "recorder/recording_state.h"
#include "recorder/session_sink.h"
#include "recorder/snapshot_names.h"

#include <cupti.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

namespace stallscope::recorder {

namespace {

// The ring whose snapshots SIGUSR1 asks for: set before the handler is installed, never unset
// (the recorder is never destroyed).
RingDriver* g_snapshotRing = nullptr;

void snapshotTrampoline(int signal) {
    g_snapshotRing->onSnapshotSignal(signal);
}

} // namespace

void RingDriver::start() {
    const CaptureSettings& settings = m_state.config.capture;
    if (settings.ringNs <= 0)
        return;
    m_flight = std::make_unique<FlightRecorder>(settings.ringNs, settings.slowStepFactor);
    m_state.writer->setMeta(format::meta::kRingNs, std::to_string(settings.ringNs));
    m_state.writer->setMeta(format::meta::kRingSlowStepFactor, settings.slowStepText());
    m_state.sink->watchSteps(&m_flight->clock());
    // SIGUSR1 asks for a snapshot, where the program left it its default action (which would
    // kill it): a program with a SIGUSR1 of its own keeps it.
    g_snapshotRing = this;
    if (!ProcessSignals::takeIfDefault(SIGUSR1, snapshotTrampoline)) {
        m_state.writer->addDiagnostic(CallbackHandler::nowNs(), "warning",
                                      "the program handles SIGUSR1 itself: no snapshot on SIGUSR1");
    }
}

void RingDriver::onSnapshotSignal(int signal) {
    // Async-signal context: only an atomic store and sem_post.
    if (getpid() != m_state.pid || !m_state.active.load(std::memory_order_relaxed)) {
        ::signal(signal, SIG_DFL); // a forked child, or after the recording: as if we were not here
        raise(signal);
        return;
    }
    m_snapshotRequested.store(true);
    m_state.wakeWriter();
}

void RingDriver::cut(int64_t nowNs, bool committed) { // the writer thread
    if (!m_flight)
        return;
    // Every row written so far describes something that ended by now.
    if (committed)
        m_flight->written(nowNs, m_state.writer->rowMarks());
    if (const std::optional<FlightRecorder::Cut> due = m_flight->cutDue(nowNs))
        m_state.writer->discardThrough(due->marks, due->atNs, format::capture_reason::kRing);
}

void RingDriver::step(int64_t seenUpToNs, bool committed) { // the writer thread
    if (!m_flight)
        return;
    const int64_t nowNs = CallbackHandler::nowNs();
    cut(nowNs, committed);
    std::string reason;
    if (m_snapshotRequested.exchange(false))
        reason = "SIGUSR1";
    else if (const std::optional<std::string> slow = m_flight->slowStepTrigger(seenUpToNs))
        reason = *slow;
    if (!reason.empty())
        writeSnapshot(reason, nowNs);
}

void RingDriver::writeSnapshot(const std::string& reason, int64_t atNs) {
    if (!m_flight->takeSnapshot()) {
        m_state.reportError("snapshot not written (" + reason + "): this process wrote " +
                                std::to_string(FlightRecorder::kMaxSnapshots) + " already",
                            0);
        return;
    }
    // What CUPTI holds of the work that has ended goes in too (a hang's snapshot shows the last
    // kernels before it); records of work still running come when it ends, into the ring.
    cuptiActivityFlushAll(0);
    m_drain();
    const std::vector<std::pair<std::string, std::string>> meta = {
        {std::string(format::meta::kSnapshotReason), reason},
        {std::string(format::meta::kSnapshotNs), std::to_string(atNs)},
        {std::string(format::meta::kEndNs), std::to_string(atNs)}};
    // Written under a name of its own, then linked to the first free snapshot name: an earlier
    // run's snapshots are never replaced.
    const std::string& outputPath = m_state.outputPath;
    const std::string temporary = outputPath + ".snapshot-" + std::to_string(m_state.pid) + ".tmp";
    unlink(temporary.c_str());
    std::string error;
    if (!m_state.writer->writeSnapshot(temporary, atNs, format::capture_reason::kSnapshot,
                                       format::kStatusComplete, meta, &error)) {
        unlink(temporary.c_str());
        m_state.reportError("snapshot not written (" + reason + "): " + error, 0);
        return;
    }
    std::string path;
    for (int n = m_flight->snapshots(); n < m_flight->snapshots() + 1000; ++n) {
        const std::string candidate = snapshotPath(outputPath, n);
        if (link(temporary.c_str(), candidate.c_str()) == 0) {
            path = candidate;
            break;
        }
        if (errno != EEXIST)
            break;
    }
    unlink(temporary.c_str());
    if (path.empty()) {
        m_state.reportError(
            "snapshot not written (" + reason + "): no free name beside " + outputPath, 0);
        return;
    }
    m_snapshotPaths += (m_snapshotPaths.empty() ? "" : "\n") + path;
    m_state.writer->setMeta(format::meta::kRingSnapshots, m_snapshotPaths);
    m_state.writer->commit();
    fprintf(stderr, "stallscope: snapshot of the last %s s written to %s (%s)\n",
            secondsText(m_flight->ringNs()).c_str(), path.c_str(), reason.c_str());
}

} // namespace stallscope::recorder
