// The human-readable form of an insight report (`stallscope --insights FILE`): the summary, top
// sync sites and kernels, then every insight with its evidence, fix and estimated savings.
#pragma once

#include "model/analysis/insight.h"

#include <string>

namespace stallscope::model {

// "1.30 ms a step of 4.31 ms (30.2 %; 260 ms over 200 steps)" when the window is steps (the
// loop), else the saving over the window ("260 ms").
std::string savingText(const Insight& insight, const SessionStatistics& summary);
std::string insightReportToText(const InsightReport& report);
// The summary's window with its times from the session start, as on the timeline's ruler:
// "active (first kernel to last GPU work) 2.500 s – 7.100 s (4.600 s)".
std::string windowDescription(const SessionStatistics& summary);
// Whose the summary's host-blocked share is: "a rank" or "a process" when several processes
// blocked (SessionStatistics::hostBlockedShare is then the mean one's), "" otherwise.
std::string hostBlockedWhose(const SessionStatistics& summary);
// The share with whose it is: "42.0 %", or "42.0 % a rank".
std::string hostBlockedText(const SessionStatistics& summary);

} // namespace stallscope::model
