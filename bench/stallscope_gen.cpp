// stallscope-gen: writes a synthetic session (model/synthetic_session.h) and prints its stats.
// Qt-free on purpose: it only needs the format library and SQLite.
#include "format/command_line.h"
#include "model/testing/synthetic_session.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

void usage(std::FILE* out) {
    std::fputs(
        "usage: stallscope-gen -o FILE [options]\n"
        "Writes a synthetic Stallscope session: a PyTorch-like training loop per process.\n"
        "  -o, --output FILE          session file to write (replaced)\n"
        "  --events N                 target event rows (default 100000; k/M suffixes allowed)\n"
        "  --seed S                   random seed (default 1); same seed, same content\n"
        "  --processes N              processes / ranks (default 1)\n"
        "  --threads N                host threads per process: 1 trains, the rest load data (2)\n"
        "  --devices N                GPUs per process (1)\n"
        "  --streams N                streams per GPU: compute, copy, all-reduce... (3)\n"
        "  --kernels N                kernel launches per step and GPU (16)\n"
        "  --no-in-loop-sync          pipelined loop: no loss.item() per step, one sync after\n"
        "  --no-device-sync           no periodic torch.cuda.synchronize()\n"
        "  --device-sync-every N      steps between device syncs (50)\n"
        "  --no-pageable-copies       no periodic blocking .cpu() copy\n"
        "  --pageable-every N         steps between blocking .cpu() copies (10)\n"
        "  --no-event-sync            loaders do not cudaEventSynchronize\n"
        "  --no-stream-wait-event     no cudaStreamWaitEvent dependencies\n"
        "  --no-memsets               no zero_grad memsets\n"
        "  --ranks N                  a data-parallel job instead: N ranks (torchrun), one GPU\n"
        "                             each, an NCCL all-reduce per step that ends together\n"
        "  --rank-steps N             steps per rank (default: until --events)\n"
        "  --run-folder               with --ranks: -o names a folder, one session per rank\n"
        "                             (rank<r>.stallscope), as a recorded run folder\n"
        "  --straggler-rank R         this rank is late to every all-reduce\n"
        "  --straggler-delay-us N     by this much host time before it launches (0)\n"
        "  --straggler-syncs          the delay is its own .item() on extra GPU work\n"
        "  --straggler-range NAME     range around the host work (collate; \"\" for none)\n"
        "  --rank-jitter-us N         up to N us of host time per rank and step (0)\n"
        "  --launcher NAME            launcher stored with the ranks (torchrun)\n"
        "  --sample-hz N              Python stack samples of the planted host work (0: none)\n"
        "  --host-work-us N           plain Python before each step (data.py:72 collate) (0)\n"
        "  --commit-every N           events between commits (1000000)\n"
        "  --command TEXT             recorded command line\n"
        "  -q, --quiet                print nothing on success\n"
        "  -h, --help                 this text\n",
        out);
}

bool parseCount(std::string_view text, int64_t* value) {
    std::string s(text);
    int64_t scale = 1;
    if (!s.empty() && (s.back() == 'k' || s.back() == 'K'))
        scale = 1'000, s.pop_back();
    else if (!s.empty() && (s.back() == 'm' || s.back() == 'M'))
        scale = 1'000'000, s.pop_back();
    if (s.empty())
        return false;
    char* end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(s.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || parsed < 0)
        return false;
    *value = parsed * scale;
    return true;
}

using stallscope::model::SyntheticOptions;

// An option that sets one member of SyntheticOptions.
template <class T> struct MemberOption {
    const char* name;
    T SyntheticOptions::*field;
};

// The option of `options` named `arg`, or null.
template <class T, size_t N>
const MemberOption<T>* findOption(const MemberOption<T> (&options)[N], std::string_view arg) {
    for (const MemberOption<T>& option : options) {
        if (arg == option.name)
            return &option;
    }
    return nullptr;
}

