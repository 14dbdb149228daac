// One rank's pass of the fleet summary: its file streamed through the queries of fleet_sql.h —
// steps, GPU busy time, host-blocking syncs by site, collective arrivals — into a RankSummary, its
// top sites and its arrivals' place in the spill. What it holds while it reads is bounded by
// FleetOptions (quantiles, sites tracked, collective names), never by the file's events.
#pragma once

#include "model/fleet/collective_arrivals.h"
#include "model/fleet/fleet_types.h"
#include "model/fleet/rank_files.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::model::fleet {

// A site's numbers on one rank.
struct RankSite {
    std::string file;
    int64_t line = 0;
    int64_t blockedNs = 0;
    int64_t syncs = 0;
};

struct RankRead {
    RankSummary summary;
    std::vector<RankSite> topSites; // its sitesPerRank largest, by blocked time
    // The blocked time of the largest site left out of topSites (0 when none was): no site missing
    // from the list blocked this rank longer.
    int64_t siteCutoffNs = 0;
    std::vector<ArrivalSegment> arrivals;
    std::vector<std::string> notes;
    size_t peakBytes = 0;     // the most its structures held at once while it was read
    size_t keptBytes() const; // what stays once it is read
};

// Reads `file`; false with *error (without the file's name) when a query fails.
bool readRank(const RankFile& file, const FleetOptions& options, int32_t spillIndex,
              ArrivalSpill& spill, CollectiveNames& names, RankRead* read, std::string* error);

} // namespace stallscope::model::fleet
