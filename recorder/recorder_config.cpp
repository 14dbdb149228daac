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

constexpr std::string_view kNvtxRangePrefix = "nvtx:";

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// Reads variable `name` with `apply` (a CaptureSettings::apply*); a problem is reported.
void readCaptureSetting(CaptureSettings& settings, std::string_view name,
                        std::string (CaptureSettings::*apply)(std::string_view),
                        std::string* warnings) {
    const char* value = env(std::string(name).c_str());
    if (!value)
        return;
    CaptureSettings changed = settings;
    if (const std::string why = (changed.*apply)(value); !why.empty()) {
        if (warnings)
            *warnings += std::string(name) + "='" + value + "' " + why + "; ignored; ";
        return;
    }
    settings = changed;
}

} // namespace

std::optional<int64_t> parseSeconds(std::string_view text) {
    size_t i = 0;
    int64_t whole = 0;
    for (; i < text.size() && isDigit(text[i]); ++i) {
        whole = whole * 10 + (text[i] - '0');
        if (whole > kMaxCaptureSeconds)
            return std::nullopt;
    }
    if (i == 0)
        return std::nullopt;
    int64_t fraction = 0;
    if (i < text.size()) {
        if (text[i] != '.' || i + 1 == text.size() || text.size() - i - 1 > 9)
            return std::nullopt;
        int64_t scale = kNsPerSecond;
        for (++i; i < text.size(); ++i) {
            if (!isDigit(text[i]))
                return std::nullopt;
            scale /= 10;
            fraction += (text[i] - '0') * scale;
        }
    }
    const int64_t ns = whole * kNsPerSecond + fraction;
    return ns <= kMaxCaptureNs ? std::optional<int64_t>(ns) : std::nullopt;
}

std::string secondsText(int64_t ns) {
    std::string text = std::to_string(ns / kNsPerSecond);
    if (const int64_t fraction = ns % kNsPerSecond; fraction != 0) {
        std::string digits = std::to_string(fraction);
        digits.insert(0, 9 - digits.size(), '0');
        digits.erase(digits.find_last_not_of('0') + 1);
        text += "." + digits;
    }
    return text;
}

std::string CaptureSettings::rangeText() const {
    switch (range) {
    case Range::ProfilerApi:
        return "cuda-profiler-api";
    case Range::Nvtx:
        return std::string(kNvtxRangePrefix) + nvtxName;
    case Range::None:
        break;
    }
    return "none";
}

std::vector<std::string> CaptureSettings::environment() const {
    std::vector<std::string> entries;
    auto add = [&entries](std::string_view name, const std::string& value) {
        entries.push_back(std::string(name) + "=" + value);
    };
    if (range != Range::None)
        add(kCaptureRangeVariable, rangeText());
    if (rangeEnd != RangeEnd::Default)
        add(kCaptureRangeEndVariable, rangeEndText());
    if (delayNs > 0)
        add(kDelayVariable, secondsText(delayNs));
    if (durationNs > 0)
        add(kDurationVariable, secondsText(durationNs));
    if (hasSteps())
        add(kCaptureStepsVariable, stepsText());
    if (ringNs > 0)
        add(kRingVariable, secondsText(ringNs));
    if (slowStepFactor > 0)
        add(kSlowStepVariable, slowStepText());
    return entries;
}

bool CaptureSettings::isSettingEntry(std::string_view entry) {
    const std::string_view name = entry.substr(0, entry.find('='));
    return std::find(std::begin(kCaptureVariables), std::end(kCaptureVariables), name) !=
           std::end(kCaptureVariables);
}

std::string CaptureSettings::applyDelay(std::string_view text) {
    const std::optional<int64_t> ns = parseSeconds(text);
    if (!ns)
        return "is not a number of seconds in 0.." + std::to_string(kMaxCaptureSeconds) +
               " (digits, at most 9 decimals)";
    delayNs = *ns;
    return {};
}

std::string CaptureSettings::applyDuration(std::string_view text) {
    const std::optional<int64_t> ns = parseSeconds(text);
    if (!ns || *ns < kMinCaptureDurationNs)
        return "is not a number of seconds in " + secondsText(kMinCaptureDurationNs) + ".." +
               std::to_string(kMaxCaptureSeconds) + " (digits, at most 9 decimals)";
    durationNs = *ns;
    return {};
}

