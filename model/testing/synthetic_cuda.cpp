#include "model/testing/synthetic_cuda.h"

#include <algorithm>
#include <cstdio>

namespace stallscope::model::synthetic {

using namespace stallscope::format;

int64_t SyntheticCuda::apiName(int64_t cbid) {
    auto [it, added] = m_apiNames.try_emplace(cbid, 0);
    if (added)
        it->second = intern(apiNameText(cbid));
    return it->second;
}

std::vector<KernelSpec> SyntheticCuda::makeKernels(std::span<const char* const> names, int count,
                                                   int64_t minNs, int64_t maxNs) {
    std::vector<KernelSpec> kernels;
    for (int i = 0; i < count; ++i) {
        KernelSpec k;
        k.nameId = intern(
            names[static_cast<size_t>(m_random.range(0, static_cast<int64_t>(names.size()) - 1))]);
        k.durationNs = m_random.range(minNs, maxNs);
        k.grid = static_cast<int32_t>(m_random.range(1, 4096));
        k.block = static_cast<int32_t>(32 * m_random.range(1, 16));
        k.registers = static_cast<int32_t>(m_random.range(16, 128));
        k.sharedBytes = static_cast<int32_t>(1024 * m_random.range(0, 48));
        kernels.push_back(k);
    }
    return kernels;
}

void SyntheticCuda::setUpModules(ProcessState& process, int64_t startNs) {
    // Addresses look like a Linux x86-64 process; native frames stay unsymbolized (address +
    // module), as the recorder writes them before symbolization.
    static constexpr const char* paths[] = {
        "/usr/bin/python3.11",
        "/usr/local/cuda/lib64/libcudart.so.12",
        "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so",
        "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_python.so",
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
    };
    int64_t base = 0x7f3a00000000 + m_random.range(0, 0xfff) * 0x1000000;
    for (size_t i = 0; i < std::size(paths); ++i) {
        ModuleRow row;
        row.processId = process.rowId;
        row.path = paths[i];
        row.loadBias = i == 0 ? 0x55d400000000 : base;
        row.startAddress = row.loadBias + 0x1000;
        row.endAddress = row.startAddress + 0x4000000;
        char buildId[41];
        std::snprintf(buildId, sizeof buildId, "%016llx%016llx%08x",
                      static_cast<unsigned long long>(m_random.next()),
                      static_cast<unsigned long long>(m_random.next()),
                      static_cast<unsigned>(m_random.next() & 0xffffffffu));
        row.buildId = buildId;
        row.loadedNs = startNs;
        process.moduleIds.push_back(m_writer.addModule(row));
        process.moduleStarts.push_back(row.startAddress);
        if (i > 0)
            base += 0x10000000;
    }
}

int64_t SyntheticCuda::intern(std::string_view text) {
    return m_writer.internString(text);
}

int64_t SyntheticCuda::addH100(int64_t processRowId, int32_t deviceIndex) {
    DeviceRow device;
    device.processId = processRowId;
    device.deviceIndex = deviceIndex;
    device.name = "NVIDIA H100 80GB HBM3";
    char uuid[64];
    const uint64_t a = m_random.next(), b = m_random.next();
    std::snprintf(uuid, sizeof uuid, "GPU-%08x-%04x-%04x-%04x-%012llx",
                  static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xffff),
                  static_cast<unsigned>(a & 0xffff), static_cast<unsigned>(b >> 48),
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    device.uuid = uuid;
    device.computeMajor = 9;
    device.computeMinor = 0;
    device.smCount = 132;
    device.globalMemoryBytes = 85'520'809'984;
    return m_writer.addDevice(device);
}

int64_t SyntheticCuda::stackFor(ProcessState& process, Site site) {
    if (process.stackIds[site])
        return process.stackIds[site];
    const SiteSpec& spec = kSites[site];
    std::vector<int64_t> frames;
    auto native = [&](size_t module, int64_t offset) {
        auto [it, added] = process.nativeFrames.try_emplace({static_cast<int64_t>(module), offset});
        if (added) {
            FrameRow frame;
            frame.kind = FrameKind::Native;
            frame.address = process.moduleStarts[module] + offset;
            frame.moduleId = process.moduleIds[module];
            it->second = m_writer.addFrame(frame);
        }
        frames.push_back(it->second);
    };
    auto python = [&](const char* file, int line, const char* function) {
        frames.push_back(m_sampler.frameId(process.python, {file, line, function}));
    };
    // Innermost first: driver, runtime entry point (one per API), the torch operator and its
    // Python binding (one per site), the interpreter loop (shared), then the Python frames.
    const int64_t kind = static_cast<int64_t>(spec.kind);
    native(4, 0x2a1f30 + kind * 0x1c0);
    native(1, 0x4b8e0 + kind * 0x310);
    native(2, 0x1f3a2c0 + site * 0x2d8);
    native(3, 0x8c4e10 + site * 0x150);
    native(0, 0x1a5b40);
    python(spec.file, spec.line, spec.function);
    for (const PyFrame& caller : pythonCallers(spec))
        python(caller.file, caller.line, caller.function);

    uint64_t hash = 0xcbf29ce484222325ULL; // FNV-1a over the frame ids: the interning key
    for (int64_t id : frames) {
        hash ^= static_cast<uint64_t>(id);
        hash *= 0x100000001b3ULL;
    }
    process.stackIds[site] = m_writer.addStack(hash, frames);
    return process.stackIds[site];
}

int64_t SyntheticCuda::apiCall(ProcessState& process, ThreadState& thread, int64_t cbid,
                               int64_t startNs, int64_t endNs) {
    ApiCallRow row;
    row.threadId = thread.rowId;
    row.cbid = cbid;
    row.nameId = apiName(cbid);
    row.startNs = startNs;
    row.endNs = endNs;
    row.correlationId = process.nextCorrelation++;
    m_writer.addApiCall(row);
    thread.nowNs = endNs;
    return row.correlationId;
}

void SyntheticCuda::launch(ProcessState& process, ThreadState& thread, StreamState& stream,
                           const KernelSpec& kernel) {
    const int64_t start = thread.nowNs + m_random.range(3'000, 12'000); // Python + dispatcher
    int64_t end = start + m_random.range(2'500, 6'000);
    // With the launch queue full the call blocks until the GPU has caught up.
    if (stream.freeNs - start > m_maxRunAheadNs)
        end = stream.freeNs - m_maxRunAheadNs + m_random.range(2'500, 6'000);
    KernelRow row;
    row.correlationId = apiCall(process, thread, kCbidLaunchKernel, start, end);
    row.streamId = stream.rowId;
    row.nameId = kernel.nameId;
    row.startNs =
        std::max(start + m_random.range(3'000, 8'000), stream.freeNs + m_random.range(800, 2'500));
    row.endNs = row.startNs + m_random.jitter(kernel.durationNs, 10);
    row.grid[0] = kernel.grid;
    row.block[0] = kernel.block;
    row.registersPerThread = kernel.registers;
    row.dynamicSharedBytes = kernel.sharedBytes;
    m_writer.addKernel(row);
    ++thread.launches;
    stream.freeNs = row.endNs;
}

int64_t SyntheticCuda::copy(ProcessState& process, ThreadState& thread, StreamState& stream,
                            const CopySpec& spec) {
    const int64_t start = thread.nowNs + m_random.range(2'000, 8'000);
    MemcpyRow row;
    row.streamId = stream.rowId;
    row.startNs =
        std::max(start + m_random.range(3'000, 7'000), stream.freeNs + m_random.range(800, 2'500));
    row.endNs = row.startNs + 1'500 + spec.bytes * 1'000 / spec.bytesPerUs;
    row.copyKind = spec.kind;
    row.srcKind = spec.src;
    row.dstKind = spec.dst;
    row.bytes = spec.bytes;
    row.isAsync = !spec.blockingSite;
    // cudaMemcpy returns when the copy is done; cudaMemcpyAsync once it is queued.
    const int64_t end = spec.blockingSite ? row.endNs + m_random.range(1'500, 4'000)
                                          : start + m_random.range(3'000, 7'000);
    row.correlationId =
        apiCall(process, thread, spec.blockingSite ? kCbidMemcpy : kCbidMemcpyAsync, start, end);
    m_writer.addMemcpy(row);
    stream.freeNs = row.endNs;
    if (spec.blockingSite)
        addSync(process, thread, *spec.blockingSite, start, end, row.correlationId, stream.rowId,
                std::nullopt);
    return row.endNs;
}

int64_t SyntheticCuda::recordEvent(ProcessState& process, ThreadState& thread,
                                   StreamState& stream) {
    const int64_t start = thread.nowNs + m_random.range(1'000, 4'000);
    CudaEventRow row;
    row.correlationId =
        apiCall(process, thread, kCbidEventRecord, start, start + m_random.range(1'500, 3'000));
    row.streamId = stream.rowId;
    row.eventId = process.nextEventId++;
    row.recordNs = start;
    m_writer.addCudaEvent(row);
    return row.eventId;
}

void SyntheticCuda::waitEvent(ProcessState& process, ThreadState& thread, StreamState& stream,
                              int64_t eventId, int64_t readyNs, Site site) {
    const int64_t start = thread.nowNs + m_random.range(1'000, 4'000);
    const int64_t end = start + m_random.range(1'500, 3'000);
    const int64_t correlation = apiCall(process, thread, kCbidStreamWaitEvent, start, end);
    addSync(process, thread, site, start, end, correlation, stream.rowId, eventId);
    // The host does not wait; the stream's next operation does.
    stream.freeNs = std::max(stream.freeNs, readyNs);
}

void SyntheticCuda::blockingSync(ProcessState& process, ThreadState& thread, Site site,
                                 int64_t cbid, int64_t untilNs, std::optional<int64_t> streamRowId,
                                 std::optional<int64_t> eventId) {
    const int64_t start = thread.nowNs + m_random.range(2'000, 8'000);
    // Returns a few microseconds after the awaited work ends (or at once if it already has).
    const int64_t end =
        std::max(start + m_random.range(1'500, 4'000), untilNs + m_random.range(2'000, 6'000));
    const int64_t correlation = apiCall(process, thread, cbid, start, end);
    addSync(process, thread, site, start, end, correlation, streamRowId, eventId);
}

void SyntheticCuda::addSync(ProcessState& process, ThreadState& thread, Site site, int64_t startNs,
                            int64_t endNs, int64_t correlationId,
                            std::optional<int64_t> streamRowId, std::optional<int64_t> eventId) {
    SyncRow row;
    row.threadId = thread.rowId;
    row.kind = kSites[site].kind;
    row.startNs = startNs;
    row.endNs = endNs;
    row.correlationId = correlationId;
    row.streamId = streamRowId;
    row.eventId = eventId;
    row.stackId = stackFor(process, site);
    m_writer.addSync(row);
    ++m_stats.syncsByKind[static_cast<int>(row.kind)];
    SiteTally& tally = m_tallies[site];
    ++tally.count;
    tally.blockedNs += endNs - startNs;
    if (thread.lastLaunchesAtSite[site] >= 0)
        tally.gaps.push_back(thread.launches - thread.lastLaunchesAtSite[site]);
    thread.lastLaunchesAtSite[site] = thread.launches;
}

void SyntheticCuda::addRange(ThreadState& thread, int64_t nameId, int64_t startNs, int64_t endNs,
                             int depth) {
    m_writer.addRange({thread.rowId, RangeKind::NvtxPushPop, nameId, startNs, endNs, depth});
}

void SyntheticCuda::finishProcess(ProcessState& process) {
    ThreadState& main = process.threads[0];
    StreamState& compute = process.devices.front().streams[0];
    blockingSync(process, main, kSiteFinal, kCbidStreamSynchronize, compute.freeNs, compute.rowId,
                 std::nullopt);
    int64_t endNs = 0;
    for (const ThreadState& thread : process.threads)
        endNs = std::max(endNs, thread.nowNs);
    for (const DeviceState& device : process.devices)
        for (const StreamState& stream : device.streams)
            endNs = std::max(endNs, stream.freeNs);
    endNs += 40'000'000; // interpreter shutdown
    m_writer.finishProcess(process.rowId, endNs, 0);
    m_stats.endNs = std::max(m_stats.endNs, endNs);
}

void SyntheticCuda::tallySites() {
    for (int site = 0; site < kSiteCount; ++site) {
        SiteTally& tally = m_tallies[site];
        if (tally.count == 0)
            continue;
        const SiteSpec& spec = kSites[site];
        SyntheticSyncSite out;
        out.file = spec.file;
        out.line = spec.line;
        out.function = spec.function;
        out.code = spec.code;
        out.kind = spec.kind;
        out.count = tally.count;
        out.blockedNs = tally.blockedNs;
        if (!tally.gaps.empty()) {
            auto middle = tally.gaps.begin() + static_cast<std::ptrdiff_t>(tally.gaps.size() / 2);
            std::nth_element(tally.gaps.begin(), middle, tally.gaps.end());
            out.medianLaunchesBetween = *middle;
        }
        out.inLoop = spec.kind != SyncKind::StreamWaitEvent && out.count >= 3 &&
                     out.medianLaunchesBetween >= 3;
        m_stats.inLoopSyncSites += out.inLoop ? 1 : 0;
        m_stats.sites.push_back(std::move(out));
    }
}

void SyntheticCuda::startSession() {
    m_rangeForward = intern("forward");
    m_rangeBackward = intern("backward");
    m_rangeOptimizer = intern("optimizer");
    m_stats.startNs = 1'000'000'000'000 + m_random.range(0, 999'999'999); // ~17 min after boot
}

void SyntheticCuda::commitWhenDue(int64_t& lastCommit) {
    if (m_writer.eventCount() - lastCommit < m_options.commitEvery)
        return;
    m_writer.commit();
    ++m_stats.commits;
    lastCommit = m_writer.eventCount();
}

bool SyntheticCuda::finishRun(int64_t steps) {
    m_stats.stepsPerProcess = steps;
    for (ProcessState& process : m_processes)
        finishProcess(process);
    tallySites();
    return m_writer.ok();
}

} // namespace stallscope::model::synthetic
