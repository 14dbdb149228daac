#include "recorder/event_ring.h"

#include <new>

namespace stallscope::recorder {

namespace {

std::mutex& registryMutex() {
    static std::mutex* mutex = new std::mutex; // never destroyed: used from atexit handlers
    return *mutex;
}
std::vector<EventRing*>& registry() {
    static auto* rings = new std::vector<EventRing*>;
    return *rings;
}
thread_local EventRing* t_ring = nullptr;
std::atomic<void (*)()> g_wakeup{nullptr};

} // namespace

HostEvent* EventRing::reserve() {
    uint32_t head = m_head.load(std::memory_order_relaxed);
    if (head - m_tail.load(std::memory_order_acquire) >= kCapacity) {
        m_dropped.fetch_add(1, std::memory_order_relaxed);
        return nullptr;
    }
    return &m_slots[head & (kCapacity - 1)];
}

void EventRing::publish() {
    uint32_t head = m_head.load(std::memory_order_relaxed) + 1;
    m_head.store(head, std::memory_order_release);
    if (head - m_tail.load(std::memory_order_relaxed) == kCapacity / 4) {
        if (void (*wakeup)() = g_wakeup.load(std::memory_order_relaxed))
            wakeup();
    }
}

void EventRing::setWakeup(void (*wakeup)()) {
    g_wakeup.store(wakeup);
}

EventRing* EventRing::forThisThread() {
    if (t_ring)
        return t_ring;
    auto* ring = new (std::nothrow) EventRing;
    if (!ring)
        return nullptr;
    {
        std::lock_guard<std::mutex> lock(registryMutex());
        registry().push_back(ring);
    }
    t_ring = ring;
    return ring;
}

void EventRing::forEach(void (*visit)(EventRing*, void*), void* context) {
    std::vector<EventRing*> rings;
    {
        std::lock_guard<std::mutex> lock(registryMutex());
        rings = registry();
    }
    for (EventRing* ring : rings)
        visit(ring, context);
}

} // namespace stallscope::recorder
