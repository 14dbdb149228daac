// STALLSCOPE_KINDS (RecorderConfig::applyKinds): every word of the kinds table switches exactly
// its own flags, a positive list replaces the defaults, a "-" word only removes, and an unknown
// word is reported without changing anything.
#include "recorder/recorder_config.h"

#include <QTest>

#include <string>
#include <utility>

using stallscope::recorder::RecorderConfig;

namespace {

// The kind flags as a string, one letter a kind (lower case when off), to compare in one go.
QString kinds(const RecorderConfig& c) {
    const std::pair<bool, char> flags[] = {
        {c.kernels, 'K'},    {c.memcpy, 'C'},    {c.memset, 'S'}, {c.syncs, 'Y'},
        {c.runtimeApi, 'R'}, {c.driverApi, 'D'}, {c.nvtx, 'N'},   {c.cudaEvents, 'E'}};
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
    void defaultsRecordAllButCudaEvents() { QCOMPARE(kinds(RecorderConfig()), "KCSYRDNe"); }

    void eachWordSwitchesItsKinds_data() {
        QTest::addColumn<QString>("list");
        QTest::addColumn<QString>("expected");
        // {list, flags after it}; "all" leaves CUDA_EVENT records opt-in, "-" words keep the rest.
        const std::pair<const char*, const char*> cases[] = {
            {"kernel", "Kcsyrdne"},
            {"kernels", "Kcsyrdne"},
            {"memcpy", "kCsyrdne"},
            {"memset", "kcSyrdne"},
            {"sync", "kcsYrdne"},
            {"syncs", "kcsYrdne"},
            {"runtime", "kcsyRdne"},
            {"driver", "kcsyrDne"},
            {"api", "kcsyRDne"},
            {"nvtx", "kcsyrdNe"},
            {"events", "kcsyrdnE"},
            {"all", "KCSYRDNe"},
            {"all,events", "KCSYRDNE"},
            {"kernel,sync", "KcsYrdne"},
            {",kernel,,memcpy,", "KCsyrdne"},
            {"-nvtx", "KCSYRDne"},
            {"-api", "KCSYrdNe"},
            {"-all", "kcsyrdne"},
            {"all,-memset", "KCsYRDNe"},
            {"-nvtx,events", "KCSYRDnE"},
        };
        for (const auto& [list, expected] : cases)
            QTest::newRow(list) << QString(list) << QString(expected);
    }
    void eachWordSwitchesItsKinds() {
        QFETCH(QString, list);
        QFETCH(QString, expected);
        QCOMPARE(applied(list.toStdString()), expected);
    }

    void unknownWordIsReportedAndSkipped() {
        RecorderConfig config;
        std::string warnings;
        QVERIFY(!config.applyKinds("kernel,bogus,memcpy", &warnings));
        QCOMPARE(QString::fromStdString(warnings), "unknown kind 'bogus' in STALLSCOPE_KINDS; ");
        QCOMPARE(kinds(config), "KCsyrdne");
        QVERIFY(!config.applyKinds("Kernel", nullptr)); // words are case-sensitive
    }
};

QTEST_GUILESS_MAIN(TestRecorderKinds)
#include "test_recorder_kinds.moc"
