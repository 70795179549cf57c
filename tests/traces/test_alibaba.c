/* test_alibaba.c -- the readers of Alibaba's GPU cluster trace 2023
 * (alibaba.c, alibaba_nodes.c).
 *
 * Alibaba's files are not ours to ship, so the cases are fixtures of our own
 * in the same schema: tests/data/alibaba2023/{valid,invalid}/<case>.csv for
 * pod lists (see reader_cases.h), tests/data/alibaba2023/nodes/... for node
 * lists, whose valid .expect files say
 *   nodes N | node I FIELD VALUE (I from 0, -1 the last) | sum FIELD VALUE
 *   | model_gpus MODEL N (the GPUs of all nodes of MODEL). */
#include <criterion/criterion.h>

#include "reader_cases.h"
#include "traces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES_DIR HETSIM_TEST_DATA "/alibaba2023/nodes"

Test(alibaba_reader, reads_every_pod_list_case_as_expected)
{
    tcase_run("alibaba2023", "csv", trace_read_alibaba2023, 4, 18);
}

Test(alibaba_reader, is_what_trace_read_detects_for_a_pod_list)
{
    struct trace *t = NULL;
    struct trace_error e;
    int rc = trace_read(HETSIM_TEST_DATA "/alibaba2023/valid/pods_mixed.csv",
                        TRACE_FMT_AUTO, NULL, &t, &e);
    cr_assert_eq(rc, 0, "%s", e.text);
    cr_expect_eq(t->format, TRACE_FMT_ALIBABA2023);
    cr_expect_eq(t->njobs, 27);
    trace_destroy(t);
}

Test(alibaba_reader, reports_a_missing_file)
{
    struct trace *t = (struct trace *)&t;
    struct trace_error e;
    int rc = trace_read_alibaba2023(HETSIM_TEST_DATA "/alibaba2023/none.csv",
                                    NULL, &t, &e);
    cr_expect_eq(rc, TRACE_EIO);
    cr_expect_null(t);
}

/* ---- node lists --------------------------------------------------------- */

/* A node field by name: 's' with *s or 'f' with *d. */
static int node_field(const struct trace_node *n, const char *name,
                      const char **s, double *d)
{
    if (strcmp(name, "name") == 0 || strcmp(name, "model") == 0) {
        *s = name[0] == 'n' ? n->name : n->model;
        return 's';
    }
    if (strcmp(name, "gpus") == 0)
        *d = n->gpus;
    else if (strcmp(name, "cpu_milli") == 0)
        *d = n->cpu_milli;
    else if (strcmp(name, "memory_mib") == 0)
        *d = n->memory_mib;
    else
        cr_assert_fail("unknown node field %s", name);
    return 'f';
}

static void expect_node_line(const struct trace_nodes *ns, char *line,
                             const char *where)
{
    char *op = strtok(line, " "), *a = strtok(NULL, " "),
         *b = strtok(NULL, " ");
    char *c = strtok(NULL, ""), empty[1] = "";
    const char *s;
    double d, sum = 0;
    cr_assert(op && a, "%s: bad line", where);
    if (strcmp(op, "nodes") == 0) {
        cr_expect_eq(ns->n, strtoul(a, NULL, 10), "%s: %zu", where, ns->n);
    } else if (strcmp(op, "node") == 0) {
        long i = strtol(a, NULL, 10);
        i = i < 0 ? (long)ns->n + i : i;
        cr_assert(b && i >= 0 && (size_t)i < ns->n, "%s: node %ld", where, i);
        c = c ? c : empty;
        if (node_field(&ns->nodes[i], b, &s, &d) == 's')
            cr_expect_str_eq(s, c, "%s: %s is \"%s\"", where, b, s);
        else
            cr_expect(d == strtod(c, NULL), "%s: %s is %.17g", where, b, d);
    } else if (strcmp(op, "sum") == 0 || strcmp(op, "model_gpus") == 0) {
        int by_model = op[0] == 'm';
        cr_assert(b, "%s: bad line", where);
        for (size_t i = 0; i < ns->n; i++)
            if (!by_model || strcmp(ns->nodes[i].model, a) == 0)
                sum += node_field(&ns->nodes[i], by_model ? "gpus" : a, &s,
                                  &d) == 'f'
                           ? d
                           : 0;
        cr_expect(sum == strtod(b, NULL), "%s: %.17g", where, sum);
    } else {
        cr_assert_fail("%s: unknown statement %s", where, op);
    }
}

static void check_nodes_valid(const char *dir, const char *name)
{
    char path[2048], line[1024], where[600];
    struct trace_nodes *ns = NULL;
    struct trace_error e;
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    int rc = trace_read_alibaba_nodes(path, &ns, &e);
    cr_assert_eq(rc, 0, "%s: %ld:%ld: %s", name, e.line, e.column, e.text);
    snprintf(path, sizeof path, "%s/%s.expect", dir, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: no .expect", name);
    for (int n = 1; fgets(line, sizeof line, f); n++) {
        line[strcspn(line, "\r\n")] = '\0';
        snprintf(where, sizeof where, "%s.expect:%d", name, n);
        if (line[0] != '#' && line[0] != '\0')
            expect_node_line(ns, line, where);
    }
    fclose(f);
    trace_nodes_destroy(ns);
}

static void check_nodes_invalid(const char *dir, const char *name)
{
    char path[2048], spec[1024];
    struct trace_nodes *ns = (struct trace_nodes *)&ns;
    struct trace_error e;
    snprintf(path, sizeof path, "%s/%s.expect", dir, name);
    tcase_read_invalid(path, spec, sizeof spec);
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    int rc = trace_read_alibaba_nodes(path, &ns, &e);
    cr_expect_eq(rc, TRACE_EPARSE, "%s: rc %d", name, rc);
    cr_expect_null(ns, "%s: *out not NULL", name);
    cr_expect_str_eq(e.source, path, "%s", name);
    tcase_expect_error(&e, spec, name);
}

Test(alibaba_nodes, reads_every_node_list_case_as_expected)
{
    static const char *const kinds[] = {"valid", "invalid"};
    for (int k = 0; k < 2; k++) {
        char dir[1024], *names[64];
        snprintf(dir, sizeof dir, "%s/%s", NODES_DIR, kinds[k]);
        size_t n = tcase_list(dir, "csv", names, 64);
        cr_expect_geq(n, k ? 12u : 2u, "only %zu cases in %s", n, dir);
        for (size_t i = 0; i < n; i++) {
            if (k)
                check_nodes_invalid(dir, names[i]);
            else
                check_nodes_valid(dir, names[i]);
            free(names[i]);
        }
    }
}

Test(alibaba_nodes, reports_a_missing_file)
{
    struct trace_nodes *ns = (struct trace_nodes *)&ns;
    struct trace_error e;
    cr_expect_eq(trace_read_alibaba_nodes(NODES_DIR "/none.csv", &ns, &e),
                 TRACE_EIO);
    cr_expect_null(ns);
    trace_nodes_destroy(NULL);
}
