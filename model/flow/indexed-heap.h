/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_INDEXED_HEAP_H
#define DLNET_INDEXED_HEAP_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief A min-heap of at most one entry per id (0 .. ids - 1) whose key can
 * be set again in place.
 *
 * For queues where an item's key changes and only its latest key counts:
 * rather than pushing a new entry and skipping the stale ones when they come
 * out, the entry moves. When keys are a strict total order (no two entries
 * compare equal) the entries come out in the same order as from a heap of
 * the latest keys, whatever the order they were set in.
 *
 * Four children a node, each entry holding its key: a sift compares keys that
 * lie side by side instead of loading each through its id (the flow level's
 * finish queue holds an entry per flow in flight, tens of thousands).
 *
 * \tparam Key the key type; `a < b` puts a first
 */
template <typename Key>
class IndexedHeap
{
public:
    static constexpr uint32_t NONE = 0xffffffff; //!< an id not in the heap

    /// Empty the heap. \param ids ids run from 0 to ids - 1 (more may be added by Reserve)
    void Reset(uint32_t ids)
    {
        m_heap.clear();
        m_pos.assign(ids, NONE);
    }

    /// Make room for ids 0 .. ids - 1 (keeps the entries).
    void Reserve(uint32_t ids)
    {
        if (ids > m_pos.size())
        {
            m_pos.resize(ids, NONE);
        }
    }

    /// \return true if no entry
    bool Empty() const
    {
        return m_heap.empty();
    }

    /// \return the number of entries
    uint32_t Size() const
    {
        return m_heap.size();
    }

    /// \param id an id \return true if it has an entry
    bool Contains(uint32_t id) const
    {
        return id < m_pos.size() && m_pos[id] != NONE;
    }

    /// \return the id of the least entry (not Empty)
    uint32_t Top() const
    {
        return m_heap[0].id;
    }

    /// \return the least entry's key (not Empty)
    const Key& TopKey() const
    {
        return m_heap[0].key;
    }

    /// Give an id an entry with this key, or move its entry to it. \param id \param key
    void Set(uint32_t id, const Key& key)
    {
        uint32_t at = m_pos[id];
        if (at == NONE)
        {
            m_heap.push_back(Entry{key, id});
            Up(m_heap.size() - 1);
            return;
        }
        const bool lower = key < m_heap[at].key;
        m_heap[at].key = key;
        if (lower)
        {
            Up(at);
        }
        else
        {
            Down(at);
        }
    }

    /// \param id an id with an entry (Contains) \return its key
    const Key& KeyOf(uint32_t id) const
    {
        return m_heap[m_pos[id]].key;
    }

    /**
     * Give an id without an entry one, not yet in heap order: a batch of Add calls on
     * an empty heap is put in order by one Heapify (linear) before any other call.
     * \param id an id without an entry \param key its key
     */
    void Add(uint32_t id, const Key& key)
    {
        m_pos[id] = m_heap.size();
        m_heap.push_back(Entry{key, id});
    }

    /// Put the entries Add gave into heap order.
    void Heapify()
    {
        if (m_heap.size() < 2)
        {
            return;
        }
        for (uint32_t at = (m_heap.size() - 2) / ARITY + 1; at-- > 0;)
        {
            Down(at);
        }
    }

    /// Take an id's entry out (no effect without one). \param id
    void Remove(uint32_t id)
    {
        if (id >= m_pos.size() || m_pos[id] == NONE)
        {
            return;
        }
        const uint32_t at = m_pos[id];
        m_pos[id] = NONE;
        Entry last = m_heap.back();
        m_heap.pop_back();
        if (last.id == id)
        {
            return;
        }
        const bool lower = last.key < m_heap[at].key;
        m_heap[at] = last;
        if (lower)
        {
            Up(at);
        }
        else
        {
            Down(at);
        }
    }

    /// Take the least entry out (not Empty).
    void Pop()
    {
        Remove(m_heap[0].id);
    }

private:
    static constexpr uint32_t ARITY = 4;

    struct Entry
    {
        Key key;
        uint32_t id;
    };

    /// Move the entry at `at` towards the root until its parent is not greater.
    void Up(uint32_t at)
    {
        Entry e = m_heap[at];
        while (at > 0)
        {
            uint32_t parent = (at - 1) / ARITY;
            if (!(e.key < m_heap[parent].key))
            {
                break;
            }
            m_heap[at] = m_heap[parent];
            m_pos[m_heap[at].id] = at;
            at = parent;
        }
        m_heap[at] = e;
        m_pos[e.id] = at;
    }

    /// Move the entry at `at` towards the leaves until no child is less.
    void Down(uint32_t at)
    {
        Entry e = m_heap[at];
        const uint32_t n = m_heap.size();
        while (true)
        {
            const uint32_t first = ARITY * at + 1;
            if (first >= n)
            {
                break;
            }
            const uint32_t end = std::min(first + ARITY, n);
            uint32_t least = first;
            for (uint32_t c = first + 1; c < end; ++c)
            {
                if (m_heap[c].key < m_heap[least].key)
                {
                    least = c;
                }
            }
            if (!(m_heap[least].key < e.key))
            {
                break;
            }
            m_heap[at] = m_heap[least];
            m_pos[m_heap[at].id] = at;
            at = least;
        }
        m_heap[at] = e;
        m_pos[e.id] = at;
    }

    std::vector<Entry> m_heap;   //!< entries, a 4-ary heap on their keys
    std::vector<uint32_t> m_pos; //!< by id: its place in m_heap, or NONE
};

} // namespace ns3

#endif /* DLNET_INDEXED_HEAP_H */
