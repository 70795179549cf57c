/* nearest.c -- the nearest known name to a misspelt one, for "did you
 * mean" in messages (Levenshtein distance, insert/delete/substitute = 1). */
#include "traces.h"

#include <stdlib.h>
#include <string.h>

size_t trace_edit_distance(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    size_t row[64];
    if (blen >= sizeof row / sizeof row[0] || alen >= 64)
        return (size_t)-1; /* names this long are never typos of each other */
    for (size_t j = 0; j <= blen; j++)
        row[j] = j;
    for (size_t i = 1; i <= alen; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[blen];
}

/* Edits a name of LEN characters may differ by and still count as a typo:
 * 1 for short names, 2 from 5 characters, 3 from 9. */
static size_t max_edits(size_t len)
{
    return len >= 9 ? 3 : len >= 5 ? 2 : 1;
}

const char *trace_nearest_name(const char *word, size_t len,
                               const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = max_edits(len) + 1;
    for (size_t i = 0; i < n; i++) {
        if (!names[i])
            continue;
        size_t d = trace_edit_distance(word, len, names[i]);
        /* a prefix counts too: "polic" for "policy", "gavel" for "gavel-108" */
        if (d >= best_d && len >= 3 && strlen(names[i]) > len &&
            strncmp(names[i], word, len) == 0)
            d = best_d - 1;
        if (d < best_d && d > 0) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}
