/* output.c -- numbers that round-trip, and files that appear whole. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"

/* "00" to "99": two digits per division. */
static const char digit_pairs[201] = "0001020304050607080910111213141516171819"
                                     "2021222324252627282930313233343536373839"
                                     "4041424344454647484950515253545556575859"
                                     "6061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* Writes the decimal digits of V (>= 0) at P; returns the end. */
static char *put_digits(char *p, uint64_t v)
{
    static const uint64_t pow10[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};
    /* Digits: log10 from the bit length (1233 / 4096 ~ log10 2), then one
     * comparison to correct it. */
    int bits = 64 - __builtin_clzll(v | 1);
    int n = (bits * 1233) >> 12;
    n += n < 20 && v >= pow10[n];
    n += n == 0;
    char *end = p + n, *q = end;
    for (; v > UINT32_MAX; v /= 100) /* past 49 days in milliseconds */
        memcpy(q -= 2, digit_pairs + v % 100 * 2, 2);
    /* then four digits a step in 32-bit arithmetic, whose divisions by a
     * constant are shorter multiplications than 64-bit ones */
    uint32_t u = (uint32_t)v;
    for (; u >= 10000; u /= 10000) {
        uint32_t r = u % 10000, hi = r / 100;
        memcpy(q -= 2, digit_pairs + (r - hi * 100) * 2, 2);
        memcpy(q -= 2, digit_pairs + hi * 2, 2);
    }
    if (u >= 100) {
        memcpy(q -= 2, digit_pairs + u % 100 * 2, 2);
        u /= 100;
    }
    if (u >= 10)
        memcpy(q - 2, digit_pairs + u * 2, 2);
    else
        q[-1] = (char)('0' + u);
    return end;
}

/* Fraction digits of the shortest decimal that reads back as x, for
 * 1 <= x < 2^53 with a fractional part, in exact 64-bit integer arithmetic
 * (the free-format digit generation of Steele & White, PLDI'90).
 * x = m / 2^s with m of 53 bits and 1 <= s <= 52; every quantity below is
 * in units of 2^-(s+2) so the rounding interval's ends are integers:
 * x's neighbours are one ulp (4 units) away above, and below too except
 * when m is a power of two (2 units). Digits go to OUT; returns how many,
 * and *carry is 1 when rounding up carried into the integer part. */
static int shortest_fraction(uint64_t m, int s, char *out, int *carry)
{
    uint64_t mask = ((uint64_t)1 << (s + 2)) - 1;
    uint64_t r = (m << 2) & mask;              /* the fraction, scaled */
    uint64_t one = (uint64_t)1 << (s + 2);     /* 1.0, scaled */
    uint64_t hi = 2, lo = m == (uint64_t)1 << 52 ? 1 : 2;
    int inclusive = (m & 1) == 0; /* ties read back to the even m */
    int n = 0;
    *carry = 0;
    for (;;) {
        /* Three digits at once while the interval, scaled by 1000, is
         * still under one: then a rounding that would end the digits at
         * one of the three would still end them at the third (the
         * remainder stays within lo or within hi of one), so if it does
         * not end them at the third, the three digits stand. r < 2^54, so
         * r * 1000 fits. */
        if (hi * 1000 < one) {
            uint64_t r3 = r * 1000, hi3 = hi * 1000, lo3 = lo * 1000;
            uint64_t d3 = r3 >> (s + 2), rr = r3 & mask;
            int low3 = inclusive ? rr <= lo3 : rr < lo3;
            int high3 = inclusive ? rr + hi3 >= one : rr + hi3 > one;
            if (!low3 && !high3) {
                unsigned h = (unsigned)d3 / 100,
                         t = 2 * ((unsigned)d3 - 100 * h);
                out[n++] = (char)('0' + h);
                out[n++] = digit_pairs[t];
                out[n++] = digit_pairs[t + 1];
                r = rr;
                hi = hi3;
                lo = lo3;
                continue;
            }
        }
        r *= 10;
        hi *= 10;
        lo *= 10;
        int digit = (int)(r >> (s + 2));
        r &= mask;
        int low = inclusive ? r <= lo : r < lo;
        int high = inclusive ? r + hi >= one : r + hi > one;
        if (!low && !high) {
            out[n++] = (char)('0' + digit);
            continue;
        }
        if (low && high)
            high = 2 * r > one || (2 * r == one && (digit & 1));
        out[n++] = (char)('0' + digit);
        if (!high)
            return n;
        /* Round the last digit up, carrying through nines. */
        int i = n - 1;
        while (i >= 0 && out[i] == '9')
            i--;
        if (i < 0) {
            *carry = 1;
            return 0;
        }
        out[i]++;
        return i + 1;
    }
}

/* Text of X that reads back exactly, as short as possible: whole numbers
 * and 1 <= |x| < 2^53 (all times of a simulation) in integer arithmetic,
 * the rest by trying printf precisions 15, 16, 17. */
char *cli_fmt_double(char *buf, double x)
{
    cli_put_double(buf, x);
    return buf;
}

char *cli_put_int(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_digits(p, (uint64_t)0 - (uint64_t)v);
    }
    if (v < 10) { /* most counts in the results are small */
        *p++ = (char)('0' + v);
        return p;
    }
    return put_digits(p, (uint64_t)v);
}

