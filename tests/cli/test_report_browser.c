/* test_report_browser.c -- report.html as a person sees it: headless
 * Chromium renders the page of `hetsim run --report` and of `hetsim
 * compare`; the screenshot must be a PNG of the window's size that is not
 * one flat colour, and the DOM Chromium builds must hold one inline <svg>
 * per chart. Skipped, with a message, where /usr/bin/chromium is missing
 * (Debian package chromium). */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../plots/helpers.h"
#include "run_helpers.h"

#define CDATA HETSIM_TEST_DATA "/cli"
#define CHROMIUM "/usr/bin/chromium"
#define SHOT_W 1280
#define SHOT_H 2000

static char br_out[1 << 16], br_err[1 << 16];
static char br_dom[1 << 22];
static char br_dir[64];

static void setup(void)
{
    if (access(CHROMIUM, X_OK) != 0)
        cr_skip_test("%s not found: install the Debian package chromium to "
                     "check report.html in a browser", CHROMIUM);
    clitest_make_dir(br_dir, "hetsim-browser");
}

static void teardown(void)
{
    if (br_dir[0])
        clitest_remove_dir(br_dir);
}

TestSuite(report_browser, .init = setup, .fini = teardown);

/* Runs headless Chromium on PAGE (an absolute path) with MODE, one of
 * "--screenshot=FILE" or "--dump-dom" (the DOM then goes to OUT). */
static void chromium(const char *page, const char *mode, const char *out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "profile=$(mktemp -d) && timeout 120 " CHROMIUM " --headless "
             "--no-sandbox --disable-gpu --no-first-run "
             "--disable-background-networking --user-data-dir=\"$profile\" "
             "--window-size=%d,%d %s 'file://%s' >%s 2>/dev/null; "
             "rc=$?; rm -rf \"$profile\"; exit $rc",
             SHOT_W, SHOT_H, mode, page, out ? out : "/dev/null");
    cr_assert_eq(system(cmd), 0, "chromium failed: %s", cmd);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

static unsigned paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return (unsigned)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* Undoes the PNG row filters (PNG spec, section 9) in place; RAW holds
 * H rows of 1 filter byte + W * BPP bytes. */
static void unfilter(unsigned char *raw, size_t w, size_t h, size_t bpp)
{
    size_t stride = 1 + w * bpp;
    for (size_t y = 0; y < h; y++) {
        unsigned char *row = raw + y * stride + 1;
        unsigned char *up = y ? raw + (y - 1) * stride + 1 : NULL;
        int type = row[-1];
        cr_assert(type <= 4, "bad filter type %d", type);
        for (size_t i = 0; i < w * bpp; i++) {
            int a = i >= bpp ? row[i - bpp] : 0, b = up ? up[i] : 0;
            int c = up && i >= bpp ? up[i - bpp] : 0;
            unsigned add = type == 1 ? (unsigned)a : type == 2 ? (unsigned)b
                         : type == 3 ? (unsigned)(a + b) / 2
                         : type == 4 ? paeth(a, b, c) : 0;
            row[i] = (unsigned char)(row[i] + add);
        }
    }
}

/* FILE is a PNG of SHOT_W x SHOT_H (8-bit RGB or RGBA, not interlaced)
 * whose most common colour covers less than 98% of the pixels: a page,
 * not a blank. */
