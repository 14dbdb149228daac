// KinetoJsonReader: the importer's JSON tokenizer. It reads the text where KinetoInputStream
// buffered it and hands a SAX handler (RapidJSON's handler concept: StartObject, Key, String,
// RawNumber, ...) the same calls in the same order as RapidJSON's reader with
// kParseNumbersAsStringsFlag would, at the same byte offsets. It accepts exactly the JSON that
// reader accepts (numbers too big for a double included: those few are checked by RapidJSON
// itself), so a trace imports or fails as before. What it does not do is say why a text is
// malformed: the importer asks RapidJSON for that (explainMalformedTrace, kineto_trace_reader.h).
//
// Why not RapidJSON itself: it copies every string and number a byte at a time into its own
// stack before the handler sees it: 55 % of an import's instructions, a third of its time
// (bench/RESULTS.md). Here a string or number is handed over where it lies in the buffer (a
// string with escapes is decoded into a scratch buffer), string bodies are scanned 16 bytes at a
// time, and the buffer is refilled only between tokens or, for a token that crosses its end, by
// moving that token to its front.
#pragma once

#include "model/interop/kineto_input_stream.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::model {

// Longest string, key or number the reader holds (bytes, decoded). RapidJSON held as much in its
// stack (twice kMaxJsonValueBytes, the handler's own limit) before the importer stopped it.
inline constexpr size_t kMaxJsonTokenBytes = 2 << 20;
// Arrays and objects open at once. The Kineto handler refuses far fewer (kMaxJsonDepth); this
// bounds the reader's own stack whatever the handler.
inline constexpr size_t kMaxJsonReaderDepth = 4096;

enum class JsonReadStatus : uint8_t {
    Complete,  // one JSON value, then only whitespace (or a NUL byte, as for RapidJSON)
    Stopped,   // a handler call returned false
    Malformed, // not JSON (RapidJSON's reader says why)
    TooLong,   // a string or number longer than kMaxJsonTokenBytes
    TooDeep,   // nested deeper than kMaxJsonReaderDepth
};

// A number's parts as KinetoJsonReader scanned them, for a handler with a
// Number(text, length, JsonNumber) method (called instead of RawNumber) that would otherwise read
// the text again: KinetoSaxHandler.
struct JsonNumber {
    bool negative = false;
    uint64_t integer = 0;      // the value of the integer digits, when plain()
    size_t integerDigits = 0;  // 0 when the text is not a number
    std::string_view fraction; // the digits after the point, if any
    bool exponent = false;

    // No exponent and at most 18 integer digits: `integer` holds their exact value.
    bool plain() const { return !exponent && integerDigits >= 1 && integerDigits <= 18; }
};

namespace json_detail {

// Whether a grammatically valid number is one RapidJSON refuses as too big for a double (an
// integer part of hundreds of digits, an exponent beyond 308): asked only for numbers that could
// be (≥ 20 integer digits, or 3 or more digits of a positive exponent).
bool numberTooBig(std::string_view number);

// Appends the UTF-8 bytes of `codepoint` to `out`, as RapidJSON encodes a \u escape (lone
// surrogates included).
void appendUtf8(std::string& out, unsigned codepoint);

// The four hex digits at `p` as a number; -1 when one is not a hex digit (read no further).
int hex4(const char* p);

// The byte a one-character escape (\" \\ \/ \b \f \n \r \t) stands for; 0 for any other.
char escapedByte(char c);

// The first '"', '\\' or NUL at or after `p`; the caller's buffer has a NUL at its end and
// kInputPaddingBytes readable bytes after it.
inline const char* findStringSpecial(const char* p) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i zero = _mm_setzero_si128();
    for (;; p += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmpeq_epi8(v, zero));
        if (const int mask = _mm_movemask_epi8(hit); mask != 0)
            return p + __builtin_ctz(static_cast<unsigned>(mask));
    }
#else
    while (*p != '"' && *p != '\\' && *p != '\0')
        ++p;
    return p;
#endif
}

