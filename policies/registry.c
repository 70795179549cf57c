/* registry.c -- every built-in policy, by name. */
#include <string.h>

#include "policy.h"

extern const struct pol_ops pol_fifo;

static const struct pol_ops *const registry[] = {
    &pol_fifo,
};

#define NPOLICIES (sizeof registry / sizeof registry[0])

const struct pol_ops *pol_at(size_t i)
{
    return i < NPOLICIES ? registry[i] : NULL;
}

const struct pol_ops *pol_find(const char *name)
{
    for (size_t i = 0; i < NPOLICIES; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

int pol_bind(const struct pol_ops *ops, const struct cluster *c,
             struct sim_policy *out)
{
    *out = (struct sim_policy){.name = ops->name,
                               .on_arrival = ops->on_arrival,
                               .on_finish = ops->on_finish,
                               .schedule = ops->schedule};
    return ops->create ? ops->create(c, &out->state) : 0;
}

void pol_unbind(const struct pol_ops *ops, struct sim_policy *p)
{
    if (ops->destroy && p->state)
        ops->destroy(p->state);
    p->state = NULL;
}
