/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_INDEXED_HEAP_H
#define DLNET_INDEXED_HEAP_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief A binary min-heap of at most one entry per id (0 .. ids - 1) whose
 * key can be set again in place.
 *
 * For queues where an item's key changes and only its latest key counts:
 * rather than pushing a new entry and skipping the stale ones when they come
 * out, the entry moves. When keys are a strict total order (no two entries
 * compare equal) the entries come out in the same order as from a heap of
 * the latest keys, whatever the order they were set in.
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
        m_key.resize(ids);
    }

    /// Make room for ids 0 .. ids - 1 (keeps the entries).
    void Reserve(uint32_t ids)
    {
        if (ids > m_pos.size())
        {
            m_pos.resize(ids, NONE);
            m_key.resize(ids);
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
        return m_heap[0];
    }

    /// \return the least entry's key (not Empty)
    const Key& TopKey() const
    {
        return m_key[m_heap[0]];
    }

    /// Give an id an entry with this key, or move its entry to it. \param id \param key
    void Set(uint32_t id, const Key& key)
    {
        m_key[id] = key;
        uint32_t at = m_pos[id];
        if (at == NONE)
        {
            at = m_heap.size();
            m_heap.push_back(id);
            m_pos[id] = at;
            Up(at);
            return;
        }
        Up(at);
        Down(m_pos[id]);
    }

    /// \param id an id with an entry (Contains) \return its key
    const Key& KeyOf(uint32_t id) const
    {
        return m_key[id];
    }

    /**
     * Give an id without an entry one, not yet in heap order: a batch of Add calls on
     * an empty heap is put in order by one Heapify (linear) before any other call.
     * \param id an id without an entry \param key its key
     */
    void Add(uint32_t id, const Key& key)
    {
        m_key[id] = key;
        m_pos[id] = m_heap.size();
        m_heap.push_back(id);
    }

    /// Put the entries Add gave into heap order.
    void Heapify()
    {
        for (uint32_t at = m_heap.size() / 2; at-- > 0;)
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
        uint32_t at = m_pos[id];
        uint32_t last = m_heap.back();
        m_heap.pop_back();
        m_pos[id] = NONE;
        if (last == id)
        {
            return;
        }
        m_heap[at] = last;
        m_pos[last] = at;
        Up(at);
        Down(m_pos[last]);
    }

    /// Take the least entry out (not Empty).
    void Pop()
    {
        Remove(m_heap[0]);
    }

private:
    void Up(uint32_t at)
    {
        uint32_t id = m_heap[at];
        while (at > 0)
        {
            uint32_t parent = (at - 1) / 2;
            if (!(m_key[id] < m_key[m_heap[parent]]))
            {
                break;
            }
            m_heap[at] = m_heap[parent];
            m_pos[m_heap[at]] = at;
            at = parent;
        }
        m_heap[at] = id;
        m_pos[id] = at;
    }

    void Down(uint32_t at)
    {
        uint32_t id = m_heap[at];
        uint32_t n = m_heap.size();
        while (true)
        {
            uint32_t child = 2 * at + 1;
            if (child >= n)
            {
                break;
            }
            if (child + 1 < n && m_key[m_heap[child + 1]] < m_key[m_heap[child]])
            {
                ++child;
            }
            if (!(m_key[m_heap[child]] < m_key[id]))
            {
                break;
            }
            m_heap[at] = m_heap[child];
            m_pos[m_heap[at]] = at;
            at = child;
        }
        m_heap[at] = id;
        m_pos[id] = at;
    }

    std::vector<uint32_t> m_heap; //!< ids, a binary heap on their keys
    std::vector<uint32_t> m_pos;  //!< by id: its place in m_heap, or NONE
    std::vector<Key> m_key;       //!< by id
};

} // namespace ns3

#endif /* DLNET_INDEXED_HEAP_H */
