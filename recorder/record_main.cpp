// stallscope-record: runs a program with the recorder injected and finalizes its session.
//   stallscope-record [options] -o run.stallscope -- CMD ARGS...
#include "format/command_line.h"
#include "format/path_remap.h"
#include "format/terminal_text.h"
#include "recorder/launch_environment.h"
#include "recorder/python_sampler.h"
#include "recorder/record_symbolize.h"
#include "recorder/record_usage.h"
#include "recorder/recorder_calibration.h"
#include "recorder/recorder_config.h"
#include "recorder/recording_output.h"
#include "recorder/session_finalizer.h"
#include "recorder/signal_names.h"
#include "recorder/target_runner.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

using stallscope::recorder::LaunchEnvironment;
using stallscope::recorder::PythonSampler;
using stallscope::recorder::range;
using stallscope::recorder::RecorderCalibration;
using stallscope::recorder::RecordingOutput;
using stallscope::recorder::recordUsage;
using stallscope::recorder::SessionFinalizer;
using stallscope::recorder::sizeText;
using stallscope::recorder::TargetRunner;

namespace {

// A usage error (status 2, as recordUsage() says): one line naming the option or variable, the
// value given and what it takes.
int refuse(const std::string& option, const std::string& value, const std::string& why) {
    fprintf(stderr, "stallscope-record: %s '%s' %s\n", option.c_str(),
            stallscope::format::terminalSafe(value, false).c_str(), why.c_str());
    return 2;
}

// `text` as a whole number in min..max (digits, a leading '-'); nullopt for anything else.
std::optional<long long> wholeNumber(const std::string& text, long long min, long long max) {
    const size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
    if (text.size() <= digits || !isdigit(static_cast<unsigned char>(text[digits])))
        return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const long long n = strtoll(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || n < min || n > max)
        return std::nullopt;
    return n;
}

// What is wrong with `value` for a number option of min..max ("" when nothing is).
std::string numberCheck(const std::string& value, long long min, long long max) {
    return wholeNumber(value, min, max) ? std::string()
                                        : "is not a whole number in " + range(min, max);
}

// The session could not be written or finished (recordUsage()).
constexpr int kExitSessionFailed = 125;

std::string directoryOf(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string absolute(const std::string& path) {
    if (!path.empty() && path[0] == '/')
        return path;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd)))
        return path;
    return std::string(cwd) + "/" + path;
}

// The folder of this program (stallscope-record), "" when unknown.
std::string ownDirectory() {
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return {};
    self[n] = '\0';
    return directoryOf(self);
}

std::string findLibrary(const std::string& explicitPath) {
    if (!explicitPath.empty())
        return access(explicitPath.c_str(), R_OK) == 0 ? absolute(explicitPath) : std::string();
    const std::string dir = ownDirectory();
    if (dir.empty())
        return {};
    for (const char* candidate : {"/libstallscope_recorder.so", "/../lib/libstallscope_recorder.so",
                                  "/../recorder/libstallscope_recorder.so"}) {
        std::string path = dir + candidate;
        if (access(path.c_str(), R_OK) == 0)
            return path;
    }
    return {};
}

// Measures (or finds in the cache) what the recorder costs with the target's settings and passes
// it to the target's recorder (RecorderCalibration). A user's own STALLSCOPE_CALIBRATION wins.
void calibrateRecorder(std::vector<std::string>* env, bool quiet) {
    if (const char* given = getenv("STALLSCOPE_CALIBRATION"); given && *given)
        return;
    std::vector<std::string> settings;
    for (const std::string& entry : *env)
        if (entry.rfind("STALLSCOPE_", 0) == 0 && entry.rfind("STALLSCOPE_OUTPUT=", 0) != 0 &&
            entry.rfind("STALLSCOPE_RECORD_PID=", 0) != 0 &&
            !stallscope::recorder::CaptureSettings::isSettingEntry(entry))
            settings.push_back(entry);
    std::string why;
    const std::optional<RecorderCalibration> calibration =
        RecorderCalibration::obtain(ownDirectory() + "/stallscope-calibrate", settings, &why);
    if (calibration)
        env->push_back("STALLSCOPE_CALIBRATION=" + calibration->environmentValue());
    else if (!quiet)
        fprintf(stderr, "stallscope-record: the recorder's own cost is not measured (%s)\n",
                why.c_str());
}

