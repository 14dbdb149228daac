// The catalog of sync-causing operations (docs/insights.md, "The operations that sync"): what a
// user wrote that made the host wait — `logits[mask]`, `if torch.isfinite(norm):`,
// `print(loss)`, `x.to("cuda")` from pageable memory, `cudaFree` in a loop, a library's logging
// call — told from what the recorder keeps at each sync (the native frames' ATen operators, the
// innermost library Python frame, the CUDA call, the sync's kind, the user's line), what it means
// in the user's words, and its sync-free rewrite. The finding of a site names its operation and
// gives that rewrite.
#pragma once

#include "format/session_enums.h"
#include "model/analysis/aten_frames.h"
#include "model/analysis/insight.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::model {

// The change the rewrite makes, which the what-if replay plays and the card names.
enum class SyncFix : uint8_t {
    ReadLater,     // keep the value on the GPU, read it after the loop or every N steps
    DecideOnGpu,   // a host decision (if/while/assert) moved to the device
    FixedShape,    // a data-dependent output size made static (the op is replaced)
    PinnedCopy,    // the copy goes through pinned memory without blocking
    NarrowWait,    // wait for the one stream or event the host uses
    Preallocate,   // no allocation or free in the loop
    LibraryOption, // a library's option or call pattern
    Remove,        // the sync serves nothing
};

struct SyncOperation {
    std::string_view id;      // stable, for JSON and tests: "bool-mask-index"
    std::string_view name;    // the user's words, for titles: "Boolean-mask indexing"
    std::string_view meaning; // why it waits: "needs the number of selected elements on the host"
    std::string_view python;  // the rewrite in PyTorch
    std::string_view native;  // the rewrite in C++/CUDA ("": the PyTorch one for both)
    SyncFix fix;
    bool decidesControlFlow() const { return fix == SyncFix::DecideOnGpu; }
    // The rewrite for a site of `language`.
    std::string_view rewrite(SourceLanguage language) const {
        return language == SourceLanguage::Native && !native.empty() ? native : python;
    }
};

// How one operation is told: every non-empty field must match. Globs are fnmatch's (`*` also
// crosses `/`); `source` holds alternatives separated by '|', each searched as plain text in the
// user's line with its comment cut off.
struct SyncRecognition {
    std::string_view operation{};   // SyncOperation::id
    std::string_view libraryFile{}; // the innermost library frame's path from its package folder
    std::string_view libraryFunction{}; // and its function
    std::string_view calledOp{};        // AtenFrames::calledOp
    std::string_view syncingOp{};       // AtenFrames::syncingOp
    std::string_view cudaCall{};        // the CUDA API call the program (or PyTorch) made
    std::string_view source{};          // text in the user's line
    uint16_t kinds = 0;                 // a bit per format::SyncKind (1 << kind) one of which the
                                        // site's syncs must be of; 0: any
    bool readsValues = false;           // the site's copies each read a value (SyncEvidence)
};

// The bit of a sync kind in SyncRecognition::kinds and SyncEvidence::kinds.
constexpr uint16_t syncKindBit(format::SyncKind kind) {
    return static_cast<uint16_t>(1u << static_cast<int>(kind));
}

// What the recording says of one sync site.
struct SyncEvidence {
    LibraryFrame library;     // SourceSite::library
    AtenFrames aten;          // from its stack
    std::string cudaCall;     // cudaCallOf(its stack)
    std::string_view line;    // the text of the user's line ("" when not embedded)
    uint16_t kinds = 0;       // syncKindBit of each kind the site's syncs are of
    bool readsValues = false; // its syncs made copies, each a value read to the host
                              // (sitesReadingValues)
};

// The operation of a site: the first recognition that matches, in catalog order; nullptr when
// none does.
const SyncOperation* identifySyncOperation(const SyncEvidence& evidence);
// The CUDA runtime or driver call a stack (innermost first) went through: the outermost frame
// named cuda* or cu[A-Z]* below its first Python frame ("cudaDeviceSynchronize"); "" when none.
std::string cudaCallOf(const std::vector<FrameInfo>& frames);
// Line `line` (1-based) of `text`, its comment cut off, at most 4 KiB; "" when absent.
std::string_view sourceLineOf(std::string_view text, int64_t line);
// A source line as a title quotes it: trimmed, control characters as spaces, at most 120
// characters (cut with "…").
std::string statementText(std::string_view line);

std::span<const SyncOperation> syncOperations();
std::span<const SyncRecognition> syncRecognitions(); // in match order
const SyncOperation* syncOperationById(std::string_view id);

} // namespace stallscope::model
