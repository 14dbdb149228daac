#include "model/compare/ci_reports.h"

#include "model/session/session_summary.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>
#include <QXmlStreamWriter>

#include <map>

namespace stallscope::model {

namespace {

QString qtext(std::string_view value) {
    return QString::fromUtf8(value.data(), static_cast<qsizetype>(value.size()));
}

// SARIF's levels: HIGH is an error, MEDIUM a warning, LOW a note.
QString sarifLevel(std::optional<Severity> severity) {
    if (!severity)
        return QStringLiteral("note");
    switch (*severity) {
    case Severity::High:
        return QStringLiteral("error");
    case Severity::Medium:
        return QStringLiteral("warning");
    case Severity::Low:
        break;
    }
    return QStringLiteral("note");
}

QString uriOf(const std::string& file, const std::string& baseDir) {
    const QString path = qtext(file);
    if (!path.startsWith(QLatin1Char('/')))
        return QString::fromUtf8(QUrl(path).toEncoded()); // already relative (Kineto's paths)
    QString base = qtext(baseDir);
    if (!base.isEmpty() && !base.endsWith(QLatin1Char('/')))
        base += QLatin1Char('/');
    if (!base.isEmpty() && path.startsWith(base))
        return QString::fromUtf8(QUrl(path.mid(base.size())).toEncoded());
    return QString::fromUtf8(QUrl::fromLocalFile(path).toEncoded());
}

QJsonArray locationsOf(const SourceSite& site, const std::string& baseDir) {
    QJsonArray locations;
    if (!site.hasLocation())
        return locations;
    locations.append(QJsonObject{
        {"physicalLocation",
         QJsonObject{{"artifactLocation", QJsonObject{{"uri", uriOf(site.file, baseDir)}}},
                     {"region", QJsonObject{{"startLine", static_cast<qint64>(site.line)}}}}}});
    return locations;
}

QJsonObject sarifLog(const std::map<std::string, std::string>& rules, QJsonArray results) {
    QJsonArray ruleArray;
    for (const auto& [id, description] : rules)
        ruleArray.append(QJsonObject{
            {"id", qtext(id)}, {"shortDescription", QJsonObject{{"text", qtext(description)}}}});
    const QJsonObject driver{{"name", "Stallscope"}, {"rules", ruleArray}};
    return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
            {"version", "2.1.0"},
            {"runs", QJsonArray{QJsonObject{{"tool", QJsonObject{{"driver", driver}}},
                                            {"results", results}}}}};
}

QByteArray toJson(const QJsonObject& object) {
    QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Indented);
    if (!json.endsWith('\n'))
        json += '\n';
    return json;
}

// A failing test case's message and text: the finding's title, evidence and fix.
struct TestCase {
    QString name;
    QString className;
    bool failed = false;
    QString message;
    QString details;
};

QByteArray junit(const QString& suite, const std::vector<TestCase>& cases) {
    QByteArray out;
    QXmlStreamWriter xml(&out);
    xml.setAutoFormatting(true);
    xml.writeStartDocument();
    int failures = 0;
    for (const TestCase& test : cases)
        failures += test.failed ? 1 : 0;
    xml.writeStartElement(QStringLiteral("testsuites"));
    xml.writeStartElement(QStringLiteral("testsuite"));
    xml.writeAttribute(QStringLiteral("name"), suite);
    xml.writeAttribute(QStringLiteral("tests"), QString::number(cases.size()));
    xml.writeAttribute(QStringLiteral("failures"), QString::number(failures));
    xml.writeAttribute(QStringLiteral("errors"), QStringLiteral("0"));
    for (const TestCase& test : cases) {
        xml.writeStartElement(QStringLiteral("testcase"));
        xml.writeAttribute(QStringLiteral("classname"), test.className);
        xml.writeAttribute(QStringLiteral("name"), test.name);
        if (test.failed) {
            xml.writeStartElement(QStringLiteral("failure"));
            xml.writeAttribute(QStringLiteral("message"), test.message);
            xml.writeCharacters(test.details);
            xml.writeEndElement();
        }
        xml.writeEndElement();
    }
    xml.writeEndElement();
    xml.writeEndElement();
    xml.writeEndDocument();
    return out;
}