// Whether `program` can be started as execvp() would find it: a path with a '/' as it is, a name
// along $PATH. Checked before anything else runs, so that a typo gets one line of its own
// (issue 42: "command not found" came after a line about the recorder's calibration).
bool programExists(const std::string& program) {
    if (program.find('/') != std::string::npos)
        return access(program.c_str(), X_OK) == 0;
    const char* path = getenv("PATH");
    std::string folders = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
    for (size_t start = 0; start <= folders.size();) {
        const size_t end = std::min(folders.find(':', start), folders.size());
        const std::string folder = end > start ? folders.substr(start, end - start) : ".";
        if (access((folder + "/" + program).c_str(), X_OK) == 0)
            return true;
        start = end + 1;
    }
    return false;
}

std::string shellQuote(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& a : argv) {
        if (!out.empty())
            out += ' ';
        bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
        if (plain) {
            out += a;
        } else {
            out += '\'';
            for (char c : a)
                out += c == '\'' ? std::string("'\\''") : std::string(1, c);
            out += '\'';
        }
    }
    return out;
}

// "run/rank0.stallscope, run/rank1.stallscope (2 ranks, torchrun)": paths as the user would type
// them (relative to the working folder when inside it).
std::string describeRun(const RecordingOutput::Published& published) {
    char cwd[PATH_MAX];
    const std::string here = getcwd(cwd, sizeof(cwd)) ? std::string(cwd) + "/" : std::string();
    std::string text;
    for (const std::string& file : published.files) {
        if (!text.empty())
            text += ", ";
        text += !here.empty() && file.rfind(here, 0) == 0 ? file.substr(here.size()) : file;
    }
    const size_t sessions = published.files.size();
    text += " (";
    if (published.ranks == int(sessions))
        text += std::to_string(sessions) + (sessions == 1 ? " rank" : " ranks");
    else
        text += std::to_string(sessions) + " CUDA processes, " + std::to_string(published.ranks) +
                " with a rank";
    if (!published.launcher.empty())
        text += ", " + published.launcher;
    if (published.dropped)
        text += "; " + std::to_string(published.dropped) + " without CUDA left no file";
    return text + ")";
}

} // namespace

