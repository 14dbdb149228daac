// Fuzz target: the column cache's reader (model/session/column_cache.h) past its hashes. One small
// generated session is loaded once and its entry written; each input becomes that entry's payload,
// with both hashes made to match, as a file crafted in the user's cache folder could be. Its first
// 8 bytes say where the second part starts (modulo the payload's size); the rest is the payload.
// The session must load every time: from the entry when every value checks (and then go through the
// summary, the insights and the export), else from its tables, with the very events the tables
// give.
//
// STALLSCOPE_FUZZ_WRITE_SEED=FILE writes the real entry's input to FILE (the seed corpus's).
#include "model/session/column_cache.h"
#include "model/testing/synthetic_session.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/support/same_session.h"

#include <xxhash.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

using namespace stallscope;

namespace {

// The entry's header (column_cache.cpp): the key's length at 20, the payload's at 24, the first
// part's hash (of the key and the part) at 32, the second part's offset in the payload at 40, its
// hash at 48; the key, then the payload.
constexpr size_t kHeaderBytes = 56;

struct Fixture {
    std::string session;
    std::string entry;
    std::string prefix; // the header and the key
    std::unique_ptr<model::Session> fromTables;
};

model::LoadResult load(const std::string& path) {
    model::LoadOptions options;
    options.useColumnCache = true;
    return model::SessionLoader::load(path, options);
}

const Fixture& fixture() {
    static const Fixture* made = [] {
        auto* f = new Fixture;
        const std::string cache = fuzz::scratchPath("columns");
        setenv("STALLSCOPE_COLUMN_CACHE", cache.c_str(), 1);
        f->session = fuzz::scratchPath("generated.stallscope");
        model::SyntheticOptions options;
        options.targetEvents = 3000;
        options.threadsPerProcess = 3;
        options.sampleHz = 10000; // host_samples rows
        options.hostWorkNs = 500'000;
        std::string error;
        fuzz::require(model::writeSyntheticSession(f->session, options, nullptr, &error),
                      "cannot generate the session", error);
        model::LoadResult fresh = load(f->session);
        fuzz::require(fresh.ok() && !fresh.columnsFromCache, "cannot load the session",
                      fresh.error);
        fuzz::require(model::writeCachedColumns(cache, *fresh.session, &error, 0),
                      "cannot write the entry", error);
        for (const auto& file : std::filesystem::directory_iterator(cache))
            f->entry = file.path().string();
        const std::string bytes = fuzz::readFile(f->entry);
        uint32_t keyBytes = 0;
        std::memcpy(&keyBytes, bytes.data() + 20, sizeof keyBytes);
        f->prefix = bytes.substr(0, kHeaderBytes + keyBytes);
        f->fromTables = std::move(fresh.session);
        if (const char* seed = std::getenv("STALLSCOPE_FUZZ_WRITE_SEED")) {
            uint64_t streamPart = 0;
            std::memcpy(&streamPart, bytes.data() + 40, sizeof streamPart);
            std::string input(reinterpret_cast<const char*>(&streamPart), sizeof streamPart);
            fuzz::writeFile(seed, input + bytes.substr(f->prefix.size()));
        }
        return f;
    }();
    return *made;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const Fixture& f = fixture();
    uint64_t streamPart = 0;
    if (size >= sizeof streamPart) {
        std::memcpy(&streamPart, data, sizeof streamPart);
        data += sizeof streamPart;
        size -= sizeof streamPart;
    }
    streamPart %= size + 1;
    std::string entry = f.prefix;
    entry.append(reinterpret_cast<const char*>(data), size);
    const uint64_t payloadBytes = size;
    const size_t streamAt = f.prefix.size() + streamPart;
    const uint64_t first = XXH3_64bits(entry.data() + kHeaderBytes, streamAt - kHeaderBytes);
    const uint64_t second = XXH3_64bits(entry.data() + streamAt, entry.size() - streamAt);
    std::memcpy(entry.data() + 24, &payloadBytes, sizeof payloadBytes);
    std::memcpy(entry.data() + 32, &first, sizeof first);
    std::memcpy(entry.data() + 40, &streamPart, sizeof streamPart);
    std::memcpy(entry.data() + 48, &second, sizeof second);
    fuzz::writeFile(f.entry, entry);

    const model::LoadResult loaded = load(f.session);
    fuzz::require(loaded.ok(), "the session did not load beside a crafted entry", loaded.error);
    if (loaded.columnsFromCache)
        fuzz::exercise(loaded, f.session);
    else
        fuzz::require(testing::sameEvents(*f.fromTables, *loaded.session),
                      "a refused entry left events behind");
    return 0;
}
