// OverheadProbe without a GPU (recorder/overhead_probe.h): the loop's sync found on both sides of
// `repeats`, the stretch's length from its period and its bounds, off and on in turn until the
// stretches are done, a stretch that counted too few calls retried on another stack, and what
// the recorder would write read back by the format's parser.
#include "recorder/overhead_probe.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <cstdint>

using stallscope::recorder::OverheadProbe;
using Action = OverheadProbe::Action;

namespace {

constexpr int64_t kProbeMs = 1'000'000;

OverheadProbe::Settings settings() {
    OverheadProbe::Settings s;
    s.repeats = 5;
    s.periodsPerPhase = 6;
    s.minPhaseNs = 20 * kProbeMs;
    s.maxPhaseNs = 300 * kProbeMs;
    s.offPhases = 2;
    return s;
}

// `count` syncs of stack `hash` every `periodNs` from `fromNs`; returns the last one's time.
int64_t feed(OverheadProbe& probe, uint64_t hash, int count, int64_t fromNs, int64_t periodNs) {
    int64_t t = fromNs;
    for (int i = 0; i < count; ++i, t += periodNs)
        probe.onSync(hash, 2, 131, t);
    return t - periodNs;
}

} // namespace

class TestOverheadProbe : public QObject {
    Q_OBJECT
private slots:
    void loopFoundAtItsRepeats() {
        OverheadProbe probe(settings());
        feed(probe, 0xabc, 4, 0, 10 * kProbeMs);
        QVERIFY(!probe.found());
        QCOMPARE(probe.advance(100 * kProbeMs), Action::None);
        feed(probe, 0xdef, 4, 0, 10 * kProbeMs); // another stack's count is its own
        QVERIFY(!probe.found());
        probe.onSync(0xabc, 2, 131, 40 * kProbeMs);
        QVERIFY(probe.found());
        QCOMPARE(probe.cbid(), uint32_t(131));
        QCOMPARE(probe.phaseNs(), 60 * kProbeMs); // six periods of 10 ms
        QCOMPARE(probe.advance(41 * kProbeMs), Action::SwitchOff);
    }

    void syncsWithoutStackDoNotCount() {
        OverheadProbe probe(settings());
        feed(probe, 0, 50, 0, kProbeMs);
        QVERIFY(!probe.found());
    }

    void stretchBounded_data() {
        QTest::addColumn<qint64>("periodNs");
        QTest::addColumn<qint64>("phaseNs");
        QTest::newRow("short period: the least") << qint64(kProbeMs / 10) << qint64(20 * kProbeMs);
        QTest::newRow("long period: the most") << qint64(100 * kProbeMs) << qint64(300 * kProbeMs);
        QTest::newRow("between") << qint64(5 * kProbeMs) << qint64(30 * kProbeMs);
    }
    void stretchBounded() {
        QFETCH(qint64, periodNs);
        QFETCH(qint64, phaseNs);
        OverheadProbe probe(settings());
        feed(probe, 1, 5, 0, periodNs);
        QCOMPARE(probe.phaseNs(), phaseNs);
    }

    void offAndOnUntilDone() {
        OverheadProbe probe(settings());
        const int64_t last = feed(probe, 7, 5, 0, 10 * kProbeMs); // 60 ms stretches
        probe.switchedOff(last + kProbeMs);
        QVERIFY(probe.off());
        QCOMPARE(probe.nextDeadlineNs(), last + 61 * kProbeMs);
        QCOMPARE(probe.advance(last + 60 * kProbeMs), Action::None); // a nanosecond early
        QCOMPARE(probe.advance(last + 61 * kProbeMs), Action::SwitchOn);
        probe.switchedOn(last + 62 * kProbeMs, 6, last + 5 * kProbeMs, last + 55 * kProbeMs);
        QVERIFY(!probe.off() && !probe.done());
        QCOMPARE(probe.advance(last + 121 * kProbeMs), Action::None);
        QCOMPARE(probe.advance(last + 122 * kProbeMs), Action::SwitchOff);
        probe.switchedOff(last + 122 * kProbeMs);
        QCOMPARE(probe.advance(last + 182 * kProbeMs), Action::SwitchOn);
        probe.switchedOn(last + 182 * kProbeMs, 6, last + 125 * kProbeMs, last + 175 * kProbeMs);
        QVERIFY(probe.done());
        QCOMPARE(probe.advance(INT64_MAX), Action::None);
        QCOMPARE(probe.nextDeadlineNs(), INT64_MAX);
        QCOMPARE(probe.offPhases().size(), size_t(2));
        // First and last, as the format keeps them.
        const auto& first = probe.offPhases().front();
        QCOMPARE(first.startNs, last + kProbeMs);
        QCOMPARE(first.endNs, last + 62 * kProbeMs);
        QCOMPARE(first.calls, int64_t(6));
        const auto& second = probe.offPhases().back();
        QCOMPARE(second.lastCallNs, last + 175 * kProbeMs);
        stallscope::format::OverheadProbeRecord written{"cudaStreamSynchronize", probe.offPhases()};
        QCOMPARE(stallscope::format::OverheadProbeRecord::parse(written.text()),
                 std::optional(written));
    }

    void tooFewCallsWatchAgain() {
        OverheadProbe probe(settings());
        feed(probe, 0x5e7, 5, 0, kProbeMs); // a set-up loop, over before its stretch
        probe.switchedOff(10 * kProbeMs);
        probe.switchedOn(30 * kProbeMs, 2, 12 * kProbeMs, 14 * kProbeMs); // one fewer than minCalls
        QVERIFY(!probe.found() && !probe.done());
        feed(probe, 0x5e7, 10, 40 * kProbeMs, kProbeMs); // that stack is left aside
        QVERIFY(!probe.found());
        feed(probe, 0x100, 5, 60 * kProbeMs, kProbeMs); // the real loop
        QVERIFY(probe.found());
        probe.switchedOff(70 * kProbeMs);
        probe.switchedOn(90 * kProbeMs, 3, 71 * kProbeMs,
                         89 * kProbeMs); // exactly minCalls: counts
        QVERIFY(!probe.done());
        probe.switchedOff(110 * kProbeMs);
        probe.switchedOn(130 * kProbeMs, 0, 0, 0);
        probe.switchedOff(150 * kProbeMs);
        QVERIFY(!probe.done()); // three stretches so far, one of them counted
        probe.switchedOn(170 * kProbeMs, 0, 0, 0);
        QVERIFY(probe.done()); // the fourth: maxStretches, though only one counted
        QCOMPARE(probe.offPhases().size(), size_t(4));
    }

    void callTimesKeptInsideTheStretch() {
        // Another thread's call may have stamped its time a little outside (before the switch
        // returned): the stretch holds its calls, as the reader insists.
        OverheadProbe probe(settings());
        feed(probe, 7, 5, 0, 10 * kProbeMs);
        probe.switchedOff(100 * kProbeMs);
        probe.switchedOn(160 * kProbeMs, 3, 99 * kProbeMs, 161 * kProbeMs);
        const auto& phase = probe.offPhases().front();
        QCOMPARE(phase.firstCallNs, 100 * kProbeMs);
        QCOMPARE(phase.lastCallNs, 160 * kProbeMs);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestOverheadProbe)
#include "test_overhead_probe.moc"
