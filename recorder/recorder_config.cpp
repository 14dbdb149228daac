#include "recorder/recorder_config.h"

#include "format/keyword_table.h"
#include "recorder/gpu_power_sampler.h"
#include "recorder/launch_environment.h"
#include "recorder/python_sampler.h"
#include "recorder/recorder_calibration.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <string_view>

namespace stallscope::recorder {

namespace {

const char* env(const char* name) {
    const char* value = getenv(name);
    return value && *value ? value : nullptr;
}

bool parseBool(const char* value, bool fallback) {
    std::string_view v(value);
    if (v == "1" || v == "on" || v == "yes" || v == "true")
        return true;
    if (v == "0" || v == "off" || v == "no" || v == "false")
        return false;
    return fallback;
}

// A sampler's rate from variable `name`: a count of samples a second up to `maxHz`, or a false
// value ("0", "off") for none; anything else leaves *hz as it was and is reported.
void readRate(const char* name, int maxHz, int* hz, std::string* warnings) {
    const char* v = env(name);
    if (!v)
        return;
    char* end = nullptr;
    const long rate = strtol(v, &end, 10);
    if (!parseBool(v, true))
        *hz = 0;
    else if (end != v && *end == '\0' && rate >= 0)
        *hz = int(std::min<long>(rate, maxHz));
    else if (warnings)
        *warnings += std::string(name) + "='" + v + "' is not a rate; ";
}

// What one word of STALLSCOPE_KINDS switches: a set of the config's kind flags.
using KindFlag = bool RecorderConfig::*;
constexpr KindFlag kKindFlags[] = {
    &RecorderConfig::kernels, &RecorderConfig::memcpy,     &RecorderConfig::memset,
    &RecorderConfig::syncs,   &RecorderConfig::runtimeApi, &RecorderConfig::driverApi,
    &RecorderConfig::nvtx,    &RecorderConfig::cudaEvents, &RecorderConfig::syncRecords};
// Bit i stands for kKindFlags[i].
enum KindBits : unsigned {
    kKernels = 1u << 0,
    kMemcpy = 1u << 1,
    kMemset = 1u << 2,
    kSyncs = 1u << 3,
    kRuntime = 1u << 4,
    kDriver = 1u << 5,
    kNvtx = 1u << 6,
    kEvents = 1u << 7,
    kSyncRecords = 1u << 8,
    kEveryKind = (1u << std::size(kKindFlags)) - 1,
};
constexpr format::Keyword<unsigned> kKindWords[] = {
    {"all", kEveryKind & ~kEvents & ~kSyncRecords}, // these records stay opt-in
    {"kernel", kKernels},
    {"kernels", kKernels},
    {"memcpy", kMemcpy},
    {"memset", kMemset},
    {"sync", kSyncs},
    {"syncs", kSyncs},
    {"runtime", kRuntime},
    {"driver", kDriver},
    {"api", kRuntime | kDriver},
    {"nvtx", kNvtx},
    {"events", kEvents},
    {"sync-records", kSyncRecords},
};

void setKinds(RecorderConfig& config, unsigned kinds, bool enable) {
    for (size_t bit = 0; bit < std::size(kKindFlags); ++bit) {
        if (kinds & (1u << bit))
            config.*kKindFlags[bit] = enable;
    }
}

} // namespace

std::optional<uint64_t> parseByteSize(std::string_view text) {
    size_t digits = 0;
    uint64_t n = 0;
    for (; digits < text.size() && text[digits] >= '0' && text[digits] <= '9'; ++digits) {
        if (n > (UINT64_MAX - 9) / 10)
            return std::nullopt;
        n = n * 10 + uint64_t(text[digits] - '0');
    }
    if (digits == 0 || text.size() > digits + 1)
        return std::nullopt;
    int shift = 0;
    if (text.size() == digits + 1) {
        switch (text[digits]) {
        case 'k':
        case 'K':
            shift = 10;
            break;
        case 'm':
        case 'M':
            shift = 20;
            break;
        case 'g':
        case 'G':
            shift = 30;
            break;
        default:
            return std::nullopt;
        }
    }
    if (n > (UINT64_MAX >> shift))
        return std::nullopt;
    return n << shift;
}

bool RecorderConfig::applyKinds(const std::string& list, std::string* warnings) {
    bool ok = true;
    size_t position = 0;
    bool first = true;
    while (position <= list.size()) {
        size_t comma = list.find(',', position);
        std::string item = list.substr(position, comma == std::string::npos ? std::string::npos
                                                                            : comma - position);
        position = comma == std::string::npos ? list.size() + 1 : comma + 1;
        if (item.empty())
            continue;
        bool enable = true;
        if (item[0] == '-') {
            enable = false;
            item.erase(0, 1);
        } else if (first) {
            // A positive list names exactly what to record.
            setKinds(*this, kEveryKind, false);
        }
        first = false;
        const unsigned kinds = format::lookupKeyword<kKindWords>(item, 0u);
        if (kinds) {
            setKinds(*this, kinds, enable);
        } else {
            ok = false;
            if (warnings)
                *warnings += "unknown kind '" + item + "' in STALLSCOPE_KINDS; ";
        }
    }
    return ok;
}

std::string RecorderConfig::kindWords() {
    std::string words;
    for (const auto& word : kKindWords)
        words += (words.empty() ? "" : ",") + std::string(word.word);
    return words;
}

bool RecorderConfig::applyMode(std::string_view mode) {
    if (!isRecorderMode(mode))
        return false;
    const RecorderConfig defaults;
    light = mode == "light";
    // What the light mode leaves out costs the most on launch-bound loops: an API record per
    // launch (bench/RESULTS.md, issue 19); and the Python sampler's ticks. The GPU's power samples
    // stay: they cost nothing measurable, and the savings need them (the power cap).
    runtimeApi = light ? false : defaults.runtimeApi;
    driverApi = light ? false : defaults.driverApi;
    sampleHz = light ? 0 : defaults.sampleHz;
    return true;
}

RecorderConfig RecorderConfig::fromEnvironment(std::string* warnings) {
    RecorderConfig config;
    if (const char* v = env("STALLSCOPE_OUTPUT"))
        config.outputPattern = v;
    if (const char* v = env("STALLSCOPE_MODE"); v && !config.applyMode(v) && warnings)
        *warnings += std::string("STALLSCOPE_MODE='") + v + "' is neither full nor light; ";
    if (const char* v = env("STALLSCOPE_KINDS"))
        config.applyKinds(v, warnings);
    if (const char* v = env("STALLSCOPE_STACKS"))
        config.stacks = parseBool(v, true);
    if (const char* v = env("STALLSCOPE_PYTHON"))
        config.pythonFrames = parseBool(v, true);
    readRate("STALLSCOPE_SAMPLE_HZ", PythonSampler::kMaxHz, &config.sampleHz, warnings);
    readRate("STALLSCOPE_GPU_POWER_HZ", GpuPowerSampler::kMaxHz, &config.gpuPowerHz, warnings);
    if (const char* v = env("STALLSCOPE_STACK_DEPTH"))
        config.stackDepth = std::clamp(atoi(v), kMinStackDepth, kMaxStackDepth);
    if (const char* v = env("STALLSCOPE_BUFFER_SIZE")) {
        if (const std::optional<uint64_t> bytes = parseByteSize(v))
            config.bufferBytes = std::clamp(*bytes, kMinBufferBytes, kMaxBufferBytes);
        else if (warnings)
            *warnings += std::string("STALLSCOPE_BUFFER_SIZE='") + v + "' is not a size; ";
    }
    if (const char* v = env("STALLSCOPE_FLUSH_MS"))
        config.flushMs = std::clamp(atoi(v), kMinFlushMs, kMaxFlushMs);
    if (const char* v = env("STALLSCOPE_ROOT_PID"))
        config.rootPid = atoll(v);
    if (const char* v = env("STALLSCOPE_CALIBRATION")) {
        if (const auto overheads = RecorderCalibration::parseEnvironmentValue(v)) {
            config.restartOverheadNs = overheads->restartNs;
            config.launchOverheadNs = overheads->launchNs;
            config.deepQueueDelayNs = overheads->deepQueueDelayNs;
        } else if (warnings) {
            *warnings += std::string("STALLSCOPE_CALIBRATION='") + v + "' is not three costs; ";
        }
    }
    if (const char* v = env("STALLSCOPE_DISABLE"))
        config.disabled = parseBool(v, false);
    return config;
}

std::string RecorderConfig::outputPathFor(int64_t pid, std::optional<int64_t> rank) const {
    bool hadPid = false;
    const bool wantsHost = outputPattern.find("%h") != std::string::npos;
    std::string path = expandOutputPattern(
        outputPattern, {pid, rank, wantsHost ? currentHostName() : std::string()}, &hadPid);
    if (!hadPid && rootPid != 0 && rootPid != pid) {
        const std::string pidText = std::to_string(pid);
        size_t slash = path.rfind('/');
        size_t dot = path.rfind('.');
        if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
            path += "." + pidText;
        else
            path.insert(dot, "." + pidText);
    }
    return path;
}

std::string RecorderConfig::describeKinds() const {
    std::string out;
    auto add = [&](bool on, const char* name) {
        if (on)
            out += out.empty() ? name : std::string(",") + name;
    };
    add(kernels, "kernel");
    add(memcpy, "memcpy");
    add(memset, "memset");
    add(syncs, "sync");
    add(runtimeApi, "runtime");
    add(driverApi, "driver");
    add(nvtx, "nvtx");
    add(cudaEvents, "events");
    add(syncRecords, "sync-records");
    return out;
}

} // namespace stallscope::recorder
