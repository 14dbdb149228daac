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

namespace {
// The parts of a number's text, for RawNumber and the static functions (KinetoJsonReader hands
// Number them as it scanned them): what is not [-]digits[.digits][exponent] is not plain().
JsonNumber numberParts(std::string_view text) {
    JsonNumber number;
    const char* p = text.data();
    const char* end = p + text.size();
    number.negative = p != end && *p == '-';
    p += number.negative ? 1 : 0;
    const char* digits = p;
    uint64_t integer = 0; // unsigned: more than 18 digits wrap harmlessly (not plain())
    for (; p != end && json_detail::isDigit(*p); ++p)
        integer = integer * 10 + static_cast<uint64_t>(*p - '0');
    number.integer = integer;
    number.integerDigits = static_cast<size_t>(p - digits);
    if (p != end && *p == '.') {
        const char* fraction = ++p;
        while (p != end && json_detail::isDigit(*p))
            ++p;
        number.fraction = std::string_view(fraction, static_cast<size_t>(p - fraction));
    }
    if (p != end && (*p == 'e' || *p == 'E'))
        number.exponent = true;
    else if (p != end)
        number.integerDigits = 0; // not a number
    return number;
}
} // namespace

std::optional<int64_t> KinetoSaxHandler::parseInteger(std::string_view text) {
    return parseInteger(text, numberParts(text));
}

std::optional<int64_t> KinetoSaxHandler::microsToNanos(std::string_view text) {
    return microsToNanos(text, numberParts(text));
}

// The common forms, [-]digits[.digits] with at most 18 integer digits (plain()), from their
// parts; the rest from the text, as before KinetoJsonReader scanned numbers. Both agree.
std::optional<int64_t> KinetoSaxHandler::parseInteger(std::string_view text,
                                                      const JsonNumber& number) {
    if (number.plain()) {
        const auto value = static_cast<int64_t>(number.integer);
        return number.negative ? -value : value;
    }
    if (hasExponent(text)) // rare: "1e3"
        return scaledDouble(text, 1.0, 0x1p63);
    bool negative = false;
    std::string_view fraction;
    const std::optional<int64_t> value = leadingInteger(text, &negative, &fraction);
    if (!value)
        return std::nullopt;
    return negative ? -*value : *value;
}

std::optional<int64_t> KinetoSaxHandler::microsToNanos(std::string_view text,
                                                       const JsonNumber& number) {
    bool negative = false;
    std::string_view fraction;
    std::optional<int64_t> micros;
    if (number.plain()) {
        negative = number.negative;
        micros = static_cast<int64_t>(number.integer);
        fraction = number.fraction;
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
        {"stack_id", K::StackId},
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
    return Number(t, n, numberParts(std::string_view(t, n)));
}

bool KinetoSaxHandler::Number(const char* t, unsigned n, const JsonNumber& number) {
    if (n > kMaxJsonValueBytes)
        return refuse(jsonValueTooLongError());
    const bool stored = storeNumber(std::string_view(t, n), number);
    m_key = Field::Other;
    return stored;
}

// A key names its object too: event, args, device and distributedInfo keys are distinct Fields
// (only "name" is shared, and it is a string), so the key alone says where a number goes. Inside
// "grid" and "block" arrays there is no key: the dimensions go in order.
bool KinetoSaxHandler::storeNumber(std::string_view text, const JsonNumber& number) {
    int64_t* field = nullptr;
    int32_t* narrowField = nullptr;
    switch (m_key) {
    case Field::Other: {
        const Ctx ctx = top();
        if ((ctx != Ctx::Grid && ctx != Ctx::Block) || m_arrayIndex >= 3)
            return true; // a number the importer does not read; a fourth dimension is ignored
        narrowField = &(ctx == Ctx::Grid ? m_event.grid : m_event.block)[m_arrayIndex++];
        break;
    }
    case Field::TraceEvents:
        return notKineto(kEventsNotArray);
    case Field::Ts:
    case Field::Dur: {
        const std::optional<int64_t> ns = microsToNanos(text, number);
        if (!ns)
            return refuse("\"" + std::string(m_key == Field::Ts ? "ts" : "dur") + "\" " +
                          shownNumber(text) + " is out of range (beyond " +
                          std::to_string(kMaxTraceTimeNs / 1000) + " µs)");
        (m_key == Field::Ts ? m_event.tsNs : m_event.durNs) = *ns;
        m_event.hasTs = m_event.hasTs || m_key == Field::Ts;
        return true;
    }
    case Field::Pid:
        m_event.pidIsNumber = true;
        field = &m_event.pid;
        break;
    case Field::Tid:
        m_event.tidIsNumber = true;
        field = &m_event.tid;
        break;
    case Field::Correlation:
        field = &m_event.correlation;
        break;
    case Field::Stream:
        field = &m_event.stream;
        break;
    case Field::Device:
        field = &m_event.device;
        break;
    case Field::Context:
        field = &m_event.context;
        break;
    case Field::Bytes:
        field = &m_event.bytes;
        break;
    case Field::Cbid:
        field = &m_event.cbid;
        break;
    case Field::WaitEvent:
    case Field::Event:
        field = &m_event.waitEventId;
        break;
    case Field::Kind:
        field = &m_event.syncKind;
        break;
    case Field::WaitRecordCorrelation:
        field = &m_event.waitRecordCorrelation;
        break;
    case Field::WaitStream:
        field = &m_event.waitStream;
        break;
    case Field::StackId:
        field = &m_event.stackId;
        break;
    case Field::Registers:
        narrowField = &m_event.registersPerThread;
        break;
    case Field::SharedMemory:
        narrowField = &m_event.sharedMemory;
        break;
    case Field::Id:
        field = &m_device.id;
        break;
    case Field::TotalGlobalMem:
        field = &m_device.totalGlobalMem;
        break;
    case Field::ComputeMajor:
        field = &m_device.computeMajor;
        break;
    case Field::ComputeMinor:
        field = &m_device.computeMinor;
        break;
    case Field::NumSms:
        field = &m_device.numSms;
        break;
    case Field::Rank:
        break;
    default:
        return true; // a number under a key whose value the importer reads as text
    }
    const std::optional<int64_t> value = parseInteger(text, number);
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
        case Field::Ts:
        case Field::Dur: {
            // Some writers quote their times ("ts": "1700.5"): read a quoted number as the number.
            std::string_view text(t, n);
            while (!text.empty() && text.front() == ' ')
                text.remove_prefix(1);
            while (!text.empty() && text.back() == ' ')
                text.remove_suffix(1);
            const JsonNumber number = numberParts(text);
            if (!text.empty() && (number.integerDigits > 0 || number.exponent))
                return Number(text.data(), static_cast<unsigned>(text.size()), number);
            break; // not a time: the event stays untimed and is counted as such
        }
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
