// Where Stallscope keeps what it can rebuild — the sessions it converts from traces
// (model/interop/import_cache.h) and the event columns of large sessions (column_cache.h) — and
// how an entry names the file it was made from. Never beside the input: in $VARIABLE when set,
// else $XDG_CACHE_HOME/stallscope/LEAF, else ~/.cache/stallscope/LEAF, else the temporary folder.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stallscope::model {

// The cache folder for `leaf` ("imports", "columns"), created when missing; `variable` (an
// environment variable's name) overrides it.
std::string userCacheFolder(const char* variable, std::string_view leaf);

// FNV-1a, 64 bits: a fingerprint of a key's text (not a defence against a crafted collision).
uint64_t fingerprint(std::string_view text, uint64_t hash = 1469598103934665603ull);

// What identifies `file`'s content without reading all of it: its path, size and modification
// time and fingerprints of its first and last 64 KiB, so that a file rewritten with the same size
// and time is not taken for the old one.
std::string fileContentKey(const std::string& file);

} // namespace stallscope::model
