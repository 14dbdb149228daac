#include "model/interop/kineto_sax_handler.h"

#include "format/keyword_table.h"

#include <charconv>
#include <cmath>
#include <string>

namespace stallscope::model {

namespace {

constexpr const char* kEventsNotArray = "\"traceEvents\" is not an array";

// A number as it may be shown in an error: at most 40 characters of it.
std::string shownNumber(std::string_view text) {
    return text.size() <= 40 ? std::string(text) : std::string(text.substr(0, 40)) + "...";
}

// Parses an exponent form ("1e3", "-2.5E-1") as a double scaled by `scale`, rounded to the
// nearest integer; nullopt when not finite or beyond ±limit.
std::optional<int64_t> scaledDouble(std::string_view text, double scale, double limit) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    value *= scale;
    if (!std::isfinite(value) || std::fabs(value) >= limit)
        return std::nullopt;
    return static_cast<int64_t>(std::llround(value));
}

// A plain loop: find_first_of("eE") searches the set with memchr once per character, which
// cost the import ~4 % of its time (every timestamp and id goes through here).
bool hasExponent(std::string_view text) {
    for (const char c : text)
        if ((c | 0x20) == 'e') // 'e' or 'E'
            return true;
    return false;
}

// Reads the integer digits that start `text` (after an optional '-'); nullopt beyond int64.
// `rest` is what follows them (a fraction, or nothing).
std::optional<int64_t> leadingInteger(std::string_view text, bool* negative,
                                      std::string_view* rest) {
    *negative = !text.empty() && text[0] == '-';
    const char* begin = text.data() + (*negative ? 1 : 0);
    const char* end = text.data() + text.size();
    int64_t value = 0;
    const auto [after, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || value < 0)
        return std::nullopt;
    *rest = std::string_view(after, static_cast<size_t>(end - after));
    return value;
}

// `text`, cut to kMaxNameBytes at a UTF-8 character boundary and marked when longer.
void assignName(std::string& name, const char* text, unsigned length) {
    if (length <= kMaxNameBytes) {
        name.assign(text, length);
        return;
    }
    size_t cut = kMaxNameBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut; // not inside a multi-byte character
    name.assign(text, cut);
    name += " [... cut from " + std::to_string(length) + " bytes]";
}

} // namespace

std::string jsonValueTooLongError() {
    return "a JSON string or number longer than " + std::to_string(kMaxJsonValueBytes >> 20) +
           " MiB (the limit)";
}

// The common forms, read in one pass: [-]digits[.digits] with at most 18 integer digits (no
// overflow possible, no exponent). Anything else takes the general path below; both agree.
namespace {
struct PlainNumber {
    bool negative = false;
    int64_t integer = 0;
    std::string_view fraction; // the digits after the point
};
std::optional<PlainNumber> plainNumber(std::string_view text) {
    const char* p = text.data();
    const char* end = p + text.size();
    PlainNumber number;
    number.negative = p != end && *p == '-';
    p += number.negative ? 1 : 0;
    const char* digits = p;
    for (; p != end && *p >= '0' && *p <= '9'; ++p)
        number.integer = number.integer * 10 + (*p - '0');
    if (p == digits || p - digits > 18)
        return std::nullopt;
    if (p != end && *p == '.') {
        const char* fraction = ++p;
        while (p != end && *p >= '0' && *p <= '9')
            ++p;
        number.fraction = std::string_view(fraction, static_cast<size_t>(p - fraction));
    }
    if (p != end)
        return std::nullopt; // an exponent, or not a number
    return number;
}
} // namespace

std::optional<int64_t> KinetoSaxHandler::parseInteger(std::string_view text) {
    if (const std::optional<PlainNumber> plain = plainNumber(text))
        return plain->negative ? -plain->integer : plain->integer;
    if (hasExponent(text)) // rare: "1e3"
        return scaledDouble(text, 1.0, 0x1p63);
    bool negative = false;
    std::string_view fraction;
    const std::optional<int64_t> value = leadingInteger(text, &negative, &fraction);
    if (!value)
        return std::nullopt;
    return negative ? -*value : *value;
}

