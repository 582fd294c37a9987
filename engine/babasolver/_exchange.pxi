# The core's door for breadth-first search split over workers
# (babasolver.cluster): each worker's store holds the states whose hash
# falls in its part. One call splits the children of an expander's last
# `generate` by the part that owns them; one call inserts a batch received
# from the other workers. Included by _core.pyx, after Expander.
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING

# The owner comes from hash bits the store does not file by: above the
# table's slot index (at most 35 bits at 2**34 states) and below its tag
# (the top TAG_BITS), so each part's table is filled as evenly as one
# store's, and its tags tell strangers apart as well.
cdef extern from *:
    """
    #define EXCHANGE_OWNER_SHIFT 36
    #define EXCHANGE_OWNER_MASK ((UINT64_C(1) << 22) - 1)
    """
    const int OWNER_SHIFT "EXCHANGE_OWNER_SHIFT"
    const uint64_t OWNER_MASK "EXCHANGE_OWNER_MASK"

#: The most parts a search may be split into (the owner's hash bits).
MAX_PARTS = 1 << 22


cdef inline size_t owner_of(uint64_t h, size_t parts) noexcept nogil:
    return <size_t>(((h >> OWNER_SHIFT) & OWNER_MASK) % parts)


def owner_of_record(bytes record, size_t parts):
    """The part (0 .. parts - 1) that owns a packed state."""
    if not 1 <= parts <= MAX_PARTS:
        raise ValueError(f"parts must be 1..{MAX_PARTS}, not {parts}")
    return owner_of(hash_bytes(record, len(record)), parts)


def root_record(Expander expander):
    """The level's initial state, packed (what add_root stores)."""
    cdef bytearray out = bytearray(expander.work.max_record + ARENA_SLACK)
    cdef int length
    expander.work.set_root()
    length = expander.work.pack(<uint8_t*><char*>out)
    return bytes(out[:length])


cdef bytes new_bytes(size_t n):
    return PyBytes_FromStringAndSize(NULL, <Py_ssize_t>n)


def take_generated(Expander expander, size_t parts, size_t part):
    """The children listed by the expander's last `generate`, split by the
    part that owns each, and the list emptied. For each part in order, a
    packet (records, starts, hashes, parents, actions) of bytes: child j is
    records[starts[j]:starts[j + 1]] (starts as uint32, one more than the
    children), hashes as uint64, parents as uint64 global ids (the local
    parent * parts + `part`, the part of this expander's store), actions
    as uint8 (with COMES_BACK, as the store keeps them). The children
    keep their order within a packet."""
    cdef size_t n = expander.out_count
    cdef size_t i, k, length, largest
    cdef size_t* counts = NULL
    cdef size_t* sizes = NULL
    cdef uint8_t** records_at = NULL
    cdef uint32_t** starts_at = NULL
    cdef uint64_t** hashes_at = NULL
    cdef uint64_t** parents_at = NULL
    cdef uint8_t** actions_at = NULL
    cdef list packets = []
    if not 1 <= parts <= MAX_PARTS or part >= parts:
        raise ValueError(f"part {part} of {parts} parts: parts must be 1..{MAX_PARTS}, part 0..parts - 1")
    # Parents grow along the list: the last is the largest.
    largest = expander.out_parent[n - 1] if n else 0
    if n and largest >= (NO_PARENT - part) // parts:
        raise MemoryError(f"state {largest:,} of part {part} has no global id below 2**36 among {parts} parts")
    try:
        safe_realloc(&counts, parts)
        safe_realloc(&sizes, parts)
        safe_realloc(&records_at, parts)
        safe_realloc(&starts_at, parts)
        safe_realloc(&hashes_at, parts)
        safe_realloc(&parents_at, parts)
        safe_realloc(&actions_at, parts)
        memset(counts, 0, parts * sizeof(size_t))
        memset(sizes, 0, parts * sizeof(size_t))
        with nogil:
            for i in range(n):
                k = owner_of(expander.out_hash[i], parts)
                counts[k] += 1
                sizes[k] += expander.out_start[i + 1] - expander.out_start[i]
        for k in range(parts):
            packet = (new_bytes(sizes[k]), new_bytes((counts[k] + 1) * sizeof(uint32_t)),
                      new_bytes(counts[k] * sizeof(uint64_t)), new_bytes(counts[k] * sizeof(uint64_t)),
                      new_bytes(counts[k]))
            packets.append(packet)
            records_at[k] = <uint8_t*>PyBytes_AS_STRING(packet[0])
            starts_at[k] = <uint32_t*>PyBytes_AS_STRING(packet[1])
            hashes_at[k] = <uint64_t*>PyBytes_AS_STRING(packet[2])
            parents_at[k] = <uint64_t*>PyBytes_AS_STRING(packet[3])
            actions_at[k] = <uint8_t*>PyBytes_AS_STRING(packet[4])
            starts_at[k][0] = 0
            counts[k] = sizes[k] = 0          # now: filled so far
        with nogil:
            for i in range(n):
                k = owner_of(expander.out_hash[i], parts)
                length = expander.out_start[i + 1] - expander.out_start[i]
                memcpy(records_at[k] + sizes[k], expander.out_bytes + expander.out_start[i], length)
                sizes[k] += length
                hashes_at[k][counts[k]] = expander.out_hash[i]
                parents_at[k][counts[k]] = expander.out_parent[i] * parts + part
                actions_at[k][counts[k]] = expander.out_action[i]
                counts[k] += 1
                starts_at[k][counts[k]] = <uint32_t>sizes[k]
    finally:
        free(counts)
        free(sizes)
        free(records_at)
        free(starts_at)
        free(hashes_at)
        free(parents_at)
        free(actions_at)
    expander.out_count = expander.out_used = 0
    return packets


def insert_records(StateStore store, const uint8_t[::1] records, const uint32_t[::1] starts,
                   const uint64_t[::1] hashes, const uint64_t[::1] parents, const uint8_t[::1] actions):
    """Insert a packet of take_generated (as any buffers of those types)
    into `store`, in order: how many were new. The new states are the last
    ones stored, in the packet's order; those already stored are dropped.
    MemoryError when the store is full or past its byte limit (the
    records before stay stored)."""
    cdef size_t n = hashes.shape[0]
    cdef size_t j
    cdef size_t before = store.count
    if starts.shape[0] != n + 1 or parents.shape[0] != n or actions.shape[0] != n:
        raise ValueError(f"a packet of {n} records needs {n + 1} starts, {n} parents and {n} actions,"
                         f" not {starts.shape[0]}, {parents.shape[0]} and {actions.shape[0]}")
    if n == 0:
        return 0
    if starts[0] != 0 or starts[n] > <size_t>records.shape[0] or records.shape[0] == 0:
        raise ValueError("the packet's starts do not fit its records")
    for j in range(n):
        if (starts[j + 1] < starts[j] or (actions[j] & ACTION_MASK) >= NO_ACTION
                or actions[j] & ~(ACTION_MASK | COMES_BACK) or parents[j] >= NO_PARENT):
            raise ValueError(f"record {j} of the packet is malformed")
    with nogil:
        insert_listed(store, &records[0], &starts[0], &hashes[0], &parents[0], &actions[0], n)
    return store.count - before