/* The text of 1 <= x < 2^33 when a decimal with at most 3 fraction digits
 * reads back as x (times in milliseconds, as traces write them): that
 * decimal is then the shortest that does. x / 1000 rounded is correctly
 * rounded like strtod, so the check is exact; and x's rounding interval is
 * under 2^-19 wide, so no other decimal of 3 or fewer fraction digits lies
 * in it. Returns the end, or NULL when no such decimal reads back. */
static char *put_millis(char *p, double x)
{
    uint64_t k = (uint64_t)(x * 1000.0 + 0.5);
    if ((double)k / 1000.0 != x)
        return NULL;
    /* k's digits (4 or more: x >= 1), the point put before the last 3,
     * and the fraction's trailing zeros dropped (x is not whole: one of
     * its 3 digits is not zero) */
    char *e = put_digits(p, k);
    char d1 = e[-3], d2 = e[-2], d3 = e[-1];
    e[-3] = '.';
    e[-2] = d1;
    e[-1] = d2;
    e[0] = d3;
    e++;
    while (e[-1] == '0')
        e--;
    *e = '\0';
    return e;
}

char *cli_put_double(char *buf, double x)
{
    const double limit = 9007199254740992.0; /* 2^53 */
    double ax = fabs(x);
    char *p = buf;
    if (ax < limit && ax >= 1) {
        if (x < 0)
            *p++ = '-';
        uint64_t bits;
        memcpy(&bits, &ax, sizeof bits);
        /* ax = m / 2^s, m of 53 bits (the implicit one set), 0 <= s <= 52 */
        uint64_t m = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
        int s = 52 - ((int)(bits >> 52) - 1023);
        uint64_t ip = m >> s;
        int whole = (m & (((uint64_t)1 << s) - 1)) == 0;
        char *q;
        if (!whole && ax < 8589934592.0 && (q = put_millis(p, ax)) != NULL)
            return q;
        char frac[24];
        int n = 0, carry = 0;
        if (!whole)
            n = shortest_fraction(m, s, frac, &carry);
        p = put_digits(p, ip + (uint64_t)carry);
        if (n > 0) {
            *p++ = '.';
            memcpy(p, frac, (size_t)n);
            p += n;
        }
        *p = '\0';
        return p;
    }
    int n;
    if (x == 0) { /* -0 too */
        buf[0] = '0';
        buf[1] = '\0';
        return buf + 1;
    } else if (!isfinite(x))
        n = snprintf(buf, 32, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
    else {
        for (int prec = 15; prec <= 17; prec++) {
            n = snprintf(buf, 32, "%.*g", prec, x);
            if (prec == 17 || strtod(buf, NULL) == x)
                break;
        }
    }
    return buf + n;
}

void cli_csv_quoted(FILE *f, const char *text)
{
    putc('"', f);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            putc('"', f);
        putc(*p, f);
    }
    putc('"', f);
}

int cli_write_json(FILE *f, cJSON *root)
{
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return -1;
    fputs(text, f);
    fputc('\n', f);
    cJSON_free(text);
    return 0;
}

int cli_write_json_file(const char *dir, const char *name, cJSON *root)
{
    struct cli_atomic a;
    if (cli_atomic_open(&a, dir, name)) {
        cJSON_Delete(root);
        cli_error("%s", a.err);
        return -1;
    }
    if (cli_write_json(a.f, root)) {
        cli_atomic_abort(&a);
        cli_error("%s/%s: out of memory", dir, name);
        return -1;
    }
    if (cli_atomic_commit(&a) != 0) {
        cli_error("%s", a.err);
        return -1;
    }
    return 0;
}

void cli_json_number(cJSON *o, const char *key, double x)
{
    char buf[32];
    if (isfinite(x))
        cJSON_AddRawToObject(o, key, cli_fmt_double(buf, x));
    else
        cJSON_AddNullToObject(o, key);
}

int cli_mkdirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = saved;
        if (saved == '\0')
            break;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int cli_atomic_open(struct cli_atomic *a, const char *dir, const char *name)
{
    a->f = NULL;
    a->err[0] = '\0';
    int n = snprintf(a->path, sizeof a->path, "%s/%s", dir, name);
    if (n >= (int)sizeof a->path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (exp_file_open(&a->x, a->path, a->err, sizeof a->err) != 0) {
        snprintf(a->tmp, sizeof a->tmp, "%s", a->path);
        return -1;
    }
    snprintf(a->tmp, sizeof a->tmp, "%s", a->x.tmp[0] ? a->x.tmp : a->path);
    a->f = a->x.f;
    return 0;
}

int cli_atomic_commit(struct cli_atomic *a)
{
    a->f = NULL;
    return exp_file_commit(&a->x, a->err, sizeof a->err);
}

void cli_atomic_presync(struct cli_atomic *a)
{
    exp_file_presync(&a->x);
}

void cli_atomic_background(struct cli_atomic *a)
{
    exp_file_background(&a->x);
}

void cli_atomic_abort(struct cli_atomic *a)
{
    if (a->f)
        exp_file_abort(&a->x);
    a->f = NULL;
}
