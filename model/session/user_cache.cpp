#include "model/session/user_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace stallscope::model {

namespace fs = std::filesystem;

namespace {

constexpr size_t kKeyBlockBytes = 64 * 1024;

} // namespace

std::string userCacheFolder(const char* variable, std::string_view leaf) {
    std::error_code ec;
    fs::path dir;
    if (const char* env = std::getenv(variable); env && *env)
        dir = env;
    else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        dir = fs::path(xdg) / "stallscope" / leaf;
    else if (const char* home = std::getenv("HOME"); home && *home)
        dir = fs::path(home) / ".cache" / "stallscope" / leaf;
    else
        dir = fs::temp_directory_path(ec) / ("stallscope-" + std::string(leaf));
    fs::create_directories(dir, ec);
    return dir.string();
}

uint64_t fingerprint(std::string_view text, uint64_t hash) {
    for (const unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return hash;
}

std::string fileContentKey(const std::string& file) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    std::string key = file + ":" + std::to_string(ec ? 0 : size) + ":" +
                      std::to_string(fs::last_write_time(file, ec).time_since_epoch().count());
    std::ifstream in(file, std::ios::binary);
    std::string block(kKeyBlockBytes, '\0');
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    key += ":" + std::to_string(fingerprint(std::string_view(block.data(), size_t(in.gcount()))));
    if (!ec && size > kKeyBlockBytes) {
        in.clear();
        in.seekg(static_cast<std::streamoff>(size - kKeyBlockBytes));
        in.read(block.data(), static_cast<std::streamsize>(block.size()));
        key +=
            ":" + std::to_string(fingerprint(std::string_view(block.data(), size_t(in.gcount()))));
    }
    return key;
}

} // namespace stallscope::model
