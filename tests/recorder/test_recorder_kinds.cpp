// STALLSCOPE_KINDS (RecorderConfig::applyKinds): every word of the kinds table switches exactly
// its own flags, a positive list replaces the defaults, a "-" word only removes, and an unknown
// word is reported without changing anything.
#include "recorder/recorder_config.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <string>
#include <utility>

using stallscope::recorder::RecorderConfig;

namespace {

// The kind flags as a string, one letter a kind (lower case when off), to compare in one go.
QString kinds(const RecorderConfig& c) {
    const std::pair<bool, char> flags[] = {
        {c.kernels, 'K'}, {c.memcpy, 'C'},     {c.memset, 'S'},
        {c.syncs, 'Y'},   {c.runtimeApi, 'R'}, {c.driverApi, 'D'},
        {c.nvtx, 'N'},    {c.cudaEvents, 'E'}, {c.syncRecords, 'Z'}};
    QString text;
    for (const auto& [on, letter] : flags)
        text += on ? QChar(letter) : QChar(letter).toLower();
    return text;
}

QString applied(const std::string& list) {
    RecorderConfig config;
    std::string warnings;
    if (!config.applyKinds(list, &warnings))
        return "rejected: " + QString::fromStdString(warnings);
    return kinds(config);
}

} // namespace

class TestRecorderKinds : public QObject {
    Q_OBJECT
private slots:
    void defaultsRecordAllButOptInRecords() { QCOMPARE(kinds(RecorderConfig()), "KCSYRDNez"); }

    void eachWordSwitchesItsKinds_data() {
        QTest::addColumn<QString>("list");
        QTest::addColumn<QString>("expected");
        // {list, flags after it}; "all" leaves CUDA_EVENT and SYNCHRONIZATION records opt-in, "-"
        // words keep the rest.
        const std::pair<const char*, const char*> cases[] = {
            {"kernel", "Kcsyrdnez"},
            {"kernels", "Kcsyrdnez"},
            {"memcpy", "kCsyrdnez"},
            {"memset", "kcSyrdnez"},
            {"sync", "kcsYrdnez"},
            {"syncs", "kcsYrdnez"},
            {"runtime", "kcsyRdnez"},
            {"driver", "kcsyrDnez"},
            {"api", "kcsyRDnez"},
            {"nvtx", "kcsyrdNez"},
            {"events", "kcsyrdnEz"},
            {"all", "KCSYRDNez"},
            {"all,events", "KCSYRDNEz"},
            {"kernel,sync", "KcsYrdnez"},
            {",kernel,,memcpy,", "KCsyrdnez"},
            {"-nvtx", "KCSYRDnez"},
            {"-api", "KCSYrdNez"},
            {"-all", "kcsyrdnez"},
            {"all,-memset", "KCsYRDNez"},
            {"-nvtx,events", "KCSYRDnEz"},
            {"sync-records", "kcsyrdneZ"},
            {"all,sync-records", "KCSYRDNeZ"},
            {"-sync-records", "KCSYRDNez"},
        };
        for (const auto& [list, expected] : cases)
            QTest::newRow(list) << QString(list) << QString(expected);
    }
    void eachWordSwitchesItsKinds() {
        QFETCH(QString, list);
        QFETCH(QString, expected);
        QCOMPARE(applied(list.toStdString()), expected);
    }

    // SYNCHRONIZATION records: on request, or for the event links of CUDA_EVENT records; never
    // without syncs.
    void syncRecordsFollowTheirUsers_data() {
        QTest::addColumn<QString>("list");
        QTest::addColumn<bool>("wanted");
        QTest::newRow("default") << QString() << false;
        QTest::newRow("sync-records") << "all,sync-records" << true;
        QTest::newRow("events") << "all,events" << true;
        QTest::newRow("events without syncs") << "all,events,-sync" << false;
        QTest::newRow("sync-records without syncs") << "kernel,sync-records" << false;
    }
    void syncRecordsFollowTheirUsers() {
        QFETCH(QString, list);
        QFETCH(bool, wanted);
        RecorderConfig config;
        std::string warnings;
        QVERIFY(list.isEmpty() || config.applyKinds(list.toStdString(), &warnings));
        QCOMPARE(config.wantsSyncRecords(), wanted);
    }

    void unknownWordIsReportedAndSkipped() {
        RecorderConfig config;
        std::string warnings;
        QVERIFY(!config.applyKinds("kernel,bogus,memcpy", &warnings));
        QCOMPARE(QString::fromStdString(warnings), "unknown kind 'bogus' in STALLSCOPE_KINDS; ");
        QCOMPARE(kinds(config), "KCsyrdnez");
        QVERIFY(!config.applyKinds("Kernel", nullptr)); // words are case-sensitive
    }

    // --mode light: syncs with stacks and GPU work, no API records, no Python samples (the power
    // samples stay); full puts back exactly the defaults; anything else changes nothing.
    void lightModeKeepsSyncsAndGpuWork() {
        RecorderConfig config;
        QVERIFY(config.applyMode("light"));
        QCOMPARE(kinds(config), "KCSYrdNez");
        QVERIFY(config.stacks);
        QCOMPARE(config.sampleHz, 0);
        QCOMPARE(config.gpuPowerHz, RecorderConfig().gpuPowerHz);
        QCOMPARE(config.modeName(), "light");
        QVERIFY(config.applyMode("full"));
        const RecorderConfig defaults;
        QCOMPARE(kinds(config), kinds(defaults));
        QCOMPARE(config.sampleHz, defaults.sampleHz);
        QCOMPARE(config.gpuPowerHz, defaults.gpuPowerHz);
        QCOMPARE(config.modeName(), "full");
        QVERIFY(!config.applyMode("Light"));
        QVERIFY(!config.applyMode(""));
        QCOMPARE(config.modeName(), "full");
    }

    // The mode comes before the kinds and rates: "--mode light --kinds all,-driver" records the
    // runtime API again, and a rate given beside it counts.
    void modeThenKindsAndRatesFromTheEnvironment() {
        qputenv("STALLSCOPE_MODE", "light");
        qputenv("STALLSCOPE_KINDS", "all,-driver");
        qputenv("STALLSCOPE_SAMPLE_HZ", "50");
        std::string warnings;
        RecorderConfig config = RecorderConfig::fromEnvironment(&warnings);
        QCOMPARE(kinds(config), "KCSYRdNez");
        QCOMPARE(config.sampleHz, 50);
        QVERIFY(config.light);
        qputenv("STALLSCOPE_MODE", "fast");
        qunsetenv("STALLSCOPE_KINDS");
        qunsetenv("STALLSCOPE_SAMPLE_HZ");
        config = RecorderConfig::fromEnvironment(&warnings);
        QVERIFY(!config.light);
        QVERIFY(QString::fromStdString(warnings).contains("STALLSCOPE_MODE='fast'"));
        qunsetenv("STALLSCOPE_MODE");
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRecorderKinds)
#include "test_recorder_kinds.moc"
