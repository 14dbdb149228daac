// Capture control without a GPU: the options' values and the environment that carries them to the
// program's recorder (recorder_config.h), CaptureControl on both sides of each boundary (delay,
// duration, profiler and NVTX ranges, the first range or every one), NvtxRangeWatch fed CUPTI's
// NVTX callback data built from NVTX's own structures, a sync in flight when recording stops
// (never half-recorded), and the intervals the writer makes read back by the loader.
#include "format/session_rows.h"
#include "model/session/session_loader.h"
#include "recorder/api_classifier.h"
#include "recorder/callback_handler.h"
#include "recorder/capture_control.h"
#include "recorder/event_ring.h"
#include "recorder/nvtx_range_watch.h"
#include "recorder/recorder_config.h"
#include "recorder/session_sink.h"
#include "tests/recorder/scratch_session.h"
#include "tests/support/test_suite.h"

#include <cupti.h>
#include <generated_nvtx_meta.h>

#include <QTest>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <thread>

using namespace stallscope::recorder;
using stallscope::testing::ScratchSession;
namespace reason = stallscope::format::capture_reason;
using Transition = CaptureControl::Transition;

namespace {

constexpr int64_t kStart = 1'000'000'000;
constexpr int64_t kSecond = 1'000'000'000;

// "open delay@5" / "close duration@9": a transition in a line QCOMPARE prints.
QString text(const std::optional<Transition>& t) {
    if (!t)
        return QStringLiteral("none");
    return QStringLiteral("%1 %2@%3")
        .arg(t->open ? "open" : "close", QString::fromStdString(t->reason))
        .arg(t->atNs);
}

CaptureSettings settings(CaptureSettings::Range range, int64_t delayNs = 0, int64_t durationNs = 0,
                         CaptureSettings::RangeEnd end = CaptureSettings::RangeEnd::Default) {
    CaptureSettings s;
    s.range = range;
    if (range == CaptureSettings::Range::Nvtx)
        s.nvtxName = "step";
    s.delayNs = delayNs;
    s.durationNs = durationNs;
    s.rangeEnd = end;
    return s;
}

CUpti_NvtxData nvtxData(const void* params, const void* returnValue = nullptr) {
    return CUpti_NvtxData{"nvtx", params, returnValue};
}

size_t drainAll() {
    size_t events = 0;
    EventRing::forEach(
        [](EventRing* ring, void* count) {
            *static_cast<size_t*>(count) += ring->drain([](const HostEvent&) {});
        },
        &events);
    return events;
}

void callSync(CallbackHandler& handler, CUpti_ApiCallbackSite site, uint32_t correlation) {
    CUpti_CallbackData data{};
    data.callbackSite = site;
    data.correlationId = correlation;
    data.functionName = "cudaDeviceSynchronize";
    handler.onApi(ApiClassifier::kRuntimeDomain,
                  CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, &data);
}

} // namespace

