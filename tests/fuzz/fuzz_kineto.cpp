// Fuzz target: a torch.profiler (Kineto) trace through the importer, then the converted session
// through everything a command runs. Inputs starting with the gzip magic are read as .json.gz.
// Seeds: corpus/fuzz_kineto (cut from real traces); words: dicts/kineto.dict.
#include "tests/fuzz/fuzz_support.h"

#include "model/interop/kineto_importer.h"

#include <filesystem>

using namespace stallscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const bool gzipped = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    const std::string trace = fuzz::scratchPath(gzipped ? "trace.json.gz" : "trace.json");
    const std::string session = fuzz::scratchPath("converted.stallscope");
    fuzz::writeFile(trace, data, size);
    std::error_code ignored;
    std::filesystem::remove(session, ignored);
    const model::KinetoImportResult imported = model::KinetoImporter::convert(trace, session);
    if (!imported.ok) {
        fuzz::require(!imported.error.empty(), "a failed import gave no error", trace);
        fuzz::require(!std::filesystem::exists(session), "a failed import left its output",
                      session);
        std::filesystem::remove(trace, ignored);
        return 0;
    }
    fuzz::exercise(model::SessionLoader::load(session), session);
    std::filesystem::remove(trace, ignored);
    return 0;
}
