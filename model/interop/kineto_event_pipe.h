// KinetoEventPipe: hands what KinetoSaxHandler reads on one thread (events, device properties, the
// rank) to a sink on another, in order, in batches: the JSON is read on one core while the
// converter and SQLite work on the other (kineto_trace_reader.cpp). A batch holds an event's
// fixed fields as they are and its strings in one text buffer, so neither side allocates per
// event once warmed up; at most kPipeBatches batches exist, which bounds the memory (a batch is
// handed over at kPipeBatchEvents events or kPipeBatchTextBytes of text) and makes the reading
// side wait when the converting side is behind.
#pragma once

#include "model/interop/kineto_sax_handler.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace stallscope::model {

inline constexpr size_t kPipeBatches = 8;
inline constexpr size_t kPipeBatchEvents = 256;
inline constexpr size_t kPipeBatchTextBytes = 32 << 10;
// A side that ran out of batches to fill or to convert waits until this many are there.
inline constexpr size_t kPipeWakeBatches = kPipeBatches / 2;

class KinetoEventPipe final : public KinetoEventSink {
public:
    explicit KinetoEventPipe(KinetoEventSink& consumer);
    ~KinetoEventPipe() override;

    // The reading thread (KinetoEventSink): queues the call. onEvent returns false once the
    // consuming side stopped (its sink returned false, or stop()).
    void onDeviceProperties(const KinetoDeviceProperties& device) override;
    void onRank(int64_t rank) override;
    void onStallscopeExport() override;
    bool onEvent(const KinetoEvent& event) override;
    // The reading thread: nothing more comes (queues what is left).
    void close();

    // The consuming thread: calls the consumer with everything queued, in order, until close();
    // false as soon as the consumer's onEvent returns false (the reading side is then stopped).
    bool drain();
    // Any thread: stops both sides (the reading side's next onEvent returns false).
    void stop();

private:
    struct Call {
        enum class Kind : uint8_t { Event, Device, Rank, StallscopeExport };
        Kind kind = Kind::Event;
        KinetoEventValues values;     // Event
        uint32_t stringSizes[4] = {}; // Event: cat, name, argName, argLabels, in `text`
        uint32_t stackEntries = 0;    // Event: this many sizes from `stackSizes`, text after those
        int64_t rankOrDevice = 0;     // Rank: the rank; Device: index into `devices`
    };
    struct Batch {
        std::vector<Call> calls;
        std::string text;
        std::vector<uint32_t> stackSizes;
        std::vector<KinetoDeviceProperties> devices;
        void clear();
    };

    // Hands the batch being filled over once it is full and takes a free one; false once stopped.
    bool handOverWhenFull();
    bool replay(const Batch& batch);
    void pushFull(Batch* batch);
    Batch* popFull();

    KinetoEventSink& m_consumer;
    std::vector<std::unique_ptr<Batch>> m_batches;
    Batch* m_filling = nullptr; // the reading side's (none after close())

    std::mutex m_mutex;
    std::condition_variable m_filled; // the converting side waits for full batches
    std::condition_variable m_freed;  // the reading side waits for free ones
    // Full batches in the order they were filled, and free ones: never more than kPipeBatches,
    // room made in the constructor, so handing over never allocates (nor throws).
    std::array<Batch*, kPipeBatches> m_full{};
    size_t m_fullFirst = 0;
    size_t m_fullCount = 0;
    std::vector<Batch*> m_free;
    bool m_closed = false;
    std::atomic<bool> m_stopped{false};

    KinetoEvent m_event; // the consuming side's, reused
};

} // namespace stallscope::model
