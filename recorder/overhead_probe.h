// OverheadProbe: the recorder times the program without itself, inside the recorded run, so that
// the what-if replay can take the recorder's real cost out of its prediction (the C++ probe of
// stallscope-calibrate does not know what a PyTorch launch costs under CUPTI, and one recording
// cannot tell the recorder's cost from the speed the process happened to run at).
//
// How: the writer thread hands every sync it drains (its stack's hash, its API, its start) to
// onSync(). Once one stack has come back `repeats` times, that sync is the loop's: the probe
// switches the recorder's collection off for a stretch of a few loop periods (CUPTI's activities
// and stack callbacks off, the samplers paused) while only that sync's API callback stays on,
// counting its calls; then on again for as long; then off once more. A stretch that counted
// fewer than minCalls (the stack was a set-up loop's, now over) sends the probe back to watching,
// that stack left aside. The model holds the calls' rate off against the recorded rate around
// each stretch (model/whatif/recorder_cost.h); what
// was not recorded in the stretches is a gap the analysis knows (Session::notRecorded).
//
// Pure state: no CUPTI, no clock, no lock (the writer thread alone calls it).
#pragma once

#include "format/overhead_probe.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace stallscope::recorder {

class OverheadProbe {
public:
    struct Settings {
        int repeats = 20;                 // a stack seen this often is the loop's sync
        int periodsPerPhase = 6;          // a stretch lasts this many of its periods...
        int64_t minPhaseNs = 20'000'000;  // ...but at least this long
        int64_t maxPhaseNs = 300'000'000; // and at most this long
        int offPhases = 2;                // stretches that counted at least minCalls
        int minCalls = 3;                 // (model::whatif::kMinProbeCalls)
        int maxStretches = 4;             // in all, those that counted too few included
        size_t maxStacks = 4096;          // stacks followed before the loop's is found
    };
    enum class Action : uint8_t { None, SwitchOff, SwitchOn };

    OverheadProbe() = default;
    explicit OverheadProbe(const Settings& settings) : m_settings(settings) {}

    // The writer drained a sync that captured a stack (hash != 0), entered at startNs.
    void onSync(uint64_t stackHash, uint8_t domain, uint32_t cbid, int64_t startNs);
    // What the recorder is to do now; it reports back with switchedOff / switchedOn.
    Action advance(int64_t nowNs) const;
    // Collection went off at atNs: count the calls of (domain(), cbid()) from now.
    void switchedOff(int64_t atNs);
    // Collection came back at atNs; `calls` counted, the first and last entered then.
    void switchedOn(int64_t atNs, int64_t calls, int64_t firstCallNs, int64_t lastCallNs);

    // The recorder could not switch (api_gate.h): no more stretches; those done are kept.
    void abandon() { m_state = State::Done; }
    bool found() const { return m_state != State::Watching; }
    bool off() const { return m_state == State::Off; }
    bool done() const { return m_state == State::Done; }
    uint8_t domain() const { return m_domain; }
    uint32_t cbid() const { return m_cbid; }
    int64_t phaseNs() const { return m_phaseNs; }
    // When advance() next asks for something; INT64_MAX when nothing waits for a time.
    int64_t nextDeadlineNs() const;
    const std::vector<format::OverheadProbeRecord::OffPhase>& offPhases() const { return m_phases; }

private:
    enum class State : uint8_t { Watching, Ready, Off, On, Done };
    struct Seen {
        int64_t firstNs = 0;
        int count = 0;
    };

    Settings m_settings;
    State m_state = State::Watching;
    std::unordered_map<uint64_t, Seen> m_seen;
    std::vector<uint64_t> m_setAside; // stacks whose stretch counted too few calls
    uint64_t m_stack = 0;             // the loop's sync's
    int m_counted = 0;                // stretches that counted enough calls
    uint8_t m_domain = 0;
    uint32_t m_cbid = 0;
    int64_t m_phaseNs = 0;
    int64_t m_offStartNs = 0;
    int64_t m_deadlineNs = 0;
    std::vector<format::OverheadProbeRecord::OffPhase> m_phases;
};

} // namespace stallscope::recorder
