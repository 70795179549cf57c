/* sweep_policies.c -- the "policies" of a sweep SPEC: each a name, or an
 * object that sets its options, placement and backfill; each named in
 * sweep.csv by a label that tells it apart. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "policy.h"
#include "sweep_spec_internal.h"

/* The label: NAME (the policy as the SPEC names it) and the options. */
static int set_label(struct sweep_policy *p, const char *name, int *oom)
{
    char label[2048];
    size_t len = (size_t)snprintf(label, sizeof label, "%s", name);
    for (size_t i = 0; i < p->nopts && len < sizeof label; i++)
        len += (size_t)snprintf(label + len, sizeof label - len, "%s%s=%s",
                                i ? "," : "[", p->keys[i], p->values[i]);
    if (p->nopts && len < sizeof label)
        snprintf(label + len, sizeof label - len, "]");
    p->label = spec_dup(label, oom);
    return 0;
}

static int policy_options(struct spec_ctx *x, struct sweep_policy *p,
                          const cJSON *opts, int *oom)
{
    if (!cJSON_IsObject(opts))
        return spec_bad(x, opts, "policy %s: \"options\" must be an object",
                   p->name);
    const struct pol_ops *ops = pol_find(p->name);
    for (const cJSON *c = opts->child; c; c = c->next) {
        size_t i = 0;
        while (ops && ops->params && ops->params[i].name &&
               strcmp(ops->params[i].name, c->string) != 0)
            i++;
        if (ops && (!ops->params || !ops->params[i].name))
            return spec_bad(x, c, "policy %s has no option \"%s\" (`hetsim "
                       "policies --verbose`)", p->name, c->string);
        if (p->nopts == SWEEP_MAX_OPTS)
            return spec_bad(x, c, "policy %s: at most %d options", p->name,
                       SWEEP_MAX_OPTS);
        char value[256];
        int rc = spec_option_text(x, c, c->string, value, sizeof value);
        if (rc)
            return rc;
        p->keys[p->nopts] = spec_dup(c->string, oom);
        p->values[p->nopts++] = spec_dup(value, oom);
    }
    return 0;
}

/* One entry of "policies": "NAME" or {"name", "options", "placement",
 * "backfill", "label"}. */
static int parse_policy(struct spec_ctx *x, const cJSON *item,
                        struct sweep_policy *p, int *oom)
{
    const cJSON *name = cJSON_IsString(item) ? item : NULL, *opts = NULL,
                *label = NULL;
    if (cJSON_IsObject(item)) {
        for (const cJSON *c = item->child; c; c = c->next) {
            const char *k = c->string;
            int str = cJSON_IsString(c) && c->valuestring[0];
            if (strcmp(k, "options") == 0)
                opts = c;
            else if (!str && (strcmp(k, "name") == 0 ||
                              strcmp(k, "placement") == 0 ||
                              strcmp(k, "backfill") == 0 ||
                              strcmp(k, "label") == 0))
                return spec_bad(x, c, "policies: \"%s\" must be a non-empty "
                           "string", k);
            else if (strcmp(k, "name") == 0)
                name = c;
            else if (strcmp(k, "label") == 0)
                label = c;
            else if (strcmp(k, "placement") == 0)
                p->placement = spec_dup(c->valuestring, oom);
            else if (strcmp(k, "backfill") == 0)
                p->backfill = spec_dup(c->valuestring, oom);
            else
                return spec_bad(x, c, "policies: unknown key \"%s\" (known: "
                           "name, options, placement, backfill, label)", k);
        }
    } else if (!name)
        return spec_bad(x, item, "policies: each entry must be a policy name or "
                   "an object with \"name\"");
    if (!name)
        return spec_bad(x, item, "policies: missing \"name\"");
    /* A plugin or Python file, named relative to the SPEC, is checked by
     * its runs (its options too). */
    int plugin = !pol_find(name->valuestring) &&
                 cli_policy_is_plugin(name->valuestring);
    if (!pol_find(name->valuestring) && !plugin)
        return spec_bad(x, name, "unknown policy \"%s\" (`hetsim policies`)",
                   name->valuestring);
    p->name = plugin && strncmp(name->valuestring, "python:", 7) != 0
                  ? spec_beside(x->source, name->valuestring, oom)
                  : spec_dup(name->valuestring, oom);
    int rc = opts && p->name ? policy_options(x, p, opts, oom) : 0;
    if (rc || !p->name)
        return rc;
    if (label)
        p->label = spec_dup(label->valuestring, oom);
    else if (p->placement || p->backfill)
        return spec_bad(x, item, "policy %s: give a \"label\" to tell it apart "
                   "when it sets placement or backfill", p->name);
    else
        set_label(p, name->valuestring, oom);
    return 0;
}

int spec_parse_policies(struct spec_ctx *x, const cJSON *arr, int *oom)
{
    struct sweep_spec *s = x->s;
    if (!cJSON_IsArray(arr) || !arr->child)
        return spec_bad(x, arr, "\"policies\" must be a non-empty array");
    for (const cJSON *c = arr->child; c; c = c->next) {
        if (s->npolicies == SWEEP_MAX_ITEMS)
            return spec_bad(x, c, "policies: at most %d", SWEEP_MAX_ITEMS);
        struct sweep_policy *p = &s->policies[s->npolicies++];
        int rc = parse_policy(x, c, p, oom);
        if (rc || *oom)
            return rc;
        for (size_t i = 0; i + 1 < s->npolicies; i++)
            if (strcmp(s->policies[i].label, p->label) == 0)
                return spec_bad(x, c, "policies: \"%s\" listed twice (give each "
                           "a distinct \"label\")", p->label);
    }
    return 0;
}
