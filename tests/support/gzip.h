// gzip-compressing and decompressing bytes in memory, for tests that make .json.gz traces or read
// the checked-in ones (header-only test support; the suite links ZLIB::ZLIB).
#pragma once

#include <QByteArray>
#include <QtGlobal>

#include <zlib.h>

namespace stallscope::testing {

// `data` as a gzip file's bytes (best compression).
inline QByteArray gzip(const QByteArray& data) {
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        qFatal("deflateInit2");
    QByteArray out(static_cast<int>(deflateBound(&z, data.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        qFatal("deflate");
    out.resize(static_cast<int>(z.total_out));
    deflateEnd(&z);
    return out;
}

// What a gzip file's bytes decompress to; a corrupt or truncated one ends the test run.
inline QByteArray gunzip(const QByteArray& compressed) {
    z_stream z{};
    if (inflateInit2(&z, 31) != Z_OK)
        qFatal("inflateInit2");
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
    inflateEnd(&z);
    if (status != Z_STREAM_END)
        qFatal("inflate");
    return text;
}

} // namespace stallscope::testing
