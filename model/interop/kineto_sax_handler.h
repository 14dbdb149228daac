// KinetoSaxHandler: a SAX handler (RapidJSON's handler concept) that walks a Kineto
// (torch.profiler) Chrome trace — `{"deviceProperties": [...], "traceEvents": [{...}, ...], ...}`
// — and hands each event to a sink as it ends, so no document tree is ever built. The importer's
// own tokenizer drives it (KinetoJsonReader); RapidJSON's reader does when a malformed trace is
// explained. Numbers are parsed from their text (never a double): Kineto's microsecond
// timestamps (`4455362859560.689`) have 16 significant digits, more than a double holds exactly,
// and we want exact nanoseconds.
//
// Hostile input is refused with one error (error()) rather than trusted: JSON nested deeper than
// kMaxJsonDepth, a string or number longer than kMaxJsonValueBytes, a number the importer reads
// that is out of its range, a time or duration beyond ±kMaxTraceTimeNs, a stack of more than
// kMaxStackEntries. Names the importer keeps are cut to kMaxNameBytes.
#pragma once

#include "model/interop/kineto_event.h"
#include "model/interop/kineto_json_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::model {

// Real Kineto traces nest 5 deep (root, traceEvents, event, args, an args array).
inline constexpr size_t kMaxJsonDepth = 64;
// The longest JSON string, key or number accepted (RapidJSON buffers each whole).
inline constexpr size_t kMaxJsonValueBytes = 1 << 20;
// Names (events, categories, labels, stack entries, devices) longer than this are cut and marked.
inline constexpr size_t kMaxNameBytes = 64 << 10;
// Entries of one "sync" event's "stack" (Stallscope's export; the recorder keeps at most ~100).
inline constexpr size_t kMaxStackEntries = 4096;
// Times and durations, in ns, beyond ±2^62 (146 years) are refused, so ts + dur cannot overflow.
inline constexpr int64_t kMaxTraceTimeNs = int64_t(1) << 62;

// The error for a JSON string or number longer than kMaxJsonValueBytes.
std::string jsonValueTooLongError();

class KinetoEventSink {
public:
    virtual ~KinetoEventSink() = default;
    virtual void onDeviceProperties(const KinetoDeviceProperties& device) = 0;
    virtual void onRank(int64_t rank) = 0;
    // The trace has a top-level "stallscope" object: Stallscope wrote it (chrome_trace_export.h).
    virtual void onStallscopeExport() {}
    // Returns false to stop parsing (cancelled or failed; the sink knows why).
    virtual bool onEvent(const KinetoEvent& event) = 0;
};

class KinetoSaxHandler {
public:
    explicit KinetoSaxHandler(KinetoEventSink& sink) : m_sink(sink) {}

    // Non-empty when the handler stopped the parse: the document is not a Kineto trace, or holds a
    // value the importer refuses (the caller adds where).
    const std::string& error() const { return m_error; }
    bool sawTraceEvents() const { return m_sawTraceEvents; }
    int64_t eventCount() const { return m_eventCount; }

    // RapidJSON handler concept.
    // Numbers arrive as text (RawNumber); true and false count as 1 and 0.
    bool Null() { return true; }
    bool Bool(bool value) { return RawNumber(value ? "1" : "0", 1, false); }
    bool Int(int value) { return numberValue(std::to_string(value)); }
    bool Uint(unsigned value) { return numberValue(std::to_string(value)); }
    bool Int64(int64_t value) { return numberValue(std::to_string(value)); }
    bool Uint64(uint64_t value) { return numberValue(std::to_string(value)); }
    bool Double(double value) { return numberValue(std::to_string(value)); }
    bool RawNumber(const char* text, unsigned length, bool copy);
    // KinetoJsonReader's call instead of RawNumber: the number with its parts already scanned.
    bool Number(const char* text, unsigned length, const JsonNumber& number);
    bool String(const char* text, unsigned length, bool copy);
    bool Key(const char* text, unsigned length, bool copy);
    bool StartObject();
    bool EndObject(unsigned memberCount);
    bool StartArray();
    bool EndArray(unsigned elementCount);

    // Parses decimal microseconds ("123.4567", "-1e3") into integer nanoseconds, rounded;
    // nullopt beyond ±kMaxTraceTimeNs (Inf and NaN included).
    static std::optional<int64_t> microsToNanos(std::string_view text);
    // Parses an integer ("42", "-7", "3.0", "1e3"); fractions are dropped; nullopt outside int64.
    static std::optional<int64_t> parseInteger(std::string_view text);

private:
    enum class Ctx : uint8_t {
        Root,
        Events,
        Event,
        Args,
        Grid,
        Block,
        Stack,
        Devices,
        Device,
        Distributed,
        Skip
    };
    enum class Field : uint8_t {
        Other,
        TraceEvents,
        DeviceProperties,
        DistributedInfo,
        StallscopeKey,
        // event keys
        Ph,
        Cat,
        Name,
        Pid,
        Tid,
        Ts,
        Dur,
        Args,
        // args keys
        Correlation,
        Device,
        Context,
        Stream,
        Bytes,
        Cbid,
        Registers,
        SharedMemory,
        GridKey,
        BlockKey,
        WaitEvent,
        WaitRecordCorrelation,
        WaitStream,
        ArgName,
        Labels,
        Kind,
        Event,
        StackKey,
        StackId,
        // deviceProperties keys
        Id,
        TotalGlobalMem,
        ComputeMajor,
        ComputeMinor,
        NumSms,
        // distributedInfo keys
        Rank,
    };

    bool numberValue(const std::string& text) {
        return RawNumber(text.data(), static_cast<unsigned>(text.size()), true);
    }
    static std::optional<int64_t> microsToNanos(std::string_view text, const JsonNumber& number);
    static std::optional<int64_t> parseInteger(std::string_view text, const JsonNumber& number);
    // Stores the number into the field the current key names, if the importer reads it.
    bool storeNumber(std::string_view text, const JsonNumber& number);
    bool open(bool isArray);
    // Stops the parse with `message` (refused()) or with "not a Kineto trace: <why>" (notKineto()).
    bool refuse(std::string message);
    bool notKineto(const std::string& why);
    Ctx top() const { return m_stack.empty() ? Ctx::Skip : m_stack.back(); }

    KinetoEventSink& m_sink;
    std::vector<Ctx> m_stack;
    Field m_key = Field::Other;
    int m_arrayIndex = 0;
    bool m_sawRoot = false;
    bool m_sawTraceEvents = false;
    int64_t m_eventCount = 0;
    std::string m_error;
    KinetoEvent m_event;
    KinetoDeviceProperties m_device;
};

} // namespace stallscope::model
