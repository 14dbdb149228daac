// DynamicSymbolTable: function names from an ELF file's dynamic symbol table (.dynsym).
//
// Why: LLVM 14's symbolizer reads only .symtab, and release builds of the libraries that matter
// most here (libtorch_cpu/libtorch_cuda, libcudart, libpython, distribution libraries) ship with
// .symtab stripped — but their exported functions are still named in .dynsym. Without this fallback
// every PC in those libraries would come back as "??".
//
// LLVM is used only in the .cpp (object file parsing, demangling).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace stallscope::symbolize {

class DynamicSymbolTable {
public:
    DynamicSymbolTable();
    ~DynamicSymbolTable();
    DynamicSymbolTable(const DynamicSymbolTable&) = delete;
    DynamicSymbolTable& operator=(const DynamicSymbolTable&) = delete;

    // Reads the function symbols of `path`'s .dynsym. False (with *error) when the file cannot be
    // parsed; true with an empty table when it has no dynamic symbols.
    bool load(const std::string& path, std::string* error);

    // The demangled name of the function whose [start, start + size) holds `address` (link-time
    // address); empty when none does — a PC in a non-exported function is not attributed to the
    // exported one before it.
    std::string lookup(uint64_t address) const;

    size_t size() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace stallscope::symbolize
