#include "symbolize/elf_file_info.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace stallscope::symbolize {

namespace {

class FileHandle {
public:
    explicit FileHandle(const std::string& path)
        : m_fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
    ~FileHandle() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;
    bool ok() const { return m_fd >= 0; }
    bool readAt(uint64_t offset, void* out, size_t size) const {
        auto* bytes = static_cast<char*>(out);
        while (size > 0) {
            const ssize_t got = ::pread(m_fd, bytes, size, static_cast<off_t>(offset));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                return false;
            bytes += got;
            offset += static_cast<uint64_t>(got);
            size -= static_cast<size_t>(got);
        }
        return true;
    }

private:
    int m_fd = -1;
};

std::string toHex(const uint8_t* data, size_t size) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(size * 2);
    for (size_t i = 0; i < size; ++i) {
        hex.push_back(kDigits[data[i] >> 4]);
        hex.push_back(kDigits[data[i] & 15]);
    }
    return hex;
}

// Walks the notes in [offset, offset + size) and returns the GNU build id, empty if none.
std::string findBuildIdNote(const FileHandle& file, uint64_t offset, uint64_t size) {
    // Notes sections are small; refuse absurd sizes from corrupt headers.
    if (size == 0 || size > (1u << 20))
        return {};
    std::vector<uint8_t> notes(size);
    if (!file.readAt(offset, notes.data(), notes.size()))
        return {};
    size_t at = 0;
    auto align4 = [](size_t n) { return (n + 3) & ~size_t(3); };
    while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
        Elf64_Nhdr header;
        std::memcpy(&header, notes.data() + at, sizeof header);
        const size_t nameAt = at + sizeof header;
        const size_t descAt = nameAt + align4(header.n_namesz);
        const size_t next = descAt + align4(header.n_descsz);
        if (descAt > notes.size() || descAt + header.n_descsz > notes.size())
            break;
        if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
            std::memcmp(notes.data() + nameAt, "GNU", 4) == 0)
            return toHex(notes.data() + descAt, header.n_descsz);
        at = next;
    }
    return {};
}

} // namespace

bool ElfFileInfo::read(const std::string& path, std::string* error) {
    m_buildId.clear();
    m_type = 0;
    auto fail = [&](const std::string& why) {
        if (error)
            *error = path + ": " + why;
        return false;
    };
    FileHandle file(path);
    if (!file.ok())
        return fail(std::strerror(errno));
    Elf64_Ehdr header;
    if (!file.readAt(0, &header, sizeof header) ||
        std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
        return fail("not an ELF file");
    if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
        return fail("not a 64-bit little-endian ELF file");
    m_type = header.e_type;

    if (header.e_phentsize == sizeof(Elf64_Phdr) && header.e_phnum > 0 && header.e_phnum < 4096) {
        std::vector<Elf64_Phdr> programHeaders(header.e_phnum);
        if (file.readAt(header.e_phoff, programHeaders.data(),
                        programHeaders.size() * sizeof(Elf64_Phdr))) {
            for (const Elf64_Phdr& ph : programHeaders) {
                if (ph.p_type == PT_NOTE && m_buildId.empty())
                    m_buildId = findBuildIdNote(file, ph.p_offset, ph.p_filesz);
            }
        }
    }
    // Separate debug files keep the note section but their program headers may describe data that
    // is no longer in the file: fall back to the section headers.
    if (m_buildId.empty() && header.e_shentsize == sizeof(Elf64_Shdr) && header.e_shnum > 0 &&
        header.e_shnum < 65535) {
        std::vector<Elf64_Shdr> sections(header.e_shnum);
        if (file.readAt(header.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) {
            for (const Elf64_Shdr& sh : sections) {
                if (sh.sh_type == SHT_NOTE) {
                    m_buildId = findBuildIdNote(file, sh.sh_offset, sh.sh_size);
                    if (!m_buildId.empty())
                        break;
                }
            }
        }
    }
    return true;
}

std::string ElfFileInfo::buildIdDebugPath(const std::string& debugRoot,
                                          const std::string& buildId) {
    if (buildId.size() < 4)
        return {};
    std::string path = debugRoot;
    if (!path.empty() && path.back() != '/')
        path.push_back('/');
    path += ".build-id/" + buildId.substr(0, 2) + "/" + buildId.substr(2) + ".debug";
    return path;
}

} // namespace stallscope::symbolize
