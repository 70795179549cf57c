/* idset.c -- the job ids a streamed trace has seen, for its duplicate-id
 * check without keeping the ids (docs/streaming.md).
 *
 * Ids of the form PREFIX + a decimal number below 2^28 without leading
 * zeros ("job-17"), PREFIX the one of the first such id, are bits of a
 * bitmap: exact, 1 bit per number. Any other id is a 64-bit hash in an
 * open-addressing set: two distinct ids with the same hash would be taken
 * for a duplicate (the error says so). A given text always goes to the same
 * side once the prefix is fixed, and no numbered id came before that. */
#include "traces_internal.h"

#include <stdlib.h>
#include <string.h>

#define IDSET_MAX_NUMBER ((uint64_t)1 << 28)
#define IDSET_MAX_PREFIX 64

struct trace_idset {
    char prefix[IDSET_MAX_PREFIX];
    size_t prefix_len;
    int has_prefix;
    uint64_t *bits; /* (nbits / 64) */
    uint64_t nbits;
    uint64_t *hashes; /* (mask + 1), 0 = free */
    size_t mask, count;
};

struct trace_idset *trace_idset_create(void)
{
    return calloc(1, sizeof(struct trace_idset));
}

void trace_idset_destroy(struct trace_idset *s)
{
    if (!s)
        return;
    free(s->bits);
    free(s->hashes);
    free(s);
}

/* The number of ID when it is PREFIX + digits as above, else -1. */
static int64_t id_number(const char *id, size_t len, size_t *prefix_len)
{
    size_t d = len;
    while (d > 0 && id[d - 1] >= '0' && id[d - 1] <= '9')
        d--;
    size_t digits = len - d;
    if (digits == 0 || digits > 9 || (digits > 1 && id[d] == '0') ||
        d > IDSET_MAX_PREFIX)
        return -1;
    uint64_t v = 0;
    for (size_t i = d; i < len; i++)
        v = v * 10 + (uint64_t)(id[i] - '0');
    if (v >= IDSET_MAX_NUMBER)
        return -1;
    *prefix_len = d;
    return (int64_t)v;
}

static int bit_add(struct trace_idset *s, uint64_t v)
{
    if (v >= s->nbits) {
        uint64_t n = s->nbits ? s->nbits : 1 << 16;
        while (n <= v)
            n *= 2;
        uint64_t *b = realloc(s->bits, n / 8);
        if (!b)
            return TRACE_ENOMEM;
        memset(b + s->nbits / 64, 0, (n - s->nbits) / 8);
        s->bits = b;
        s->nbits = n;
    }
    uint64_t m = (uint64_t)1 << (v & 63);
    if (s->bits[v / 64] & m)
        return 1;
    s->bits[v / 64] |= m;
    return 0;
}

static uint64_t hash64(const char *id, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a, then a final mix */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)id[i]) * 0x100000001b3u;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return h ? h : 1;
}

static int hash_add(struct trace_idset *s, uint64_t h)
{
    if (2 * (s->count + 1) > (s->hashes ? s->mask + 1 : 0)) {
        size_t cap = s->hashes ? 2 * (s->mask + 1) : 1024;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t)
            return TRACE_ENOMEM;
        for (size_t i = 0; s->hashes && i <= s->mask; i++) {
            if (!s->hashes[i])
                continue;
            size_t k = (size_t)s->hashes[i] & (cap - 1);
            while (t[k])
                k = (k + 1) & (cap - 1);
            t[k] = s->hashes[i];
        }
        free(s->hashes);
        s->hashes = t;
        s->mask = cap - 1;
    }
    size_t k = (size_t)h & s->mask;
    while (s->hashes[k]) {
        if (s->hashes[k] == h)
            return 1;
        k = (k + 1) & s->mask;
    }
    s->hashes[k] = h;
    s->count++;
    return 0;
}

/* id_number for an ID that starts with S's prefix (the usual case): the
 * prefix ends in no digit, so the digits after it are the id's digit
 * suffix exactly when they run to its end. -2 when ID is not of that
 * kind, and id_number must decide. */
static int64_t prefixed_number(const struct trace_idset *s, const char *id,
                               size_t len)
{
    size_t p = s->prefix_len, digits = len - p;
    if (!s->has_prefix || len <= p || digits > 9 ||
        (digits > 1 && id[p] == '0'))
        return -2;
    for (size_t i = 0; i < p; i++) /* short: no call to memcmp a row */
        if (id[i] != s->prefix[i])
            return -2;
    uint64_t v = 0;
    for (size_t i = p; i < len; i++) {
        if (id[i] < '0' || id[i] > '9')
            return -2;
        v = v * 10 + (uint64_t)(id[i] - '0');
    }
    return v < IDSET_MAX_NUMBER ? (int64_t)v : -2;
}

int trace_idset_add(struct trace_idset *s, const char *id, size_t len)
{
    int64_t v = prefixed_number(s, id, len);
    if (v >= 0)
        return bit_add(s, (uint64_t)v);
    size_t p;
    v = id_number(id, len, &p);
    if (v >= 0 && !s->has_prefix) {
        memcpy(s->prefix, id, p);
        s->prefix_len = p;
        s->has_prefix = 1;
    }
    if (v >= 0 && p == s->prefix_len && memcmp(id, s->prefix, p) == 0)
        return bit_add(s, (uint64_t)v);
    int rc = hash_add(s, hash64(id, len));
    return rc == 1 ? 2 : rc;
}
