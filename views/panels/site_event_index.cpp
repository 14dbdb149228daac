#include "views/panels/site_event_index.h"

#include "model/analysis/gpu_activity.h"
#include "model/analysis/sync_sites.h"
#include "model/session/session.h"
#include "model/session/session_database.h"

namespace stallscope::views {

bool sameSite(const model::SourceSite& a, const model::SourceSite& b) {
    return a.line == b.line && a.language == b.language && a.file == b.file &&
           a.function == b.function;
}

bool spansContain(const model::EventSpans& spans, const model::EventRef& event) {
    for (const model::EventSpan& span : spans)
        if (span.first.kind == event.kind && span.first.lane == event.lane &&
            span.first.depth == event.depth && event.index >= span.first.index &&
            event.index - span.first.index < span.count)
            return true;
    return false;
}

SiteEventIndex::SiteEventIndex() = default;
SiteEventIndex::~SiteEventIndex() = default;

void SiteEventIndex::reset(std::shared_ptr<const model::Session> session,
                           std::shared_ptr<const model::SessionDatabase> database,
                           std::shared_ptr<const model::InsightReport> report) {
    m_session = std::move(session);
    m_database = std::move(database);
    m_report = std::move(report);
    m_sites.reset();
    m_gpu.reset();
    m_fallbackFailed = false;
}

model::EventSpans SiteEventIndex::eventsFor(const model::SourceSite& site) {
    if (m_report)
        for (const model::Insight& insight : m_report->insights)
            if (insight.rule == model::InsightRule::SyncAttribution && insight.events &&
                sameSite(insight.site, site))
                return *insight.events;
    if (!m_sites && !buildFallback())
        return {};
    for (size_t i = 0; i < m_sites->siteCount(); ++i)
        if (sameSite(m_sites->stats()[i].site, site))
            return *m_sites->spansOf(int32_t(i));
    return {};
}

std::optional<model::SourceSite> SiteEventIndex::siteOf(const model::EventRef& sync) {
    if (sync.kind != model::EventKind::Sync || !m_session || !sync.isIn(*m_session))
        return std::nullopt;
    // The report's sites first: no attribution to run for the syncs of its findings.
    if (m_report)
        for (const model::Insight& insight : m_report->insights)
            if (insight.siteIndex >= 0 && insight.events && spansContain(*insight.events, sync))
                return insight.site;
    if (!m_sites && !buildFallback())
        return std::nullopt;
    const int32_t site = m_sites->siteOf(sync.lane, sync.index);
    if (site < 0)
        return std::nullopt;
    return m_sites->stats()[size_t(site)].site;
}

bool SiteEventIndex::buildFallback() {
    if (m_fallbackFailed || !m_session || !m_database)
        return false;
    auto gpu = std::make_unique<model::GpuActivity>();
    auto sites = std::make_unique<model::SyncSites>();
    const model::InsightThresholds thresholds;
    std::string warning;
    if (!gpu->build(*m_session, nullptr) ||
        !sites->build(*m_session, *m_database, *gpu, thresholds, nullptr, &warning)) {
        m_fallbackFailed = true;
        return false;
    }
    m_gpu = std::move(gpu); // SyncSites keeps a pointer to it
    m_sites = std::move(sites);
    return true;
}

} // namespace stallscope::views
