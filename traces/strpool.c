/* strpool.c -- the string pool of a trace.
 *
 * A trace names the same few job types, users and models on a million rows;
 * keeping each text once in one block and handing out 32-bit offsets makes
 * struct trace_job small and freeing a trace two calls. Interning uses an
 * open-addressing table of offsets with their hashes beside them, so a probe
 * touches the block only when the hashes already agree. */
#include "traces_internal.h"

#include <stdlib.h>
#include <string.h>

struct trace_strpool {
    char *block;      /* (cap): NUL-terminated strings; block[0] = "" */
    size_t len, cap;
    uint32_t *slots;  /* (nslots) offsets into block; 0 marks a free slot */
    uint32_t *hashes; /* (nslots) hash of the string in the same slot */
    size_t nslots, count;
};

#define POOL_FIRST_BLOCK ((size_t)1 << 16)
#define POOL_FIRST_SLOTS ((size_t)1 << 10)

struct trace_strpool *trace_strpool_create(void)
{
    struct trace_strpool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return NULL;
    pool->block = malloc(POOL_FIRST_BLOCK);
    pool->slots = calloc(POOL_FIRST_SLOTS, sizeof *pool->slots);
    pool->hashes = calloc(POOL_FIRST_SLOTS, sizeof *pool->hashes);
    if (!pool->block || !pool->slots || !pool->hashes)
        goto fail;
    pool->block[0] = '\0';
    pool->len = 1;
    pool->cap = POOL_FIRST_BLOCK;
    pool->nslots = POOL_FIRST_SLOTS;
    return pool;
fail:
    trace_strpool_destroy(pool);
    return NULL;
}

void trace_strpool_destroy(struct trace_strpool *pool)
{
    if (!pool)
        return;
    free(pool->block);
    free(pool->slots);
    free(pool->hashes);
    free(pool);
}

int trace_strpool_append(struct trace_strpool *pool, const char *s,
                         size_t len, uint32_t *out)
{
    size_t need;
    if (len == 0) {
        *out = TRACE_NOSTR;
        return 0;
    }
    /* Offsets are uint32_t: the block may not pass 4 GiB. */
    if (len >= (size_t)UINT32_MAX - pool->len)
        return TRACE_ENOMEM;
    need = pool->len + len + 1;
    if (need > pool->cap) {
        size_t cap = pool->cap;
        char *block;
        while (cap < need)
            cap *= 2;
        block = realloc(pool->block, cap);
        if (!block)
            return TRACE_ENOMEM;
        pool->block = block;
        pool->cap = cap;
    }
    memcpy(pool->block + pool->len, s, len);
    pool->block[pool->len + len] = '\0';
    *out = (uint32_t)pool->len;
    pool->len = need;
    return 0;
}

/* Doubles the lookup table, placing every string again by its stored hash. */
static int pool_grow_table(struct trace_strpool *pool)
{
    size_t n = pool->nslots * 2, mask = n - 1;
    uint32_t *slots = calloc(n, sizeof *slots);
    uint32_t *hashes = calloc(n, sizeof *hashes);
    if (!slots || !hashes) {
        free(slots);
        free(hashes);
        return TRACE_ENOMEM;
    }
    for (size_t i = 0; i < pool->nslots; i++) {
        size_t j;
        if (!pool->slots[i])
            continue;
        j = pool->hashes[i] & mask;
        while (slots[j])
            j = (j + 1) & mask;
        slots[j] = pool->slots[i];
        hashes[j] = pool->hashes[i];
    }
    free(pool->slots);
    free(pool->hashes);
    pool->slots = slots;
    pool->hashes = hashes;
    pool->nslots = n;
    return 0;
}

int trace_strpool_intern(struct trace_strpool *pool, const char *s,
                         size_t len, uint32_t *out)
{
    uint32_t h;
    size_t mask = pool->nslots - 1, i;
    int rc;
    if (len == 0) {
        *out = TRACE_NOSTR;
        return 0;
    }
    h = trace_hash(s, len);
    for (i = h & mask; pool->slots[i]; i = (i + 1) & mask) {
        const char *t = pool->block + pool->slots[i];
        /* strncmp stops at t's NUL when t is shorter (s holds no NUL), so
         * t[len] is only read when t has at least len bytes. */
        if (pool->hashes[i] == h && strncmp(t, s, len) == 0 && t[len] == '\0') {
            *out = pool->slots[i];
            return 0;
        }
    }
    rc = trace_strpool_append(pool, s, len, out);
    if (rc)
        return rc;
    pool->slots[i] = *out;
    pool->hashes[i] = h;
    /* Keep the table at most half full so probe runs stay short. */
    if (++pool->count * 2 > pool->nslots)
        return pool_grow_table(pool);
    return 0;
}

const char *trace_strpool_get(const struct trace_strpool *pool, uint32_t s)
{
    if (!pool || s >= pool->len)
        return "";
    return pool->block + s;
}

void trace_strpool_seal(struct trace_strpool *pool)
{
    char *block;
    free(pool->slots);
    free(pool->hashes);
    pool->slots = NULL;
    pool->hashes = NULL;
    pool->nslots = 0;
    pool->count = 0;
    /* A failed shrink leaves the larger block in place, which is fine. */
    block = realloc(pool->block, pool->len);
    if (block) {
        pool->block = block;
        pool->cap = pool->len;
    }
}

uint32_t trace_hash(const char *s, size_t len)
{
    /* Eight bytes per multiply, then a murmur3 finaliser so that ids that
     * differ only in their last digit spread over the low bits. */
    uint64_t h = 0x9e3779b97f4a7c15u ^ (uint64_t)len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
        s += 8;
        len -= 8;
    }
    if (len) {
        uint64_t w = 0;
        memcpy(&w, s, len);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return (uint32_t)h;
}
