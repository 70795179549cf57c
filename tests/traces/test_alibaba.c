/* test_alibaba.c -- the readers of Alibaba's GPU cluster trace 2023
 * (alibaba.c, alibaba_nodes.c).
 *
 * Alibaba's files are not ours to ship, so the cases are fixtures of our own
 * in the same schema (the .expect language is in cases.h):
 * tests/data/alibaba2023/{valid,invalid}/<case>.csv for pod lists,
 * tests/data/alibaba2023/nodes/{valid,invalid}/<case>.csv for node lists. */
#include <criterion/criterion.h>

#include "cases.h"

#define NODES_DIR HETSIM_TEST_DATA "/alibaba2023/nodes"

Test(alibaba_reader, reads_every_pod_list_case_as_expected)
{
    case_run_all("alibaba2023", "csv", TRACE_FMT_ALIBABA2023,
                 trace_read_alibaba2023, 4, 18);
}

Test(alibaba_reader, is_what_trace_read_detects_for_a_pod_list)
{
    struct trace *t =
        case_read_ok(HETSIM_TEST_DATA "/alibaba2023/valid/pods_mixed.csv",
                     TRACE_FMT_AUTO, NULL);
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

Test(alibaba_nodes, reads_every_node_list_case_as_expected)
{
    const struct case_target nodes = {CASE_NODES, TRACE_FMT_AUTO, NULL};
    case_run("alibaba2023/nodes", "valid", "csv", &nodes, 2);
    case_run("alibaba2023/nodes", "invalid", "csv", &nodes, 12);
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
