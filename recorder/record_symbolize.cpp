#include "recorder/record_symbolize.h"

#include <cstdio>

#ifdef STALLSCOPE_HAVE_SYMBOLIZER
#include "symbolize/finalize_symbols.h"
#endif

namespace stallscope::recorder {

#ifdef STALLSCOPE_HAVE_SYMBOLIZER

bool symbolizeSession(const std::string& path, const RecordSymbolizeOptions& options) {
    symbolize::SymbolizeOptions settings;
    for (const std::string& directory : options.debugDirectories)
        settings.debugDirectories.push_back(directory);
    for (const std::string& text : options.remaps) {
        format::PathRemapRule rule;
        if (!format::parsePathRemapRule(text, &rule)) {
            std::fprintf(stderr, "stallscope-record: --remap wants OLD=NEW, got '%s'\n",
                         text.c_str());
            return false;
        }
        settings.pathRemaps.push_back(rule);
    }
    settings.sourceRoot = options.sourceRoot;
    settings.embedSources = options.embedSources;
    std::string error;
    symbolize::SymbolizeStats stats;
    if (!symbolize::finalizeSymbols(path, settings, &error, &stats)) {
        std::fprintf(stderr, "stallscope-record: %s\n", error.c_str());
        return false;
    }
    if (!options.quiet)
        std::fprintf(stderr,
                     "stallscope: symbolized %s: %lld of %lld native frames resolved "
                     "(%lld with lines), %lld user frames, %lld sources embedded\n",
                     path.c_str(), static_cast<long long>(stats.resolvedFrames),
                     static_cast<long long>(stats.nativeFrames),
                     static_cast<long long>(stats.framesWithLines),
                     static_cast<long long>(stats.userFrames),
                     static_cast<long long>(stats.sourcesEmbedded));
    return true;
}

#else

bool symbolizeSession(const std::string& path, const RecordSymbolizeOptions& options) {
    if (!options.quiet)
        std::fprintf(stderr,
                     "stallscope-record: %s: not symbolized (built without LLVM); run "
                     "stallscope-symbolize on it later\n",
                     path.c_str());
    return true;
}

#endif

} // namespace stallscope::recorder