inline bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

} // namespace json_detail

template <class Handler> class KinetoJsonReader {
public:
    KinetoJsonReader(KinetoInputStream& stream, Handler& handler)
        : m_stream(stream), m_handler(handler) {}

    // Reads the stream's one JSON value to its end. The stream's Tell() is then where reading
    // stopped: after the token whose handler call returned false, or at the malformed byte.
    JsonReadStatus read() {
        m_p = m_stream.position();
        m_end = m_stream.end();
        const JsonReadStatus status = readDocument();
        m_stream.setPosition(m_p);
        return status;
    }

private:
    using Status = JsonReadStatus;

    // Reads more input keeping [keep, end); `keep` and m_p (≥ keep) follow the bytes they point at.
    // A read error empties the buffer: m_p is then its end.
    bool more(char*& keep) {
        const ptrdiff_t at = m_p - keep;
        const bool added = m_stream.readMore(keep);
        keep = m_stream.position();
        m_end = m_stream.end();
        m_p = std::min(keep + at, m_end);
        return added;
    }

    // At least `bytes` bytes from m_p on are in the buffer, unless the input ends sooner.
    void ensure(ptrdiff_t bytes) {
        while (m_end - m_p < bytes) {
            char* keep = m_p;
            if (!more(keep))
                return;
        }
    }

    // After this, *m_p is not a space; it is '\0' at m_end only at the end of input. Most calls
    // find no space or one (JSON as Kineto writes it: `"ts": 1, "dur": 2`): those return at once.
    void skipSpaces() {
        const auto byte = [](const char* p) { return static_cast<unsigned char>(*p); };
        if (byte(m_p) > ' ')
            return;
        if (*m_p == ' ' && byte(m_p + 1) > ' ') { // m_p < m_end: m_p[1] is in the buffer
            ++m_p;
            return;
        }
        for (;;) {
            while (*m_p == ' ')
                ++m_p;
            if (m_p != m_end)
                return;
            char* keep = m_p;
            if (!more(keep))
                return;
        }
    }

    Status readDocument() {
        skipSpaces();
        if (*m_p == '\0')
            return Status::Malformed; // empty (RapidJSON stops at a NUL byte as at the end)
        for (;;) {
            // A value starts at m_p.
            switch (*m_p) {
            case '{':
            case '[': {
                const bool isObject = *m_p++ == '{';
                if (!(isObject ? m_handler.StartObject() : m_handler.StartArray()))
                    return Status::Stopped;
                skipSpaces();
                if (*m_p == (isObject ? '}' : ']')) {
                    ++m_p;
                    if (!end(isObject, 0))
                        return Status::Stopped;
                    break;
                }
                if (m_open.size() >= kMaxJsonReaderDepth)
                    return Status::TooDeep;
                m_open.push_back({isObject, 0});
                if (isObject)
                    if (const Status status = readKey(); status != Status::Complete)
                        return status;
                continue;
            }
            case '"':
                if (const Status status = readString(false); status != Status::Complete)
                    return status;
                break;
            case 't':
            case 'f':
            case 'n':
                if (const Status status = readLiteral(); status != Status::Complete)
                    return status;
                break;
            default:
                if (const Status status = readNumber(); status != Status::Complete)
                    return status;
                break;
            }
            // A value ended: what follows it in the object or array it is in, or the document's
            // end.
            for (;;) {
                skipSpaces();
                if (m_open.empty())
                    return *m_p == '\0' ? Status::Complete : Status::Malformed;
                Open& open = m_open.back();
                ++open.count;
                const char c = *m_p;
                if (c == ',') {
                    ++m_p;
                    skipSpaces();
                    if (open.isObject) {
                        if (const Status status = readKey(); status != Status::Complete)
                            return status;
                    }
                    break; // the next value
                }
                if (c != (open.isObject ? '}' : ']'))
                    return Status::Malformed;
                ++m_p;
                const unsigned count = open.count;
                const bool isObject = open.isObject;
                m_open.pop_back();
                if (!end(isObject, count))
                    return Status::Stopped;
            }
        }
    }

    // The handler's call for the end of an object or array of `count` members or elements.
    bool end(bool isObject, unsigned count) {
        return isObject ? m_handler.EndObject(count) : m_handler.EndArray(count);
    }

    // A member's name, its colon and the spaces up to its value.
    Status readKey() {
        if (*m_p != '"')
            return Status::Malformed;
        if (const Status status = readString(true); status != Status::Complete)
            return status;
        skipSpaces();
        if (*m_p != ':')
            return Status::Malformed;
        ++m_p;
        skipSpaces();
        return Status::Complete;
    }

    Status deliverString(bool isKey, const char* text, size_t length) {
        const auto n = static_cast<unsigned>(length);
        const bool go = isKey ? m_handler.Key(text, n, false) : m_handler.String(text, n, false);
        return go ? Status::Complete : Status::Stopped;
    }

    // *m_p is the opening quote.
    Status readString(bool isKey) {
        char* start = ++m_p;
        for (;;) {
            m_p = const_cast<char*>(json_detail::findStringSpecial(m_p));
            const auto length = static_cast<size_t>(m_p - start);
            if (length > kMaxJsonTokenBytes)
                return Status::TooLong;
            if (*m_p == '"') {
                ++m_p;
                return deliverString(isKey, start, length);
            }
            if (*m_p == '\\') {
                m_scratch.assign(start, length);
                return readEscapedString(isKey);
            }
            if (m_p != m_end || !more(start))
                return Status::Malformed; // a NUL byte, or the end of input, inside the string
        }
    }

    // The rest of a string from its first backslash at m_p, decoded into m_scratch.
    Status readEscapedString(bool isKey) {
        for (;;) {
            if (m_scratch.size() > kMaxJsonTokenBytes)
                return Status::TooLong;
            const char c = *m_p;
            if (c == '"') {
                ++m_p;
                return deliverString(isKey, m_scratch.data(), m_scratch.size());
            }
            if (c == '\\') {
                ensure(12); // the longest escape: a surrogate pair, \uD83D\uDE00
                if (const char byte = json_detail::escapedByte(m_p[1]); byte != 0) {
                    m_scratch += byte;
                    m_p += 2;
                    continue;
                }
                if (m_p[1] != 'u')
                    return Status::Malformed;
                // Each test reads past a byte only once that byte proved not to be the final NUL.
                const int high = json_detail::hex4(m_p + 2);
                if (high < 0)
                    return Status::Malformed;
                m_p += 6;
                unsigned codepoint = static_cast<unsigned>(high);
                if (codepoint >= 0xD800 && codepoint <= 0xDBFF) {
                    if (m_p[0] != '\\' || m_p[1] != 'u')
                        return Status::Malformed;
                    const int low = json_detail::hex4(m_p + 2);
                    if (low < 0xDC00 || low > 0xDFFF)
                        return Status::Malformed;
                    m_p += 6;
                    codepoint = (((codepoint - 0xD800) << 10) | (low - 0xDC00)) + 0x10000;
                }
                json_detail::appendUtf8(m_scratch, codepoint);
                continue;
            }
            if (c == '\0') {
                char* keep = m_p;
                if (m_p != m_end || !more(keep))
                    return Status::Malformed;
                continue;
            }
            const char* run = json_detail::findStringSpecial(m_p);
            m_scratch.append(m_p, static_cast<size_t>(run - m_p));
            m_p = const_cast<char*>(run);
        }
    }

    // true, false or null.
    Status readLiteral() {
        ensure(5);
        const char* p = m_p;
        // Compared a byte at a time: the final NUL ends a short input before anything past it.
        if (p[0] == 't' && p[1] == 'r' && p[2] == 'u' && p[3] == 'e') {
            m_p += 4;
            return m_handler.Bool(true) ? Status::Complete : Status::Stopped;
        }
        if (p[0] == 'f' && p[1] == 'a' && p[2] == 'l' && p[3] == 's' && p[4] == 'e') {
            m_p += 5;
            return m_handler.Bool(false) ? Status::Complete : Status::Stopped;
        }
        if (p[0] == 'n' && p[1] == 'u' && p[2] == 'l' && p[3] == 'l') {
            m_p += 4;
            return m_handler.Null() ? Status::Complete : Status::Stopped;
        }
        return Status::Malformed;
    }

    // Where a number's grammar, -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?, ends, and its
    // parts (JsonNumber) on the way.
    struct NumberScan {
        const char* end;  // after its last character, or at the first one that breaks it
        bool valid;       // `end` is after a whole number
        bool maybeTooBig; // RapidJSON may find it too big for a double
        JsonNumber parts;
    };
    static NumberScan scanNumber(const char* q) {
        using json_detail::isDigit;
        NumberScan scan{q, false, false, {}};
        JsonNumber& parts = scan.parts;
        parts.negative = *q == '-';
        q += parts.negative ? 1 : 0;
        const char* integer = q;
        if (*q == '0') {
            ++q;
        } else if (*q >= '1' && *q <= '9') {
            uint64_t value = 0; // wraps past 19 digits: then not used (JsonNumber::plain)
            for (; isDigit(*q); ++q)
                value = value * 10 + static_cast<uint64_t>(*q - '0');
            parts.integer = value;
        } else {
            scan.end = q;
            return scan;
        }
        parts.integerDigits = static_cast<size_t>(q - integer);
        if (*q == '.') {
            const char* fraction = ++q;
            while (isDigit(*q))
                ++q;
            parts.fraction = std::string_view(fraction, static_cast<size_t>(q - fraction));
            if (parts.fraction.empty()) {
                scan.end = q;
                return scan;
            }
        }
        scan.end = q;
        scan.valid = true;
        scan.maybeTooBig = parts.integerDigits >= 20;
        if (*q != 'e' && *q != 'E')
            return scan;
        parts.exponent = true;
        ++q;
        bool positive = true;
        if (*q == '+' || *q == '-')
            positive = *q++ == '+';
        const char* digits = q;
        while (isDigit(*q))
            ++q;
        scan.end = q;
        scan.valid = q != digits;
        scan.maybeTooBig = scan.maybeTooBig || (positive && q - digits >= 3);
        return scan;
    }

    // A number, as RapidJSON's reader ends it: at the first character that cannot continue it
    // (which its container then finds malformed). The scan stops at the buffer's final NUL like
    // at any other character; a number that reaches it is scanned again with more input.
    Status readNumber() {
        char* start = m_p;
        NumberScan scan = scanNumber(start);
        while (scan.end == m_end && static_cast<size_t>(m_end - start) <= kMaxJsonTokenBytes) {
            const bool added = more(start); // moves the number: scanned again either way
            scan = scanNumber(start);
            if (!added)
                break;
        }
        if (!scan.valid)
            return Status::Malformed;
        const auto length = static_cast<size_t>(scan.end - start);
        if (scan.maybeTooBig && json_detail::numberTooBig(std::string_view(start, length)))
            return Status::Malformed;
        if (length > kMaxJsonTokenBytes)
            return Status::TooLong; // as RapidJSON's stack, long before its end
        m_p = const_cast<char*>(scan.end);
        const auto n = static_cast<unsigned>(length);
        bool go = false;
        if constexpr (requires { m_handler.Number(start, n, scan.parts); })
            go = m_handler.Number(start, n, scan.parts); // the parts, not to be read again
        else
            go = m_handler.RawNumber(start, n, false);
        return go ? Status::Complete : Status::Stopped;
    }

    struct Open {
        bool isObject;
        unsigned count; // members or elements read so far
    };

    KinetoInputStream& m_stream;
    Handler& m_handler;
    char* m_p = nullptr;
    char* m_end = nullptr;
    std::vector<Open> m_open;
    std::string m_scratch; // a string with escapes, decoded
};

} // namespace stallscope::model
