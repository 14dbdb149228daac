// stallscope-symbolize: runs the finalize step on a session file — what `stallscope-record` does
// at the end of a run, and what `stallscope-record --symbolize FILE` delegates to.
#include "format/command_line.h"
#include "symbolize/finalize_symbols.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void printUsage(std::FILE* to) {
    std::fputs(
        "usage: stallscope-symbolize [options] SESSION.stallscope\n"
        "Resolves native frames (LLVM), marks user frames and embeds user sources, in place.\n"
        "  --debug-dir DIR      also search DIR for separate debug files (DIR/.build-id/...)\n"
        "  --remap OLD=NEW      look for binaries and sources under NEW where OLD was recorded\n"
        "  --source-root DIR    resolve relative source paths against DIR (default: cwd)\n"
        "  --source-cap BYTES   embed at most BYTES per source file (default 1048576)\n"
        "  --no-sources         do not embed sources\n"
        "  --resymbolize        redo frames that are already symbolized\n"
        "  -q, --quiet          print nothing but errors\n",
        to);
}

} // namespace

int main(int argc, char** argv) {
    using namespace stallscope::symbolize;
    SymbolizeOptions options;
    std::string session;
    bool quiet = false;
    stallscope::format::CommandLine arguments("stallscope-symbolize", argc, argv);
    while (arguments.next()) {
        const std::string arg(arguments.argument());
        if (arg == "-h" || arg == "--help") {
            printUsage(stdout);
            return 0;
        } else if (arg == "--debug-dir") {
            options.debugDirectories.push_back(arguments.value("--debug-dir"));
        } else if (arg == "--remap") {
            PathRemapRule rule;
            if (!parsePathRemapRule(arguments.value("--remap"), &rule)) {
                std::fprintf(stderr, "stallscope-symbolize: --remap wants OLD=NEW\n");
                return 2;
            }
            options.pathRemaps.push_back(rule);
        } else if (arg == "--source-root") {
            options.sourceRoot = arguments.value("--source-root");
        } else if (arg == "--source-cap") {
            options.sourceSizeCap = std::strtoll(arguments.value("--source-cap"), nullptr, 10);
        } else if (arg == "--no-sources") {
            options.embedSources = false;
        } else if (arg == "--resymbolize") {
            options.resymbolize = true;
        } else if (arg == "-q" || arg == "--quiet") {
            quiet = true;
        } else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "stallscope-symbolize: unknown option %s\n", arg.c_str());
            printUsage(stderr);
            return 2;
        } else if (session.empty()) {
            session = arg;
        } else {
            std::fprintf(stderr, "stallscope-symbolize: one session file at a time\n");
            return 2;
        }
    }
    if (session.empty()) {
        printUsage(stderr);
        return 2;
    }
    std::string error;
    SymbolizeStats stats;
    if (!finalizeSymbols(session, options, &error, &stats)) {
        std::fprintf(stderr, "stallscope-symbolize: %s\n", error.c_str());
        return 1;
    }
    if (!quiet)
        std::fputs(describeStats(stats).c_str(), stdout);
    return 0;
}
