// SyntheticSampler: the Python sampler's samples of synthetic sessions
// (SyntheticOptions::sampleHz): a sample at every tick of the rate's grid inside planted host work,
// written as the recorder writes them — runs of consecutive ticks with one stack.
// The generators call it where they plant host work.
#pragma once

#include "format/session_writer.h"
#include "model/testing/synthetic_catalog.h"
#include "model/testing/synthetic_options.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

namespace stallscope::model::synthetic {

class SyntheticSampler {
public:
    SyntheticSampler(format::SessionWriter& writer, const SyntheticOptions& options,
                     SyntheticStats& stats)
        : m_writer(writer), m_options(options), m_stats(stats) {}

    // One process's Python frame rows, one per (file, line, function) — the syncs' stacks use
    // them too — and its sample stacks.
    struct PythonFrames {
        std::map<std::tuple<std::string, int, std::string>, int64_t> frameIds;
        std::array<int64_t, kSampleSiteCount> sampleStackIds{};
    };
    // The frame row of `frame` in `process`, written the first time.
    int64_t frameId(PythonFrames& process, const PyFrame& frame);

    // The samples of thread `threadRowId` in [startNs, endNs) at `site`; `ticks` counts the
    // thread's samples so far (sampleSecondLineEvery).
    void addSamples(PythonFrames& process, int64_t threadRowId, int64_t& ticks, SampleSite site,
                    int64_t startNs, int64_t endNs);

private:
    format::SessionWriter& m_writer;
    const SyntheticOptions& m_options;
    SyntheticStats& m_stats;
};

} // namespace stallscope::model::synthetic
