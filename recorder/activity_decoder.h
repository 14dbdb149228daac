// ActivityDecoder: turns CUPTI activity records (CUDA 13 structs) into ActivityRecords. Runs in
// CUPTI's buffer-completed callback; tests feed it synthetic records built from the real structs.
#pragma once

#include "recorder/activity_record.h"

#include <cstddef>
#include <cstdint>

namespace stallscope::recorder {

class ActivityDecoder {
public:
    // Decodes one record into `batch`. Returns false for kinds the recorder does not use.
    // `record` points at a CUpti_Activity* struct (the header stays free of CUPTI's headers).
    static bool decodeRecord(const void* record, ActivityBatch* batch);
    // Decodes every record of a completed CUPTI buffer (uses cuptiActivityGetNextRecord).
    static void decodeBuffer(uint8_t* buffer, size_t validSize, ActivityBatch* batch);
};

} // namespace stallscope::recorder
