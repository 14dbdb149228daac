// The names the insight output prints (JSON, text, cards) come from tables indexed by the enum
// value: every entry is pinned here, with the fallback of a value outside the table, so a table
// that slips by one or loses an entry fails.
#include "format/enum_names.h"
#include "model/analysis/insight.h"
#include "model/analysis/insight_recommendations.h"

#include <QTest>

using namespace stallscope;
using format::SyncKind;
using model::InsightRule;
using model::Severity;
using model::SourceLanguage;

class TestInsightNames : public QObject {
    Q_OBJECT
private slots:
    void severityNames();
    void ruleIds();
    void languageNames();
    void syncKindLabels();
    void nameOfFallsBackOutsideTheTable();
};

void TestInsightNames::severityNames() {
    QCOMPARE(model::severityName(Severity::Low), std::string_view("LOW"));
    QCOMPARE(model::severityName(Severity::Medium), std::string_view("MEDIUM"));
    QCOMPARE(model::severityName(Severity::High), std::string_view("HIGH"));
    QCOMPARE(model::severityName(static_cast<Severity>(3)), std::string_view("LOW"));
}

void TestInsightNames::ruleIds() {
    QCOMPARE(model::ruleId(InsightRule::SyncAttribution), std::string_view("sync-attribution"));
    QCOMPARE(model::ruleId(InsightRule::InLoopSync), std::string_view("in-loop-sync"));
    QCOMPARE(model::ruleId(InsightRule::PageableCopy), std::string_view("pageable-copy"));
    QCOMPARE(model::ruleId(InsightRule::DeviceSync), std::string_view("device-sync"));
    QCOMPARE(model::ruleId(InsightRule::DefaultStream), std::string_view("default-stream"));
    QCOMPARE(model::ruleId(InsightRule::GpuBubble), std::string_view("gpu-bubble"));
    QCOMPARE(model::ruleId(InsightRule::LaunchBound), std::string_view("launch-bound"));
    QCOMPARE(model::ruleId(static_cast<InsightRule>(model::kInsightRuleCount)),
             std::string_view("unknown"));
}

void TestInsightNames::languageNames() {
    QCOMPARE(model::languageName(SourceLanguage::Unknown), std::string_view("unknown"));
    QCOMPARE(model::languageName(SourceLanguage::Python), std::string_view("python"));
    QCOMPARE(model::languageName(SourceLanguage::Native), std::string_view("native"));
    QCOMPARE(model::languageName(static_cast<SourceLanguage>(3)), std::string_view("unknown"));
}

void TestInsightNames::syncKindLabels() {
    QCOMPARE(model::syncKindLabel(SyncKind::Stream), std::string("Stream sync"));
    QCOMPARE(model::syncKindLabel(SyncKind::Device), std::string("Device sync"));
    QCOMPARE(model::syncKindLabel(SyncKind::Event), std::string("Event sync"));
    QCOMPARE(model::syncKindLabel(SyncKind::StreamWaitEvent), std::string("Stream wait"));
    QCOMPARE(model::syncKindLabel(SyncKind::PageableCopy),
             std::string("Blocking copy to pageable memory"));
    QCOMPARE(model::syncKindLabel(SyncKind::BlockingCopy), std::string("Blocking copy"));
    QCOMPARE(model::syncKindLabel(SyncKind::BlockingMemset), std::string("Blocking memset"));
    QCOMPARE(model::syncKindLabel(SyncKind::BlockingAlloc), std::string("Blocking alloc/free"));
    QCOMPARE(model::syncKindLabel(static_cast<SyncKind>(0)), std::string("Sync"));
    QCOMPARE(model::syncKindLabel(static_cast<SyncKind>(format::kSyncKindMax + 1)),
             std::string("Sync"));
}

void TestInsightNames::nameOfFallsBackOutsideTheTable() {
    static constexpr auto kNames = std::to_array<std::string_view>({"zero", "one"});
    QCOMPARE(format::nameOf(kNames, -1, "none"), std::string_view("none"));
    QCOMPARE(format::nameOf(kNames, 0, "none"), std::string_view("zero"));
    QCOMPARE(format::nameOf(kNames, 1, "none"), std::string_view("one"));
    QCOMPARE(format::nameOf(kNames, 2, "none"), std::string_view("none"));
}

QTEST_GUILESS_MAIN(TestInsightNames)
#include "test_insight_names.moc"
