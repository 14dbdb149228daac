// ApiGate (recorder/api_gate.h), with real threads and no GPU: a switch waits for the calls in
// flight and holds new ones until it is done; it gives up after its timeout and opens again; a
// thread's nested calls and the switching thread's own call never wait on themselves; a call
// that entered before the gate counted is not waited for; a forked child's gate is open.
// Waits are on conditions (QTRY_VERIFY), never on a fixed sleep.
#include "recorder/api_gate.h"
#include "tests/support/test_suite.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using stallscope::recorder::ApiGate;
using stallscope::recorder::ClosedGate;
using namespace std::chrono_literals;

namespace {

// A traced call in flight on a thread of its own, from construction until leave().
class CallInFlight {
public:
    explicit CallInFlight(ApiGate& gate)
        : m_thread([this, &gate] {
              gate.enter();
              m_entered = true;
              while (!m_leave)
                  std::this_thread::yield();
              gate.exit();
          }) {}
    ~CallInFlight() { leave(); }
    bool entered() const { return m_entered; }
    void leave() {
        m_leave = true;
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    std::atomic<bool> m_entered{false}, m_leave{false};
    std::thread m_thread;
};

} // namespace

class TestApiGate : public QObject {
    Q_OBJECT
private slots:
    // A call in flight on another thread: the switch times out and the gate opens again; once
    // the call has left, the switch goes ahead.
    void switchWaitsForTheCallInFlight() {
        ApiGate gate;
        CallInFlight call(gate);
        QTRY_VERIFY(call.entered());
        QCOMPARE(gate.inFlight(), 1);
        QVERIFY(!gate.close(2ms));
        QVERIFY(!gate.closed()); // a miss leaves the program's calls free
        call.leave();
        QCOMPARE(gate.inFlight(), 0);
        QVERIFY(gate.close(2ms));
        gate.open();
    }

    // A call that comes while the gate is closed waits for the switch, and sees what it did.
    void newCallsWaitForTheSwitch() {
        ApiGate gate;
        std::atomic<bool> switched{false}, passed{false}, sawSwitch{false};
        QVERIFY(gate.close(1s));
        std::thread call([&] {
            gate.enter();
            sawSwitch = switched.load();
            passed = true;
            gate.exit();
        });
        QTRY_COMPARE(gate.waiting(), 1);
        QVERIFY(!passed.load());
        QCOMPARE(gate.inFlight(), 0);
        switched = true;
        gate.open();
        call.join();
        QVERIFY(passed.load());
        QVERIFY(sawSwitch.load());
        QCOMPARE(gate.waiting(), 0);
        QCOMPARE(gate.inFlight(), 0);
    }

    // The driver call a runtime call makes, while a switch waits for that runtime call: it goes
    // on (waiting would hold the switch until its timeout), and the switch goes ahead once both
    // have left.
    void nestedCallsPassAClosedGate() {
        ApiGate gate;
        std::atomic<bool> entered{false}, nest{false}, nestedDone{false};
        std::thread call([&] {
            gate.enter();
            entered = true;
            while (!nest)
                std::this_thread::yield();
            gate.enter(); // nested
            gate.exit();
            nestedDone = true;
            gate.exit();
        });
        QTRY_VERIFY(entered.load());
        std::atomic<bool> closedInTime{false};
        std::thread switcher([&] {
            ClosedGate closed(gate, 10s);
            closedInTime = bool(closed);
        });
        QTRY_VERIFY(gate.closed());
        nest = true;
        call.join(); // would hang on a nested call held at the gate
        switcher.join();
        QVERIFY(nestedDone.load());
        QVERIFY(closedInTime.load());
        QVERIFY(!gate.closed()); // ClosedGate opened it
        QCOMPARE(gate.inFlight(), 0);
    }

    // A capture trigger switches inside the program's own call: that call does not count.
    void theSwitchingThreadsOwnCallDoesNotCount() {
        ApiGate gate;
        gate.enter();
        QVERIFY(gate.close(1ms));
        gate.open();
        gate.exit();
        QCOMPARE(gate.inFlight(), 0);
    }

    // A call that entered before the gate's callbacks were on leaves uncounted: the count never
    // goes below zero, so later switches are not fooled.
    void aCallFromBeforeTheGateIsNotCounted() {
        ApiGate gate;
        std::thread call([&] { gate.exit(); });
        call.join();
        QCOMPARE(gate.inFlight(), 0);
        CallInFlight counted(gate);
        QTRY_VERIFY(counted.entered());
        QVERIFY(!gate.close(1ms));
        counted.leave();
        QVERIFY(gate.close(1ms));
        gate.open();
    }

    // fork() while the writer had the gate closed: the child's calls pass.
    void resetOpensTheGate() {
        ApiGate gate;
        QVERIFY(gate.close(1ms));
        gate.reset();
        QVERIFY(!gate.closed());
        gate.enter(); // would spin forever on a closed gate
        gate.exit();
        QCOMPARE(gate.inFlight(), 0);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestApiGate)
#include "test_api_gate.moc"
