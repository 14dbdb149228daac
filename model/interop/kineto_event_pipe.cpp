#include "model/interop/kineto_event_pipe.h"

namespace stallscope::model {

void KinetoEventPipe::Batch::clear() {
    calls.clear();
    text.clear();
    stackSizes.clear();
    devices.clear();
}

KinetoEventPipe::KinetoEventPipe(KinetoEventSink& consumer) : m_consumer(consumer) {
    m_free.reserve(kPipeBatches);
    for (size_t i = 0; i < kPipeBatches; ++i) {
        m_batches.push_back(std::make_unique<Batch>());
        m_batches.back()->calls.reserve(kPipeBatchEvents);
        m_free.push_back(m_batches.back().get());
    }
    m_filling = m_free.back();
    m_free.pop_back();
}

KinetoEventPipe::~KinetoEventPipe() = default;

void KinetoEventPipe::pushFull(Batch* batch) {
    m_full[(m_fullFirst + m_fullCount++) % kPipeBatches] = batch;
}

KinetoEventPipe::Batch* KinetoEventPipe::popFull() {
    Batch* batch = m_full[m_fullFirst];
    m_fullFirst = (m_fullFirst + 1) % kPipeBatches;
    --m_fullCount;
    return batch;
}

void KinetoEventPipe::onDeviceProperties(const KinetoDeviceProperties& device) {
    Call& call = m_filling->calls.emplace_back();
    call.kind = Call::Kind::Device;
    call.rankOrDevice = static_cast<int64_t>(m_filling->devices.size());
    m_filling->devices.push_back(device);
    handOverWhenFull();
}

void KinetoEventPipe::onRank(int64_t rank) {
    Call& call = m_filling->calls.emplace_back();
    call.kind = Call::Kind::Rank;
    call.rankOrDevice = rank;
    handOverWhenFull();
}

void KinetoEventPipe::onStallscopeExport() {
    m_filling->calls.emplace_back().kind = Call::Kind::StallscopeExport;
    handOverWhenFull();
}

bool KinetoEventPipe::onEvent(const KinetoEvent& event) {
    if (m_stopped.load(std::memory_order_relaxed))
        return false;
    Batch& batch = *m_filling;
    Call& call = batch.calls.emplace_back();
    call.values = event;
    const std::string* strings[] = {&event.cat, &event.name, &event.argName, &event.argLabels};
    for (int i = 0; i < 4; ++i) {
        call.stringSizes[i] = static_cast<uint32_t>(strings[i]->size());
        batch.text += *strings[i];
    }
    call.stackEntries = static_cast<uint32_t>(event.stackSize);
    for (size_t i = 0; i < event.stackSize; ++i) {
        batch.stackSizes.push_back(static_cast<uint32_t>(event.stack[i].size()));
        batch.text += event.stack[i];
    }
    return handOverWhenFull();
}

bool KinetoEventPipe::handOverWhenFull() {
    if (m_filling->calls.size() < kPipeBatchEvents && m_filling->text.size() < kPipeBatchTextBytes)
        return true;
    // The full batch is kept until a free one is there: once stopped, the reading side goes on
    // filling (and clearing) its own until it stops too. Having none, it waits until half of them
    // are free (or the other side stopped), so the two sides do not wake each other per batch.
    std::unique_lock lock(m_mutex);
    if (m_free.empty())
        m_freed.wait(lock, [&] { return m_free.size() >= kPipeWakeBatches || m_stopped.load(); });
    if (m_stopped.load()) {
        m_filling->clear();
        return false;
    }
    pushFull(m_filling);
    m_filling = m_free.back();
    m_free.pop_back();
    if (m_fullCount == kPipeWakeBatches)
        m_filled.notify_one();
    return true;
}

void KinetoEventPipe::close() {
    std::lock_guard lock(m_mutex);
    if (!m_filling->calls.empty()) {
        pushFull(m_filling);
        m_filling = nullptr;
    }
    m_closed = true;
    m_filled.notify_one();
}

void KinetoEventPipe::stop() {
    std::lock_guard lock(m_mutex);
    m_stopped = true;
    m_filled.notify_all();
    m_freed.notify_all();
}

bool KinetoEventPipe::drain() {
    for (;;) {
        Batch* batch = nullptr;
        {
            std::unique_lock lock(m_mutex);
            if (m_fullCount == 0) // wait until half of the batches are full, or the last one is
                m_filled.wait(lock, [&] {
                    return m_fullCount >= kPipeWakeBatches || m_closed || m_stopped.load();
                });
            if (m_stopped.load())
                return false;
            if (m_fullCount == 0)
                return true; // closed, and everything handed on
            batch = popFull();
        }
        const bool go = replay(*batch);
        batch->clear();
        {
            std::lock_guard lock(m_mutex);
            m_free.push_back(batch);
            if (m_free.size() == kPipeWakeBatches)
                m_freed.notify_one();
        }
        if (!go) {
            stop();
            return false;
        }
    }
}

bool KinetoEventPipe::replay(const Batch& batch) {
    const char* text = batch.text.data();
    size_t stackSize = 0; // index into batch.stackSizes
    for (const Call& call : batch.calls) {
        switch (call.kind) {
        case Call::Kind::Device:
            m_consumer.onDeviceProperties(batch.devices[static_cast<size_t>(call.rankOrDevice)]);
            continue;
        case Call::Kind::Rank:
            m_consumer.onRank(call.rankOrDevice);
            continue;
        case Call::Kind::StallscopeExport:
            m_consumer.onStallscopeExport();
            continue;
        case Call::Kind::Event:
            break;
        }
        static_cast<KinetoEventValues&>(m_event) = call.values;
        std::string* strings[] = {&m_event.cat, &m_event.name, &m_event.argName,
                                  &m_event.argLabels};
        for (int i = 0; i < 4; ++i) {
            strings[i]->assign(text, call.stringSizes[i]);
            text += call.stringSizes[i];
        }
        m_event.stackSize = call.stackEntries;
        if (m_event.stack.size() < call.stackEntries)
            m_event.stack.resize(call.stackEntries);
        for (size_t i = 0; i < call.stackEntries; ++i) {
            const uint32_t size = batch.stackSizes[stackSize++];
            m_event.stack[i].assign(text, size);
            text += size;
        }
        if (!m_consumer.onEvent(m_event))
            return false;
    }
    return true;
}

} // namespace stallscope::model
