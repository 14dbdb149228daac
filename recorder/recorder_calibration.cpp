#include "recorder/recorder_calibration.h"

#include "format/output_file.h"
#include "recorder/capture_variables.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stallscope::recorder {

namespace {

// The probe runs for about a second; a GPU that hangs it must not hang stallscope-record.
constexpr int kProbeTimeoutSeconds = 60;
// Cache lines kept (one per boot, probe and settings seen).
constexpr size_t kMaxCacheLines = 32;

// A stop (Ctrl-C, the record dialog's Stop) while the probe runs: the probe is killed, its folder
// removed, and then the signal takes its default course, as it would have without the probe.
volatile sig_atomic_t g_probeStopSignal = 0;

class StopSignals {
public:
    StopSignals() {
        struct sigaction action {};
        action.sa_handler = [](int signal) { g_probeStopSignal = signal; };
        sigemptyset(&action.sa_mask);
        g_probeStopSignal = 0;
        for (int i = 0; i < kCount; ++i)
            sigaction(kSignals[i], &action, &m_previous[i]);
    }
    ~StopSignals() {
        for (int i = 0; i < kCount; ++i)
            sigaction(kSignals[i], &m_previous[i], nullptr);
    }
    // After the handlers are restored: the stop's own effect.
    static void raiseStop() {
        if (g_probeStopSignal != 0)
            raise(g_probeStopSignal);
    }

private:
    static constexpr int kCount = 3;
    static constexpr int kSignals[kCount] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction m_previous[kCount] {};
};

bool parseCount(std::string_view text, int64_t* value) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
    return error == std::errc() && end == text.data() + text.size() && *value >= 0;
}

// recorded - plain; 0 when the recorder made it no slower, or when the difference is more than a
// recorder could cost (the measurement was disturbed).
int64_t overhead(int64_t plain, int64_t recorded) {
    const int64_t added = recorded - plain;
    return added > 0 && added <= RecorderCalibration::kMaxOverheadNs ? added : 0;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// What makes a measurement valid: this boot, this probe and library, these settings.
std::string cacheKey(const std::string& probe, const std::vector<std::string>& env) {
    std::string key = readFile("/proc/sys/kernel/random/boot_id");
    key.erase(std::remove(key.begin(), key.end(), '\n'), key.end());
    struct stat info {};
    if (stat(probe.c_str(), &info) == 0)
        key += "|" + probe + ":" + std::to_string(info.st_size) + ":" +
               std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec);
    std::vector<std::string> settings(env.begin(), env.end());
    std::sort(settings.begin(), settings.end());
    for (const std::string& entry : settings)
        key += "|" + entry;
    std::replace(key.begin(), key.end(), '\t', ' ');
    std::replace(key.begin(), key.end(), '\n', ' ');
    return key;
}

std::string cachePath() {
    if (const char* xdg = getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        return std::string(xdg) + "/stallscope/calibration";
    if (const char* home = getenv("HOME"); home && *home == '/')
        return std::string(home) + "/.cache/stallscope/calibration";
    return {};
}

// A cache line is "<key>\t<the probe's line>": the probe's line when `line` is `key`'s.
std::optional<std::string_view> entryOf(std::string_view line, const std::string& key) {
    if (line.size() <= key.size() || line.compare(0, key.size(), key) != 0 ||
        line[key.size()] != '\t')
        return std::nullopt;
    return line.substr(key.size() + 1);
}

std::optional<RecorderCalibration> fromCache(const std::string& path, const std::string& key) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        if (const std::optional<std::string_view> entry = entryOf(line, key))
            return RecorderCalibration::parse(*entry);
    return std::nullopt;
}

// The entry for `key` first, then up to kMaxCacheLines - 1 others (a cache that cannot be written
// only costs the next recording a probe run).
void toCache(const std::string& path, const std::string& key, const RecorderCalibration& value) {
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
    std::string content = key + "\t" + value.format() + "\n";
    size_t lines = 1;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line) && lines < kMaxCacheLines;)
        if (!entryOf(line, key)) {
            content += line + "\n";
            ++lines;
        }
    std::string error;
    format::OutputPolicy policy;
    policy.replaceExisting = true;
    format::writeOutputFile(path, content, policy, &error);
}

