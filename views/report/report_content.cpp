#include "views/report/report_content.h"
#include "views/panels/breakable_text.h"

#include "format/session_meta.h"
#include "model/analysis/insight.h"
#include "model/analysis/insight_text.h"
#include "model/session/session.h"
#include "model/session/session_database.h"
#include "model/session/session_summary.h"
#include "views/panels/insight_card.h"
#include "views/panels/source_resolver.h"
#include "views/report/report_step.h"
#include "views/timeline/event_style.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>

#include <algorithm>
#include <map>

namespace stallscope::views {

namespace {

QString text(const std::string& value) {
    return QString::fromStdString(value);
}

// A finding's title or place as a heading or a line: one or two lines, however long a name in it
// is (the table of contents, headings, "Where:"; the evidence keeps the whole name).
QString shownTitle(const std::string& title) {
    return elidedText(text(title), kShownTitleChars);
}

void addOnce(QStringList& list, const QString& value) {
    if (!value.isEmpty() && !list.contains(value))
        list.push_back(value);
}

QString meta(const model::Session& session, std::string_view key) {
    return text(session.metaValue(key));
}

std::vector<std::pair<QString, QString>> titleFacts(const model::Session& session) {
    std::map<QString, QString> summary;
    for (const auto& [label, value] : model::SessionSummary::of(session).rows)
        summary[text(label)] = text(value);
    const QString command = summary[QStringLiteral("Command")];
    const QString program =
        QFileInfo(command.section(u' ', 0, 0, QString::SectionSkipEmpty)).fileName();
    QStringList recorder;
    addOnce(recorder, meta(session, format::meta::kRecorderOrigin));
    if (const QString version = meta(session, format::meta::kFormatVersion); !version.isEmpty())
        recorder.push_back(QStringLiteral("session format %1").arg(version));
    if (const QString cupti = meta(session, format::meta::kCuptiApiVersion); !cupti.isEmpty())
        recorder.push_back(QStringLiteral("CUPTI API %1").arg(cupti));
    addOnce(recorder, meta(session, format::meta::kSymbolizer));
    const QFileInfo file(summary[QStringLiteral("File")]);
    std::vector<std::pair<QString, QString>> facts = {
        {QStringLiteral("Program"), program.isEmpty() ? QStringLiteral("(unknown)") : program},
        {QStringLiteral("Command"), command},
        {QStringLiteral("Host"), summary[QStringLiteral("Host")]},
        {QStringLiteral("GPUs"), summary[QStringLiteral("GPUs")]},
        {QStringLiteral("Recorded"),
         (file.exists() ? file.lastModified().toString(QStringLiteral("yyyy-MM-dd HH:mm")) +
                              QStringLiteral(" (file date), ")
                        : QString()) +
             summary[QStringLiteral("Duration")] + QStringLiteral(" long")},
        {QStringLiteral("Recorder"), recorder.isEmpty() ? QStringLiteral("(not recorded)")
                                                        : recorder.join(QStringLiteral(", "))},
        {QStringLiteral("Session file"), summary[QStringLiteral("File")]},
        {QStringLiteral("Report"),
         QStringLiteral("Stallscope %1, %2")
             .arg(QCoreApplication::applicationVersion(),
                  QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")))},
    };
    return facts;
}

// Findings on one line (or one GPU site) are one section.
QString siteKey(const model::Insight& insight) {
    if (insight.site.hasLocation())
        return text(insight.site.file) + u':' + QString::number(insight.site.line);
    return text(insight.site.label());
}

// The source gutter's label: blocked time and sync count of the line's sites.
std::map<int, QString> gutterCosts(const model::InsightReport& report, const std::string& file) {
    std::map<int, std::pair<int64_t, int64_t>> sums;
    for (const model::SyncSiteStats& site : report.sites)
        if (site.site.hasLocation() && site.site.file == file) {
            auto& [blocked, count] = sums[int(site.site.line)];
            blocked += site.blockedNs;
            count += site.count;
        }
    std::map<int, QString> costs;
    for (const auto& [line, sum] : sums)
        costs[line] =
            QStringLiteral("%1 ×%2").arg(text(model::formatDuration(sum.first))).arg(sum.second);
    return costs;
}

void addExcerpt(ReportFinding& finding, const model::Insight& insight,
                const model::InsightReport& report, const SourceResolver* resolver) {
    if (!insight.site.hasLocation())
        return;
    const QString path = text(insight.site.file);
    const SourceLookup lookup = resolver ? resolver->find(path) : SourceLookup{};
    if (!lookup.found()) {
        finding.sourceMissing = QStringLiteral("The session holds no copy of %1.").arg(path);
        return;
    }
    const QStringList lines = lookup.text.split(u'\n');
    const int line = int(insight.site.line);
    if (line < 1 || line > lines.size()) {
        finding.sourceMissing = QStringLiteral("%1 has no line %2.").arg(path).arg(line);
        return;
    }
    ReportSourceExcerpt excerpt;
    excerpt.path = path;
    excerpt.guiltyLine = excerpt.guiltyLast = line;
    excerpt.firstLine = std::max(1, line - kExcerptContext);
    const int last = std::min(int(lines.size()), line + kExcerptContext);
    for (int i = excerpt.firstLine; i <= last; ++i) {
        QString code = lines[i - 1];
        code.remove(u'\r');
        excerpt.lines.push_back(code);
    }
    for (const auto& [costLine, cost] : gutterCosts(report, insight.site.file))
        if (costLine >= excerpt.firstLine && costLine <= last)
            excerpt.costs[costLine] = cost;
    finding.source = std::move(excerpt);
}

QString savingText(const model::Insight& insight) {
    const QString kind =
        insight.simulated ? QStringLiteral("simulated saving") : QStringLiteral("estimated saving");
    // Per step when the window is the loop (its share is then of a step).
    if (insight.stepSavingsNs > 0)
        return QStringLiteral("%1 %2 a step (%3 of a step)")
            .arg(kind, text(model::formatDuration(insight.stepSavingsNs)),
                 text(model::formatShare(insight.share)));
    return QStringLiteral("%1 %2 (%3 of the window)")
        .arg(kind, text(model::formatDuration(insight.savingsNs)),
             text(model::formatShare(insight.share)));
}

std::vector<ReportSection> findingSections(const model::InsightReport& report,
                                           const SourceResolver* resolver) {
    std::vector<ReportSection> sections;
    std::map<QString, size_t> sectionOfSite;
    std::map<QString, size_t> sectionOfFix;
    for (const model::Insight& insight : report.insights) { // largest saving first
        const QString key = siteKey(insight);
        auto [found, isNew] = sectionOfSite.try_emplace(key, sections.size());
        if (isNew) {
            ReportSection section;
            section.anchor = QStringLiteral("finding-%1").arg(sections.size() + 1);
            section.level = 2;
            section.title = shownTitle(insight.title);
            ReportBlock block;
            block.kind = ReportBlock::Kind::Finding;
            ReportFinding& finding = block.finding;
            finding.severity = QString::fromLatin1(model::severityName(insight.severity).data());
            finding.colour = InsightCard::severityColor(insight.severity);
            finding.title = shownTitle(insight.title);
            finding.where = shownTitle(insight.site.label());
            finding.saving = savingText(insight);
            addExcerpt(finding, insight, report, resolver);
            section.blocks.push_back(std::move(block));
            sections.push_back(std::move(section));
        }
        ReportFinding& finding = sections[found->second].blocks.front().finding;
        QStringList rules =
            finding.rules.isEmpty() ? QStringList() : finding.rules.split(QStringLiteral(", "));
        for (const model::InsightRule rule :
             insight.rules.empty() ? std::vector<model::InsightRule>{insight.rule} : insight.rules)
            addOnce(rules, QString::fromLatin1(model::ruleId(rule).data()));
        finding.rules = rules.join(QStringLiteral(", "));
        addOnce(finding.evidence, text(insight.evidence));
        // A fix that an earlier section gave already (the same advice for every plain sync site)
        // is printed once; later sections point back to it.
        const QString fix = text(model::fixText(insight));
        const auto [first, firstTime] = sectionOfFix.try_emplace(fix, found->second);
        if (firstTime || first->second == found->second)
            addOnce(finding.fixes, fix);
        else
            addOnce(finding.fixes, QStringLiteral("the same as for finding %1, \u201c%2\u201d.")
                                       .arg(first->second + 1)
                                       .arg(sections[first->second].title));
        if (!isNew) // a second finding on the line: its own saving, said once
            addOnce(finding.evidence,
                    text(insight.title) + QStringLiteral(": ") + savingText(insight));
    }
    return sections;
}

ReportBlock paragraph(const QString& value, ReportBlock::Kind kind = ReportBlock::Kind::Paragraph) {
    ReportBlock block;
    block.kind = kind;
    block.text = value;
    return block;
}

ReportSection summarySection(const model::Session& session, const model::InsightReport& report) {
    const model::SessionStatistics& stats = report.summary;
    ReportSection section{QStringLiteral("summary"), QStringLiteral("Summary"), 1, {}};
    section.blocks.push_back(paragraph(
        QStringLiteral("In the analysis window (%1): GPU busy %2 · host blocked %3 in %4 syncs")
            .arg(text(model::windowDescription(stats)),
                 text(model::formatShare(stats.gpuBusyShare)), text(model::hostBlockedText(stats)),
                 text(model::formatCount(stats.hostSyncCount))),
        ReportBlock::Kind::Emphasis));
    if (stats.startupNs > 0)
        section.blocks.push_back(paragraph(
            QStringLiteral("Start-up before the window (%1) counts in none of the shares.")
                .arg(text(model::formatDuration(stats.startupNs)))));
    if (!report.assumptions.empty())
        section.blocks.push_back(paragraph(
            QStringLiteral("Every saving below assumes: %1.").arg(text(report.assumptions))));
    ReportBlock facts;
    facts.kind = ReportBlock::Kind::Facts;
    for (const model::DeviceBusy& device : stats.devices)
        facts.facts.emplace_back(text(device.label),
                                 QStringLiteral("busy %1 of the window")
                                     .arg(text(model::formatShare(device.busyShare))));
    for (const auto& [label, value] : model::SessionSummary::of(session).rows)
        if (label != "File" && label != "Command" && label != "Host" && label != "GPUs")
            facts.facts.emplace_back(text(label), text(value));
    section.blocks.push_back(std::move(facts));
    return section;
}

ReportSection topTables(const model::InsightReport& report, bool sites) {
    const model::SessionStatistics& stats = report.summary;
    ReportBlock block;
    block.kind = ReportBlock::Kind::Table;
    ReportTable& table = block.table;
    table.nameColumn = 0;
    if (sites) {
        table.header = {QStringLiteral("Site"), QStringLiteral("Syncs"), QStringLiteral("Blocked"),
                        QStringLiteral("Median"), QStringLiteral("Window share")};
        table.columns = {0.0, 0.56, 0.67, 0.78, 0.89};
        for (int32_t index : stats.topSites) {
            const model::SyncSiteStats& site = report.sites[size_t(index)];
            table.rows.push_back({text(site.site.label()), text(model::formatCount(site.count)),
                                  text(model::formatDuration(site.blockedNs)),
                                  text(model::formatDuration(site.medianBlockedNs)),
                                  text(model::siteShareText(site))});
        }
        return {QStringLiteral("top-sites"), QStringLiteral("Top sync sites"), 1, {block}};
    }
    table.header = {QStringLiteral("Kernel"), QStringLiteral("Count"), QStringLiteral("Total"),
                    QStringLiteral("Longest"), QStringLiteral("GPU share")};
    table.columns = {0.0, 0.56, 0.67, 0.78, 0.89};
    for (const model::KernelStats& kernel : stats.topKernels)
        table.rows.push_back(
            {kernelDisplayName(kernel.name), text(model::formatCount(kernel.count)),
             text(model::formatDuration(kernel.totalNs)), text(model::formatDuration(kernel.maxNs)),
             text(model::formatShare(kernel.shareOfGpu))});
    return {QStringLiteral("top-kernels"), QStringLiteral("Top kernels"), 1, {block}};
}

} // namespace

ReportDocument buildReportDocument(const std::shared_ptr<const model::Session>& session,
                                   const std::shared_ptr<const model::SessionDatabase>& database,
                                   const model::InsightReport& report, bool pictures) {
    ReportDocument doc;
    doc.title = QStringLiteral("Stallscope report");
    doc.subtitle = QFileInfo(text(session->path)).fileName();
    doc.titleFacts = titleFacts(*session);
    doc.sections.push_back(summarySection(*session, report));

    SourceResolver resolver;
    if (database)
        resolver.setDatabase(database);
    std::vector<ReportSection> findings = findingSections(report, database ? &resolver : nullptr);
    ReportSection chapter{QStringLiteral("findings"), QStringLiteral("Findings"), 1, {}};
    chapter.blocks.push_back(paragraph(
        findings.empty()
            ? QStringLiteral("No findings: no sync, copy or launch pattern worth fixing was "
                             "detected.")
            : QStringLiteral(
                  "%1 finding sites, largest saving first; several rules on one "
                  "line are one section, and a fix shared by several sites is written out once.")
                  .arg(findings.size())));
    doc.sections.push_back(std::move(chapter));
    for (ReportSection& section : findings)
        doc.sections.push_back(std::move(section));

    if (pictures)
        if (const std::optional<StalledStep> step = stalledStep(session, report)) {
            ReportSection section{QStringLiteral("stalled-step"),
                                  QStringLiteral("A stalled step, before and after the fix"),
                                  1,
                                  {}};
            const model::Insight& insight = report.insights[size_t(step->insightIndex)];
            section.blocks.push_back(
                paragraph(QStringLiteral("%1 of the finding \"%2\" (%3), zoomed to %4.")
                              .arg(step->isRecordedStep ? QStringLiteral("One step")
                                                        : QStringLiteral("One iteration"),
                                   text(insight.title), text(insight.site.label()),
                                   text(model::formatDuration(step->endNs - step->startNs)))));
            ReportBlock block;
            block.kind = ReportBlock::Kind::Pictures;
            block.pictures = step->pictures;
            section.blocks.push_back(std::move(block));
            doc.sections.push_back(std::move(section));
        }
    doc.sections.push_back(topTables(report, true));
    doc.sections.push_back(topTables(report, false));
    if (!report.warning.empty()) {
        ReportSection notes{QStringLiteral("notes"), QStringLiteral("Notes"), 1, {}};
        notes.blocks.push_back(paragraph(text(report.warning), ReportBlock::Kind::Note));
        doc.sections.push_back(std::move(notes));
    }
    return doc;
}

} // namespace stallscope::views
