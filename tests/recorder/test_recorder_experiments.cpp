// STALLSCOPE_EXPERIMENT (RecorderExperiments): each NAME=VALUE switches its own ablation and
// nothing else, the product's defaults are no experiment at all, an unknown item is reported and
// changes nothing, and text() gives back a list that apply() turns into the same settings (the
// meta a benchmark's session carries).
#include "recorder/recorder_config.h"
#include "recorder/recorder_experiments.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <cstdlib>
#include <string>

using stallscope::recorder::RecorderConfig;
using stallscope::recorder::RecorderExperiments;

namespace {

RecorderExperiments appliedExperiments(const std::string& list, std::string* warnings = nullptr) {
    RecorderExperiments experiments;
    experiments.apply(list, warnings);
    return experiments;
}

} // namespace

class TestRecorderExperiments : public QObject {
    Q_OBJECT
private slots:
    void defaultsAreTheProduct() {
        const RecorderExperiments none;
        QCOMPARE(none.text(), std::string());
        QCOMPARE(none.clockName(), "offset");
        QVERIFY(none.fdeIndex && none.apiCallbacks && !none.cuptiFlushes && !none.cuptiZeroes);
        // Naming a default explicitly is still no experiment.
        QCOMPARE(appliedExperiments("clock=offset,flush=writer,fde-index=on").text(),
                 std::string());
    }

    void eachItemSwitchesItsOwnSetting_data() {
        QTest::addColumn<QString>("item");
        QTest::newRow("clock=callback") << "clock=callback";
        QTest::newRow("clock=cupti") << "clock=cupti";
        QTest::newRow("flush=cupti") << "flush=cupti";
        QTest::newRow("zeroing=cupti") << "zeroing=cupti";
        QTest::newRow("fde-index=off") << "fde-index=off";
        QTest::newRow("callbacks=off") << "callbacks=off";
        QTest::newRow("sampler=tick") << "sampler=tick";
        QTest::newRow("sampler=walk") << "sampler=walk";
        QTest::newRow("probe-api=keep") << "probe-api=keep";
        QTest::newRow("probe-gate=off") << "probe-gate=off";
    }
    void eachItemSwitchesItsOwnSetting() {
        QFETCH(QString, item);
        std::string warnings;
        const RecorderExperiments one = appliedExperiments(item.toStdString(), &warnings);
        QCOMPARE(warnings, std::string());
        // Exactly this item differs from the defaults, and text() names it alone.
        QCOMPARE(one.text(), item.toStdString());
        QCOMPARE(appliedExperiments(one.text()), one);
    }

    void severalItemsRoundTrip() {
        const RecorderExperiments several =
            appliedExperiments("flush=cupti,clock=callback,sampler=walk");
        QCOMPARE(several.clock, RecorderExperiments::Clock::Callback);
        QVERIFY(several.cuptiFlushes);
        QCOMPARE(several.sampler, RecorderExperiments::Sampler::WalkOnly);
        QCOMPARE(appliedExperiments(several.text()), several);
        // The later of two values for one name wins.
        QCOMPARE(appliedExperiments("clock=cupti,clock=callback").clock,
                 RecorderExperiments::Clock::Callback);
    }

    void unknownItemsAreReportedAndIgnored() {
        std::string warnings;
        const RecorderExperiments kept =
            appliedExperiments("clock=fast,,flush,zeroing=cupti", &warnings);
        QVERIFY(warnings.find("unknown experiment 'clock=fast'") != std::string::npos);
        QVERIFY(warnings.find("unknown experiment 'flush'") != std::string::npos);
        QCOMPARE(kept.clock, RecorderExperiments::Clock::Offset);
        QCOMPARE(kept.text(), std::string("zeroing=cupti"));
    }

    // The variable reaches the config; the experiments' old variables no longer do anything.
    void readFromTheEnvironment() {
        setenv("STALLSCOPE_EXPERIMENT", "fde-index=off,callbacks=off", 1);
        setenv("STALLSCOPE_CLOCK", "cupti", 1);
        const RecorderConfig config = RecorderConfig::fromEnvironment(nullptr);
        unsetenv("STALLSCOPE_EXPERIMENT");
        unsetenv("STALLSCOPE_CLOCK");
        QVERIFY(!config.experiments.fdeIndex);
        QVERIFY(!config.experiments.apiCallbacks);
        QCOMPARE(config.experiments.clock, RecorderExperiments::Clock::Offset);
        QCOMPARE(RecorderConfig::fromEnvironment(nullptr).experiments, RecorderExperiments());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRecorderExperiments)
#include "test_recorder_experiments.moc"
