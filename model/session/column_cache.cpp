#include "model/session/column_cache.h"

#include "format/session_enums.h"
#include "format/session_schema.h"
#include "model/session/session.h"
#include "model/session/user_cache.h"

#include <xxhash.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

namespace stallscope::model {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[16] = {'S', 't', 'a', 'l', 'l', 's', 'c',  'o',
                             'p', 'e', 'C', 'o', 'l', 's', '\n', '\0'};
// Bumped whenever what the visit functions write changes: an older entry is then a miss.
constexpr uint32_t kLayoutVersion = 2;
constexpr const char* kSuffix = ".columns";
constexpr uint32_t kMaxKeyBytes = 1 << 16;
constexpr int64_t kMaxEventId = std::numeric_limits<uint32_t>::max(); // as the loader reads them
constexpr uint64_t kMaxRangeDepths = 256;                             // the loader's depths: 0..255

// The payload is two parts, read on two threads (faulting in gigabytes of fresh columns is most of
// a cached open, and it runs on both cores): the figures and the host lanes, then the stream lanes.
struct Header {
    char magic[16];
    uint32_t layoutVersion;
    uint32_t keyBytes;
    uint64_t payloadBytes;
    uint64_t hostHash;         // XXH3-64 of the key and the first part
    uint64_t streamPartOffset; // where the second part starts in the payload
    uint64_t streamHash;       // XXH3-64 of the second part
};
static_assert(sizeof(Header) == 56);

template <typename Io> void visitEvents(Io& io, auto& columns) {
    io.column(columns.start);
    io.column(columns.end);
    io.column(columns.rowId);
    io.scalar(columns.maxDuration);
    std::apply([&io](auto&... own) { (io.column(own), ...); },
               std::remove_cvref_t<decltype(columns)>::kindColumns(columns));
}

// Every column and figure the cache holds, in the order it holds them: one list for the writer
// and the reader, so that they cannot disagree. `Io` has scalar(T&), column(std::vector<T>&) and
// count(uint64_t&, uint64_t max) (a reader refuses a count above max). The first part:
template <typename S, typename Io> bool visitHostPart(S& s, Io& io) {
    auto events = [&io](auto& columns) { visitEvents(io, columns); };
    io.scalar(s.startNs);
    io.scalar(s.endNs);
    io.scalar(s.untimedEvents);
    io.scalar(s.hostSamples);
    io.scalar(s.counts.apiCalls);
    io.scalar(s.counts.syncs);
    io.scalar(s.counts.kernels);
    io.scalar(s.counts.memcpys);
    io.scalar(s.counts.memsets);
    io.scalar(s.counts.ranges);
    uint64_t lanes = s.hostLanes.size();
    io.count(lanes, s.hostLanes.size()); // the descriptions made the lanes: the same number
    if (!io.ok() || lanes != s.hostLanes.size())
        return false;
    for (auto& lane : s.hostLanes) {
        events(lane.apiCalls);
        events(lane.syncs);
        uint64_t depths = lane.rangesByDepth.size();
        io.count(depths, kMaxRangeDepths);
        if (!io.ok())
            return false;
        if constexpr (!std::is_const_v<S>)
            lane.rangesByDepth.resize(depths);
        for (auto& depth : lane.rangesByDepth)
            events(depth);
        events(lane.samples);
    }
    return io.ok();
}

// The second part.
template <typename S, typename Io> bool visitStreamPart(S& s, Io& io) {
    uint64_t lanes = s.streamLanes.size();
    io.count(lanes, s.streamLanes.size());
    if (!io.ok() || lanes != s.streamLanes.size())
        return false;
    for (auto& lane : s.streamLanes) {
        visitEvents(io, lane.kernels);
        visitEvents(io, lane.memcpys);
        visitEvents(io, lane.memsets);
    }
    return io.ok();
}

class FileWriter {
public:
    FileWriter(FILE* file, XXH3_state_t* hash, const std::atomic<bool>* cancel)
        : m_file(file), m_hash(hash), m_cancel(cancel) {}
    template <typename T> void scalar(T& value) { write(&value, sizeof value); }
    template <typename T> void column(const std::vector<T>& values) {
        uint64_t n = values.size();
        write(&n, sizeof n);
        write(values.data(), n * sizeof(T));
    }
    void count(uint64_t& n, uint64_t) { write(&n, sizeof n); }
    bool ok() const { return m_ok; }
    uint64_t bytes() const { return m_bytes; }

private:
    void write(const void* data, size_t bytes) {
        if (!m_ok || bytes == 0)
            return;
        m_ok = !(m_cancel && m_cancel->load()) && std::fwrite(data, 1, bytes, m_file) == bytes;
        XXH3_64bits_update(m_hash, data, bytes);
        m_bytes += bytes;
    }
    FILE* m_file;
    XXH3_state_t* m_hash;
    const std::atomic<bool>* m_cancel; // polled before each column: a cancelled write stops
    bool m_ok = true;
    uint64_t m_bytes = 0;
};

// Gigabytes of fresh columns fault in a page at a time, half of a cached open's time: one call
// maps a column's pages instead (MADV_POPULATE_WRITE; nothing where the kernel has no such call).
void prefault(void* data, size_t bytes) {
    constexpr uintptr_t kPage = 4096;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
#ifdef MADV_POPULATE_WRITE
    if (end > begin + (uintptr_t(1) << 20))
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#endif
}

class FileReader {
public:
    // Reads `bytes` bytes from `offset` of `fd` (pread: two readers share the file).
    FileReader(int fd, uint64_t offset, uint64_t bytes, XXH3_state_t* hash)
        : m_fd(fd), m_offset(offset), m_left(bytes), m_hash(hash) {}
    template <typename T> void scalar(T& value) { read(&value, sizeof value); }
    template <typename T> void column(std::vector<T>& values) {
        uint64_t n = 0;
        read(&n, sizeof n);
        // Bounded by what is left of the entry: a count never allocates more than the file holds.
        if (!m_ok || n > m_left / sizeof(T)) {
            m_ok = false;
            return;
        }
        values.reserve(n);
        prefault(values.data(), n * sizeof(T));
        values.resize(n);
        read(values.data(), n * sizeof(T));
    }
    void count(uint64_t& n, uint64_t max) {
        read(&n, sizeof n);
        m_ok = m_ok && n <= max;
    }
    bool ok() const { return m_ok; }
    bool atEnd() const { return m_left == 0; }

private:
    void read(void* data, size_t bytes) {
        if (!m_ok || bytes > m_left) {
            m_ok = false;
            return;
        }
        auto* out = static_cast<char*>(data);
        for (size_t done = 0; done < bytes;) {
            const ssize_t got = ::pread(m_fd, out + done, std::min<size_t>(bytes - done, 1 << 30),
                                        off_t(m_offset + done));
            if (got <= 0) {
                m_ok = false;
                return;
            }
            done += size_t(got);
        }
        m_offset += bytes;
        XXH3_64bits_update(m_hash, data, bytes);
        m_left -= bytes;
    }
    int m_fd;
    uint64_t m_offset;
    uint64_t m_left;
    XXH3_state_t* m_hash;
    bool m_ok = true;
};

struct HashState {
    HashState() : state(XXH3_createState()) {
        if (state)
            XXH3_64bits_reset(state);
    }
    ~HashState() { XXH3_freeState(state); }
    XXH3_state_t* state;
};

std::string entryPath(const std::string& folder, const std::string& key) {
    char name[32];
    std::snprintf(name, sizeof name, "%016llx",
                  static_cast<unsigned long long>(XXH3_64bits(key.data(), key.size())));
    return (fs::path(folder) / (std::string(name) + kSuffix)).string();
}

// The columns as the loader leaves them: every column as long as its lane's events (a kernel's
// grid may be absent), sorted starts, no event ending before it starts, the longest duration
// recorded, names and streams that exist, and counts that add up.
struct CheckContext {
    const Session& session;
    const std::function<bool(int64_t)>& isStack;
};

// The kind's own values, as the loader's checks of the tables' rows allow them (load_checks.h,
// event_table_reader.cpp).
bool valuesCheck(const SyncColumns& c, const CheckContext& context) {
    const int32_t streams = int32_t(context.session.streams.size());
    for (size_t i = 0; i < c.size(); ++i)
        if (c.kind[i] < 1 || c.kind[i] > format::kSyncKindMax || c.streamIndex[i] < -1 ||
            c.streamIndex[i] >= streams || c.eventId[i] < -1 || c.eventId[i] > kMaxEventId ||
            (c.stackId[i] != 0 && !context.isStack(c.stackId[i])))
            return false;
    return true;
}
bool valuesCheck(const TransferColumns& c, const CheckContext&) {
    for (size_t i = 0; i < c.size(); ++i)
        if (c.copyKind[i] > format::kCopyKindMax || c.srcKind[i] > format::kMemoryKindMax ||
            c.dstKind[i] > format::kMemoryKindMax ||
            c.bytes[i] > uint64_t(std::numeric_limits<int64_t>::max()))
            return false;
    return true;
}
bool valuesCheck(const SampleColumns& c, const CheckContext& context) {
    for (size_t i = 0; i < c.size(); ++i)
        if (c.samples[i] < 1 || c.samples[i] > uint32_t(std::numeric_limits<int32_t>::max()) ||
            (c.samples[i] == 1 && c.end[i] != c.start[i]) || !context.isStack(c.stackId[i]))
            return false;
    return true;
}
// API calls, kernels and ranges: their names, checked with the interval part.
bool valuesCheck(const IntervalColumns&, const CheckContext&) {
    return true;
}

template <typename Columns> bool eventsCheck(const Columns& c, const CheckContext& context) {
    const Session& s = context.session;
    const size_t n = c.size();
    if (c.end.size() != n || c.rowId.size() != n)
        return false;
    bool lengths = std::apply([n](const auto&... own) { return ((own.size() == n) && ...); },
                              Columns::kindColumns(c));
    if constexpr (std::is_same_v<Columns, KernelColumns>) // a trace without grids has no blocks
        lengths = c.nameId.size() == n && c.correlationId.size() == n &&
                  (c.blocks.empty() || c.blocks.size() == n);
    if (!lengths)
        return false;
    int64_t longest = 0;
    for (size_t i = 0; i < n; ++i) {
        if (c.end[i] < c.start[i] || (i > 0 && c.start[i] < c.start[i - 1]))
            return false;
        longest = std::max(longest, c.end[i] - c.start[i]);
    }
    if (longest != c.maxDuration)
        return false;
    if constexpr (requires(const Columns& x) { x.nameId; })
        for (const uint32_t name : c.nameId)
            if (name >= s.strings.size())
                return false;
    return valuesCheck(c, context);
}

// The first part's lanes, adding up their events (`counts`, `samples`) for the figures' check.
bool hostLanesCheck(const CheckContext& context, format::EventCounts& counts, int64_t& samples) {
    for (const HostLane& lane : context.session.hostLanes) {
        if (!eventsCheck(lane.apiCalls, context) || !eventsCheck(lane.syncs, context) ||
            !eventsCheck(lane.samples, context))
            return false;
        for (const RangeColumns& depth : lane.rangesByDepth) {
            if (!eventsCheck(depth, context))
                return false;
            counts.ranges += int64_t(depth.size());
        }
        counts.apiCalls += int64_t(lane.apiCalls.size());
        counts.syncs += int64_t(lane.syncs.size());
        for (const uint32_t n : lane.samples.samples)
            samples += n;
    }
    return true;
}

bool streamLanesCheck(const CheckContext& context, format::EventCounts& counts) {
    for (const StreamLane& lane : context.session.streamLanes) {
        if (!eventsCheck(lane.kernels, context) || !eventsCheck(lane.memcpys, context) ||
            !eventsCheck(lane.memsets, context))
            return false;
        counts.kernels += int64_t(lane.kernels.size());
        counts.memcpys += int64_t(lane.memcpys.size());
        counts.memsets += int64_t(lane.memsets.size());
    }
    return true;
}

// One part of an entry read and checked: its columns, then its hash, taken over `hashPrefix` (the
// key, for the first part) and the part's bytes, then its values.
struct PartReader {
    bool read(int fd, uint64_t offset, uint64_t bytes, uint64_t expectedHash,
              const std::string& hashPrefix, Session& session, const CheckContext& context,
              bool hostPart) {
        try {
            HashState hash;
            if (!hash.state)
                return false;
            XXH3_64bits_update(hash.state, hashPrefix.data(), hashPrefix.size());
            FileReader reader(fd, offset, bytes, hash.state);
            const bool visited =
                hostPart ? visitHostPart(session, reader) : visitStreamPart(session, reader);
            if (!visited || !reader.atEnd() || XXH3_64bits_digest(hash.state) != expectedHash)
                return false;
            return hostPart ? hostLanesCheck(context, counts, samples)
                            : streamLanesCheck(context, counts);
        } catch (...) { // out of memory on the part's thread: a miss, the tables then
            return false;
        }
    }
    format::EventCounts counts;
    int64_t samples = 0;
};

bool isEntry(const fs::path& path) {
    if (path.extension() != kSuffix)
        return false;
    FILE* file = std::fopen(path.c_str(), "rbe");
    if (!file)
        return false;
    char magic[sizeof kMagic];
    const bool ours = std::fread(magic, 1, sizeof magic, file) == sizeof magic &&
                      std::memcmp(magic, kMagic, sizeof magic) == 0;
    std::fclose(file);
    return ours;
}

// Removes the least recently used entries beyond `limits`, never `keep`.
void trim(const std::string& folder, const ColumnCacheLimits& limits, const fs::path& keep) {
    struct Entry {
        fs::path path;
        int64_t bytes;
        fs::file_time_type used;
    };
    std::vector<Entry> entries;
    std::error_code ec;
    for (const auto& item : fs::directory_iterator(folder, ec))
        if (item.is_regular_file(ec) && isEntry(item.path()))
            entries.push_back({item.path(), int64_t(item.file_size(ec)), item.last_write_time(ec)});
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.used < b.used; });
    int64_t bytes = 0;
    for (const Entry& entry : entries)
        bytes += entry.bytes;
    int files = int(entries.size());
    for (const Entry& entry : entries) { // oldest first
        if (bytes <= limits.maxBytes && files <= limits.maxFiles)
            break;
        if (entry.path == keep || !fs::remove(entry.path, ec))
            continue;
        bytes -= entry.bytes;
        --files;
    }
}

} // namespace

