/* helpers.h -- shared by the tests of the plots suite (test_plots.c and
 * tests/plots/): each test works in its own folder test_dir, made by
 * make_dir and removed by remove_dir; files are named relative to it. */
#ifndef HETSIM_TESTS_PLOTS_HELPERS_H
#define HETSIM_TESTS_PLOTS_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "plots.h"

extern char test_dir[64];
void make_dir(void);
void remove_dir(void);

/* test_dir/FILE (one of four rotating buffers). */
char *path_in_dir(const char *file);
/* The whole of FILE, NUL-terminated; its length in *LEN if not NULL. */
char *slurp(const char *file, size_t *len);
int exists(const char *file);

/* A PNG: signature, IHDR first (good CRC) with this size, IEND last. */
void assert_png(const char *file, uint32_t width, uint32_t height);
/* Well-nested tags, one <svg> root of this size, no bare '&'. */
void assert_svg(const char *file, int width, int height);
/* NAME.png and NAME.svg, both of this size. */
void assert_images(const char *name, int width, int height);

/* The rows of datablock $block in script file, as a rows x cols table. */
struct table {
    double *v;
    size_t rows, cols;
};

struct table read_block(const char *file, const char *block);
double cell(const struct table *t, size_t row, size_t col);

void write_file(const char *file, const char *text, mode_t mode);
/* Runs COMMAND with sh in test_dir; its exit code, or -1. */
int run_in_dir(const char *command);
/* A deterministic spread of values with many ties and a long tail. */
double sample(uint64_t *state);
struct plot_chart chart_named(const char *name);
void assert_rc(int rc, int want);
/* How many times NEEDLE occurs in HAY, without overlaps. */
size_t count_matches(const char *hay, const char *needle);

#endif