// Runs the probe with `env` added, its output into `directory`; false with *why on failure.
bool runProbe(const std::string& probe, const std::vector<std::string>& env,
              const std::string& directory, std::string* why) {
    const std::string output = directory + "/result";
    const std::string session = directory + "/probe.stallscope";
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child < 0) {
        *why = std::string("fork: ") + strerror(errno);
        return false;
    }
    if (child == 0) {
        // Never outlives stallscope-record (the getppid() check closes the race of a parent that
        // died before prctl).
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        // The probe's own messages (CUDA's, its recorder's) would read as the target's.
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        // It measures the recorder while it records: capture control, from the user's own
        // environment too, would leave nothing to measure.
        for (const std::string_view name : kCaptureVariables)
            unsetenv(std::string(name).c_str());
        for (const std::string& entry : env)
            putenv(const_cast<char*>(entry.c_str()));
        unsetenv("CUDA_INJECTION64_PATH");
        unsetenv("NVTX_INJECTION64_PATH");
        execl(probe.c_str(), probe.c_str(), "--output", output.c_str(), "--session",
              session.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    int status = 0;
    const time_t deadline = time(nullptr) + kProbeTimeoutSeconds;
    for (;;) {
        const pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child)
            break;
        if (done < 0 && errno != EINTR) {
            *why = std::string("waitpid: ") + strerror(errno);
            return false;
        }
        if (time(nullptr) > deadline || g_probeStopSignal != 0) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            *why = g_probeStopSignal != 0
                       ? "stopped by signal " + std::to_string(g_probeStopSignal)
                       : "it did not finish in " + std::to_string(kProbeTimeoutSeconds) + " s";
            return false;
        }
        usleep(20'000);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        *why = WIFEXITED(status) ? "it exited with status " + std::to_string(WEXITSTATUS(status)) +
                                       " (no GPU, or CUDA did not start)"
                                 : "it died of signal " + std::to_string(WTERMSIG(status));
        return false;
    }
    return true;
}

} // namespace

int64_t RecorderCalibration::restartOverheadNs() const {
    return overhead(restartPlainNs, restartRecordedNs);
}

int64_t RecorderCalibration::launchOverheadNs() const {
    return overhead(launchPlainNs, launchRecordedNs);
}

int64_t RecorderCalibration::deepQueueDelayNs() const {
    return overhead(queueShallowGapNs, queueDeepGapNs);
}

std::optional<RecorderCalibration> RecorderCalibration::parse(std::string_view line) {
    while (!line.empty() && (line.back() == '\n' || line.back() == ' '))
        line.remove_suffix(1);
    RecorderCalibration c;
    const std::pair<std::string_view, int64_t*> fields[] = {
        {"restart_plain_ns", &c.restartPlainNs},
        {"restart_recorded_ns", &c.restartRecordedNs},
        {"launch_plain_ns", &c.launchPlainNs},
        {"launch_recorded_ns", &c.launchRecordedNs},
        {"queue_shallow_gap_ns", &c.queueShallowGapNs},
        {"queue_deep_gap_ns", &c.queueDeepGapNs}};
    for (const auto& [name, value] : fields) {
        const size_t space = line.find(' ');
        const std::string_view field = line.substr(0, space);
        const size_t equals = field.find('=');
        if (equals == std::string_view::npos || field.substr(0, equals) != name ||
            !parseCount(field.substr(equals + 1), value) || *value > 1'000'000'000)
            return std::nullopt;
        line = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    }
    if (!line.empty())
        return std::nullopt;
    return c;
}

std::string RecorderCalibration::format() const {
    return "restart_plain_ns=" + std::to_string(restartPlainNs) +
           " restart_recorded_ns=" + std::to_string(restartRecordedNs) +
           " launch_plain_ns=" + std::to_string(launchPlainNs) +
           " launch_recorded_ns=" + std::to_string(launchRecordedNs) +
           " queue_shallow_gap_ns=" + std::to_string(queueShallowGapNs) +
           " queue_deep_gap_ns=" + std::to_string(queueDeepGapNs);
}

std::string RecorderCalibration::environmentValue() const {
    return std::to_string(restartOverheadNs()) + "," + std::to_string(launchOverheadNs()) + "," +
           std::to_string(deepQueueDelayNs());
}

std::optional<RecorderCalibration::Overheads>
RecorderCalibration::parseEnvironmentValue(std::string_view value) {
    Overheads o;
    for (int64_t* field : {&o.restartNs, &o.launchNs, &o.deepQueueDelayNs}) {
        const size_t comma = field == &o.deepQueueDelayNs ? value.size() : value.find(',');
        if (comma == std::string_view::npos || !parseCount(value.substr(0, comma), field) ||
            *field > kMaxOverheadNs)
            return std::nullopt;
        value = value.substr(std::min(value.size(), comma + 1));
    }
    return o;
}

std::optional<RecorderCalibration> RecorderCalibration::obtain(const std::string& probe,
                                                               const std::vector<std::string>& env,
                                                               std::string* why) {
    if (access(probe.c_str(), X_OK) != 0) {
        *why = probe + " not found";
        return std::nullopt;
    }
    const std::string key = cacheKey(probe, env);
    const std::string cache = cachePath();
    if (!cache.empty())
        if (std::optional<RecorderCalibration> cached = fromCache(cache, key))
            return cached;
    const char* temporary = getenv("TMPDIR");
    std::string directory = std::string(temporary && *temporary == '/' ? temporary : "/tmp") +
                            "/stallscope-calibrate.XXXXXX";
    if (!mkdtemp(directory.data())) {
        *why = std::string("mkdtemp: ") + strerror(errno);
        return std::nullopt;
    }
    std::optional<RecorderCalibration> measured;
    {
        const StopSignals stops;
        if (runProbe(probe, env, directory, why)) {
            measured = parse(readFile(std::string(directory) + "/result"));
            if (!measured)
                *why = "its output was not understood";
        }
        std::error_code ignored;
        std::filesystem::remove_all(directory, ignored);
    }
    StopSignals::raiseStop();
    if (measured && !cache.empty())
        toCache(cache, key, *measured);
    return measured;
}

} // namespace stallscope::recorder
