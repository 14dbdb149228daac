#include "model/interop/kineto_sax_handler.h"

#include "format/keyword_table.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace stallscope::model {

namespace {

// Reads a JSON number's optional sign and integer digits from [p, end), advancing p to what follows
// (a fraction, an exponent or the end). Returns the digits' value; `negative` says the sign.
int64_t readSignAndDigits(const char*& p, const char* end, bool& negative) {
    negative = false;
    if (p < end && (*p == '-' || *p == '+'))
        negative = *p++ == '-';
    int64_t value = 0;
    while (p < end && *p >= '0' && *p <= '9')
        value = value * 10 + (*p++ - '0');
    return value;
}

} // namespace

int64_t KinetoSaxHandler::parseInteger(const char* text, unsigned length) {
    const char* p = text;
    const char* end = text + length;
    bool negative = false;
    const int64_t value = readSignAndDigits(p, end, negative);
    if (p < end && (*p == 'e' || *p == 'E')) // rare: let the C library do it
        return static_cast<int64_t>(std::strtod(std::string(text, length).c_str(), nullptr));
    return negative ? -value : value;
}

int64_t KinetoSaxHandler::microsToNanos(const char* text, unsigned length) {
    const char* p = text;
    const char* end = text + length;
    bool negative = false;
    const int64_t micros = readSignAndDigits(p, end, negative);
    int64_t nanos = 0;
    int digits = 0;
    bool roundUp = false;
    if (p < end && *p == '.') {
        ++p;
        while (p < end && *p >= '0' && *p <= '9') {
            if (digits < 3)
                nanos = nanos * 10 + (*p - '0');
            else if (digits == 3)
                roundUp = *p >= '5';
            ++digits;
            ++p;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        const double value = std::strtod(std::string(text, length).c_str(), nullptr) * 1000.0;
        return static_cast<int64_t>(value < 0 ? value - 0.5 : value + 0.5);
    }
    for (; digits < 3; ++digits)
        nanos *= 10;
    const int64_t total = micros * 1000 + nanos + (roundUp ? 1 : 0);
    return negative ? -total : total;
}

bool KinetoSaxHandler::open(bool isArray) {
    const Ctx parent = top();
    Ctx next = Ctx::Skip;
    if (!m_sawRoot) {
        m_sawRoot = true;
        if (isArray) {
            m_shapeError = "the top-level JSON value is an array, not Kineto's object with "
                           "\"traceEvents\"";
            return false;
        }
        next = Ctx::Root;
    } else {
        switch (parent) {
        case Ctx::Root:
            if (m_key == Field::TraceEvents) {
                if (!isArray) {
                    m_shapeError = "\"traceEvents\" is not an array";
                    return false;
                }
                m_sawTraceEvents = true;
                next = Ctx::Events;
            } else if (m_key == Field::DeviceProperties && isArray) {
                next = Ctx::Devices;
            } else if (m_key == Field::DistributedInfo && !isArray) {
                next = Ctx::Distributed;
            } else if (m_key == Field::StallscopeKey && !isArray) {
                m_sink.onStallscopeExport();
            }
            break;
        case Ctx::Events:
            if (!isArray) {
                m_event.reset();
                next = Ctx::Event;
            }
            break;
        case Ctx::Event:
            if (m_key == Field::Args && !isArray)
                next = Ctx::Args;
            break;
        case Ctx::Args:
            if (isArray) {
                m_arrayIndex = 0;
                next = m_key == Field::GridKey    ? Ctx::Grid
                       : m_key == Field::BlockKey ? Ctx::Block
                       : m_key == Field::StackKey ? Ctx::Stack
                                                  : Ctx::Skip;
            }
            break;
        case Ctx::Devices:
            if (!isArray) {
                m_device = KinetoDeviceProperties{};
                next = Ctx::Device;
            }
            break;
        default:
            break;
        }
    }
    m_stack.push_back(next);
    m_key = Field::Other;
    return true;
}

bool KinetoSaxHandler::StartObject() {
    return open(false);
}
bool KinetoSaxHandler::StartArray() {
    return open(true);
}

bool KinetoSaxHandler::EndObject(unsigned) {
    const Ctx closed = top();
    m_stack.pop_back();
    m_key = Field::Other;
    if (closed == Ctx::Event) {
        ++m_eventCount;
        m_event.category = kinetoCategory(m_event.cat);
        return m_sink.onEvent(m_event);
    }
    if (closed == Ctx::Device)
        m_sink.onDeviceProperties(m_device);
    return true;
}

bool KinetoSaxHandler::EndArray(unsigned) {
    m_stack.pop_back();
    m_key = Field::Other;
    return true;
}

bool KinetoSaxHandler::Key(const char* t, unsigned n, bool) {
    using K = Field;
    using format::Keyword;
    // The keys the importer reads, by the object they stand in; any other key is K::Other.
    static constexpr Keyword<K> kRootKeys[] = {
        {"traceEvents", K::TraceEvents},
        {"deviceProperties", K::DeviceProperties},
        {"distributedInfo", K::DistributedInfo},
        {"stallscope", K::StallscopeKey},
    };
    static constexpr Keyword<K> kEventKeys[] = {
        {"ph", K::Ph},   {"ts", K::Ts},   {"cat", K::Cat},   {"pid", K::Pid},
        {"tid", K::Tid}, {"dur", K::Dur}, {"name", K::Name}, {"args", K::Args},
    };
    static constexpr Keyword<K> kArgsKeys[] = {
        {"correlation", K::Correlation},
        {"stream", K::Stream},
        {"device", K::Device},
        {"context", K::Context},
        {"bytes", K::Bytes},
        {"cbid", K::Cbid},
        {"registers per thread", K::Registers},
        {"shared memory", K::SharedMemory},
        {"grid", K::GridKey},
        {"block", K::BlockKey},
        {"wait_on_cuda_event_id", K::WaitEvent},
        {"name", K::ArgName},
        {"labels", K::Labels},
        {"kind", K::Kind},
        {"event", K::Event},
        {"stack", K::StackKey},
    };
    static constexpr Keyword<K> kDeviceKeys[] = {
        {"id", K::Id},
        {"name", K::Name},
        {"totalGlobalMem", K::TotalGlobalMem},
        {"computeMajor", K::ComputeMajor},
        {"computeMinor", K::ComputeMinor},
        {"numSms", K::NumSms},
    };
    static constexpr Keyword<K> kDistributedKeys[] = {{"rank", K::Rank}};

    const std::string_view key(t, n);
    switch (top()) {
    case Ctx::Root:
        m_key = format::lookupKeyword<kRootKeys>(key, K::Other);
        break;
    case Ctx::Event:
        m_key = format::lookupKeyword<kEventKeys>(key, K::Other);
        break;
    case Ctx::Args:
        m_key = format::lookupKeyword<kArgsKeys>(key, K::Other);
        break;
    case Ctx::Device:
        m_key = format::lookupKeyword<kDeviceKeys>(key, K::Other);
        break;
    case Ctx::Distributed:
        m_key = format::lookupKeyword<kDistributedKeys>(key, K::Other);
        break;
    default:
        m_key = K::Other;
        break;
    }
    return true;
}

bool KinetoSaxHandler::RawNumber(const char* t, unsigned n, bool) {
    const Ctx ctx = top();
    if (ctx == Ctx::Event && (m_key == Field::Ts || m_key == Field::Dur)) {
        const int64_t ns = microsToNanos(t, n);
        if (m_key == Field::Ts) {
            m_event.tsNs = ns;
            m_event.hasTs = true;
        } else {
            m_event.durNs = ns;
        }
        m_key = Field::Other;
        return true;
    }
    return scalarNumber(parseInteger(t, n));
}

bool KinetoSaxHandler::scalarNumber(int64_t v) {
    switch (top()) {
    case Ctx::Root:
        if (m_key == Field::TraceEvents) {
            m_shapeError = "\"traceEvents\" is not an array";
            return false;
        }
        break;
    case Ctx::Event:
        switch (m_key) {
        case Field::Pid:
            m_event.pid = v;
            m_event.pidIsNumber = true;
            break;
        case Field::Tid:
            m_event.tid = v;
            m_event.tidIsNumber = true;
            break;
        case Field::Ts:
            m_event.tsNs = v * 1000;
            m_event.hasTs = true;
            break;
        case Field::Dur:
            m_event.durNs = v * 1000;
            break;
        default:
            break;
        }
        break;
    case Ctx::Args:
        switch (m_key) {
        case Field::Correlation:
            m_event.correlation = v;
            break;
        case Field::Stream:
            m_event.stream = v;
            break;
        case Field::Device:
            m_event.device = v;
            break;
        case Field::Context:
            m_event.context = v;
            break;
        case Field::Bytes:
            m_event.bytes = v;
            break;
        case Field::Cbid:
            m_event.cbid = v;
            break;
        case Field::Registers:
            m_event.registersPerThread = v;
            break;
        case Field::SharedMemory:
            m_event.sharedMemory = v;
            break;
        case Field::WaitEvent:
        case Field::Event:
            m_event.waitEventId = v;
            break;
        case Field::Kind:
            m_event.syncKind = v;
            break;
        default:
            break;
        }
        break;
    case Ctx::Grid:
    case Ctx::Block:
        if (m_arrayIndex < 3)
            (top() == Ctx::Grid ? m_event.grid : m_event.block)[m_arrayIndex] =
                static_cast<int32_t>(v);
        ++m_arrayIndex;
        return true;
    case Ctx::Device:
        switch (m_key) {
        case Field::Id:
            m_device.id = v;
            break;
        case Field::TotalGlobalMem:
            m_device.totalGlobalMem = v;
            break;
        case Field::ComputeMajor:
            m_device.computeMajor = v;
            break;
        case Field::ComputeMinor:
            m_device.computeMinor = v;
            break;
        case Field::NumSms:
            m_device.numSms = v;
            break;
        default:
            break;
        }
        break;
    case Ctx::Distributed:
        if (m_key == Field::Rank)
            m_sink.onRank(v);
        break;
    default:
        break;
    }
    m_key = Field::Other;
    return true;
}

bool KinetoSaxHandler::String(const char* t, unsigned n, bool) {
    switch (top()) {
    case Ctx::Root:
        if (!m_sawTraceEvents && m_key == Field::TraceEvents) {
            m_shapeError = "\"traceEvents\" is not an array";
            return false;
        }
        break;
    case Ctx::Event:
        switch (m_key) {
        case Field::Ph:
            m_event.ph = n > 0 ? t[0] : 0;
            break;
        case Field::Cat:
            m_event.cat.assign(t, n);
            break;
        case Field::Name:
            m_event.name.assign(t, n);
            break;
        case Field::Pid:
            m_event.pidIsNumber = false;
            break; // "Spans", "Traces": not a process
        case Field::Tid:
            m_event.tidIsNumber = false;
            break;
        default:
            break;
        }
        break;
    case Ctx::Args:
        if (m_key == Field::ArgName)
            m_event.argName.assign(t, n);
        else if (m_key == Field::Labels)
            m_event.argLabels.assign(t, n);
        break;
    case Ctx::Stack:
        if (m_event.stack.size() <= m_event.stackSize)
            m_event.stack.emplace_back();
        m_event.stack[m_event.stackSize++].assign(t, n);
        return true;
    case Ctx::Device:
        if (m_key == Field::Name)
            m_device.name.assign(t, n);
        break;
    default:
        break;
    }
    m_key = Field::Other;
    return true;
}

} // namespace stallscope::model