int main(int argc, char** argv) {
    std::string output, library, mode, kinds, bufferSize, flushMs, stackDepth, sampleHz;
    std::string delay, duration, captureRange, captureRangeEnd, captureSteps, ring, slowStep;
    bool stacks = true, quiet = false, symbolize = true, overwrite = false, embedSources = false;
    bool calibrate = true;
    std::string symbolizeOnly;
    stallscope::recorder::RecordSymbolizeOptions symbolizeOptions;
    std::vector<std::string> command;
    // The options that set one text, passed on to the recorder or the symbolizer, each with its
    // check: what is wrong with a value ("" when nothing is). Refused here, before the program
    // starts, rather than clamped inside it.
    using stallscope::recorder::CaptureSettings;
    using stallscope::recorder::RecorderConfig;
    struct TextOption {
        const char* name;
        const char* alias; // the short form, if any
        std::string* target;
        std::string (*check)(const std::string& value);
    };
    const TextOption textOptions[] = {
        {"--output", "-o", &output,
         [](const std::string& v) -> std::string { return v.empty() ? "is not a file name" : ""; }},
        {"--library", nullptr, &library,
         [](const std::string& v) -> std::string { return v.empty() ? "is not a path" : ""; }},
        {"--mode", nullptr, &mode,
         [](const std::string& v) -> std::string {
             return stallscope::recorder::isRecorderMode(v) ? "" : "is neither full nor light";
         }},
        {"--kinds", nullptr, &kinds,
         [](const std::string& v) -> std::string {
             RecorderConfig config;
             return !v.empty() && config.applyKinds(v, nullptr)
                        ? ""
                        : "is not a list of " + RecorderConfig::kindWords() +
                              " ('-KIND' removes one)";
         }},
        {"--buffer-size", nullptr, &bufferSize,
         [](const std::string& v) -> std::string {
             using namespace stallscope::recorder;
             const std::optional<uint64_t> bytes = parseByteSize(v);
             return bytes && *bytes >= kMinBufferBytes && *bytes <= kMaxBufferBytes
                        ? ""
                        : "is not a size in " + sizeText(kMinBufferBytes) + ".." +
                              sizeText(kMaxBufferBytes) + " (bytes, or with K, M or G)";
         }},
        {"--flush-ms", nullptr, &flushMs,
         [](const std::string& v) {
             return numberCheck(v, stallscope::recorder::kMinFlushMs,
                                stallscope::recorder::kMaxFlushMs);
         }},
        {"--stack-depth", nullptr, &stackDepth,
         [](const std::string& v) {
             return numberCheck(v, stallscope::recorder::kMinStackDepth,
                                stallscope::recorder::kMaxStackDepth);
         }},
        {"--sample-hz", nullptr, &sampleHz,
         [](const std::string& v) -> std::string {
             return wholeNumber(v, 0, 0) ||
                            wholeNumber(v, PythonSampler::kMinHz, PythonSampler::kMaxHz)
                        ? ""
                        : "is not 0 (none) or a whole number in " +
                              range(PythonSampler::kMinHz, PythonSampler::kMaxHz);
         }},
        {"--delay", nullptr, &delay,
         [](const std::string& v) { return CaptureSettings().applyDelay(v); }},
        {"--duration", nullptr, &duration,
         [](const std::string& v) { return CaptureSettings().applyDuration(v); }},
        {"--capture-range", nullptr, &captureRange,
         [](const std::string& v) { return CaptureSettings().applyRange(v); }},
        {"--capture-range-end", nullptr, &captureRangeEnd,
         [](const std::string& v) { return CaptureSettings().applyRangeEnd(v); }},
        {"--capture-steps", nullptr, &captureSteps,
         [](const std::string& v) { return CaptureSettings().applySteps(v); }},
        {"--ring", nullptr, &ring,
         [](const std::string& v) { return CaptureSettings().applyRing(v); }},
        {"--trigger-slow-step", nullptr, &slowStep,
         [](const std::string& v) { return CaptureSettings().applySlowStepTrigger(v); }},
        {"--symbolize", nullptr, &symbolizeOnly,
         [](const std::string& v) -> std::string { return v.empty() ? "is not a file name" : ""; }},
    };
    stallscope::format::CommandLine arguments("stallscope-record", argc, argv);
    while (arguments.next()) {
        const std::string a(arguments.argument());
        if (a == "--") {
            arguments.next();
            command = arguments.rest();
            break;
        }
        if (a.empty() || a[0] != '-') {
            command = arguments.rest(); // the command to record starts here
            break;
        }
        const auto text = std::find_if(
            std::begin(textOptions), std::end(textOptions), [&](const TextOption& option) {
                return a == option.name || (option.alias && a == option.alias);
            });
        if (text != std::end(textOptions)) {
            const std::string value = arguments.value(text->name);
            if (const std::string why = text->check(value); !why.empty())
                return refuse(a, value, why);
            *text->target = value;
        } else if (a == "--no-stacks")
            stacks = false;
        else if (a == "--no-sampling")
            sampleHz = "0";
        else if (a == "--no-symbolize")
            symbolize = false;
        else if (a == "--no-calibration")
            calibrate = false;
        else if (a == "--force-overwrite")
            overwrite = true;
        else if (a == "--embed-sources")
            embedSources = true;
        else if (a == "--debug-dir") {
            symbolizeOptions.debugDirectories.push_back(arguments.value("--debug-dir"));
            if (symbolizeOptions.debugDirectories.back().empty())
                return refuse(a, "", "is not a folder");
        } else if (a == "--remap") {
            symbolizeOptions.remaps.push_back(arguments.value("--remap"));
            stallscope::format::PathRemapRule rule;
            if (!stallscope::format::parsePathRemapRule(symbolizeOptions.remaps.back(), &rule))
                return refuse(a, symbolizeOptions.remaps.back(), "is not OLD=NEW (OLD not empty)");
        } else if (a == "-q" || a == "--quiet")
            quiet = true;
        else if (a == "-h" || a == "--help") {
            fputs(recordUsage().c_str(), stdout);
            return 0;
        } else {
            fprintf(stderr, "stallscope-record: unknown option '%s'\n%s", a.c_str(),
                    recordUsage().c_str());
            return 2;
        }
    }
    symbolizeOptions.quiet = quiet;
    if (!symbolizeOnly.empty()) {
        symbolizeOptions.embedSources = embedSources;
        char cwd[PATH_MAX];
        symbolizeOptions.sourceRoot = getcwd(cwd, sizeof(cwd)) ? cwd : "";
        return stallscope::recorder::symbolizeSession(symbolizeOnly, symbolizeOptions) ? 0 : 1;
    }
    if (command.empty()) {
        fprintf(stderr, "stallscope-record: no program to run\n%s", recordUsage().c_str());
        return 2;
    }
    CaptureSettings capture; // from the values checked above
    for (const auto& [value, apply] : {std::pair{&delay, &CaptureSettings::applyDelay},
                                       {&duration, &CaptureSettings::applyDuration},
                                       {&captureRange, &CaptureSettings::applyRange},
                                       {&captureRangeEnd, &CaptureSettings::applyRangeEnd},
                                       {&captureSteps, &CaptureSettings::applySteps},
                                       {&ring, &CaptureSettings::applyRing},
                                       {&slowStep, &CaptureSettings::applySlowStepTrigger}})
        if (!value->empty())
            (capture.*apply)(*value);
    if (!captureRangeEnd.empty() && capture.range == CaptureSettings::Range::None)
        return refuse("--capture-range-end", captureRangeEnd, "needs a --capture-range");
    if (!captureSteps.empty() && capture.range == CaptureSettings::Range::None)
        return refuse("--capture-steps", captureSteps,
                      "needs a --capture-range whose ranges are the steps (cuda-profiler-api or "
                      "nvtx:NAME)");
    if (!captureSteps.empty() && !captureRangeEnd.empty())
        return refuse("--capture-range-end", captureRangeEnd,
                      "cannot be given with --capture-steps, which says where recording ends");
    if (!slowStep.empty() && ring.empty())
        return refuse("--trigger-slow-step", slowStep, "needs a --ring");
    int killGraceMs = TargetRunner::kKillGraceMs;
    if (const char* grace = getenv(TargetRunner::kKillGraceVariable); grace && *grace) {
        const std::optional<long long> ms = wholeNumber(grace, 0, TargetRunner::kMaxKillGraceMs);
        if (!ms)
            return refuse(TargetRunner::kKillGraceVariable, grace,
                          numberCheck(grace, 0, TargetRunner::kMaxKillGraceMs));
        killGraceMs = int(*ms);
    }
    if (!programExists(command[0])) {
        fprintf(stderr, "stallscope-record: %s: no such program (not a file, nor found on PATH)\n",
                command[0].c_str());
        return 127;
    }
    std::string libraryPath = findLibrary(library);
    if (libraryPath.empty()) {
        fprintf(stderr, "stallscope-record: recorder library not found%s%s\n",
                library.empty() ? " next to stallscope-record" : ": ", library.c_str());
        return 127;
    }
    if (output.empty()) {
        std::string base = command[0].substr(command[0].rfind('/') + 1);
        output = stallscope::recorder::escapeOutputPattern(base) + ".stallscope";
    }
    // Expanded here, once: under srun or mpirun each rank's stallscope-record gets its own name
    // (%r), and the target's recorder must not expand the name again.
    output = stallscope::recorder::expandOutputPattern(
        output, {int64_t(getpid()), LaunchEnvironment::current().rank,
                 stallscope::recorder::currentHostName()});
    std::string error;
    const std::optional<RecordingOutput> target =
        RecordingOutput::plan(absolute(output), overwrite, &error);
    if (!target) {
        fprintf(stderr, "stallscope-record: %s; %s not started\n", error.c_str(),
                command[0].c_str());
        return 2;
    }
    output = target->path();
    const std::string& partial = target->partialPath();

    std::vector<std::string> env = {
        "CUDA_INJECTION64_PATH=" + libraryPath,
        "NVTX_INJECTION64_PATH=" + libraryPath,
        "STALLSCOPE_OUTPUT=" + stallscope::recorder::escapeOutputPattern(partial),
        "STALLSCOPE_RECORD_PID=" + std::to_string(getpid()),
        std::string("STALLSCOPE_STACKS=") + (stacks ? "1" : "0"),
    };
    // Python targets: recorder/python/sitecustomize.py (beside the library) says so when a
    // torch.profiler in the target starts without CUPTI, and runs the sitecustomize it shadows.
    if (const std::string hook = directoryOf(libraryPath) + "/python";
        access((hook + "/sitecustomize.py").c_str(), R_OK) == 0) {
        const char* pythonPath = getenv("PYTHONPATH");
        env.push_back("PYTHONPATH=" + hook +
                      (pythonPath && *pythonPath ? ":" + std::string(pythonPath) : ""));
    }
    // NCCL's sizes (nccl_profiler_plugin.cpp), unless the user runs a profiler plugin of their own.
    if (const char* plugin = getenv("NCCL_PROFILER_PLUGIN"); !plugin || !*plugin)
        env.push_back("NCCL_PROFILER_PLUGIN=" + libraryPath);
    if (!mode.empty())
        env.push_back("STALLSCOPE_MODE=" + mode);
    if (!kinds.empty())
        env.push_back("STALLSCOPE_KINDS=" + kinds);
    if (!bufferSize.empty())
        env.push_back("STALLSCOPE_BUFFER_SIZE=" + bufferSize);
    if (!flushMs.empty())
        env.push_back("STALLSCOPE_FLUSH_MS=" + flushMs);
    if (!stackDepth.empty())
        env.push_back("STALLSCOPE_STACK_DEPTH=" + stackDepth);
    if (!sampleHz.empty())
        env.push_back("STALLSCOPE_SAMPLE_HZ=" + sampleHz);
    for (std::string& entry : capture.environment())
        env.push_back(std::move(entry));

    if (calibrate)
        calibrateRecorder(&env, quiet);

    TargetRunner::Result run = TargetRunner::run(command, env, killGraceMs);
    if (!run.started) {
        fprintf(stderr, "stallscope-record: %s\n", run.error.c_str());
        target->discard();
        return 127;
    }
    SessionFinalizer::Outcome outcome;
    outcome.command = shellQuote(command);
    outcome.pid = run.pid;
    outcome.exitCode = run.exitCode;
    outcome.signal = run.signal;
    if (run.killedAfter)
        outcome.stopReason = "the target did not exit " + TargetRunner::graceText(killGraceMs) +
                             " after " + stallscope::recorder::signalName(run.killedAfter) +
                             " and was " + stallscope::recorder::killedBy(SIGKILL);
    outcome.startNs = run.startNs;
    outcome.endNs = run.endNs;
    SessionFinalizer::Summary summary;
    if (!SessionFinalizer::finalize(partial, outcome, &summary, &error)) {
        fprintf(stderr,
                "stallscope-record: cannot finish the session %s: %s; nothing was written (%s "
                "ended with status %d)\n",
                output.c_str(), error.c_str(), command[0].c_str(), run.exitCode);
        target->discard();
        return kExitSessionFailed;
    }
    if (symbolize) {
        // The target ran in our working directory: relative Python paths resolve against it.
        char cwd[PATH_MAX];
        symbolizeOptions.sourceRoot = getcwd(cwd, sizeof(cwd)) ? cwd : "";
        std::vector<std::string> sessions = target->partialChildren();
        sessions.insert(sessions.begin(), partial);
        for (const std::string& session : sessions) {
            // A child that never used CUDA is dropped; the flight recorder's snapshots, written
            // while the program ran, keep their names.
            if (session == partial || RecordingOutput::inspect(session).usedCuda)
                stallscope::recorder::symbolizeSession(session, symbolizeOptions);
            for (const std::string& snapshot : RecordingOutput::snapshots(session))
                stallscope::recorder::symbolizeSession(snapshot, symbolizeOptions);
        }
    }
    RecordingOutput::Published published;
    if (!target->publish(&published, &error)) {
        fprintf(stderr, "stallscope-record: %s (%s ended with status %d)\n", error.c_str(),
                command[0].c_str(), run.exitCode);
        return kExitSessionFailed;
    }
    if (!quiet) {
        char ending[64];
        if (run.signal)
            snprintf(ending, sizeof(ending), "killed by signal %d", run.signal);
        else
            snprintf(ending, sizeof(ending), "exit %d", run.exitCode);
        if (published.folder)
            fprintf(stderr, "stallscope: %s; target %s after %.2f s\n",
                    describeRun(published).c_str(), ending, double(run.endNs - run.startNs) / 1e9);
        else
            fprintf(stderr,
                    "stallscope: %s (%s): %lld kernels, %lld syncs blocking %.3f s, %lld copies, "
                    "%lld call stacks (capture median %lld ns), %lld dropped; target %s after "
                    "%.2f s\n",
                    output.c_str(), summary.status.c_str(), (long long)summary.kernels,
                    (long long)summary.syncs, double(summary.blockedNs) / 1e9,
                    (long long)summary.memcpys, (long long)summary.stacks,
                    (long long)summary.captureMedianNs, (long long)summary.dropped, ending,
                    double(run.endNs - run.startNs) / 1e9);
    }
    return run.exitCode;
}