static void assert_screenshot(const char *file)
{
    FILE *f = fopen(file, "rb");
    cr_assert_not_null(f, "no screenshot %s", file);
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    rewind(f);
    unsigned char *p = malloc(n), *idat = malloc(n);
    cr_assert(p && idat && fread(p, 1, n, f) == n);
    fclose(f);
    cr_assert(n > 33 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0,
              "%s is not a PNG", file);
    cr_assert(memcmp(p + 12, "IHDR", 4) == 0);
    size_t w = be32(p + 16), h = be32(p + 20);
    cr_assert(w == SHOT_W && h == SHOT_H, "%s is %zux%zu", file, w, h);
    cr_assert(p[24] == 8 && (p[25] == 2 || p[25] == 6) && p[28] == 0,
              "%s: depth %d colour type %d interlace %d", file, p[24], p[25],
              p[28]);
    size_t bpp = p[25] == 6 ? 4 : 3, nidat = 0;
    for (size_t at = 8; at + 12 <= n;) {
        size_t len = be32(p + at);
        cr_assert(at + 12 + len <= n, "%s: truncated chunk", file);
        if (memcmp(p + at + 4, "IDAT", 4) == 0) {
            memcpy(idat + nidat, p + at + 8, len);
            nidat += len;
        }
        at += 12 + len;
    }
    uLongf size = (uLongf)(h * (1 + w * bpp));
    unsigned char *raw = malloc(size);
    cr_assert_not_null(raw);
    cr_assert_eq(uncompress(raw, &size, idat, (uLong)nidat), Z_OK);
    cr_assert_eq(size, h * (1 + w * bpp));
    unfilter(raw, w, h, bpp);
    /* The most common colour, by counting the first pixel's colour and
     * the page background both: a blank page is one of them. */
    const unsigned char *first = raw + 1;
    size_t same = 0;
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            same += memcmp(raw + y * (1 + w * bpp) + 1 + x * bpp, first,
                           bpp) == 0;
    cr_assert(same < w * h / 50 * 49, "%s is %zu of %zu pixels one colour",
              file, same, w * h);
    free(raw);
    free(p);
    free(idat);
}

/* Screenshot and DOM of DIR/report.html; the DOM must hold CHARTS inline
 * SVG charts and no fetch of anything outside the page. */
static void check_page(const char *dir, size_t charts, const char *shot)
{
    char page[256], png[256], dom[256];
    snprintf(page, sizeof page, "%s/report.html", dir);
    snprintf(png, sizeof png, "%s/%s", br_dir, shot);
    snprintf(dom, sizeof dom, "%s/dom.html", br_dir);
    char mode[300];
    snprintf(mode, sizeof mode, "--screenshot=%s", png);
    chromium(page, mode, NULL);
    assert_screenshot(png);
    chromium(page, "--dump-dom", dom);
    clitest_read_file(dom, br_dom, sizeof br_dom);
    cr_assert_eq(count_matches(br_dom, "<svg"), charts, "%zu inline SVGs, not %zu",
                 count_matches(br_dom, "<svg"), charts);
    cr_assert_eq(count_matches(br_dom, "<figcaption>"), charts);
    cr_assert_eq(count_matches(br_dom, "src=\"http"), 0);
    cr_assert_eq(count_matches(br_dom, "href=\"http"), 0);
}

Test(report_browser, renders_the_run_report_with_five_charts)
{
    char cmd[1024], res[128];
    snprintf(res, sizeof res, "%s/run", br_dir);
    snprintf(cmd, sizeof cmd, "run --trace " CDATA "/small.csv --cluster "
             CDATA "/small.json --report --out %s", res);
    cr_assert_eq(clitest_run(NULL, cmd, br_out, sizeof br_out, br_err,
                             sizeof br_err), 0, "%s", br_err);
    check_page(res, 5, "run.png");
}

Test(report_browser, renders_the_compare_report_with_four_charts)
{
    char cmd[1024], res[128];
    snprintf(res, sizeof res, "%s/cmp", br_dir);
    snprintf(cmd, sizeof cmd, "compare --trace " CDATA "/small.csv "
             "--cluster " CDATA "/small.json --policies fifo,sjf,srtf "
             "--estimates oracle --out %s", res);
    cr_assert_eq(clitest_run(NULL, cmd, br_out, sizeof br_out, br_err,
                             sizeof br_err), 0, "%s", br_err);
    check_page(res, 4, "cmp.png");
}
