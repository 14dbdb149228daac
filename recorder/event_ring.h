// EventRing: a single-producer/single-consumer ring of HostEvents. Each target thread that reaches
// a recorded API owns one (allocated on its first event, then never freed, so the writer may drain
// it after the thread exited). The producer never blocks and never allocates: a full ring drops the
// event and counts it.
#pragma once

#include "recorder/host_event.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace stallscope::recorder {

class EventRing {
public:
    // A power of two. Each event is a sync (or a blocking copy) with its stack, ~1.2 KB: 2.5 MB
    // per thread that syncs. A full ring loses the sync itself (the callback is its only record
    // unless CUPTI's SYNCHRONIZATION records are on): 1024 lost ~0.6 % of the syncs of a loop
    // syncing 11,000 times a second while the writer inserted a large activity buffer.
    static constexpr uint32_t kCapacity = 2048;

    // Producer: a slot to fill, or nullptr when full. publish() makes it visible.
    HostEvent* reserve();
    void publish();
    // Consumer: copies out up to `max` events; returns the count.
    template <typename F> uint32_t drain(F&& consume) {
        uint32_t tail = m_tail.load(std::memory_order_relaxed);
        uint32_t head = m_head.load(std::memory_order_acquire);
        uint32_t n = 0;
        while (tail != head) {
            consume(m_slots[tail & (kCapacity - 1)]);
            ++tail;
            ++n;
        }
        m_tail.store(tail, std::memory_order_release);
        return n;
    }
    uint64_t takeDropped() { return m_dropped.exchange(0, std::memory_order_relaxed); }

    // The calling thread's ring (created and registered on first use; nullptr if out of memory).
    static EventRing* forThisThread();
    // Called (from the producer) when a ring becomes a quarter full, so the writer drains it long
    // before it overflows; must be async-signal-safe and cheap (the recorder passes a sem_post).
    static void setWakeup(void (*wakeup)());
    // Every ring ever registered.
    static void forEach(void (*visit)(EventRing*, void*), void* context);

private:
    std::atomic<uint32_t> m_head{0};
    std::atomic<uint32_t> m_tail{0};
    std::atomic<uint64_t> m_dropped{0};
    HostEvent m_slots[kCapacity];
};

} // namespace stallscope::recorder
