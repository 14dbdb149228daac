#include "symbolize/native_resolver.h"

#include "symbolize/dynamic_symbol_table.h"

#include <llvm/DebugInfo/DIContext.h>
#include <llvm/DebugInfo/Symbolize/Symbolize.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>

#include <unordered_map>

namespace stallscope::symbolize {

struct NativeResolver::Impl {
    std::unique_ptr<llvm::symbolize::LLVMSymbolizer> symbolizer;
    // LLVMSymbolizer reports a module's load error only on the first lookup and answers later ones
    // with an empty result; remember the message so every frame of that module gets it.
    std::unordered_map<std::string, std::string> failedObjects;
    // .dynsym fallback per object, built on the first address LLVM cannot name (null: unreadable).
    std::unordered_map<std::string, std::unique_ptr<DynamicSymbolTable>> dynamicSymbols;

    std::string dynamicSymbolName(const std::string& objectPath, uint64_t address) {
        auto [it, inserted] = dynamicSymbols.try_emplace(objectPath);
        if (inserted) {
            auto table = std::make_unique<DynamicSymbolTable>();
            if (table->load(objectPath, nullptr))
                it->second = std::move(table);
        }
        return it->second ? it->second->lookup(address) : std::string();
    }
};

NativeResolver::NativeResolver(const std::vector<std::string>& debugDirectories)
    : m_impl(std::make_unique<Impl>()) {
    llvm::symbolize::LLVMSymbolizer::Options options;
    options.PrintFunctions =
        llvm::symbolize::FunctionNameKind::LinkageName; // + Demangle: "ns::f(int)"
    options.PathStyle = llvm::symbolize::FileLineInfoKind::AbsoluteFilePath;
    options.UseSymbolTable = true; // stripped objects still give function names
    options.Demangle = true;
    options.RelativeAddresses = false; // we pass link-time virtual addresses
    options.DebugFileDirectory = debugDirectories;
    m_impl->symbolizer = std::make_unique<llvm::symbolize::LLVMSymbolizer>(options);
}

NativeResolver::~NativeResolver() = default;

bool NativeResolver::resolve(const std::string& objectPath, uint64_t address,
                             std::vector<Location>* chain, std::string* error) {
    chain->clear();
    if (auto failed = m_impl->failedObjects.find(objectPath);
        failed != m_impl->failedObjects.end()) {
        if (error)
            *error = failed->second;
        return false;
    }
    const llvm::object::SectionedAddress where{address,
                                               llvm::object::SectionedAddress::UndefSection};
    llvm::Expected<llvm::DIInliningInfo> result =
        m_impl->symbolizer->symbolizeInlinedCode(objectPath, where);
    if (!result) {
        std::string message = llvm::toString(result.takeError());
        m_impl->failedObjects.emplace(objectPath, message);
        if (error)
            *error = std::move(message);
        return false;
    }
    const llvm::DIInliningInfo& info = *result;
    const std::string invalid = llvm::DILineInfo::BadString;
    for (uint32_t i = 0; i < info.getNumberOfFrames(); ++i) {
        const llvm::DILineInfo& frame = info.getFrame(i);
        Location location;
        if (frame.FunctionName != invalid)
            location.function = frame.FunctionName;
        if (frame.FileName != invalid)
            location.file = frame.FileName;
        location.line = frame.Line;
        location.column = frame.Column;
        if (location.function.empty() && location.file.empty() && location.line == 0)
            continue; // "??": nothing known at this level
        chain->push_back(std::move(location));
    }
    // LLVM 14 reads .symtab only; a library stripped of it still names its exported functions.
    if (chain->empty()) {
        std::string name = m_impl->dynamicSymbolName(objectPath, address);
        if (!name.empty())
            chain->push_back(Location{std::move(name), {}, 0, 0});
    }
    return true;
}

} // namespace stallscope::symbolize
