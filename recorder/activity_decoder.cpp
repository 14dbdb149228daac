#include "recorder/activity_decoder.h"

#include "recorder/nccl_collectives.h"

#include <cupti.h>

#include <cstring>

namespace stallscope::recorder {

namespace {

void storeText(const char* text, ActivityBatch* batch, uint32_t* offset, uint32_t* length) {
    if (!text)
        return;
    size_t n = strnlen(text, 1 << 16);
    *offset = uint32_t(batch->arena.size());
    *length = uint32_t(n);
    batch->arena.append(text, n);
}

// When a record's work ran and which API call it belongs to.
template <typename Record> void copySpan(const Record* r, ActivityRecord& out) {
    out.startNs = int64_t(r->start);
    out.endNs = int64_t(r->end);
    out.correlationId = r->correlationId;
}

// Where and when GPU work ran: the fields kernel, memcpy and memset records share by name.
template <typename Record> void copyPlacement(const Record* r, ActivityRecord& out) {
    copySpan(r, out);
    out.deviceId = r->deviceId;
    out.contextId = r->contextId;
    out.streamId = r->streamId;
}

} // namespace

bool ActivityDecoder::decodeRecord(const void* raw, ActivityBatch* batch) {
    auto* record = static_cast<const CUpti_Activity*>(raw);
    ActivityRecord out;
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        out.kind = ActivityRecord::Kind::Kernel;
        copyPlacement(k, out);
        out.grid[0] = k->gridX;
        out.grid[1] = k->gridY;
        out.grid[2] = k->gridZ;
        out.block[0] = k->blockX;
        out.block[1] = k->blockY;
        out.block[2] = k->blockZ;
        out.registers = k->registersPerThread;
        out.staticShared = k->staticSharedMemory;
        out.dynamicShared = k->dynamicSharedMemory;
        storeText(k->name, batch, &out.nameOffset, &out.nameLength);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        out.kind = ActivityRecord::Kind::Memcpy;
        out.copyKind = m->copyKind;
        out.srcKind = m->srcKind;
        out.dstKind = m->dstKind;
        out.isAsync = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0;
        out.bytes = m->bytes;
        copyPlacement(m, out);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        out.kind = ActivityRecord::Kind::Memset;
        out.value = m->value;
        out.bytes = m->bytes;
        copyPlacement(m, out);
        out.dstKind = uint8_t(m->memoryKind);
        out.isAsync = (m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) ? 1 : 0;
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        // Verified on an H200 (CUDA 13.0, driver 580): correlationId is the RUNTIME API call's id,
        // the same id CUpti_CallbackData.correlationId carries at the runtime callback's ENTER.
        auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
        out.kind = ActivityRecord::Kind::Sync;
        out.syncType = uint32_t(s->type);
        copySpan(s, out);
        out.contextId = s->contextId;
        out.streamId = s->streamId; // CUPTI_SYNCHRONIZATION_INVALID_VALUE when none
        out.eventId = s->cudaEventId;
        out.returnValue = s->returnValue;
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        out.kind = ActivityRecord::Kind::Api;
        out.domain = record->kind == CUPTI_ACTIVITY_KIND_DRIVER ? 1 : 2;
        out.cbid = a->cbid;
        copySpan(a, out);
        out.tid = int32_t(a->threadId);
        out.returnValue = a->returnValue;
        break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
        auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
        out.kind = ActivityRecord::Kind::Device;
        out.deviceId = d->id;
        out.computeMajor = uint8_t(d->computeCapabilityMajor);
        out.computeMinor = uint8_t(d->computeCapabilityMinor);
        out.value = d->numMultiprocessors;
        out.bytes = d->globalMemorySize;
        memcpy(out.uuid, &d->uuid, sizeof(out.uuid));
        storeText(d->name, batch, &out.nameOffset, &out.nameLength);
        break;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
        auto* c = reinterpret_cast<const CUpti_ActivityContext3*>(record);
        out.kind = ActivityRecord::Kind::Context;
        out.contextId = c->contextId;
        out.deviceId = c->deviceId;
        out.streamId = c->nullStreamId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
        out.kind = ActivityRecord::Kind::Marker;
        out.markerFlags = uint32_t(m->flags);
        out.startNs = int64_t(m->timestamp);
        out.markerId = m->id;
        if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD)
            out.tid = int32_t(m->objectId.pt.threadId);
        storeText(m->name, batch, &out.nameOffset, &out.nameLength);
        storeText(m->domain, batch, &out.domainOffset, &out.domainLength);
        break;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        auto* e = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(record);
        out.kind = ActivityRecord::Kind::CudaEvent;
        out.correlationId = e->correlationId;
        out.contextId = e->contextId;
        out.streamId = e->streamId;
        out.eventId = e->eventId;
        out.deviceId = e->deviceId;
        out.startNs = int64_t(e->deviceTimestamp);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (int(e->externalKind) != NcclCollectives::correlationKind())
            return false; // another tool's tags (Kineto pushes CUSTOM0/1 ids)
        out.kind = ActivityRecord::Kind::ExternalCorrelation;
        out.externalId = e->externalId;
        out.correlationId = e->correlationId;
        break;
    }
    default:
        ++batch->unknownRecords;
        return false;
    }
    batch->records.push_back(out);
    return true;
}

void ActivityDecoder::decodeBuffer(uint8_t* buffer, size_t validSize, ActivityBatch* batch) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS)
        decodeRecord(record, batch);
}

} // namespace stallscope::recorder
