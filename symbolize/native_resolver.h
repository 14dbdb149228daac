// NativeResolver: the one place that talks to LLVM. Turns (object file, link-time address) into the
// inlined call chain at that address — demangled function, file, line, column per level — through
// llvm::symbolize::LLVMSymbolizer, which caches every object file it opens (so each module's symbol
// table and DWARF are parsed once per run, however many PCs fall in it).
//
// The header is LLVM-free (pimpl) so that LLVM's headers and flags stay inside native_resolver.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace stallscope::symbolize {

class NativeResolver {
public:
    // One level of the inline chain. line == 0 / empty file: no debug info for this level.
    struct Location {
        std::string function; // demangled; empty when even the symbol table has no name
        std::string file;
        int64_t line = 0;
        int64_t column = 0;
    };

    // debugDirectories: roots searched for separate debug files (<root>/.build-id/xx/yyyy.debug
    // and .gnu_debuglink targets); LLVM's default /usr/lib/debug is used when empty.
    explicit NativeResolver(const std::vector<std::string>& debugDirectories);
    ~NativeResolver();
    NativeResolver(const NativeResolver&) = delete;
    NativeResolver& operator=(const NativeResolver&) = delete;

    // Resolves `address` (link-time address inside `objectPath`). On success fills *chain innermost
    // first — chain->front() is the innermost inlined function, chain->back() the out-of-line
    // function that holds the code — and returns true. Returns false with *error set when the
    // object cannot be read; returns true with an empty chain when the address matches no symbol at
    // all.
    bool resolve(const std::string& objectPath, uint64_t address, std::vector<Location>* chain,
                 std::string* error);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace stallscope::symbolize
