// What CI systems read: SARIF 2.1.0 (GitHub code scanning and editors show each result on its
// source line) and JUnit XML (one test case per finding or per compared site). Built from an
// insight report (`--insights --sarif/--junit`) or a comparison (`--compare ... --sarif/--junit`:
// the new and worse sites). docs/compare.md.
#pragma once

#include "model/analysis/insight.h"
#include "model/compare/session_compare.h"

#include <QByteArray>
#include <string>

namespace stallscope::model {

// The gate: findings (or new/worse sites) of this severity or above fail (exit 3, a failing
// JUnit test case). "high", "medium", "low"; nullopt for anything else.
std::optional<Severity> parseSeverity(std::string_view name);

// `baseDir`: paths under it are written relative to it (GitHub wants paths from the repository
// root, where CI runs); others stay absolute, as file:// URIs.
QByteArray insightsToSarif(const InsightReport& report, const std::string& baseDir);
QByteArray comparisonToSarif(const SessionComparison& comparison, const std::string& baseDir);

// Test cases fail at `failAt` or above (findings; new or worse sites).
QByteArray insightsToJUnit(const InsightReport& report, const std::string& sessionName,
                           Severity failAt);
QByteArray comparisonToJUnit(const SessionComparison& comparison, Severity failAt);

// Whether the gate fails: a finding at `failAt` or above; a new or worse site at `failAt` or
// above (by SiteComparison::severity()).
bool insightsFail(const InsightReport& report, Severity failAt);
bool comparisonFails(const SessionComparison& comparison, Severity failAt);

} // namespace stallscope::model
