// Which files make a run (issue 16): the sessions of a run folder (one per rank, as
// `stallscope-record -- torchrun …` writes them) or several session files given together, in
// rank order; files that are no session, partial recordings, a second copy of a rank and
// recordings of another launch are left out or refused, each named with why. RunMerger
// (run_merge.h) opens what this finds.
#pragma once

#include <string>
#include <vector>

namespace stallscope::model {

struct RunFiles {
    std::vector<std::string> sessions; // to merge, in rank order (then by name)
    std::vector<std::string> skipped;  // "name: why", one per file left out
};

// True for a folder that holds `*.stallscope` files.
bool looksLikeRun(const std::string& path);
// The sessions a folder (or a list of session files) stands for, in rank order; files that are
// no session, partial recordings and a second copy of a rank are skipped and named.
RunFiles findRunFiles(const std::vector<std::string>& paths, std::string* error);

} // namespace stallscope::model