bool atOrAbove(std::optional<Severity> severity, Severity failAt) {
    return severity && *severity >= failAt;
}

bool gated(const SiteComparison& site, Severity failAt) {
    return (site.status == SiteStatus::New || site.status == SiteStatus::Worse) &&
           atOrAbove(site.severity(), failAt);
}

std::string siteChange(const SiteComparison& site) {
    return std::string(siteStatusName(site.status)) + ": blocked " +
           formatDuration(int64_t(site.before.blockedNs)) + " -> " +
           formatDuration(int64_t(site.after.blockedNs)) + " per unit, calls " +
           std::to_string(int64_t(site.before.calls)) + " -> " +
           std::to_string(int64_t(site.after.calls)) + " at " + site.site.label();
}

} // namespace

std::optional<Severity> parseSeverity(std::string_view name) {
    if (name == "high")
        return Severity::High;
    if (name == "medium")
        return Severity::Medium;
    if (name == "low")
        return Severity::Low;
    return std::nullopt;
}

bool insightsFail(const InsightReport& report, Severity failAt) {
    for (const Insight& insight : report.insights)
        if (insight.severity >= failAt)
            return true;
    return false;
}

bool comparisonFails(const SessionComparison& comparison, Severity failAt) {
    for (const SiteComparison& site : comparison.sites)
        if (gated(site, failAt))
            return true;
    return false;
}

QByteArray insightsToSarif(const InsightReport& report, const std::string& baseDir) {
    std::map<std::string, std::string> rules;
    QJsonArray results;
    for (const Insight& insight : report.insights) {
        const std::string id(ruleId(insight.rule));
        rules.emplace(id, "Stallscope rule " + id + " (docs/insights.md)");
        results.append(QJsonObject{
            {"ruleId", qtext(id)},
            {"level", sarifLevel(insight.severity)},
            {"message", QJsonObject{{"text", qtext(insight.title + ". " + insight.evidence +
                                                   " Fix: " + fixText(insight))}}},
            {"locations", locationsOf(insight.site, baseDir)},
            {"properties", QJsonObject{{"severity", qtext(severityName(insight.severity))},
                                       {"saving_ns", static_cast<qint64>(insight.savingsNs)},
                                       {"count", static_cast<qint64>(insight.count)}}}});
    }
    return toJson(sarifLog(rules, results));
}

QByteArray comparisonToSarif(const SessionComparison& comparison, const std::string& baseDir) {
    std::map<std::string, std::string> rules;
    QJsonArray results;
    for (const SiteComparison& site : comparison.sites) {
        if (site.status != SiteStatus::New && site.status != SiteStatus::Worse)
            continue;
        const std::string id = "sync-site-" + std::string(siteStatusName(site.status));
        rules.emplace(id, site.status == SiteStatus::New
                              ? "A sync site the before run did not have"
                              : "A sync site that blocks the host longer than before");
        results.append(QJsonObject{
            {"ruleId", qtext(id)},
            {"level", sarifLevel(site.severity())},
            {"message",
             QJsonObject{{"text", qtext(siteChange(site) + " (per " + comparison.unit + ")")}}},
            {"locations", locationsOf(site.site, baseDir)}});
    }
    return toJson(sarifLog(rules, results));
}

QByteArray insightsToJUnit(const InsightReport& report, const std::string& sessionName,
                           Severity failAt) {
    std::vector<TestCase> cases;
    for (const Insight& insight : report.insights)
        cases.push_back({qtext(insight.site.label()), qtext(ruleId(insight.rule)),
                         insight.severity >= failAt, qtext(insight.title),
                         qtext(insight.evidence + "\nFix: " + fixText(insight))});
    return junit(QStringLiteral("stallscope insights: ") + qtext(sessionName), cases);
}

QByteArray comparisonToJUnit(const SessionComparison& comparison, Severity failAt) {
    std::vector<TestCase> cases;
    for (const SiteComparison& site : comparison.sites)
        cases.push_back({qtext(site.site.label()), qtext(siteStatusName(site.status)),
                         gated(site, failAt), qtext(siteChange(site)), qtext(site.key)});
    return junit(QStringLiteral("stallscope compare"), cases);
}

} // namespace stallscope::model
