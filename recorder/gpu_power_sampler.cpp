#include "recorder/gpu_power_sampler.h"

#include "format/session_meta.h"
#include "format/session_writer.h"

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <type_traits>
#include <vector>

namespace stallscope::recorder {

namespace {

// The few NVML entry points used, declared here (the toolkit ships no nvml.h); their ABI is
// stable since NVML 2 (the driver's libnvidia-ml.so.1).
using NvmlDevice = void*;
struct NvmlUtilization {
    unsigned gpu, memory;
};
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

struct Nvml {
    void* library = nullptr;
    int (*init)() = nullptr;
    int (*shutdown)() = nullptr;
    int (*handleByUuid)(const char*, NvmlDevice*) = nullptr;
    int (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
    int (*reasons)(NvmlDevice, unsigned long long*) = nullptr;
    int (*clock)(NvmlDevice, int, unsigned*) = nullptr;
    int (*power)(NvmlDevice, unsigned*) = nullptr;
    int (*limit)(NvmlDevice, unsigned*) = nullptr;

    // Empty when all resolved, else why not.
    std::string load() {
        library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library)
            return "libnvidia-ml.so.1 not found";
        auto resolve = [this](auto& function, const char* name) {
            function =
                reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, name));
            return function != nullptr;
        };
        // Drivers before 535 name the reasons "throttle" reasons; the bits are the same.
        const bool reasonsFound = resolve(reasons, "nvmlDeviceGetCurrentClocksEventReasons") ||
                                  resolve(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
        if (!resolve(init, "nvmlInit_v2") || !resolve(shutdown, "nvmlShutdown") ||
            !resolve(handleByUuid, "nvmlDeviceGetHandleByUUID") ||
            !resolve(utilization, "nvmlDeviceGetUtilizationRates") || !reasonsFound ||
            !resolve(clock, "nvmlDeviceGetClockInfo") ||
            !resolve(power, "nvmlDeviceGetPowerUsage") ||
            !resolve(limit, "nvmlDeviceGetEnforcedPowerLimit"))
            return "libnvidia-ml.so.1 lacks an entry point";
        return init() == kNvmlSuccess ? std::string() : "nvmlInit failed";
    }
};

// NVML's name of a CUDA device ("GPU-" and the UUID's 16 bytes as 8-4-4-4-12 hex digits).
std::string nvmlUuid(const CUuuid& uuid) {
    std::string text = "GPU-";
    for (int i = 0; i < 16; ++i) {
        char hex[3];
        snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
        text += hex;
        if (i == 3 || i == 5 || i == 7 || i == 9)
            text += '-';
    }
    return text;
}

// The NVML handles of the devices this process works on: the CUDA-visible ones whose primary
// context is active (PyTorch's, the runtime's), or all CUDA-visible ones while none is (a program
// of its own contexts). Empty while CUDA is not initialized yet (the recorder starts inside
// cuInit). Each rank of an 8-GPU job so polls its own GPU, not all eight. The driver library is
// the one the program loaded; nothing is loaded here.
std::vector<NvmlDevice> usedDevices(const Nvml& nvml) {
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!cuda)
        return {};
    auto getCount = reinterpret_cast<CUresult (*)(int*)>(dlsym(cuda, "cuDeviceGetCount"));
    auto get = reinterpret_cast<CUresult (*)(CUdevice*, int)>(dlsym(cuda, "cuDeviceGet"));
    auto getUuid =
        reinterpret_cast<CUresult (*)(CUuuid*, CUdevice)>(dlsym(cuda, "cuDeviceGetUuid_v2"));
    auto primaryState = reinterpret_cast<CUresult (*)(CUdevice, unsigned*, int*)>(
        dlsym(cuda, "cuDevicePrimaryCtxGetState"));
    std::vector<NvmlDevice> visible, active;
    int count = 0;
    if (getCount && get && getUuid && getCount(&count) == CUDA_SUCCESS)
        for (int i = 0; i < count; ++i) {
            CUdevice device = 0;
            CUuuid uuid{};
            NvmlDevice handle = nullptr;
            if (get(&device, i) != CUDA_SUCCESS || getUuid(&uuid, device) != CUDA_SUCCESS ||
                nvml.handleByUuid(nvmlUuid(uuid).c_str(), &handle) != kNvmlSuccess)
                continue;
            visible.push_back(handle);
            unsigned flags = 0;
            int isActive = 0;
            if (primaryState && primaryState(device, &flags, &isActive) == CUDA_SUCCESS && isActive)
                active.push_back(handle);
        }
    dlclose(cuda);
    return active.empty() ? visible : active;
}

} // namespace

void GpuPowerSampler::count(Stats& stats, unsigned utilizationPercent, unsigned long long reasons,
                            unsigned smClockMhz, unsigned powerMilliwatt, unsigned limitMilliwatt,
                            bool steady) {
    ++stats.samples;
    if (limitMilliwatt > stats.powerLimitMilliwatt)
        stats.powerLimitMilliwatt = limitMilliwatt;
    if (powerMilliwatt > 0) {
        stats.minPowerMilliwatt = std::min(stats.minPowerMilliwatt, powerMilliwatt);
        if (steady && utilizationPercent > 0) {
            ++stats.steadySamples;
            stats.steadyPowerMilliwattSum += powerMilliwatt;
        }
    }
    if (utilizationPercent < kBusyUtilizationPercent)
        return;
    ++stats.busySamples;
    if (reasons & kPowerCapReasons)
        ++stats.busyPowerCapped;
    stats.busySmClockMhzSum += smClockMhz;
    stats.busyPowerMilliwattSum += powerMilliwatt;
}

