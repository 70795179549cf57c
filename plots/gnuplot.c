/* gnuplot.c -- saving a script and piping it into gnuplot. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plots_internal.h"

/* Process-wide so that main can warn once, not once per chart. */
static int missing_seen;
static int missing_reported;

static const char *gnuplot_command(void)
{
    const char *cmd = getenv("HETSIM_GNUPLOT");
    return cmd && cmd[0] ? cmd : "gnuplot";
}

static int is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* 1 if cmd names an executable the shell would find, 0 if not, or
 * PLOT_ENOMEM. Looking first, instead of reading the shell's exit status
 * 127 afterwards, keeps "sh: not found" noise off the user's stderr. */
static int command_exists(const char *cmd)
{
    if (strchr(cmd, '/'))
        return is_executable(cmd);
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin"; /* what sh falls back to */
    char *full = malloc(strlen(path) + strlen(cmd) + 3);
    if (!full)
        return PLOT_ENOMEM;
    int found = 0;
    const char *p = path;
    while (!found) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0) {
            strcpy(full, "."); /* an empty entry means the current folder */
        } else {
            memcpy(full, p, len);
            full[len] = '\0';
        }
        strcat(full, "/");
        strcat(full, cmd);
        found = is_executable(full);
        if (!end)
            break;
        p = end + 1;
    }
    free(full);
    return found;
}

int plot_gnuplot_available(void)
{
    int found = command_exists(gnuplot_command());
    if (found < 0)
        return found;
    if (!found) {
        missing_seen = 1;
        return PLOT_ENOGNUPLOT;
    }
    return 0;
}

int plot_should_report_missing_gnuplot(void)
{
    if (!missing_seen || missing_reported)
        return 0;
    missing_reported = 1;
    return 1;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Temporary name, then rename: a reader (or a crash) never sees half a
 * script. The temporary sits in DIR itself, as rename must not cross file
 * systems, and carries our pid so that concurrent runs do not collide. */
static int save_script(const struct plot_chart *c, const struct plot_buf *b)
{
    struct plot_buf path = {0}, tmp = {0};
    int rc = PLOT_ENOMEM, fd = -1;
    plot_buf_puts(&path, c->dir);
    plot_buf_puts(&path, "/");
    plot_buf_puts(&tmp, path.data ? path.data : "");
    plot_buf_puts(&path, c->name);
    plot_buf_puts(&path, ".gp");
    plot_buf_puts(&tmp, ".");
    plot_buf_puts(&tmp, c->name);
    plot_buf_puts(&tmp, ".gp.");
    plot_buf_size(&tmp, (size_t)getpid());
    plot_buf_puts(&tmp, ".tmp");
    if (path.failed || tmp.failed)
        goto done;
    rc = PLOT_EIO;
    (void)unlink(tmp.data); /* a leftover of a crashed run of our pid */
    fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        goto done;
    if (write_all(fd, b->data, b->len) < 0 || fsync(fd) < 0)
        goto done;
    int closed = close(fd);
    fd = -1;
    if (closed < 0 || rename(tmp.data, path.data) < 0)
        goto done;
    rc = 0;
done:
    if (fd >= 0)
        (void)close(fd);
    if (rc == PLOT_EIO)
        (void)unlink(tmp.data);
    plot_buf_free(&path);
    plot_buf_free(&tmp);
    return rc;
}

static void put_shell_quoted(struct plot_buf *b, const char *s)
{
    plot_buf_puts(b, "'");
    for (const char *p = s; *p; p++) {
        const char one[2] = {*p, '\0'};
        plot_buf_puts(b, *p == '\'' ? "'\\''" : one);
    }
    plot_buf_puts(b, "'");
}

/* 0, PLOT_EGNUPLOT or PLOT_ENOGNUPLOT from pclose's status, and whether
 * gnuplot took the whole script. */
static int judge_status(int status, int sent_all)
{
    if (status == -1 || !WIFEXITED(status))
        return PLOT_EGNUPLOT;
    int code = WEXITSTATUS(status);
    if (code == 126 || code == 127) { /* sh: cannot execute / not found */
        missing_seen = 1;
        return PLOT_ENOGNUPLOT;
    }
    return code == 0 && sent_all ? 0 : PLOT_EGNUPLOT;
}

static int run_gnuplot(const struct plot_chart *c, const struct plot_buf *b)
{
    struct plot_buf sh = {0};
    plot_buf_puts(&sh, "cd ");
    if (c->dir[0] == '-')
        plot_buf_puts(&sh, "./"); /* or cd would take it for an option */
    put_shell_quoted(&sh, c->dir);
    plot_buf_puts(&sh, " && exec ");
    put_shell_quoted(&sh, gnuplot_command());
    if (sh.failed)
        return PLOT_ENOMEM;
    /* A gnuplot that exits early must fail the chart, not kill us with
     * SIGPIPE; ignored, the signal turns into an EPIPE write error. */
    struct sigaction ignore, old;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old);
    int rc = PLOT_EGNUPLOT;
    FILE *pipe = popen(sh.data, "w");
    if (pipe) {
        int sent_all = fwrite(b->data, 1, b->len, pipe) == b->len;
        sent_all = fflush(pipe) == 0 && sent_all;
        rc = judge_status(pclose(pipe), sent_all);
    }
    sigaction(SIGPIPE, &old, NULL);
    plot_buf_free(&sh);
    return rc;
}

int plot_render(const struct plot_chart *c, struct plot_buf *b)
{
    if (b->failed)
        return PLOT_ENOMEM;
    int rc = save_script(c, b);
    if (rc < 0)
        return rc;
    rc = plot_gnuplot_available();
    if (rc < 0)
        return rc;
    return run_gnuplot(c, b);
}
