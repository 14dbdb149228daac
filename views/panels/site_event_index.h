// SiteEventIndex: the syncs of a sync site as event spans, for the source gutter and the sync
// sites table. Takes them from the site's sync-attribution insight when the report has one (the
// top sites); for the others it builds model::SyncSites once, lazily, on the calling thread —
// the same attribution the engine used, so the two never disagree.
#pragma once

#include "model/analysis/insight.h"

#include <memory>
#include <optional>

namespace stallscope::model {
class Session;
class SessionDatabase;
class SyncSites;
class GpuActivity;
} // namespace stallscope::model

namespace stallscope::views {

class SiteEventIndex {
public:
    SiteEventIndex();
    ~SiteEventIndex();

    void reset(std::shared_ptr<const model::Session> session,
               std::shared_ptr<const model::SessionDatabase> database,
               std::shared_ptr<const model::InsightReport> report);
    // Spans of the site's host-blocking syncs; empty when unknown.
    model::EventSpans eventsFor(const model::SourceSite& site);
    // The site a host-blocking sync was attributed to; nullopt for other events and syncs.
    std::optional<model::SourceSite> siteOf(const model::EventRef& sync);

private:
    bool buildFallback();

    std::shared_ptr<const model::Session> m_session;
    std::shared_ptr<const model::SessionDatabase> m_database;
    std::shared_ptr<const model::InsightReport> m_report;
    std::unique_ptr<model::GpuActivity> m_gpu;
    std::unique_ptr<model::SyncSites> m_sites;
    bool m_fallbackFailed = false;
};

bool sameSite(const model::SourceSite& a, const model::SourceSite& b);
// Whether one of the spans holds `event`.
bool spansContain(const model::EventSpans& spans, const model::EventRef& event);

} // namespace stallscope::views
