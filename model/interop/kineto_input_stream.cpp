#include "model/interop/kineto_input_stream.h"

#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace stallscope::model {

namespace {
// Why reading `file` failed, from zlib's error state; empty when it did not (a clean end).
std::string readErrorText(gzFile file, const std::string& path) {
    int code = 0;
    std::string message = gzerror(file, &code);
    if (message.compare(0, path.size() + 2, path + ": ") == 0)
        message.erase(0, path.size() + 2); // zlib names the file; the importer does already
    switch (code) {
    case Z_OK:
        return {};
    case Z_BUF_ERROR:
        return "compressed data ends early (truncated .gz file)";
    case Z_DATA_ERROR:
        return "corrupt gzip data: " + message;
    case Z_MEM_ERROR:
        return "out of memory while decompressing";
    default:
        return "cannot read: " + message;
    }
}
} // namespace

KinetoInputStream::~KinetoInputStream() {
    if (m_file)
        gzclose(static_cast<gzFile>(m_file));
}

bool KinetoInputStream::open(const std::string& path, std::string* error) {
    std::error_code ec;
    m_fileSize = static_cast<int64_t>(std::filesystem::file_size(path, ec));
    if (ec) {
        *error = "cannot read: " + ec.message();
        return false;
    }
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file) {
        *error = std::string("cannot open: ") + std::strerror(errno);
        return false;
    }
    gzbuffer(file, 256 * 1024);
    m_file = file;
    m_path = path;
    m_buffer.assign(m_chunkBytes + 1 + kInputPaddingBytes, '\0');
    m_current = m_end = m_buffer.data();
    m_consumed = 0;
    m_compressed = gzdirect(file) == 0; // zlib reads the header for this
    readMore(m_end);
    return true;
}

bool KinetoInputStream::readMore(char* keep) {
    char* base = m_buffer.data();
    const size_t kept = static_cast<size_t>(m_end - keep);
    m_consumed += static_cast<size_t>(keep - base);
    if (kept > 0 && keep != base)
        std::memmove(base, keep, kept);
    m_current = base;
    m_end = base + kept;
    *m_end = '\0';
    if (m_eof)
        return false;
    if (kept > capacity() / 2) { // a long token: room for it and a chunk after it
        m_buffer.resize(2 * capacity() + 1 + kInputPaddingBytes);
        base = m_current = m_buffer.data();
        m_end = base + kept;
    }
    gzFile file = static_cast<gzFile>(m_file);
    const size_t room = std::min(capacity() - kept, m_chunkBytes);
    const int n = gzread(file, m_end, static_cast<unsigned>(room));
    const z_off_t offset = gzoffset(file);
    m_fileOffset.store(offset < 0 ? 0 : static_cast<int64_t>(offset), std::memory_order_relaxed);
    if (n <= 0) {
        // gzread may have inflated into the buffer before it failed: restore the sentinel, or
        // the parser reads that stale byte for ever. A truncated .gz ends with 0, not -1.
        const std::string error = readErrorText(file, m_path);
        if (!error.empty()) {
            endEarly(error);
            return false;
        }
        m_eof = true;
        *m_end = '\0';
        return false;
    }
    char* added = m_end;
    m_end += n;
    *m_end = '\0';
    blankControlCharacters(added, m_end);
    m_readBytes += n;
    if (m_compressed && m_readBytes > kMaxInflationRatio * m_fileSize + kInflationAllowance) {
        endEarly("the .gz inflates to more than " + std::to_string(kMaxInflationRatio) +
                 " times its size (a decompression bomb?)");
        return false;
    }
    return true;
}

namespace {
// Whether the byte is a tab, newline or carriage return: whitespace JSON allows between values.
bool jsonWhitespace(unsigned char c) {
    return c == '\t' || c == '\n' || c == '\r';
}
} // namespace

// Every control byte is read as a space, wherever it is: inside strings that is the tolerance
// wanted, outside them a tab or newline is whitespace either way and any other control byte was
// invalid JSON. So no string state is tracked and the pass costs a few instructions per 16 bytes
// (SSE2, on every x86-64). A NUL read from the file is blanked too: the parser's end of input is
// only the sentinel written after the data.
void KinetoInputStream::blankControlCharacters(char* p, char* end) {
    auto blank = [this](char* at) {
        const auto c = static_cast<unsigned char>(*at);
        m_controlCharacters += jsonWhitespace(c) ? 0 : 1;
        *at = ' ';
    };
#if defined(__SSE2__)
    const __m128i below = _mm_set1_epi8(0x1f);
    for (; end - p >= 16; p += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        // v <= 0x1f, unsigned: max(v, 0x1f) == 0x1f
        auto mask =
            static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, below), below)));
        for (; mask != 0; mask &= mask - 1)
            blank(p + __builtin_ctz(mask));
    }
#endif
    for (; p != end; ++p)
        if (static_cast<unsigned char>(*p) < 0x20)
            blank(p);
}

void KinetoInputStream::endEarly(std::string why) {
    m_readError = std::move(why);
    m_eof = true;
    m_current = m_end = m_buffer.data();
    *m_end = '\0';
}

} // namespace stallscope::model
