// TimelineActivity: the time span worth showing first — where the GPU works. Real PyTorch
// recordings spend seconds in imports and CUDA initialisation before the first kernel, often
// with a few stray early GPU operations (context set-up copies, a warm-up memset) that would
// otherwise stretch the fit back to the start. So:
//  * the span runs from the first to the last GPU operation (and the host syncs after it);
//  * a few operations (at most 1 % of the GPU work) isolated from the rest by an idle gap of at
//    least a fifth of the session are ignored at either end;
//  * idle edges shorter than 5 % of the session are kept (nothing to gain from trimming them);
//  * 1 % of the span is added on each side; without GPU work, the whole session.
#pragma once

#include <cstdint>
#include <utility>

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

class TimelineActivity {
public:
    static constexpr double kTrimShare = 0.05;
    static constexpr double kIsolatingGapShare = 0.2;
    static constexpr double kStrayShare = 0.01;

    static std::pair<int64_t, int64_t> range(const model::Session& session);
};

} // namespace stallscope::views