void GpuPowerSampler::start(int hz) {
    if (hz <= 0 || m_thread.joinable())
        return;
    m_stop.store(false);
    m_status = "starting";
    m_thread = std::thread([this, hz] { run(std::min(hz, kMaxHz)); });
}

void GpuPowerSampler::stop() {
    m_stop.store(true);
    if (m_thread.joinable())
        m_thread.join();
}

void GpuPowerSampler::forgetAfterFork() {
    if (m_thread.joinable())
        new (&m_thread) std::thread(); // the parent's thread: not ours to join or detach here
    m_status = "off";
}

void GpuPowerSampler::run(int hz) {
    Nvml nvml;
    if (std::string why = nvml.load(); !why.empty()) {
        m_status = why;
        if (nvml.library)
            dlclose(nvml.library);
        return;
    }
    const auto period = std::chrono::microseconds(1'000'000 / hz);
    std::vector<NvmlDevice> devices;
    // Per device: since when every sample saw a kernel (none while the last one saw none).
    std::vector<std::pair<NvmlDevice, std::chrono::steady_clock::time_point>> busySince;
    auto next = std::chrono::steady_clock::now();
    for (int tick = 0; !m_stop.load(std::memory_order_relaxed); ++tick) {
        // Once a second (and until there are any): a context made meanwhile changes which.
        if (devices.empty() || tick % hz == 0)
            devices = usedDevices(nvml);
        const bool paused = m_paused.load(std::memory_order_relaxed);
        if (paused)
            busySince.clear(); // a GPU is steady again only a second after the pause
        for (NvmlDevice device : devices) {
            if (paused)
                break;
            NvmlUtilization utilization{};
            unsigned long long reasons = 0;
            unsigned clock = 0, power = 0, limit = 0;
            if (nvml.utilization(device, &utilization) != kNvmlSuccess ||
                nvml.reasons(device, &reasons) != kNvmlSuccess)
                continue;
            nvml.clock(device, kNvmlClockSm, &clock);
            nvml.power(device, &power);
            nvml.limit(device, &limit);
            const auto now = std::chrono::steady_clock::now();
            auto since =
                std::find_if(busySince.begin(), busySince.end(),
                             [device](const auto& entry) { return entry.first == device; });
            if (since == busySince.end())
                since = busySince.insert(busySince.end(), {device, now});
            if (utilization.gpu == 0)
                since->second = now;
            count(m_stats, utilization.gpu, reasons, clock, power, limit,
                  now - since->second >= kSteadyAfter);
        }
        // A late tick (the process was stopped, the machine busy) is not caught up in a burst.
        next = std::max(next + period, std::chrono::steady_clock::now());
        // Short sleeps, so stop() returns within a few milliseconds.
        while (!m_stop.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < next)
            std::this_thread::sleep_for(
                std::min<std::chrono::microseconds>(period, std::chrono::microseconds(5'000)));
    }
    m_status = devices.empty() ? "no CUDA device matched an NVML device" : "on";
    nvml.shutdown();
    dlclose(nvml.library);
}

void GpuPowerSampler::writeStats(format::SessionWriter& writer) const {
    namespace meta = format::meta;
    writer.setMeta(meta::kGpuPower, m_status);
    if (m_stats.samples == 0)
        return;
    writer.setMeta(meta::kGpuPowerSamples, std::to_string(m_stats.samples));
    writer.setMeta(meta::kGpuPowerBusySamples, std::to_string(m_stats.busySamples));
    writer.setMeta(meta::kGpuPowerCappedSamples, std::to_string(m_stats.busyPowerCapped));
    writer.setMeta(meta::kGpuPowerLimitW, std::to_string(m_stats.powerLimitMilliwatt / 1000));
    if (m_stats.minPowerMilliwatt != UINT32_MAX)
        writer.setMeta(meta::kGpuPowerMinW, std::to_string(m_stats.minPowerMilliwatt / 1000));
    writer.setMeta(meta::kGpuPowerSteadySamples, std::to_string(m_stats.steadySamples));
    if (m_stats.steadySamples > 0)
        writer.setMeta(meta::kGpuPowerSteadyW, std::to_string(m_stats.steadyPowerMilliwattSum /
                                                              m_stats.steadySamples / 1000));
    if (m_stats.busySamples > 0) {
        writer.setMeta(meta::kGpuPowerBusySmClockMhz,
                       std::to_string(m_stats.busySmClockMhzSum / m_stats.busySamples));
        writer.setMeta(meta::kGpuPowerBusyW,
                       std::to_string(m_stats.busyPowerMilliwattSum / m_stats.busySamples / 1000));
    }
}

} // namespace stallscope::recorder
