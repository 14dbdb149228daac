#include "recorder/recorder_config.h"

#include <cstdlib>
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

// "8M", "512k", "1048576".
uint64_t parseSize(const char* value, uint64_t fallback) {
    char* end = nullptr;
    unsigned long long n = strtoull(value, &end, 10);
    if (end == value)
        return fallback;
    switch (*end) {
    case 'k':
    case 'K':
        n <<= 10;
        break;
    case 'm':
    case 'M':
        n <<= 20;
        break;
    case 'g':
    case 'G':
        n <<= 30;
        break;
    default:
        break;
    }
    return n;
}

} // namespace

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
            kernels = memcpy = memset = syncs = runtimeApi = driverApi = nvtx = cudaEvents = false;
        }
        first = false;
        if (item == "all") {
            kernels = memcpy = memset = syncs = runtimeApi = driverApi = nvtx = enable;
        } else if (item == "kernel" || item == "kernels") {
            kernels = enable;
        } else if (item == "memcpy") {
            memcpy = enable;
        } else if (item == "memset") {
            memset = enable;
        } else if (item == "sync" || item == "syncs") {
            syncs = enable;
        } else if (item == "runtime") {
            runtimeApi = enable;
        } else if (item == "driver") {
            driverApi = enable;
        } else if (item == "api") {
            runtimeApi = driverApi = enable;
        } else if (item == "nvtx") {
            nvtx = enable;
        } else if (item == "events") {
            cudaEvents = enable;
        } else {
            ok = false;
            if (warnings)
                *warnings += "unknown kind '" + item + "' in STALLSCOPE_KINDS; ";
        }
    }
    return ok;
}

RecorderConfig RecorderConfig::fromEnvironment(std::string* warnings) {
    RecorderConfig config;
    if (const char* v = env("STALLSCOPE_OUTPUT"))
        config.outputPattern = v;
    if (const char* v = env("STALLSCOPE_KINDS"))
        config.applyKinds(v, warnings);
    if (const char* v = env("STALLSCOPE_STACKS"))
        config.stacks = parseBool(v, true);
    if (const char* v = env("STALLSCOPE_PYTHON"))
        config.pythonFrames = parseBool(v, true);
    if (const char* v = env("STALLSCOPE_STACK_DEPTH")) {
        int depth = atoi(v);
        config.stackDepth = depth < 1 ? 1 : depth > 96 ? 96 : depth;
    }
    if (const char* v = env("STALLSCOPE_BUFFER_SIZE")) {
        uint64_t bytes = parseSize(v, config.bufferBytes);
        config.bufferBytes = bytes < (64u << 10)      ? (64u << 10)
                             : bytes > (256ull << 20) ? (256ull << 20)
                                                      : bytes;
    }
    if (const char* v = env("STALLSCOPE_FLUSH_MS")) {
        int ms = atoi(v);
        config.flushMs = ms < 10 ? 10 : ms > 1000 ? 1000 : ms; // commits at least once a second
    }
    if (const char* v = env("STALLSCOPE_ROOT_PID"))
        config.rootPid = atoll(v);
    if (const char* v = env("STALLSCOPE_DISABLE"))
        config.disabled = parseBool(v, false);
    return config;
}

std::string RecorderConfig::outputPathFor(int64_t pid) const {
    std::string path;
    std::string pidText = std::to_string(pid);
    bool hadPid = false;
    for (size_t i = 0; i < outputPattern.size(); ++i) {
        if (outputPattern[i] == '%' && i + 1 < outputPattern.size() &&
            outputPattern[i + 1] == 'p') {
            path += pidText;
            hadPid = true;
            ++i;
        } else {
            path += outputPattern[i];
        }
    }
    if (!hadPid && rootPid != 0 && rootPid != pid) {
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
    return out;
}

} // namespace stallscope::recorder