std::string columnCacheFolder() {
    if (const char* env = std::getenv("STALLSCOPE_COLUMN_CACHE"); env && std::string(env) == "off")
        return {};
    return userCacheFolder("STALLSCOPE_COLUMN_CACHE", "columns");
}

std::string columnCacheKey(const std::string& path) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    if (ec)
        return {};
    return "columns " + std::to_string(kLayoutVersion) + ", format " +
           std::to_string(format::kFormatVersion) + ": " + fileContentKey(absolute.string());
}

bool readCachedColumns(const std::string& folder, const std::string& key, Session& session,
                       const std::function<bool(int64_t)>& isStack) {
    if (folder.empty() || key.empty() || key.size() > kMaxKeyBytes)
        return false;
    const std::string path = entryPath(folder, key);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct stat info {};
    Header header{};
    std::string storedKey(key.size(), '\0');
    bool ok = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
              ::pread(fd, &header, sizeof header, 0) == ssize_t(sizeof header) &&
              std::memcmp(header.magic, kMagic, sizeof kMagic) == 0 &&
              header.layoutVersion == kLayoutVersion && header.keyBytes == key.size() &&
              uint64_t(info.st_size) >= sizeof header + key.size() &&
              header.payloadBytes == uint64_t(info.st_size) - sizeof header - key.size() &&
              header.streamPartOffset <= header.payloadBytes &&
              ::pread(fd, storedKey.data(), storedKey.size(), sizeof header) ==
                  ssize_t(storedKey.size()) &&
              storedKey == key;
    if (ok) {
        const CheckContext context{session, isStack};
        const uint64_t payloadAt = sizeof header + key.size();
        PartReader host, streams;
        bool streamsOk = false;
        auto readStreams = [&] {
            streamsOk = streams.read(fd, payloadAt + header.streamPartOffset,
                                     header.payloadBytes - header.streamPartOffset,
                                     header.streamHash, {}, session, context, false);
        };
        std::thread streamThread;
        try {
            streamThread = std::thread(readStreams);
        } catch (...) { // no thread to be had: one after the other
            readStreams();
        }
        const bool hostOk = host.read(fd, payloadAt, header.streamPartOffset, header.hostHash, key,
                                      session, context, true);
        if (streamThread.joinable())
            streamThread.join();
        format::EventCounts counts = host.counts;
        counts.kernels = streams.counts.kernels;
        counts.memcpys = streams.counts.memcpys;
        counts.memsets = streams.counts.memsets;
        ok = hostOk && streamsOk && counts == session.counts &&
             host.samples == session.hostSamples && session.startNs <= session.endNs &&
             session.untimedEvents >= 0;
    }
    ::close(fd);
    if (ok) { // just used: the last to go when the folder is trimmed
        std::error_code ec;
        fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
    }
    return ok;
}

