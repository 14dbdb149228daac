// Fuzz target: the Chrome export round trip. A trace the importer accepts is exported as Chrome
// JSON and imported again; both sessions must hold the same events at the same times on the same
// lanes (the exporter's promise, chrome_trace_export.h). Input and seeds as for fuzz_kineto.
#include "tests/fuzz/fuzz_support.h"

#include "model/interop/chrome_trace_export.h"
#include "model/interop/kineto_importer.h"
#include "model/session/session_database.h"

#include <filesystem>
#include <memory>

using namespace stallscope;

namespace {

std::unique_ptr<model::Session> import(const std::string& trace, const std::string& session) {
    std::error_code ignored;
    std::filesystem::remove(session, ignored);
    if (!model::KinetoImporter::convert(trace, session).ok)
        return nullptr;
    model::LoadResult loaded = model::SessionLoader::load(session);
    return std::move(loaded.session);
}

// Every lane's (start, end) pairs, kind by kind, in lane order. Lanes without events are left
// out: a thread the trace only names (metadata, Python frames) need not come back as a lane.
std::vector<std::vector<int64_t>> laneTimes(const model::Session& s) {
    std::vector<std::vector<int64_t>> lanes;
    auto lane = [&](std::initializer_list<const model::IntervalColumns*> kinds) {
        std::vector<int64_t> times;
        size_t events = 0;
        for (const model::IntervalColumns* c : kinds) {
            events += c->size();
            times.push_back(static_cast<int64_t>(c->size()));
            for (size_t i = 0; i < c->size(); ++i) {
                times.push_back(c->start[i]);
                times.push_back(c->end[i]);
            }
        }
        if (events > 0)
            lanes.push_back(std::move(times));
    };
    for (const model::HostLane& host : s.hostLanes)
        lane({&host.apiCalls, &host.syncs});
    for (const model::StreamLane& stream : s.streamLanes)
        lane({&stream.kernels, &stream.memcpys, &stream.memsets});
    return lanes;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const bool gzipped = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    const std::string trace = fuzz::scratchPath(gzipped ? "in.json.gz" : "in.json");
    fuzz::writeFile(trace, data, size);
    const std::unique_ptr<model::Session> first =
        import(trace, fuzz::scratchPath("first.stallscope"));
    if (!first)
        return 0;
    model::SessionDatabase database;
    std::string error;
    fuzz::require(database.open(first->path, &error), "cannot reopen the imported session", error);
    const std::string exported = fuzz::scratchPath("exported.json");
    format::OutputPolicy replace;
    replace.replaceExisting = true;
    replace.inputs = {first->path};
    fuzz::require(model::exportChromeTrace(*first, database, exported, replace, &error),
                  "the Chrome export failed", error);
    const std::unique_ptr<model::Session> second =
        import(exported, fuzz::scratchPath("second.stallscope"));
    fuzz::require(second != nullptr, "the exported trace does not import again");
    fuzz::require(second->counts == first->counts, "the round trip changed the event counts");
    fuzz::require(laneTimes(*second) == laneTimes(*first),
                  "the round trip moved events or changed their lanes");
    return 0;
}
