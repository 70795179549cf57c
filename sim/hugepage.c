/* hugepage.c -- the big arrays of a run (the job store's chunks, the JCTs
 * of the summary's fold) on 2 MB pages where the kernel offers them.
 *
 * Each first touch of a 4 KB page is a page fault; on the 2-core VM of
 * docs/performance.md one costs some 15 us, so that a streamed 1M-job run
 * spent more time in its ~4,500 faults than in reading the trace. With
 * transparent huge pages in madvise mode (the common default), advised
 * memory faults once per 2 MB instead. The advice changes no value, only
 * how pages are mapped; where it is unknown or refused it does nothing. */
#define _GNU_SOURCE /* madvise, MADV_HUGEPAGE, mremap */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "sim_internal.h"

#define HUGE_PAGE ((size_t)2 << 20)
/* From this size on, sim_huge_realloc maps its own 2 MB pages: an eighth
 * of one, so that a growing array faults at most 64 small pages first. */
#define HUGE_FROM (HUGE_PAGE / 8)

void sim_huge_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t b = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (p && e > b) /* whole 2 MB pages inside the block only */
        (void)madvise((void *)b, e - b, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* BYTES (> 0) rounded up to whole 2 MB pages. */
static size_t huge_bytes(size_t bytes)
{
    return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

void *sim_huge_alloc(size_t bytes, int round)
{
    void *p = NULL;
    if (bytes < HUGE_PAGE && !round) /* too small to hold one */
        return aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (round)
        bytes = huge_bytes(bytes);
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
        return NULL;
    sim_huge_advise(p, bytes);
    return p;
}

#if defined(__linux__) && defined(MADV_HUGEPAGE)
/* A mapping of BYTES (whole 2 MB pages) at a 2 MB boundary, advised. */
static void *map_huge(size_t bytes)
{
    char *p = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *a =
        (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    if (a < p + HUGE_PAGE)
        munmap(a + bytes, (size_t)(p + HUGE_PAGE - a));
    (void)madvise(a, bytes, MADV_HUGEPAGE);
    return a;
}
#endif

void *sim_huge_realloc(void *p, size_t old_bytes, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_FROM) {
        /* A mapping of its own, 2 MB-aligned and whole 2 MB pages: mremap
         * grows it where it is or moves its pages, without a copy (and
         * without holding both copies: the JCTs of 100M jobs are 800 MB).
         * Mapped blocks of other sizes, or moved from a start that is not
         * 2 MB-aligned, were seen to get 4 KB pages on this VM. */
        if (p && old_bytes >= HUGE_FROM) {
            size_t from = huge_bytes(old_bytes), to = huge_bytes(bytes);
            void *q = to == from ? p : mremap(p, from, to, MREMAP_MAYMOVE);
            return q == MAP_FAILED ? NULL : q;
        }
        void *q = map_huge(huge_bytes(bytes));
        if (q && p) { /* from malloc's block, under HUGE_FROM */
            memcpy(q, p, old_bytes);
            free(p);
        }
        return q;
    }
#endif
    (void)old_bytes;
    return realloc(p, bytes ? bytes : 1);
}

void sim_huge_free(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_FROM) {
        if (p)
            munmap(p, huge_bytes(bytes));
        return;
    }
#endif
    free(p);
}
