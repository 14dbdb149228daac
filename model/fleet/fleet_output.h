// The fleet summary as people and programs read it: aligned text (`stallscope --summary RUN/`)
// and JSON (`--json`), both documented in docs/fleet.md.
#pragma once

#include "model/fleet/fleet_summary.h"

#include <QByteArray>

#include <string>

namespace stallscope::model::fleet {

std::string fleetSummaryToText(const FleetSummary& summary);
// UTF-8 JSON ending in a newline: {"format", "version", "path", "ranks": [...], "collectives":
// {...}, "sites": [...], "sites_exact", "notes": [...]}; times in nanoseconds.
QByteArray fleetSummaryToJson(const FleetSummary& summary);

} // namespace stallscope::model::fleet
