// The names the insight output prints (JSON, text, cards) come from tables indexed by the enum
// value: every entry is pinned here, with the fallback of a value outside the table, so a table
// that slips by one or loses an entry fails.
#include "format/enum_names.h"
#include "model/analysis/insight.h"
#include "model/analysis/insight_recommendations.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <string>
#include <vector>

using namespace stallscope;
using format::SyncKind;
using model::InsightRule;
using model::Severity;
using model::SourceLanguage;

using Names = std::vector<std::string>;

// name(value) for every value in [first, last], as strings: one comparison pins a whole table.
template <typename Enum, typename NameOf> Names namesOf(NameOf name, int first, int last) {
    Names names;
    for (int value = first; value <= last; ++value)
        names.emplace_back(name(static_cast<Enum>(value)));
    return names;
}

class TestInsightNames : public QObject {
    Q_OBJECT
private slots:
    void insightEnumNames();
    void syncKindLabels();
    void nameOfFallsBackOutsideTheTable();
};

// Each list ends one past the last value: the fallback.
void TestInsightNames::insightEnumNames() {
    QCOMPARE(namesOf<Severity>(model::severityName, 0, 3), (Names{"LOW", "MEDIUM", "HIGH", "LOW"}));
    QCOMPARE(
        namesOf<InsightRule>(model::ruleId, 0, model::kInsightRuleCount),
        (Names{"sync-attribution", "in-loop-sync", "pageable-copy", "device-sync", "default-stream",
               "gpu-bubble", "launch-bound", "straggler", "host-gap", "unknown"}));
    QCOMPARE(namesOf<SourceLanguage>(model::languageName, 0, 3),
             (Names{"unknown", "python", "native", "unknown"}));
}

// From 0 (no kind) to one past the last kind.
void TestInsightNames::syncKindLabels() {
    QCOMPARE(namesOf<SyncKind>(model::syncKindLabel, 0, format::kSyncKindMax + 1),
             (Names{"Sync", "Stream sync", "Device sync", "Event sync", "Stream wait",
                    "Blocking copy to pageable memory", "Blocking copy", "Blocking memset",
                    "Blocking alloc/free", "Sync"}));
}

void TestInsightNames::nameOfFallsBackOutsideTheTable() {
    static constexpr auto kNames = std::to_array<std::string_view>({"zero", "one"});
    QCOMPARE(format::nameOf(kNames, -1, "none"), std::string_view("none"));
    QCOMPARE(format::nameOf(kNames, 0, "none"), std::string_view("zero"));
    QCOMPARE(format::nameOf(kNames, 1, "none"), std::string_view("one"));
    QCOMPARE(format::nameOf(kNames, 2, "none"), std::string_view("none"));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestInsightNames)
#include "test_insight_names.moc"
