// gzip-compressing and decompressing bytes in memory, for tests that make .json.gz traces or read
// the checked-in ones (header-only test support; the suite links ZLIB::ZLIB).
#pragma once

#include "tests/support/test_failure.h"

#include <QByteArray>

#include <zlib.h>

#include <optional>

namespace stallscope::testing {

// `data` as a gzip file's bytes (best compression). A zlib failure fails the running test and
// gives no bytes: a gzip file is never empty, so callers check for that.
[[nodiscard]] inline QByteArray gzip(const QByteArray& data) {
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        STALLSCOPE_FAIL("gzip: deflateInit2 failed: %s", z.msg ? z.msg : "no message");
        return {};
    }
    QByteArray out(static_cast<int>(deflateBound(&z, data.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&z, Z_FINISH);
    if (status != Z_STREAM_END) {
        STALLSCOPE_FAIL("gzip: deflate of %lld bytes ended with %d: %s",
                        static_cast<long long>(data.size()), status, z.msg ? z.msg : "no message");
        deflateEnd(&z);
        return {};
    }
    out.resize(static_cast<int>(z.total_out));
    deflateEnd(&z);
    return out;
}

// What a gzip file's bytes decompress to; a corrupt or truncated one fails the running test and
// gives nothing.
[[nodiscard]] inline std::optional<QByteArray> gunzip(const QByteArray& compressed) {
    z_stream z{};
    if (inflateInit2(&z, 31) != Z_OK) {
        STALLSCOPE_FAIL("gunzip: inflateInit2 failed: %s", z.msg ? z.msg : "no message");
        return std::nullopt;
    }
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    z.avail_in = static_cast<uInt>(compressed.size());
    QByteArray text;
    char chunk[65536];
    int status = Z_OK;
    while (status == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(chunk);
        z.avail_out = sizeof chunk;
        status = inflate(&z, Z_NO_FLUSH);
        text.append(chunk, static_cast<int>(sizeof chunk - z.avail_out));
    }
    if (status != Z_STREAM_END) {
        STALLSCOPE_FAIL("gunzip: inflate of %lld bytes ended with %d: %s",
                        static_cast<long long>(compressed.size()), status,
                        z.msg ? z.msg : "no message");
        inflateEnd(&z);
        return std::nullopt;
    }
    inflateEnd(&z);
    return text;
}

} // namespace stallscope::testing
