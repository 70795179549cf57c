/* helpers.c -- what the tests of the plots suite share: a fresh folder per
 * test, and reading images and scripts back. */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "helpers.h"

/* ---- a fresh folder per test ------------------------------------------ */

char test_dir[64];

void make_dir(void)
{
    strcpy(test_dir, "/tmp/test_plots_XXXXXX");
    cr_assert_not_null(mkdtemp(test_dir));
    unsetenv("HETSIM_GNUPLOT"); /* the real gnuplot unless a test says */
}

void remove_dir(void)
{
    DIR *d = opendir(test_dir);
    if (!d)
        return;
    char path[512];
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", test_dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
    rmdir(test_dir);
}


/* ---- reading files back ------------------------------------------------ */

char *path_in_dir(const char *file)
{
    static char path[4][512]; /* a few live at once in one assertion */
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 512, "%s/%s", test_dir, file);
    return p;
}

char *slurp(const char *file, size_t *len)
{
    FILE *f = fopen(path_in_dir(file), "rb");
    cr_assert_not_null(f, "%s was not written", file);
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    rewind(f);
    char *data = malloc(n + 1);
    cr_assert_not_null(data);
    cr_assert_eq(fread(data, 1, n, f), n);
    fclose(f);
    data[n] = '\0';
    if (len)
        *len = n;
    return data;
}

int exists(const char *file)
{
    struct stat st;
    return stat(path_in_dir(file), &st) == 0;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    return ~crc;
}

/* A PNG: signature, IHDR first (with a good CRC) holding the size, IEND
 * last. */
void assert_png(const char *file, uint32_t width, uint32_t height)
{
    size_t n;
    unsigned char *p = (unsigned char *)slurp(file, &n);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n',
                                         0x1a, '\n'};
    cr_assert(n > 8 + 25 + 12, "%s is too short for a PNG", file);
    cr_assert(memcmp(p, sig, 8) == 0, "%s lacks the PNG signature", file);
    cr_assert_eq(be32(p + 8), 13u);
    cr_assert(memcmp(p + 12, "IHDR", 4) == 0);
    cr_assert_eq(be32(p + 29), crc32_of(p + 12, 17), "bad IHDR CRC");
    cr_assert_eq(be32(p + 16), width, "%s: width %u", file, be32(p + 16));
    cr_assert_eq(be32(p + 20), height, "%s: height %u", file, be32(p + 20));
    cr_assert(memcmp(p + n - 8, "IEND", 4) == 0, "%s lacks IEND", file);
    free(p);
}

/* Tags nest and close, the root is <svg> with the size asked for. Not a
 * full XML parser: enough to catch truncation and unescaped markup. */
void assert_svg(const char *file, int width, int height)
{
    char *s = slurp(file, NULL), *p = s, *stack[64];
    int depth = 0, roots = 0;
    cr_assert(strncmp(s, "<?xml", 5) == 0, "%s: no XML declaration", file);
    while ((p = strchr(p, '<'))) {
        if (p[1] == '?' || p[1] == '!') {
            p = strstr(p, p[1] == '?' ? "?>" : ">");
            cr_assert_not_null(p);
        } else if (p[1] == '/') {
            cr_assert(depth > 0, "%s: stray closing tag", file);
            char *open = stack[--depth];
            size_t len = strcspn(open, " \t\r\n/>");
            cr_assert(strncmp(open, p + 2, len) == 0 && p[2 + len] == '>',
                      "%s: <%.*s> closed by <%.20s", file, (int)len, open, p);
        } else {
            char *end = strchr(p, '>');
            cr_assert_not_null(end, "%s: unterminated tag", file);
            if (end[-1] != '/') {
                cr_assert(depth < 64);
                roots += depth == 0;
                stack[depth++] = p + 1;
            }
        }
        p++;
    }
    cr_assert_eq(depth, 0, "%s: %d tags left open", file, depth);
    cr_assert_eq(roots, 1);
    for (p = strchr(s, '&'); p; p = strchr(p + 1, '&')) {
        size_t len = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz#0123456789");
        cr_assert(len > 0 && p[1 + len] == ';', "%s: bare '&' at %.30s",
                  file, p);
    }
    char want[64];
    snprintf(want, sizeof want, "width=\"%d\" height=\"%d\"", width, height);
    char *svg = strstr(s, "<svg");
    cr_assert_not_null(svg);
    cr_assert(strstr(svg, want) && strstr(svg, want) < strchr(svg, '>'),
              "%s: root lacks %s", file, want);
    free(s);
}

void assert_images(const char *name, int width, int height)
{
    char file[128];
    snprintf(file, sizeof file, "%s.png", name);
    assert_png(file, (uint32_t)width, (uint32_t)height);
    snprintf(file, sizeof file, "%s.svg", name);
    assert_svg(file, width, height);
}

struct table read_block(const char *file, const char *block)
{
    char *s = slurp(file, NULL), head[64];
    snprintf(head, sizeof head, "%s << EOD\n", block);
    char *p = strstr(s, head);
    cr_assert_not_null(p, "%s has no datablock %s", file, block);
    p += strlen(head);
    struct table t = {NULL, 0, 0};
    size_t cap = 0, n = 0;
    while (strncmp(p, "EOD\n", 4) != 0) {
        cr_assert(*p, "%s: datablock %s is not closed", file, block);
        size_t cols = 0;
        while (*p != '\n') {
            char *end;
            double v = strtod(p, &end);
            cr_assert(end != p, "%s: not a number: %.20s", file, p);
            if (n == cap)
                cr_assert_not_null(t.v = realloc(t.v, (cap = cap * 2 + 64) *
                                                          sizeof *t.v));
            t.v[n++] = v;
            cols++;
            p = end + strspn(end, " ");
        }
        cr_assert(t.rows == 0 || cols == t.cols, "ragged datablock");
        t.cols = cols;
        t.rows++;
        p++;
    }
    free(s);
    return t;
}

double cell(const struct table *t, size_t row, size_t col)
{
    return t->v[row * t->cols + col];
}

void write_file(const char *file, const char *text, mode_t mode)
{
    FILE *f = fopen(path_in_dir(file), "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path_in_dir(file), mode);
}

int run_in_dir(const char *command)
{
    char line[512];
    snprintf(line, sizeof line, "cd '%s' && %s", test_dir, command);
    int status = system(line);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A deterministic spread of values with many ties and a long tail. */
double sample(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    double u = (double)(*state >> 11) / 9007199254740992.0;
    return floor(exp(8.0 * u) * 4.0) / 4.0 + 0.25;
}

struct plot_chart chart_named(const char *name)
{
    struct plot_chart c = {.dir = test_dir, .name = name, .title = "title",
                           .xlabel = "x", .ylabel = "y"};
    return c;
}


void assert_rc(int rc, int want)
{
    cr_assert_eq(rc, want, "got %d (%s), wanted %d (%s)", rc,
                 plot_strerror(rc), want, plot_strerror(want));
}


size_t count_matches(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}
