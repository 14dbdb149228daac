#include "model/interop/kineto_trace_reader.h"

#include "model/interop/kineto_event_pipe.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstdlib>
#include <exception>
#include <new>
#include <system_error>
#include <thread>

namespace stallscope::model {

namespace {

// RapidJSON's reader collects each string and number whole in a stack from this allocator before
// the handler sees its length: refusing to grow it past kMaxJsonTokenBytes stops a 2 GB string
// before it is allocated (the handler refuses anything over kMaxJsonValueBytes itself).
class BoundedReaderAllocator {
public:
    static constexpr bool kNeedFree = true;
    struct Exhausted {};

    void* Malloc(size_t size) { return Realloc(nullptr, 0, size); }
    void* Realloc(void* block, size_t, size_t newSize) {
        if (newSize > kMaxJsonTokenBytes)
            throw Exhausted{}; // RapidJSON has no error path here; explainMalformedTrace catches it
        void* grown = std::realloc(block, newSize);
        if (!grown && newSize > 0)
            throw std::bad_alloc();
        return grown;
    }
    static void Free(void* block) { std::free(block); }
};

using BoundedReader =
    rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, BoundedReaderAllocator>;

// Takes the events of a trace read only to find where it is malformed.
class DiscardingSink final : public KinetoEventSink {
public:
    explicit DiscardingSink(const std::function<bool()>& keepGoing) : m_keepGoing(keepGoing) {}
    void onDeviceProperties(const KinetoDeviceProperties&) override {}
    void onRank(int64_t) override {}
    bool onEvent(const KinetoEvent&) override {
        return (++m_events % (1 << 16)) != 0 || m_keepGoing();
    }

private:
    const std::function<bool()>& m_keepGoing;
    int64_t m_events = 0;
};

} // namespace

bool kinetoReadPipelinedByDefault() {
    return std::thread::hardware_concurrency() > 1;
}

KinetoReadOutcome readKinetoEvents(KinetoInputStream& stream, KinetoEventSink& sink,
                                   bool pipelined) {
    KinetoReadOutcome outcome;
    auto readInto = [&](KinetoEventSink& target) {
        KinetoSaxHandler handler(target);
        outcome.status = KinetoJsonReader<KinetoSaxHandler>(stream, handler).read();
        outcome.refused = handler.error();
        outcome.sawTraceEvents = handler.sawTraceEvents();
    };
    if (!pipelined) {
        readInto(sink);
        return outcome;
    }
    KinetoEventPipe pipe(sink);
    std::exception_ptr readFailure;
    std::thread reader;
    try {
        reader = std::thread([&] {
            try {
                readInto(pipe);
            } catch (...) {
                readFailure = std::current_exception();
            }
            pipe.close();
        });
    } catch (const std::system_error&) { // no thread to be had: read here
        readInto(sink);
        return outcome;
    }
    try {
        pipe.drain();
    } catch (...) {
        pipe.stop();
        reader.join();
        throw;
    }
    reader.join();
    if (readFailure)
        std::rethrow_exception(readFailure);
    return outcome;
}

std::string explainMalformedTrace(const std::string& path, const std::function<bool()>& keepGoing) {
    KinetoInputStream stream;
    std::string error;
    if (!stream.open(path, &error))
        return error;
    DiscardingSink sink(keepGoing);
    KinetoSaxHandler handler(sink);
    BoundedReader reader;
    rapidjson::ParseResult result;
    std::string refused;
    try {
        result = reader.Parse<rapidjson::kParseNumbersAsStringsFlag>(stream, handler);
    } catch (const BoundedReaderAllocator::Exhausted&) {
        refused = jsonValueTooLongError();
    }
    const std::string where = stream.compressed() ? " of the decompressed JSON" : "";
    const std::string atByte = " at byte " + std::to_string(stream.Tell()) + where;
    if (!stream.readError().empty())
        return stream.readError() + " (after " + std::to_string(stream.Tell()) + " bytes of JSON)";
    if (refused.empty())
        refused = handler.error();
    if (!refused.empty())
        return refused + atByte;
    if (!result.IsError() || result.Code() == rapidjson::kParseErrorTermination)
        return {}; // cancelled (or, against expectations, not malformed after all)
    if (result.Code() == rapidjson::kParseErrorDocumentEmpty)
        return stream.Tell() == 0 ? "empty file, not a trace"
               : stream.controlCharacters() > 0
                   ? "no JSON value, not a trace: " + std::to_string(stream.Tell()) +
                         " bytes of whitespace, " + std::to_string(stream.controlCharacters()) +
                         " of them control bytes such as NUL"
                   : "no JSON value, not a trace: only whitespace";
    if (stream.atEnd() && result.Code() != rapidjson::kParseErrorDocumentRootNotSingular)
        return "truncated: the JSON ends at byte " + std::to_string(stream.Tell()) + where +
               " before the trace is complete";
    return "malformed JSON at byte " + std::to_string(result.Offset()) + where + ": " +
           rapidjson::GetParseError_En(result.Code());
}

} // namespace stallscope::model