// The options that set one count of the generated loop, and the switches that turn a feature off.
constexpr MemberOption<int> kCountOptions[] = {
    {"--processes", &SyntheticOptions::processes},
    {"--threads", &SyntheticOptions::threadsPerProcess},
    {"--devices", &SyntheticOptions::devicesPerProcess},
    {"--streams", &SyntheticOptions::streamsPerDevice},
    {"--kernels", &SyntheticOptions::kernelsPerStep},
    {"--device-sync-every", &SyntheticOptions::deviceSyncEvery},
    {"--pageable-every", &SyntheticOptions::pageableEvery},
    {"--ranks", &SyntheticOptions::ranks},
    {"--straggler-rank", &SyntheticOptions::stragglerRank},
    {"--sample-hz", &SyntheticOptions::sampleHz},
};
constexpr MemberOption<bool> kOffSwitches[] = {
    {"--no-in-loop-sync", &SyntheticOptions::inLoopSync},
    {"--pipelined", &SyntheticOptions::inLoopSync},
    {"--no-device-sync", &SyntheticOptions::deviceSyncs},
    {"--no-pageable-copies", &SyntheticOptions::pageableCopies},
    {"--no-event-sync", &SyntheticOptions::eventSyncs},
    {"--no-stream-wait-event", &SyntheticOptions::streamWaitEvents},
    {"--no-memsets", &SyntheticOptions::memsets},
};

} // namespace

int main(int argc, char** argv) {
    SyntheticOptions options;
    std::string output;
    bool quiet = false;
    bool runFolder = false;
    stallscope::format::CommandLine arguments("stallscope-gen", argc, argv);
    while (arguments.next()) {
        const std::string_view arg = arguments.argument();
        auto number = [&](const char* name) -> int64_t {
            int64_t n = 0;
            const char* text = arguments.value(name);
            if (!parseCount(text, &n)) {
                std::fprintf(stderr, "stallscope-gen: %s: not a count: '%s'\n", name, text);
                std::exit(2);
            }
            return n;
        };
        if (const auto* count = findOption(kCountOptions, arg))
            options.*count->field = static_cast<int>(number(count->name));
        else if (const auto* off = findOption(kOffSwitches, arg))
            options.*off->field = false;
        else if (arg == "-o" || arg == "--output")
            output = arguments.value("--output");
        else if (arg == "--events")
            options.targetEvents = number("--events");
        else if (arg == "--seed")
            options.seed = static_cast<uint64_t>(number("--seed"));
        else if (arg == "--rank-steps")
            options.rankSteps = number("--rank-steps");
        else if (arg == "--straggler-delay-us")
            options.stragglerDelayNs = number("--straggler-delay-us") * 1'000;
        else if (arg == "--straggler-syncs")
            options.stragglerSyncs = true;
        else if (arg == "--straggler-range")
            options.stragglerRange = arguments.value("--straggler-range");
        else if (arg == "--host-work-us")
            options.hostWorkNs = number("--host-work-us") * 1'000;
        else if (arg == "--rank-jitter-us")
            options.rankJitterNs = number("--rank-jitter-us") * 1'000;
        else if (arg == "--launcher")
            options.launcher = arguments.value("--launcher");
        else if (arg == "--commit-every")
            options.commitEvery = number("--commit-every");
        else if (arg == "--command")
            options.command = arguments.value("--command");
        else if (arg == "--run-folder")
            runFolder = true;
        else if (arg == "-q" || arg == "--quiet")
            quiet = true;
        else if (arg == "-h" || arg == "--help") {
            usage(stdout);
            return 0;
        } else {
            std::fprintf(stderr, "stallscope-gen: unknown option '%.*s'\n", int(arg.size()),
                         arg.data());
            usage(stderr);
            return 2;
        }
    }
    if (output.empty()) {
        std::fputs("stallscope-gen: no output file (-o FILE)\n", stderr);
        usage(stderr);
        return 2;
    }

    stallscope::model::SyntheticStats stats;
    std::string error;
    if (runFolder && options.ranks < 1) {
        std::fputs("stallscope-gen: --run-folder needs --ranks\n", stderr);
        return 2;
    }
    if (!(runFolder ? stallscope::model::writeSyntheticRun(output, options, &stats, &error)
                    : stallscope::model::writeSyntheticSession(output, options, &stats, &error))) {
        std::fprintf(stderr, "stallscope-gen: %s\n", error.c_str());
        return 1;
    }
    if (!quiet)
        std::printf("wrote %s (seed %llu)\n%s", output.c_str(),
                    static_cast<unsigned long long>(options.seed), stats.toText().c_str());
    return 0;
}
