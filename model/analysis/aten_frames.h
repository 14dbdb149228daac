// What PyTorch's native frames say about a sync (the recorder's native stack at every sync): the
// ATen operator that synchronized, the operator the user's Python line called, and the autograd
// node whose backward pass ran it on the autograd engine's thread. One fix removes the syncs of a
// line and those of its op's backward pass (`logits[mask]` syncs in `index` forward and again in
// IndexBackward0), so SyncSites joins the latter to the former (docs/insights.md, "Site").
#pragma once

#include "model/session/session_database.h"

#include <string>
#include <string_view>
#include <vector>

namespace stallscope::model {

struct AtenFrames {
    std::string syncingOp;    // the innermost at::_ops::X::call: "nonzero"
    std::string calledOp;     // the outermost one below the first Python frame: "index_Tensor"
    std::string backwardNode; // torch::autograd::generated::X::apply: "IndexBackward0", or ""
};

// Frames innermost first, as SessionDatabase::stack returns them.
AtenFrames atenFramesOf(const std::vector<FrameInfo>& frames);

// Whether `node`'s backward pass belongs to the forward operator `op`: "IndexBackward0" to
// "index_Tensor" and "index" (an overload's suffix starts with a capital), not to
// "index_select"; "IndexPutBackward0" to "index_put_".
bool isBackwardOf(std::string_view node, std::string_view op);

} // namespace stallscope::model
