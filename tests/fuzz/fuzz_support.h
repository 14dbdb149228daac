// What every fuzz target shares: a private scratch folder, writing the input to a file there, and
// running a loaded session through everything a user's command runs on it (--info, --insights in
// both formats, --export-chrome). Each target is a libFuzzer entry point (LLVMFuzzerTestOneInput);
// the same source also builds into a replay test that runs the checked-in corpus and regression
// inputs in every normal and sanitizer build (replay_main.cpp).
#pragma once

#include "model/session/session_loader.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stallscope::fuzz {

// A folder of this process's own, created on first use and removed at exit.
const std::string& scratchDir();
std::string scratchPath(std::string_view name);

// Replaces `path` with `data`; aborts when it cannot (a broken scratch folder is not a finding).
void writeFile(const std::string& path, const uint8_t* data, size_t size);
void writeFile(const std::string& path, std::string_view data);
std::string readFile(const std::string& path);

// A failed load must say why, naming the file; a loaded session goes through the summary, the
// insight engine (text and JSON) and the Chrome export. Aborts on a broken promise.
void exercise(const model::LoadResult& result, const std::string& path);

// The session file at `path` loaded as a user's command loads it, and again with the event tables
// read through SQLite only (LoadOptions::readPages): both must fail with the same message or give
// the same events, or the fuzzer stops.
model::LoadResult loadBothWays(const std::string& path);

// Stops the fuzzer with a message (a finding) when `condition` is false.
void require(bool condition, const char* what, const std::string& detail = {});

} // namespace stallscope::fuzz
