/* procpool.c -- a few `hetsim` children at a time (procpool.h). Each child
 * is this same binary run again, so a run in a pool behaves exactly as the
 * command typed by hand; its stderr goes to an unlinked temporary file that
 * is read back when it fails. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "procpool.h"

struct pool_child {
    pid_t pid;     /* 0: a free slot */
    size_t tag;
    FILE *err;
};

struct cli_pool {
    size_t slots, running;
    struct pool_child child[];
};

struct cli_pool *cli_pool_create(size_t slots)
{
    if (slots < 1 || slots > CLI_POOL_MAX)
        return NULL;
    struct cli_pool *p = calloc(1, sizeof *p + slots * sizeof p->child[0]);
    if (p)
        p->slots = slots;
    return p;
}

void cli_pool_destroy(struct cli_pool *p)
{
    if (!p)
        return;
    struct cli_pool_done d;
    while (p->running > 0 && cli_pool_wait(p, &d) == 0)
        ;
    free(p);
}

size_t cli_pool_running(const struct cli_pool *p) { return p->running; }

int cli_pool_full(const struct cli_pool *p) { return p->running == p->slots; }

int cli_pool_spawn(struct cli_pool *p, const char *const *argv, size_t tag)
{
    size_t k = 0;
    while (k < p->slots && p->child[k].pid != 0)
        k++;
    if (k == p->slots) {
        errno = EBUSY;
        return -1;
    }
    FILE *err = tmpfile();
    if (!err)
        return -1;
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        fclose(err);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        /* A parent that dies (even by SIGKILL) takes its runs with it;
         * each removes its temporary files on the SIGTERM. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        dup2(fileno(err), 2);
        execv("/proc/self/exe", (char *const *)argv);
        fprintf(stderr, "hetsim: error: cannot run /proc/self/exe: %s\n",
                strerror(errno));
        _exit(127);
    }
    p->child[k] = (struct pool_child){pid, tag, err};
    p->running++;
    return 0;
}

/* The start of what the child wrote to ERR, trailing blanks cut. */
static void read_messages(FILE *err, char *text, size_t cap)
{
    rewind(err);
    size_t len = fread(text, 1, cap - 1, err);
    text[len] = '\0';
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        text[--len] = '\0';
}

int cli_pool_wait(struct cli_pool *p, struct cli_pool_done *d)
{
    for (;;) {
        if (p->running == 0) {
            errno = ECHILD;
            return -1;
        }
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (size_t k = 0; k < p->slots; k++) {
            struct pool_child *c = &p->child[k];
            if (c->pid != pid)
                continue;
            d->tag = c->tag;
            d->status = status;
            read_messages(c->err, d->text, sizeof d->text);
            fclose(c->err);
            *c = (struct pool_child){0};
            p->running--;
            return 0;
        }
        /* Not one of ours (a caller's own child): keep waiting. */
    }
}

int cli_pool_ok(const struct cli_pool_done *d)
{
    return WIFEXITED(d->status) && WEXITSTATUS(d->status) == 0;
}

void cli_pool_report(const char *what, const char *cmd,
                     const struct cli_pool_done *d)
{
    const char *sep = d->text[0] ? ": " : "";
    if (WIFEXITED(d->status))
        cli_error("%s: `hetsim %s` exited with code %d%s%s", what, cmd,
                  WEXITSTATUS(d->status), sep, d->text);
    else
        cli_error("%s: `hetsim %s` was killed by signal %d%s%s", what, cmd,
                  WIFSIGNALED(d->status) ? WTERMSIG(d->status) : 0, sep,
                  d->text);
}

int cli_pool_parse_jobs(const char *cmd, const char *arg, long *jobs)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < 1 || v > CLI_POOL_MAX)
        return cli_usage_error(cmd, "-j wants a number from 1 to %d, got "
                               "'%s'", CLI_POOL_MAX, arg);
    *jobs = v;
    return 0;
}
