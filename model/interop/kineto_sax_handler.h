// KinetoSaxHandler: a RapidJSON SAX handler that walks a Kineto (torch.profiler) Chrome trace —
// `{"deviceProperties": [...], "traceEvents": [{...}, ...], ...}` — and hands each event to a
// sink as it ends, so no document tree is ever built. Numbers are parsed from their text
// (kParseNumbersAsStringsFlag): Kineto's microsecond timestamps (`4455362859560.689`) have 16
// significant digits, more than a double holds exactly, and we want exact nanoseconds.
#pragma once

#include "model/interop/kineto_event.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::model {

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

    // Non-empty when the handler stopped the parse because the document is not a Kineto trace.
    const std::string& shapeError() const { return m_shapeError; }
    bool sawTraceEvents() const { return m_sawTraceEvents; }
    int64_t eventCount() const { return m_eventCount; }

    // RapidJSON handler concept.
    bool Null() { return true; }
    bool Bool(bool value) { return scalarNumber(value ? 1 : 0); }
    bool Int(int value) { return scalarNumber(value); }
    bool Uint(unsigned value) { return scalarNumber(value); }
    bool Int64(int64_t value) { return scalarNumber(value); }
    bool Uint64(uint64_t value) { return scalarNumber(static_cast<int64_t>(value)); }
    bool Double(double value) { return scalarNumber(static_cast<int64_t>(value)); }
    bool RawNumber(const char* text, unsigned length, bool copy);
    bool String(const char* text, unsigned length, bool copy);
    bool Key(const char* text, unsigned length, bool copy);
    bool StartObject();
    bool EndObject(unsigned memberCount);
    bool StartArray();
    bool EndArray(unsigned elementCount);

    // Parses decimal microseconds ("123.4567", "-1e3") into integer nanoseconds, rounded.
    static int64_t microsToNanos(const char* text, unsigned length);
    // Parses an integer ("42", "-7", "3.0"); fractions are dropped.
    static int64_t parseInteger(const char* text, unsigned length);

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
        ArgName,
        Labels,
        Kind,
        Event,
        StackKey,
        // deviceProperties keys
        Id,
        TotalGlobalMem,
        ComputeMajor,
        ComputeMinor,
        NumSms,
        // distributedInfo keys
        Rank,
    };

    bool scalarNumber(int64_t value);
    bool open(bool isArray);
    Ctx top() const { return m_stack.empty() ? Ctx::Skip : m_stack.back(); }

    KinetoEventSink& m_sink;
    std::vector<Ctx> m_stack;
    Field m_key = Field::Other;
    int m_arrayIndex = 0;
    bool m_sawRoot = false;
    bool m_sawTraceEvents = false;
    int64_t m_eventCount = 0;
    std::string m_shapeError;
    KinetoEvent m_event;
    KinetoDeviceProperties m_device;
};

} // namespace stallscope::model