std::optional<int64_t> KinetoSaxHandler::microsToNanos(std::string_view text) {
    bool negative = false;
    std::string_view fraction;
    std::optional<int64_t> micros;
    if (const std::optional<PlainNumber> plain = plainNumber(text)) {
        negative = plain->negative;
        micros = plain->integer;
        fraction = plain->fraction;
    } else if (hasExponent(text)) {
        return scaledDouble(text, 1000.0, static_cast<double>(kMaxTraceTimeNs));
    } else {
        micros = leadingInteger(text, &negative, &fraction);
        if (!micros || fraction.empty() || fraction[0] != '.')
            fraction = {};
        else
            fraction.remove_prefix(1);
    }
    if (!micros || *micros > kMaxTraceTimeNs / 1000)
        return std::nullopt;
    int64_t nanos = 0;
    int digits = 0;
    bool roundUp = false;
    for (const char c : fraction) {
        if (digits < 3)
            nanos = nanos * 10 + (c - '0');
        else if (digits == 3)
            roundUp = c >= '5';
        ++digits;
    }
    for (; digits < 3; ++digits)
        nanos *= 10;
    const int64_t total = *micros * 1000 + nanos + (roundUp ? 1 : 0);
    if (total > kMaxTraceTimeNs)
        return std::nullopt;
    return negative ? -total : total;
}

bool KinetoSaxHandler::refuse(std::string message) {
    m_error = std::move(message);
    return false;
}

bool KinetoSaxHandler::notKineto(const std::string& why) {
    return refuse("not a PyTorch profiler (Kineto) trace: " + why);
}

