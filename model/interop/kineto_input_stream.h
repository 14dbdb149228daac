// KinetoInputStream: a RapidJSON input stream over a trace file, plain or gzip-compressed (zlib's
// gzread reads both), in fixed-size chunks, so a 1 GB trace is parsed in constant memory.
// A read error (corrupt or truncated gzip) or a .gz that inflates beyond kMaxInflationRatio times
// its size ends the input at once: the stream then reads as empty and readError() says why.
// Raw control characters (JSON forbids them inside strings; some PyTorch versions write them in
// names) are read as spaces, so such a trace imports instead of failing; those other than tab,
// newline and carriage return are counted.
// Two readers use it: KinetoJsonReader (kineto_json_reader.h) works on the buffer itself
// (position(), end(), readMore()); RapidJSON, which explains a malformed trace, reads a byte at a
// time through its stream concept (Peek, Take, Tell).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::model {

// A .gz may decompress to at most this many times its size, plus kInflationAllowance (so small
// files are never refused). Real torch.profiler traces inflate ~12x; gzip's limit is ~1032x.
inline constexpr int64_t kMaxInflationRatio = 256;
inline constexpr int64_t kInflationAllowance = 64 << 20;
// Decompressed text read at a time (tests read in smaller chunks to put tokens across them).
inline constexpr size_t kInputChunkBytes = 1 << 20;
// Bytes after end() that may be loaded, never used: scans compare 16 bytes at a time.
inline constexpr size_t kInputPaddingBytes = 64;

class KinetoInputStream {
public:
    using Ch = char; // RapidJSON's stream concept

    explicit KinetoInputStream(size_t chunkBytes = kInputChunkBytes) : m_chunkBytes(chunkBytes) {}
    ~KinetoInputStream();
    KinetoInputStream(const KinetoInputStream&) = delete;
    KinetoInputStream& operator=(const KinetoInputStream&) = delete;

    // Opens `path`; false with *error set when it cannot be read.
    bool open(const std::string& path, std::string* error);

    // RapidJSON stream concept (read side). '\0' marks the end of input.
    Ch Peek() const { return *m_current; }
    Ch Take() {
        const Ch c = *m_current;
        if (m_current != m_end && ++m_current == m_end)
            readMore(m_end);
        return c;
    }
    size_t Tell() const { return m_consumed + static_cast<size_t>(m_current - m_buffer.data()); }
    // Skips whitespace, which after blankControlCharacters is spaces only, a chunk at a time
    // (the '\0' sentinel ends each run); RapidJSON calls it through SkipWhitespace below.
    void skipSpaces() {
        for (;;) {
            while (*m_current == ' ')
                ++m_current;
            if (m_current != m_end || !readMore(m_end))
                return;
        }
    }
    Ch* PutBegin() { return nullptr; }
    void Put(Ch) {}
    void Flush() {}
    size_t PutEnd(Ch*) { return 0; }

    // The buffer, for KinetoJsonReader: [position(), end()) is read and not yet consumed, *end() is
    // '\0' and kInputPaddingBytes more bytes may be loaded after it.
    char* position() const { return m_current; }
    char* end() const { return m_end; }
    void setPosition(char* position) { m_current = position; }
    // Consumes the bytes before `keep` and reads more after those from `keep` on (a token being
    // read), which move to the buffer's front (position() is their new address); the buffer grows
    // when they fill half of it (the reader bounds tokens). False when nothing was added: the end
    // of input, or a read error (which also drops what was kept, see readError()).
    bool readMore(char* keep);

    // True once every byte of the (decompressed) input has been consumed.
    bool atEnd() const { return m_eof && m_current == m_end; }
    // Why the input ended early (corrupt, truncated or inflating .gz), empty when it did not.
    const std::string& readError() const { return m_readError; }
    bool compressed() const { return m_compressed; }
    // Control characters read as spaces, tab, newline and carriage return not counted.
    int64_t controlCharacters() const { return m_controlCharacters; }
    // Bytes of the file read so far (compressed bytes for .gz), for progress; any thread may ask.
    int64_t fileOffset() const { return m_fileOffset.load(std::memory_order_relaxed); }
    int64_t fileSize() const { return m_fileSize; }

private:
    // Ends the input here: the parser sees the end and readError() says `why` (if anything).
    void endEarly(std::string why);
    // Replaces the control characters of [begin, end) (but NUL) with spaces.
    void blankControlCharacters(char* begin, char* end);

    size_t capacity() const { return m_buffer.size() - 1 - kInputPaddingBytes; }

    size_t m_chunkBytes;
    void* m_file = nullptr; // gzFile
    std::string m_path;
    std::vector<char> m_buffer; // capacity() bytes of text, the sentinel, the padding
    Ch* m_current = nullptr;
    Ch* m_end = nullptr;     // one past the last valid byte, where a '\0' sentinel is stored
    size_t m_consumed = 0;   // bytes dropped from the buffer's front so far
    int64_t m_readBytes = 0; // decompressed bytes read from the file
    std::atomic<int64_t> m_fileOffset{0};
    bool m_eof = false;
    bool m_compressed = false;
    int64_t m_fileSize = 0;
    std::string m_readError;
    int64_t m_controlCharacters = 0;
};

// Found by argument-dependent lookup from RapidJSON's reader, and preferred to its byte-at-a-time
// template: 4 % of an import's time went to skipping whitespace one Peek and Take at a time.
inline void SkipWhitespace(KinetoInputStream& stream) {
    stream.skipSpaces();
}

} // namespace stallscope::model
