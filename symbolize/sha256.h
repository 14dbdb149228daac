// Sha256: a compact FIPS 180-4 SHA-256, so embedded sources carry a hash without pulling OpenSSL
// (or any other crypto library) into the Qt-free tools that run on GPU servers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stallscope::symbolize {

class Sha256 {
public:
    Sha256();

    void update(const void* data, size_t size);
    void update(std::string_view text) { update(text.data(), text.size()); }
    // Pads, returns the digest and leaves the object unusable until reset().
    std::array<uint8_t, 32> finish();
    // Lower-case hex of finish().
    std::string finishHex();
    void reset();

    // One-shot helper: hex digest of `text`.
    static std::string hexOf(std::string_view text);

private:
    void compress(const uint8_t* block);

    std::array<uint32_t, 8> m_state{};
    std::array<uint8_t, 64> m_buffer{};
    size_t m_buffered = 0;
    uint64_t m_totalBytes = 0;
};

} // namespace stallscope::symbolize