bool KinetoSaxHandler::open(bool isArray) {
    if (m_stack.size() >= kMaxJsonDepth)
        return refuse("JSON nested more than " + std::to_string(kMaxJsonDepth) +
                      " levels deep (the limit)");
    const Ctx parent = top();
    Ctx next = Ctx::Skip;
    if (!m_sawRoot) {
        m_sawRoot = true;
        if (isArray) {
            return notKineto("the top-level JSON value is an array, not Kineto's object with "
                             "\"traceEvents\"");
        }
        next = Ctx::Root;
    } else {
        switch (parent) {
        case Ctx::Root:
            if (m_key == Field::TraceEvents) {
                if (!isArray)
                    return notKineto(kEventsNotArray);
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
    if (n > kMaxJsonValueBytes)
        return refuse(jsonValueTooLongError());
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
        {"wait_on_cuda_event_record_corr_id", K::WaitRecordCorrelation},
        {"wait_on_stream", K::WaitStream},
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
    if (n > kMaxJsonValueBytes)
        return refuse(jsonValueTooLongError());
    const bool stored = storeNumber(std::string_view(t, n));
    m_key = Field::Other;
    return stored;
}

// The int64 field an integer under `key` goes to in `ctx`, or null when the importer ignores it.
int64_t* KinetoSaxHandler::integerField(Ctx ctx, Field key) {
    if (ctx == Ctx::Event) {
        switch (key) {
        case Field::Pid:
            m_event.pidIsNumber = true;
            return &m_event.pid;
        case Field::Tid:
            m_event.tidIsNumber = true;
            return &m_event.tid;
        default:
            return nullptr;
        }
    }
    if (ctx == Ctx::Args) {
        switch (key) {
        case Field::Correlation:
            return &m_event.correlation;
        case Field::Stream:
            return &m_event.stream;
        case Field::Device:
            return &m_event.device;
        case Field::Context:
            return &m_event.context;
        case Field::Bytes:
            return &m_event.bytes;
        case Field::Cbid:
            return &m_event.cbid;
        case Field::WaitEvent:
        case Field::Event:
            return &m_event.waitEventId;
        case Field::Kind:
            return &m_event.syncKind;
        case Field::WaitRecordCorrelation:
            return &m_event.waitRecordCorrelation;
        case Field::WaitStream:
            return &m_event.waitStream;
        default:
            return nullptr;
        }
    }
    if (ctx == Ctx::Device) {
        switch (key) {
        case Field::Id:
            return &m_device.id;
        case Field::TotalGlobalMem:
            return &m_device.totalGlobalMem;
        case Field::ComputeMajor:
            return &m_device.computeMajor;
        case Field::ComputeMinor:
            return &m_device.computeMinor;
        case Field::NumSms:
            return &m_device.numSms;
        default:
            return nullptr;
        }
    }
    return nullptr;
}

// The int32 field a number goes to: a grid or block dimension, registers, shared memory.
int32_t* KinetoSaxHandler::int32Field(Ctx ctx, Field key) {
    if (ctx == Ctx::Grid || ctx == Ctx::Block) {
        if (m_arrayIndex >= 3)
            return nullptr; // a fourth dimension: ignored
        return &(ctx == Ctx::Grid ? m_event.grid : m_event.block)[m_arrayIndex++];
    }
    if (ctx == Ctx::Args && key == Field::Registers)
        return &m_event.registersPerThread;
    if (ctx == Ctx::Args && key == Field::SharedMemory)
        return &m_event.sharedMemory;
    return nullptr;
}

bool KinetoSaxHandler::storeNumber(std::string_view text) {
    const Ctx ctx = top();
    const Field key = m_key;
    if (ctx == Ctx::Root && key == Field::TraceEvents)
        return notKineto(kEventsNotArray);
    if (ctx == Ctx::Event && (key == Field::Ts || key == Field::Dur)) {
        const std::optional<int64_t> ns = microsToNanos(text);
        if (!ns)
            return refuse("\"" + std::string(key == Field::Ts ? "ts" : "dur") + "\" " +
                          shownNumber(text) + " is out of range (beyond " +
                          std::to_string(kMaxTraceTimeNs / 1000) + " µs)");
        (key == Field::Ts ? m_event.tsNs : m_event.durNs) = *ns;
        m_event.hasTs = m_event.hasTs || key == Field::Ts;
        return true;
    }
    const bool isRank = ctx == Ctx::Distributed && key == Field::Rank;
    int64_t* field = integerField(ctx, key);
    int32_t* narrowField = field || isRank ? nullptr : int32Field(ctx, key);
    if (!field && !narrowField && !isRank)
        return true; // a number the importer does not read
    const std::optional<int64_t> value = parseInteger(text);
    if (!value || (narrowField && (*value < INT32_MIN || *value > INT32_MAX)))
        return refuse("number " + shownNumber(text) + " is out of range");
    if (field)
        *field = *value;
    else if (narrowField)
        *narrowField = static_cast<int32_t>(*value);
    else
        m_sink.onRank(*value);
    return true;
}

bool KinetoSaxHandler::String(const char* t, unsigned n, bool) {
    if (n > kMaxJsonValueBytes)
        return refuse(jsonValueTooLongError());
    switch (top()) {
    case Ctx::Root:
        if (!m_sawTraceEvents && m_key == Field::TraceEvents)
            return notKineto(kEventsNotArray);
        break;
    case Ctx::Event:
        switch (m_key) {
        case Field::Ph:
            m_event.ph = n > 0 ? t[0] : 0;
            break;
        case Field::Cat:
            assignName(m_event.cat, t, n);
            break;
        case Field::Name:
            assignName(m_event.name, t, n);
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
            assignName(m_event.argName, t, n);
        else if (m_key == Field::Labels)
            assignName(m_event.argLabels, t, n);
        break;
    case Ctx::Stack:
        if (m_event.stackSize >= kMaxStackEntries)
            return refuse("a \"stack\" of more than " + std::to_string(kMaxStackEntries) +
                          " entries (the limit)");
        if (m_event.stack.size() <= m_event.stackSize)
            m_event.stack.emplace_back();
        assignName(m_event.stack[m_event.stackSize++], t, n);
        return true;
    case Ctx::Device:
        if (m_key == Field::Name)
            assignName(m_device.name, t, n);
        break;
    default:
        break;
    }
    m_key = Field::Other;
    return true;
}

} // namespace stallscope::model
