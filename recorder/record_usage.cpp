#include "recorder/record_usage.h"

#include "recorder/python_sampler.h"
#include "recorder/recorder_config.h"
#include "recorder/target_runner.h"

#include <utility>

namespace stallscope::recorder {

std::string sizeText(uint64_t bytes) {
    for (const auto& [shift, unit] : {std::pair{30, "G"}, {20, "M"}, {10, "K"}})
        if (bytes >= (1ull << shift) && bytes % (1ull << shift) == 0)
            return std::to_string(bytes >> shift) + unit;
    return std::to_string(bytes);
}

std::string range(long long min, long long max) {
    return std::to_string(min) + ".." + std::to_string(max);
}

std::string recordUsage() {
    const RecorderConfig defaults;
    const std::string grace = TargetRunner::graceText(TargetRunner::kKillGraceMs);
    std::string text =
        "usage: stallscope-record [options] [-o FILE] [--] PROGRAM [ARGS...]\n"
        "Runs PROGRAM with the Stallscope recorder injected (CUDA_INJECTION64_PATH) and writes a\n"
        "session file with every host<->GPU sync, its CPU stack, kernels and copies.\n"
        "\n"
        "  -o, --output FILE      session file (default: PROGRAM.stallscope). When child\n"
        "                         processes use CUDA too (torchrun, mpirun, multiprocessing),\n"
        "                         the run is the folder FILE-stem/ with one session per CUDA\n"
        "                         process, rank<R>.stallscope (pid<P>.stallscope without a\n"
        "                         rank); processes that never used CUDA leave no file. Written\n"
        "                         under FILE-stem.recording* names and renamed when complete;\n"
        "                         checked before PROGRAM starts. In FILE: %h host name, %r the\n"
        "                         rank this command runs as (RANK, OMPI_COMM_WORLD_RANK,\n"
        "                         PMI_RANK, PMIX_RANK, SLURM_PROCID; its pid without one), %p\n"
        "                         the pid of stallscope-record, %% a '%'\n"
        "  --force-overwrite      replace an existing FILE or run folder (once the new\n"
        "                         recording is complete)\n"
        "  --mode full|light      light: syncs with their stacks, GPU work, NVTX ranges and GPU\n"
        "                         power samples only; no API call records (the analysis infers\n"
        "                         the launches), no Python samples. Cheapest on launch-bound\n"
        "                         loops (docs/recorder.md). Default full\n"
        "  --kinds LIST           what to record: "
        "kernel,memcpy,memset,sync,runtime,driver,nvtx,events,\n"
        "                         sync-records (default: all but events and sync-records;\n"
        "                         '-nvtx' removes one)\n"
        "  --no-stacks            do not capture CPU stacks at syncs\n";
    text += "  --stack-depth N        frames per stack (" + range(kMinStackDepth, kMaxStackDepth) +
            ", default " + std::to_string(defaults.stackDepth) + ")\n";
    text += "  --sample-hz N          sample every Python thread's stack N times a second (" +
            range(PythonSampler::kMinHz, PythonSampler::kMaxHz) + ",\n" +
            "                         default " + std::to_string(defaults.sampleHz) +
            "; 0: none): names the lines of host time between\n"
            "                         CUDA calls\n"
            "  --no-sampling          no Python stack samples\n";
    text += "  --buffer-size SIZE     CUPTI activity buffer size: bytes, or with K, M or G (" +
            sizeText(kMinBufferBytes) + ".." + sizeText(kMaxBufferBytes) + ",\n" +
            "                         default " + sizeText(defaults.bufferBytes) + ")\n";
    text += "  --flush-ms N           flush/commit period in ms (" +
            range(kMinFlushMs, kMaxFlushMs) + ", default " + std::to_string(defaults.flushMs) +
            ")\n";
    const std::string seconds = std::to_string(kMaxCaptureSeconds);
    text += "  --delay S              record nothing for the first S seconds after the recorder\n"
            "                         starts (the process's first CUDA call; 0.." +
            seconds + ", decimals allowed)\n" +
            "  --duration S           stop recording S seconds after it began (" +
            secondsText(kMinCaptureDurationNs) + ".." + seconds + ")\n" +
            "  --capture-range R      record only inside ranges: cuda-profiler-api (from\n"
            "                         cudaProfilerStart to cudaProfilerStop, which\n"
            "                         torch.cuda.profiler.start() and stop() call) or nvtx:NAME\n"
            "                         (NVTX ranges whose message is NAME)\n"
            "  --capture-range-end E  stop: the first range only (default for nvtx:NAME);\n"
            "                         repeat: every range (default for cuda-profiler-api)\n"
            "  --capture-steps A-B    with --capture-range: the ranges are the steps, counted\n"
            "                         from 1; record steps A to B only (A alone: that one)\n";
    text +=
        "  --ring S               flight recorder: keep only the last S seconds (" +
        secondsText(kMinRingNs) + ".." + std::to_string(kMaxRingSeconds) +
        ") in\n"
        "                         bounded memory and disk; SIGUSR1 to stallscope-record writes\n"
        "                         them to FILE-stem.snapshot-N.stallscope while PROGRAM runs\n"
        "  --trigger-slow-step K  with --ring: write a snapshot when a step of the loop (between\n"
        "                         two syncs at its busiest regular call site) takes more than K\n"
        "                         times the median step, or has run that long (K " +
        secondsText(int64_t(kMinSlowStepFactor * kNsPerSecond)) + ".." +
        secondsText(int64_t(kMaxSlowStepFactor * kNsPerSecond)) + ")\n";
    text +=
        "  --library PATH         the recorder library (default: next to this program)\n"
        "  --no-calibration       do not measure the recorder's own cost on this machine (by\n"
        "                         default stallscope-calibrate, beside this program, measures it\n"
        "                         once per boot and settings, ~1 s, so that simulated savings\n"
        "                         leave it out: docs/insights.md)\n"
        "  --no-symbolize         leave native frames unresolved (default: resolve them with\n"
        "                         LLVM, mark user frames and embed their sources after the run)\n"
        "  --debug-dir DIR        also look for separate debug files under DIR\n"
        "  --remap OLD=NEW        read binaries and sources under NEW where OLD was recorded\n"
        "  --symbolize FILE       only (re)symbolize an existing session FILE in place, then "
        "exit;\n"
        "                         its sources are embedded only with --embed-sources (a FILE from\n"
        "                         elsewhere must not choose which local files are copied into it)\n"
        "  -q, --quiet            no summary line\n"
        "  -h, --help             this help\n";
    text +=
        "Signals: SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGUSR1 sent to stallscope-record go to\n"
        "PROGRAM; it gets SIGKILL if it has not exited " +
        grace + " after a SIGTERM, SIGINT or SIGHUP. Should\nstallscope-record die, PROGRAM " +
        "gets SIGTERM, and SIGKILL " + grace + " later.\n" + TargetRunner::kKillGraceVariable +
        " sets that grace period in ms (" + range(0, TargetRunner::kMaxKillGraceMs) + ").\n";
    text +=
        "Exit status: the program's (128+N when it died of signal N); 127 when it could not run;\n"
        "2 when an option's value is out of range or FILE cannot be written (PROGRAM not\n"
        "started); 125 when the session could not be finished (the program's own status is\n"
        "in the message).\n";
    return text;
}

} // namespace stallscope::recorder