bool writeCachedColumns(const std::string& folder, const Session& session, std::string* error,
                        int64_t minEvents, const ColumnCacheLimits& limits,
                        const std::atomic<bool>* cancel) {
    const std::string& key = session.columnCacheKey;
    if (folder.empty() || key.empty() || key.size() > kMaxKeyBytes ||
        session.counts.total() < minEvents)
        return true;
    const std::string path = entryPath(folder, key);
    const std::string temporary = path + ".tmp-" + std::to_string(getpid());
    std::remove(temporary.c_str()); // a crashed earlier write of this process id's
    FILE* file = std::fopen(temporary.c_str(), "wbxe");
    if (!file) {
        *error = temporary + ": " + std::strerror(errno);
        return false;
    }
    HashState hostHash, streamHash;
    Header header{};
    std::memcpy(header.magic, kMagic, sizeof kMagic);
    header.layoutVersion = kLayoutVersion;
    header.keyBytes = uint32_t(key.size());
    bool ok = hostHash.state && streamHash.state &&
              std::fwrite(&header, sizeof header, 1, file) == 1 &&
              std::fwrite(key.data(), 1, key.size(), file) == key.size();
    if (ok) {
        XXH3_64bits_update(hostHash.state, key.data(), key.size());
        FileWriter host(file, hostHash.state, cancel);
        ok = visitHostPart(session, host) && host.ok();
        FileWriter streams(file, streamHash.state, cancel);
        ok = ok && visitStreamPart(session, streams) && streams.ok();
        header.streamPartOffset = host.bytes();
        header.payloadBytes = host.bytes() + streams.bytes();
        header.hostHash = XXH3_64bits_digest(hostHash.state);
        header.streamHash = XXH3_64bits_digest(streamHash.state);
        ok = ok && std::fseek(file, 0, SEEK_SET) == 0 &&
             std::fwrite(&header, sizeof header, 1, file) == 1;
    }
    ok = std::fclose(file) == 0 && ok;
    if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
        *error = cancel && cancel->load() ? std::string("cancelled")
                                          : temporary + ": " + std::strerror(errno);
        std::remove(temporary.c_str());
        return false;
    }
    trim(folder, limits, path);
    return true;
}

ColumnCacheCleared clearColumnCache(const std::string& folder) {
    ColumnCacheCleared cleared;
    std::error_code ec;
    for (const auto& item : fs::directory_iterator(folder, ec)) {
        const int64_t bytes = int64_t(item.file_size(ec));
        if (item.is_regular_file(ec) && isEntry(item.path()) && fs::remove(item.path(), ec)) {
            ++cleared.files;
            cleared.bytes += bytes;
        }
    }
    return cleared;
}

} // namespace stallscope::model
