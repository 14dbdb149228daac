#include "symbolize/dynamic_symbol_table.h"

#include <llvm/Demangle/Demangle.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>

#include <algorithm>
#include <vector>

namespace stallscope::symbolize {

struct DynamicSymbolTable::Impl {
    struct Symbol {
        uint64_t start = 0;
        uint64_t size = 0;
        llvm::StringRef name; // points into `binary`, which lives as long as the table
    };
    llvm::object::OwningBinary<llvm::object::ObjectFile> binary;
    std::vector<Symbol> symbols; // sorted by start
};

DynamicSymbolTable::DynamicSymbolTable() : m_impl(std::make_unique<Impl>()) {}
DynamicSymbolTable::~DynamicSymbolTable() = default;

size_t DynamicSymbolTable::size() const {
    return m_impl->symbols.size();
}

bool DynamicSymbolTable::load(const std::string& path, std::string* error) {
    m_impl->symbols.clear();
    auto binary = llvm::object::ObjectFile::createObjectFile(path);
    if (!binary) {
        if (error)
            *error = llvm::toString(binary.takeError());
        return false;
    }
    m_impl->binary = std::move(*binary);
    const auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(m_impl->binary.getBinary());
    if (!elf)
        return true;
    for (const llvm::object::ELFSymbolRef& symbol : elf->getDynamicSymbolIterators()) {
        auto type = symbol.getType();
        auto address = symbol.getAddress();
        auto name = symbol.getName();
        if (!type || !address || !name) {
            // A malformed entry costs one name, not the table.
            llvm::consumeError(type.takeError());
            llvm::consumeError(address.takeError());
            llvm::consumeError(name.takeError());
            continue;
        }
        if (*type != llvm::object::SymbolRef::ST_Function || *address == 0 || name->empty())
            continue;
        m_impl->symbols.push_back({*address, symbol.getSize(), *name});
    }
    std::sort(m_impl->symbols.begin(), m_impl->symbols.end(),
              [](const Impl::Symbol& a, const Impl::Symbol& b) { return a.start < b.start; });
    return true;
}

std::string DynamicSymbolTable::lookup(uint64_t address) const {
    const auto& symbols = m_impl->symbols;
    auto after = std::upper_bound(symbols.begin(), symbols.end(), address,
                                  [](uint64_t a, const Impl::Symbol& s) { return a < s.start; });
    if (after == symbols.begin())
        return {};
    const Impl::Symbol& symbol = *(after - 1);
    if (address >= symbol.start + std::max<uint64_t>(symbol.size, 1))
        return {};
    return llvm::demangle(symbol.name.str());
}

} // namespace stallscope::symbolize
