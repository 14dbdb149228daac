// Fuzz target: the bytes of a session file (a SQLite database) through the loader and everything
// a command runs on a loaded session. Seeds: small real and generated sessions (corpus/).
#include "tests/fuzz/fuzz_support.h"

using namespace stallscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = fuzz::scratchPath("input.stallscope");
    fuzz::writeFile(path, data, size);
    fuzz::exercise(fuzz::loadBothWays(path), path);
    return 0;
}