std::string CaptureSettings::applyRange(std::string_view text) {
    if (text == "none") {
        range = Range::None;
    } else if (text == "cuda-profiler-api" || text == "cudaProfilerApi") { // nsys's spelling too
        range = Range::ProfilerApi;
    } else if (text.substr(0, kNvtxRangePrefix.size()) == kNvtxRangePrefix &&
               text.size() > kNvtxRangePrefix.size() &&
               text.size() - kNvtxRangePrefix.size() <= kMaxNvtxCaptureNameBytes) {
        range = Range::Nvtx;
        nvtxName = std::string(text.substr(kNvtxRangePrefix.size()));
        return {};
    } else {
        return "is not cuda-profiler-api, nvtx:NAME (NAME 1.." +
               std::to_string(kMaxNvtxCaptureNameBytes) + " bytes) or none";
    }
    nvtxName.clear();
    return {};
}

std::string CaptureSettings::applyRangeEnd(std::string_view text) {
    if (text == "stop")
        rangeEnd = RangeEnd::Stop;
    else if (text == "repeat")
        rangeEnd = RangeEnd::Repeat;
    else
        return "is neither stop (the first range) nor repeat (every range)";
    return {};
}

std::string CaptureSettings::stepsText() const {
    return hasSteps() ? std::to_string(firstStep) + "-" + std::to_string(lastStep) : std::string();
}

std::string CaptureSettings::applySteps(std::string_view text) {
    // Digits only, no sign and no leading zero: "A-B" or "A" (that step alone).
    auto step = [](std::string_view digits) -> std::optional<int64_t> {
        if (digits.empty() || digits.size() > 10 || digits[0] == '0')
            return std::nullopt;
        int64_t n = 0;
        for (char c : digits) {
            if (!isDigit(c))
                return std::nullopt;
            n = n * 10 + (c - '0');
        }
        return n <= kMaxCaptureStep ? std::optional<int64_t>(n) : std::nullopt;
    };
    const size_t dash = text.find('-');
    const std::optional<int64_t> first = step(text.substr(0, dash));
    const std::optional<int64_t> last =
        dash == std::string_view::npos ? first : step(text.substr(dash + 1));
    if (!first || !last || *last < *first)
        return "is not A-B or A, steps counted from 1 (A <= B <= " +
               std::to_string(kMaxCaptureStep) + ")";
    firstStep = *first;
    lastStep = *last;
    return {};
}

std::string CaptureSettings::applyRing(std::string_view text) {
    const std::optional<int64_t> ns = parseSeconds(text);
    if (!ns || *ns < kMinRingNs || *ns > kMaxRingSeconds * kNsPerSecond)
        return "is not a number of seconds in " + secondsText(kMinRingNs) + ".." +
               std::to_string(kMaxRingSeconds) + " (digits, at most 9 decimals)";
    ringNs = *ns;
    return {};
}

std::string CaptureSettings::applySlowStepTrigger(std::string_view text) {
    // A factor reads like seconds: digits with at most 9 decimals.
    const std::optional<int64_t> scaled = parseSeconds(text);
    const double factor = scaled ? double(*scaled) / kNsPerSecond : 0;
    if (!scaled || factor < kMinSlowStepFactor || factor > kMaxSlowStepFactor)
        return "is not a factor in " + secondsText(int64_t(kMinSlowStepFactor * kNsPerSecond)) +
               ".." + secondsText(int64_t(kMaxSlowStepFactor * kNsPerSecond)) +
               " (digits, at most 9 decimals)";
    slowStepFactor = factor;
    return {};
}

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
    readCaptureSetting(config.capture, kCaptureRangeVariable, &CaptureSettings::applyRange,
                       warnings);
    readCaptureSetting(config.capture, kCaptureStepsVariable, &CaptureSettings::applySteps,
                       warnings);
    readCaptureSetting(config.capture, kCaptureRangeEndVariable, &CaptureSettings::applyRangeEnd,
                       warnings);
    readCaptureSetting(config.capture, kDelayVariable, &CaptureSettings::applyDelay, warnings);
    readCaptureSetting(config.capture, kDurationVariable, &CaptureSettings::applyDuration,
                       warnings);
    readCaptureSetting(config.capture, kRingVariable, &CaptureSettings::applyRing, warnings);
    readCaptureSetting(config.capture, kSlowStepVariable, &CaptureSettings::applySlowStepTrigger,
                       warnings);
    if (const char* v = env("STALLSCOPE_DISABLE"))
        config.disabled = parseBool(v, false);
    if (const char* v = env("STALLSCOPE_OVERHEAD_PROBE"))
        config.overheadProbe = parseBool(v, false);
    if (const char* v = env(RecorderExperiments::kVariable.data()))
        config.experiments.apply(v, warnings);
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
