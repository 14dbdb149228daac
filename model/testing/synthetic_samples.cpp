#include "model/testing/synthetic_samples.h"

namespace stallscope::model::synthetic {

using namespace stallscope::format;

int64_t SyntheticSampler::frameId(PythonFrames& process, const PyFrame& frame) {
    auto [it, added] = process.frameIds.try_emplace({frame.file, frame.line, frame.function});
    if (added) {
        FrameRow row;
        row.kind = FrameKind::Python;
        row.file = frame.file;
        row.function = frame.function;
        row.line = frame.line;
        it->second = m_writer.addFrame(row);
    }
    return it->second;
}

void SyntheticSampler::addSamples(PythonFrames& process, int64_t threadRowId, int64_t& ticks,
                                  SampleSite site, int64_t startNs, int64_t endNs) {
    if (m_options.sampleHz <= 0 || endNs <= startNs)
        return;
    const int64_t periodNs = 1'000'000'000 / m_options.sampleHz;
    auto stackOf = [&](SampleSite at) {
        int64_t& id = process.sampleStackIds[at];
        if (id == 0) {
            std::vector<int64_t> frames;
            uint64_t hash = 0x5a3d'0000'0000'0000ULL + static_cast<uint64_t>(at);
            for (const PyFrame& frame : kSampleStacks[at]) {
                frames.push_back(frameId(process, frame));
                hash = (hash ^ static_cast<uint64_t>(frames.back())) * 0x100000001b3ULL;
            }
            id = m_writer.addStack(hash, frames);
        }
        return id;
    };
    HostSampleRow run;
    run.samples = 0;
    auto flush = [&] {
        if (run.samples > 0)
            m_writer.addHostSample(run);
        run.samples = 0;
    };
    const int every = m_options.sampleSecondLineEvery;
    for (int64_t tick = (startNs + periodNs - 1) / periodNs; tick * periodNs < endNs; ++tick) {
        const int64_t at = tick * periodNs;
        const bool second = every > 0 && ++ticks % every == 0;
        const int64_t stack = stackOf(second ? kSampleCollateSecond : site);
        ++m_stats.hostSamples;
        if (second)
            ++m_stats.secondLineSamples;
        if (run.samples > 0 && run.stackId == stack) {
            run.endNs = at;
            ++run.samples;
            continue;
        }
        flush();
        run = {threadRowId, at, at, 1, stack};
    }
    flush();
}

} // namespace stallscope::model::synthetic
