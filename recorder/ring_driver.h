// RingDriver: the flight recorder (stallscope-record --ring, --trigger-slow-step;
// flight_recorder.h) carried out in a recording. The writer thread marks each commit, discards the
// rows older than the ring, and writes the ring to a snapshot file on SIGUSR1 or a slow step, while
// the recording goes on.
#pragma once

#include "recorder/flight_recorder.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace stallscope::recorder {

struct RecordingState;

class RingDriver {
public:
    // `drain`: writes what the writer thread holds (the recorder's drain) before a snapshot.
    RingDriver(RecordingState& state, std::function<void()> drain)
        : m_state(state), m_drain(std::move(drain)) {}

    // At start: a ring when the settings ask for one (its meta, the sink watching steps, SIGUSR1).
    void start();
    bool active() const { return m_flight != nullptr; }
    // SIGUSR1 (async-signal-safe): the writer writes a snapshot.
    void onSnapshotSignal(int signal);
    // The writer thread, after each drain: the ring's cut and its snapshots (seenUpToNs: every
    // sync that ended by then was drained; `committed`: the writer committed just before).
    void step(int64_t seenUpToNs, bool committed);
    // The ring's cut alone (the recording's end: no snapshot then).
    void cut(int64_t nowNs, bool committed);

private:
    void writeSnapshot(const std::string& reason, int64_t atNs);

    RecordingState& m_state;
    std::function<void()> m_drain;
    std::unique_ptr<FlightRecorder> m_flight; // the writer thread's after start()
    std::atomic<bool> m_snapshotRequested{false};
    std::string m_snapshotPaths; // the snapshots written, one a line (meta ring_snapshots)
};

} // namespace stallscope::recorder