class TestCaptureControl : public QObject {
    Q_OBJECT
private slots:
    void secondsAreParsedExactly() {
        QCOMPARE(parseSeconds("0"), std::optional<int64_t>(0));
        QCOMPARE(parseSeconds("1.5"), std::optional<int64_t>(1'500'000'000));
        QCOMPARE(parseSeconds("0.000000001"), std::optional<int64_t>(1));
        QCOMPARE(parseSeconds("1000000"), std::optional<int64_t>(kMaxCaptureNs));
        for (const char* bad : {"", "-1", "+1", ".5", "5.", "1e3", "1s", " 1", "0.0000000001",
                                "1000000.000000001", "99999999999999999999"})
            QVERIFY2(!parseSeconds(bad), bad);
        for (int64_t ns : {int64_t(0), int64_t(1), int64_t(1'500'000'000), int64_t(20) * kSecond,
                           kMaxCaptureNs, int64_t(123'456'789'012)})
            QCOMPARE(parseSeconds(secondsText(ns)), std::optional<int64_t>(ns));
        QCOMPARE(secondsText(1'250'000'000), std::string("1.25"));
    }

    void rangesAndEndsAreRead() {
        CaptureSettings s;
        QVERIFY(!s.active());
        QCOMPARE(s.applyRange("cudaProfilerApi"), std::string());
        QCOMPARE(s.range, CaptureSettings::Range::ProfilerApi);
        QVERIFY(s.repeats()); // every profiler range by default
        QCOMPARE(s.applyRange("nvtx:train step"), std::string());
        QCOMPARE(s.rangeText(), std::string("nvtx:train step"));
        QVERIFY(!s.repeats()); // the first NVTX range by default
        QCOMPARE(s.applyRangeEnd("repeat"), std::string());
        QVERIFY(s.repeats());
        QCOMPARE(s.applyRange("nvtx:" + std::string(kMaxNvtxCaptureNameBytes, 'x')), std::string());
        QVERIFY(!s.applyRange("nvtx:" + std::string(kMaxNvtxCaptureNameBytes + 1, 'x')).empty());
        QVERIFY(!s.applyRange("nvtx:").empty());
        QCOMPARE(s.range, CaptureSettings::Range::Nvtx); // a refused value changes nothing
        QCOMPARE(s.applyRange("none"), std::string());
        QVERIFY(!s.active() && s.nvtxName.empty());
        QVERIFY(!s.applyDuration("0.000999999").empty());
        QCOMPARE(s.applyDuration("0.001"), std::string());
        QCOMPARE(s.durationNs, kMinCaptureDurationNs);
    }

    // stallscope-record passes the settings as variables the program's recorder reads back.
    void environmentRoundTrip() {
        CaptureSettings s = settings(CaptureSettings::Range::Nvtx, 1'500'000'000, 2 * kSecond,
                                     CaptureSettings::RangeEnd::Repeat);
        s.nvtxName = "train step=1";
        QCOMPARE(s.applySteps("5-9"), std::string());
        const std::vector<std::string> entries = s.environment();
        QCOMPARE(entries.size(), size_t(5));
        for (const std::string& entry : entries) {
            QVERIFY(CaptureSettings::isSettingEntry(entry));
            const size_t equals = entry.find('=');
            qputenv(entry.substr(0, equals).c_str(), entry.substr(equals + 1).c_str());
        }
        std::string warnings;
        QCOMPARE(RecorderConfig::fromEnvironment(&warnings).capture, s);
        QCOMPARE(warnings, std::string());
        // A bad value is reported and leaves the setting as it was.
        qputenv("STALLSCOPE_DELAY", "soon");
        const RecorderConfig bad = RecorderConfig::fromEnvironment(&warnings);
        QCOMPARE(bad.capture.delayNs, int64_t(0));
        QVERIFY2(warnings.find("STALLSCOPE_DELAY='soon' is not a number of seconds") !=
                     std::string::npos,
                 warnings.c_str());
        qputenv("STALLSCOPE_CAPTURE_STEPS", "9-5");
        QVERIFY(!RecorderConfig::fromEnvironment(&warnings).capture.hasSteps());
        QVERIFY2(warnings.find("STALLSCOPE_CAPTURE_STEPS='9-5' is not A-B") != std::string::npos,
                 warnings.c_str());
        for (const char* name :
             {"STALLSCOPE_CAPTURE_RANGE", "STALLSCOPE_CAPTURE_RANGE_END", "STALLSCOPE_DELAY",
              "STALLSCOPE_DURATION", "STALLSCOPE_CAPTURE_STEPS"})
            qunsetenv(name);
        QVERIFY(!RecorderConfig::fromEnvironment(&warnings).capture.active());
        QVERIFY(CaptureSettings().environment().empty());
        QVERIFY(!CaptureSettings::isSettingEntry("STALLSCOPE_DELAYS=1"));
    }

    // Without a range: the delay opens, the duration closes, each exactly at its time.
    void delayAndDurationOpenAndCloseOnTime() {
        CaptureControl c(settings(CaptureSettings::Range::None, 5 * kSecond, 3 * kSecond), kStart);
        QCOMPARE(c.nextDeadlineNs(), kStart + 5 * kSecond);
        QCOMPARE(text(c.advance(kStart)), QString("none"));
        QCOMPARE(text(c.advance(kStart + 5 * kSecond - 1)), QString("none"));
        QVERIFY(!c.capturing());
        QCOMPARE(text(c.advance(kStart + 5 * kSecond)),
                 QString("open delay@%1").arg(kStart + 5 * kSecond));
        QVERIFY(c.capturing());
        QCOMPARE(c.nextDeadlineNs(), kStart + 8 * kSecond);
        QCOMPARE(text(c.advance(kStart + 8 * kSecond - 1)), QString("none"));
        QCOMPARE(text(c.advance(kStart + 8 * kSecond)),
                 QString("close duration@%1").arg(kStart + 8 * kSecond));
        QVERIFY(c.finished() && !c.capturing());
        QCOMPARE(c.nextDeadlineNs(), INT64_MAX);
        QCOMPARE(text(c.advance(kStart + 9 * kSecond)), QString("none"));
    }

    void durationAloneStartsAtOnce() {
        CaptureControl c(settings(CaptureSettings::Range::None, 0, kSecond), kStart);
        QCOMPARE(text(c.advance(kStart)), QString("open start@%1").arg(kStart));
        QCOMPARE(text(c.end(kStart + 10)), QString("close end@%1").arg(kStart + 10));
        QCOMPARE(text(c.advance(kStart + kSecond)), QString("none")); // ended: no duration close
    }

    // cudaProfilerStart/Stop: every range by default; the driver's call inside the runtime's
    // changes nothing; with `stop`, the first range only.
    void profilerRanges() {
        CaptureControl every(settings(CaptureSettings::Range::ProfilerApi), kStart);
        QCOMPARE(text(every.advance(kStart)), QString("none"));
        QCOMPARE(text(every.profilerStopped(kStart + 1)), QString("none"));
        QCOMPARE(text(every.profilerStarted(kStart + 2)),
                 QString("open cudaProfilerStart@%1").arg(kStart + 2));
        QCOMPARE(text(every.profilerStarted(kStart + 3)), QString("none"));
        QCOMPARE(text(every.profilerStopped(kStart + 4)),
                 QString("close cudaProfilerStop@%1").arg(kStart + 4));
        QCOMPARE(text(every.profilerStopped(kStart + 5)), QString("none"));
        QCOMPARE(text(every.profilerStarted(kStart + 6)),
                 QString("open cudaProfilerStart@%1").arg(kStart + 6));
        QVERIFY(!every.finished());

        CaptureControl first(
            settings(CaptureSettings::Range::ProfilerApi, 0, 0, CaptureSettings::RangeEnd::Stop),
            kStart);
        first.advance(kStart);
        QVERIFY(first.profilerStarted(kStart + 1));
        QVERIFY(first.profilerStopped(kStart + 2));
        QVERIFY(first.finished());
        QCOMPARE(text(first.profilerStarted(kStart + 3)), QString("none"));
    }

    // NVTX ranges: the first by default (nested ones of the name change nothing), every one with
    // repeat; an end whose beginning came before the recorder is ignored.
    void nvtxRanges() {
        CaptureControl first(settings(CaptureSettings::Range::Nvtx), kStart);
        first.advance(kStart);
        QCOMPARE(text(first.nvtxRangeEnded(kStart + 1)), QString("none"));
        QCOMPARE(text(first.nvtxRangeBegan(kStart + 2)),
                 QString("open nvtx:step@%1").arg(kStart + 2));
        QCOMPARE(text(first.nvtxRangeBegan(kStart + 3)), QString("none"));
        QCOMPARE(text(first.nvtxRangeEnded(kStart + 4)), QString("none"));
        QCOMPARE(text(first.nvtxRangeEnded(kStart + 5)),
                 QString("close nvtx:step@%1").arg(kStart + 5));
        QCOMPARE(text(first.nvtxRangeBegan(kStart + 6)), QString("none"));
        QVERIFY(first.finished());

        CaptureControl every(
            settings(CaptureSettings::Range::Nvtx, 0, 0, CaptureSettings::RangeEnd::Repeat),
            kStart);
        every.advance(kStart);
        QVERIFY(every.nvtxRangeBegan(kStart + 1));
        QVERIFY(every.nvtxRangeEnded(kStart + 2));
        QCOMPARE(text(every.nvtxRangeBegan(kStart + 3)),
                 QString("open nvtx:step@%1").arg(kStart + 3));
    }

    // --capture-steps: each top-level range is a step, counted from 1; only steps A..B open, and
    // once step B ended nothing opens. Both sides of A and of B.
    void stepsAreTheRangesCounted() {
        for (const CaptureSettings::Range range :
             {CaptureSettings::Range::Nvtx, CaptureSettings::Range::ProfilerApi}) {
            CaptureSettings s = settings(range);
            QCOMPARE(s.applySteps("3-4"), std::string());
            QVERIFY(s.repeats()); // even NVTX, whose default is the first range only
            CaptureControl c(s, kStart);
            c.advance(kStart);
            const bool nvtx = range == CaptureSettings::Range::Nvtx;
            auto began = [&](int64_t at) {
                return nvtx ? c.nvtxRangeBegan(at) : c.profilerStarted(at);
            };
            auto ended = [&](int64_t at) {
                return nvtx ? c.nvtxRangeEnded(at) : c.profilerStopped(at);
            };
            const QString name = nvtx ? "nvtx:step" : "cudaProfilerStart";
            const QString closeName = nvtx ? "nvtx:step" : "cudaProfilerStop";
            for (int64_t step = 1; step <= 2; ++step) { // steps 1 and 2: not recorded
                QCOMPARE(text(began(kStart + 10 * step)), QString("none"));
                QCOMPARE(text(ended(kStart + 10 * step + 5)), QString("none"));
            }
            QCOMPARE(text(began(kStart + 30)), QString("open %1@%2").arg(name).arg(kStart + 30));
            QCOMPARE(text(ended(kStart + 35)),
                     QString("close %1@%2").arg(closeName).arg(kStart + 35));
            QVERIFY(!c.finished());
            QCOMPARE(text(began(kStart + 40)), QString("open %1@%2").arg(name).arg(kStart + 40));
            QCOMPARE(text(ended(kStart + 45)),
                     QString("close %1@%2").arg(closeName).arg(kStart + 45));
            QVERIFY(c.finished()); // step 4 was the last
            QCOMPARE(text(began(kStart + 50)), QString("none"));
            QCOMPARE(text(ended(kStart + 55)), QString("none"));
        }
    }

    // A nested range of the name is part of its step, not a step; the profiler's repeated start
    // (the driver's inside the runtime's) is one step.
    void nestedRangesAreOneStep() {
        CaptureSettings s = settings(CaptureSettings::Range::Nvtx);
        QCOMPARE(s.applySteps("2"), std::string());
        CaptureControl c(s, kStart);
        c.advance(kStart);
        QVERIFY(!c.nvtxRangeBegan(kStart + 1)); // step 1
        QVERIFY(!c.nvtxRangeBegan(kStart + 2)); // nested in step 1
        QVERIFY(!c.nvtxRangeEnded(kStart + 3));
        QVERIFY(!c.nvtxRangeEnded(kStart + 4));
        QCOMPARE(text(c.nvtxRangeBegan(kStart + 5)), QString("open nvtx:step@%1").arg(kStart + 5));
        QVERIFY(!c.nvtxRangeBegan(kStart + 6));
        QVERIFY(!c.nvtxRangeEnded(kStart + 7)); // the nested one ends: step 2 goes on
        QVERIFY(c.capturing());
        QCOMPARE(text(c.nvtxRangeEnded(kStart + 8)), QString("close nvtx:step@%1").arg(kStart + 8));
        QVERIFY(c.finished());

        CaptureSettings p = settings(CaptureSettings::Range::ProfilerApi);
        QCOMPARE(p.applySteps("2-2"), std::string());
        CaptureControl profiler(p, kStart);
        profiler.advance(kStart);
        QVERIFY(!profiler.profilerStarted(kStart + 1));
        QVERIFY(!profiler.profilerStarted(kStart + 2)); // cuProfilerStart inside: still step 1
        QVERIFY(!profiler.profilerStopped(kStart + 3));
        QVERIFY(profiler.profilerStarted(kStart + 4)); // step 2
    }

    // Steps are counted from the recorder's start, the delay's time included: a step the delay
    // held back is not recorded later, and the last step ending in the delay ends the capture.
    void stepsCountDuringTheDelay() {
        CaptureSettings s = settings(CaptureSettings::Range::Nvtx, kSecond);
        QCOMPARE(s.applySteps("2-3"), std::string());
        CaptureControl c(s, kStart);
        c.advance(kStart);
        QVERIFY(!c.nvtxRangeBegan(kStart + 1)); // step 1
        QVERIFY(!c.nvtxRangeEnded(kStart + 2));
        QVERIFY(!c.nvtxRangeBegan(kStart + 3)); // step 2, held back by the delay
        QCOMPARE(text(c.advance(kStart + kSecond)), QString("open delay@%1").arg(kStart + kSecond));
        QVERIFY(c.nvtxRangeEnded(kStart + kSecond + 1));
        QVERIFY(c.nvtxRangeBegan(kStart + kSecond + 2)); // step 3
        QVERIFY(c.nvtxRangeEnded(kStart + kSecond + 3));
        QVERIFY(c.finished());

        CaptureControl early(s, kStart);
        early.advance(kStart);
        for (int64_t step = 1; step <= 3; ++step) { // all three end inside the delay
            QVERIFY(!early.nvtxRangeBegan(kStart + 2 * step));
            QVERIFY(!early.nvtxRangeEnded(kStart + 2 * step + 1));
        }
        QVERIFY(early.finished());
        QCOMPARE(text(early.advance(kStart + kSecond)), QString("none"));
    }

    void stepsAreRead() {
        CaptureSettings s;
        QCOMPARE(s.applySteps("1"), std::string());
        QCOMPARE(s.stepsText(), std::string("1-1"));
        QCOMPARE(s.applySteps("100-200"), std::string());
        QCOMPARE(s.firstStep, int64_t(100));
        QCOMPARE(s.lastStep, int64_t(200));
        QCOMPARE(s.applySteps("7-" + std::to_string(kMaxCaptureStep)), std::string());
        const std::vector<std::string> bad = {"",
                                              "0",
                                              "0-3",
                                              "-3",
                                              "3-",
                                              "5-4",
                                              "1-2-3",
                                              "01-3",
                                              "+1-2",
                                              "1 - 2",
                                              "a-b",
                                              "1.5",
                                              "1-" + std::to_string(kMaxCaptureStep + 1),
                                              "99999999999999999999"};
        for (const std::string& text : bad)
            QVERIFY2(!s.applySteps(text).empty(), text.c_str());
        QCOMPARE(s.stepsText(), "7-" + std::to_string(kMaxCaptureStep)); // refused: unchanged
        QVERIFY(CaptureSettings().stepsText().empty());
    }

    // A range open while the delay runs is recorded from the delay's end on; a range that began
    // and ended inside the delay is not the "first" range.
    void rangeDuringTheDelay() {
        CaptureControl c(settings(CaptureSettings::Range::Nvtx, kSecond), kStart);
        c.advance(kStart);
        QVERIFY(!c.nvtxRangeBegan(kStart + 1));
        QVERIFY(!c.nvtxRangeEnded(kStart + 2));
        QVERIFY(!c.nvtxRangeBegan(kStart + 3));
        QCOMPARE(text(c.advance(kStart + kSecond)), QString("open delay@%1").arg(kStart + kSecond));
        QCOMPARE(text(c.nvtxRangeEnded(kStart + kSecond + 1)),
                 QString("close nvtx:step@%1").arg(kStart + kSecond + 1));
        QVERIFY(c.finished());
    }

    // The duration counts from the first open, across the gaps between ranges; once it passed,
    // no range opens.
    void durationSpansRepeatedRanges() {
        CaptureControl c(settings(CaptureSettings::Range::ProfilerApi, 0, 10), kStart);
        c.advance(kStart);
        QVERIFY(c.profilerStarted(kStart + 100));
        QCOMPARE(c.nextDeadlineNs(), kStart + 110);
        QVERIFY(c.profilerStopped(kStart + 104));
        QCOMPARE(text(c.advance(kStart + 109)), QString("none"));
        QVERIFY(c.profilerStarted(kStart + 109));
        QCOMPARE(text(c.advance(kStart + 110)), QString("close duration@%1").arg(kStart + 110));
        QVERIFY(!c.profilerStopped(kStart + 111));
        QVERIFY(!c.profilerStarted(kStart + 112));
    }

    // NVTX's push/pop per thread and domain, start/end by id, ASCII, wide and registered
    // messages, with NVTX's own parameter structures.
    void nvtxWatchFollowsTheNamedRanges() {
        NvtxRangeWatch watch("step");
        using Change = NvtxRangeWatch::Change;
        const nvtxRangePushA_params step{"step"}, other{"load"};
        const nvtxRangePop_params pop{};
        const CUpti_NvtxData pushStep = nvtxData(&step), pushOther = nvtxData(&other),
                             popData = nvtxData(&pop);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePop, &popData), Change::None);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePushA, &pushStep), Change::Began);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePushA, &pushOther), Change::None);
        // Another domain's pop ends that domain's range, not the default domain's.
        nvtxEventAttributes_t attributes{};
        attributes.version = NVTX_VERSION;
        attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
        attributes.message.ascii = "step";
        auto* domain = reinterpret_cast<nvtxDomainHandle_t>(0x1000);
        const nvtxDomainRangePushEx_params domainPush{domain, {&attributes}};
        const nvtxDomainRangePop_params domainPop{domain};
        const CUpti_NvtxData domainPushData = nvtxData(&domainPush),
                             domainPopData = nvtxData(&domainPop);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &domainPushData),
                 Change::Began);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePop, &popData), Change::None);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxDomainRangePop, &domainPopData),
                 Change::Ended);
        // Another thread's pops do not end this thread's range.
        std::thread([&] {
            QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePop, &popData), Change::None);
        }).join();
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePop, &popData), Change::Ended);

        const wchar_t* wide = L"step";
        const nvtxRangePushW_params wideStep{wide};
        const CUpti_NvtxData pushWide = nvtxData(&wideStep);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePushW, &pushWide), Change::Began);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePop, &popData), Change::Ended);

        // A registered string: the handle the registration returned names the range.
        auto* handle = reinterpret_cast<nvtxStringHandle_t>(0x2000);
        const nvtxDomainRegisterStringA_params registration{domain, "step"};
        const CUpti_NvtxData registerData = nvtxData(&registration, &handle);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, &registerData),
                 Change::None);
        attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        attributes.message.registered = handle;
        const nvtxRangePushEx_params registeredPush{&attributes};
        const CUpti_NvtxData registeredData = nvtxData(&registeredPush);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePushEx, &registeredData), Change::Began);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePop, &popData), Change::Ended);

        // Start/end ranges by their id, ended on another thread.
        const nvtxRangeStartA_params start{"step"}, startOther{"load"};
        const nvtxRangeId_t id = 42, otherId = 43;
        const CUpti_NvtxData startData = nvtxData(&start, &id),
                             startOtherData = nvtxData(&startOther, &otherId);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangeStartA, &startData), Change::Began);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangeStartA, &startOtherData), Change::None);
        const nvtxRangeEnd_params endOther{otherId}, end{id};
        const CUpti_NvtxData endOtherData = nvtxData(&endOther), endData = nvtxData(&end);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangeEnd, &endOtherData), Change::None);
        std::thread([&] {
            QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangeEnd, &endData), Change::Ended);
        }).join();
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangeEnd, &endData), Change::None);
    }

    // Pushes deeper than the watch follows are counted, so the pops above them still pair up.
    void deepPushesKeepPopsPaired() {
        NvtxRangeWatch watch("step");
        const nvtxRangePushA_params step{"step"}, other{"op"};
        const nvtxRangePop_params pop{};
        const CUpti_NvtxData pushStep = nvtxData(&step), pushOther = nvtxData(&other),
                             popData = nvtxData(&pop);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePushA, &pushStep),
                 NvtxRangeWatch::Change::Began);
        for (int i = 0; i < NvtxRangeWatch::kTrackedDepth + 10; ++i)
            watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePushA, &pushOther);
        for (int i = 0; i < NvtxRangeWatch::kTrackedDepth + 10; ++i)
            QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePop, &popData),
                     NvtxRangeWatch::Change::None);
        QCOMPARE(watch.onCallback(CUPTI_CBID_NVTX_nvtxRangePop, &popData),
                 NvtxRangeWatch::Change::Ended);
    }

    // A sync whose ENTER came before recording stopped and whose EXIT never came (its callback
    // was off) is dropped when recording starts again, and the thread records the next one.
    void syncInFlightIsNeverHalfRecorded() {
        ApiClassifier classifier;
        classifier.set(ApiClassifier::kRuntimeDomain,
                       CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, ApiClass::DeviceSync);
        CallbackHandler handler(&classifier);
        handler.setStacks(false, 1);
        drainAll();
        callSync(handler, CUPTI_API_ENTER, 1); // ... and recording stops: no EXIT
        handler.newEpoch();                    // recording starts again
        callSync(handler, CUPTI_API_EXIT, 1);  // the late EXIT of the old call
        QCOMPARE(drainAll(), size_t(0));
        callSync(handler, CUPTI_API_ENTER, 2);
        callSync(handler, CUPTI_API_EXIT, 2);
        QCOMPARE(drainAll(), size_t(1));
        // Without a new epoch the call's two halves pair up as before.
        callSync(handler, CUPTI_API_ENTER, 3);
        callSync(handler, CUPTI_API_EXIT, 3);
        QCOMPARE(drainAll(), size_t(1));
    }

    // The writer's intervals read back by the loader. An NVTX range still open when recording
    // stops ends there (its end is not recorded); one begun after recording started again, and
    // drained with it, keeps its own end.
    void intervalsAndOpenRangesReadBack() {
        ScratchSession session("capture.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        session.writer->setMeta("capture_range", "nvtx:step");
        SessionSink sink(session.writer.get());
        sink.beginProcess(getpid(), "host", "test", 1'000);
        sink.captureOpened(2'000, "nvtx:step");
        QVERIFY(sink.capturing());
        ActivityBatch batch;
        const auto marker = [&batch](uint32_t flags, uint32_t id, int64_t at) {
            ActivityRecord r;
            r.kind = ActivityRecord::Kind::Marker;
            r.markerFlags = flags;
            r.markerId = id;
            r.tid = 7;
            r.startNs = r.endNs = at;
            r.nameOffset = uint32_t(batch.arena.size());
            batch.arena += "step";
            r.nameLength = 4;
            batch.records.push_back(r);
        };
        marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 2'000);
        marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, 3'200); // after the next interval opens
        sink.consumeBatch(batch);
        sink.captureClosed(3'000, "nvtx:step");
        QVERIFY(!sink.capturing());
        sink.captureOpened(3'100, "nvtx:step");
        batch = ActivityBatch();
        marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 3'500); // the first one's: ignored
        marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 3'300);
        sink.consumeBatch(batch);
        sink.finishProcess(9'000);
        QVERIFY(session.writer->finish(stallscope::format::kStatusComplete));
        const auto loaded = stallscope::model::SessionLoader::load(session.path.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const stallscope::model::Session& s = *loaded.session;
        QVERIFY(s.captureControlled);
        QCOMPARE(s.captureIntervals.size(), size_t(2));
        QCOMPARE(s.captureIntervals[0].startNs, int64_t(2'000));
        QCOMPARE(s.captureIntervals[0].endNs, int64_t(3'000));
        QCOMPARE(s.captureIntervals[0].closedBy, std::string("nvtx:step"));
        QCOMPARE(s.captureIntervals[1].endNs, s.endNs); // never closed: a killed recording
        QCOMPARE(s.captureIntervals[1].closedBy, std::string());
        std::vector<std::pair<int64_t, int64_t>> ranges;
        for (const auto& lane : s.hostLanes)
            for (const auto& depth : lane.rangesByDepth)
                for (size_t i = 0; i < depth.size(); ++i)
                    ranges.emplace_back(depth.start[i], depth.end[i]);
        std::sort(ranges.begin(), ranges.end());
        QCOMPARE(ranges,
                 (std::vector<std::pair<int64_t, int64_t>>{{2'000, 3'000}, {3'200, 3'300}}));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestCaptureControl)
#include "test_capture_control.moc"
