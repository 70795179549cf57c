/* test_hugepage.c -- the blocks of sim/hugepage.c against malloc's: the
 * same bytes after each growth (through the switch to mappings of their
 * own), the alignment promised, and every byte asked for writable. Whether
 * the kernel gives 2 MB pages is its own affair and is not checked. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

#define MB ((size_t)1 << 20)

Test(hugepage, a_growing_block_keeps_its_values_as_realloc_does)
{
    double *big = NULL, *ref = NULL;
    size_t cap = 0, n = 0;
    /* The fold's growth (metrics.c): by half, from 1,024 JCTs to past
     * 12 MB, crossing the size from which blocks are mapped. */
    for (size_t next = 1024; next < 12 * MB / sizeof *big;
         next = next + next / 2 + 1024) {
        double *b =
            sim_huge_realloc(big, cap * sizeof *big, next * sizeof *big);
        double *r = realloc(ref, next * sizeof *ref);
        cr_assert_not_null(b);
        cr_assert_not_null(r);
        big = b;
        ref = r;
        cr_assert_eq(memcmp(big, ref, n * sizeof *big), 0,
                     "the first %zu values changed on growing to %zu", n, next);
        for (; n < next; n++) /* every value of the new capacity */
            big[n] = ref[n] = (double)n * 0.5 + 1.0 / (double)(n + 1);
        cap = next;
    }
    cr_assert_eq(memcmp(big, ref, n * sizeof *big), 0);
    cr_assert_eq((uintptr_t)big % 64, 0);
    sim_huge_free(big, cap * sizeof *big);
    free(ref);
}

Test(hugepage, a_block_grown_within_its_pages_stays_where_it_is)
{
    char *p = sim_huge_realloc(NULL, 0, 3 * MB);
    cr_assert_not_null(p);
    memset(p, 7, 3 * MB);
    char *q = sim_huge_realloc(p, 3 * MB, 4 * MB); /* same 2 MB pages */
    cr_assert_eq(q, p);
    memset(q + 3 * MB, 9, MB);
    cr_assert_eq(q[3 * MB - 1], 7);
    cr_assert_eq(q[4 * MB - 1], 9);
    sim_huge_free(q, 4 * MB);
    sim_huge_free(NULL, 4 * MB); /* nothing, as free(NULL) */
    sim_huge_free(NULL, 16);
}

Test(hugepage, allocated_blocks_are_aligned_and_freed_by_free)
{
    struct {
        size_t bytes;
        int round;
        size_t align;
    } cases[] = {{192, 0, 64},
                 {3 * MB, 0, 2 * MB}, /* a chunk of the job store */
                 {3 * MB, 1, 2 * MB},
                 {MB, 1, 2 * MB}, /* the streamed frag log */
                 {MB, 0, 64}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char *p = sim_huge_alloc(cases[i].bytes, cases[i].round);
        cr_assert_not_null(p, "case %zu", i);
        cr_assert_eq((uintptr_t)p % cases[i].align, 0, "case %zu", i);
        memset(p, 0xab, cases[i].bytes);
        cr_assert_eq(p[cases[i].bytes - 1], 0xab);
        free(p);
    }
    sim_huge_advise(NULL, 4 * MB); /* no-ops: nothing, or no whole page */
    char small[64];
    sim_huge_advise(small, sizeof small);
}
