// Reading one trace file's JSON into a KinetoEventSink: KinetoJsonReader → KinetoSaxHandler →
// the sink. Pipelined (the default where there are two cores), the JSON is read and its events
// made on a thread of its own and handed to the sink, on the calling thread, through a
// KinetoEventPipe; sequentially, all on the calling thread. Both hand the sink the same calls in
// the same order.
#pragma once

#include "model/interop/kineto_input_stream.h"
#include "model/interop/kineto_json_reader.h"
#include "model/interop/kineto_sax_handler.h"

#include <functional>
#include <string>

namespace stallscope::model {

struct KinetoReadOutcome {
    JsonReadStatus status = JsonReadStatus::Complete;
    std::string refused;         // the handler's error, when it stopped the reading
    bool sawTraceEvents = false; // the document has a "traceEvents" array
};

// Whether an import reads on a thread of its own by default: with more than one core.
bool kinetoReadPipelinedByDefault();

// Reads `stream` to its end (or the first error) into `sink`. Exceptions of either thread
// (out of memory) reach the caller once both sides have stopped.
KinetoReadOutcome readKinetoEvents(KinetoInputStream& stream, KinetoEventSink& sink,
                                   bool pipelined);

// Why the trace at `path`, which KinetoJsonReader found malformed, is: RapidJSON's reader reads
// it again and says where and what (its messages, offsets in the decompressed JSON). `keepGoing`
// is asked now and then (false: cancelled, an empty string is returned).
std::string explainMalformedTrace(const std::string& path, const std::function<bool()>& keepGoing);

} // namespace stallscope::model
