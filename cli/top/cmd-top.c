/*
 * ipcperf top: a full-screen live view of the busiest processes, fds and
 * flows of the targets, drawn every -d seconds and sorted by a key, or with
 * -b the frames as text. topview.c keeps the rows; this file holds the
 * options, the terminal (ANSI escapes and termios, restored on every way
 * out) and the run.
 */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "cmds.h"
#include "output.h"
#include "topview.h"
#include "util.h"

/* The fewest seconds between two frames. */
#define TOP_DELAY_MIN 0.1

struct top_cmd {
	const struct top_opts *o;
	struct topview tv;
	struct ipcperf_interval *iv;
	struct ipcperf_flows *fl;
	char what[CLI_WHAT_LEN];
	bool screen;		/* full screen (not -b) */
	bool quit;		/* q, the end of stdin, or -n frames drawn */
};

/* ------------------------------------------------------------------ the terminal */

/*
 * The terminal as it was, to be put back at the end, from atexit() for an
 * exit() on the way, and from a crash's handler. What the library and
 * ipcperf write on stderr while the screen is up goes to a file, which is
 * written out once the terminal is restored.
 */
static struct termios term_saved;
static bool term_on;
static int err_saved = -1;
static FILE *err_held;
static volatile sig_atomic_t winch;

static void on_winch(int sig)
{
	(void)sig;
	winch = 1;
}

static void put(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/*
 * Put stderr back on the terminal and write what was said while the screen was
 * up. Async-signal-safe.
 */
static void err_release(void)
{
	char buf[4096];
	off_t at = 0;
	ssize_t n;

	if (err_saved < 0)
		return;
	dup2(err_saved, STDERR_FILENO);
	close(err_saved);
	err_saved = -1;
	/* Read through the file's fd, since a crash may come with its FILE in any state. */
	while ((n = pread(fileno(err_held), buf, sizeof(buf), at)) > 0) {
		if (write(STDERR_FILENO, buf, (size_t)n) != n)
			break;
		at += n;
	}
}

/*
 * Put the terminal back as it was: the cursor, the screen, the modes and
 * stderr. It is async-signal-safe, so a crash puts them back too
 * (cli_run.restore).
 */
static void term_restore(void)
{
	if (!term_on)
		return;
	term_on = false;
	put("\033[?25h\033[?1049l");	/* the cursor, the screen as it was */
	tcsetattr(STDIN_FILENO, TCSANOW, &term_saved);
	err_release();
}

static void term_leave(void)
{
	fflush(stderr);
	term_restore();
	if (err_held && err_saved < 0) {
		fclose(err_held);
		err_held = NULL;
	}
}

/* Send stderr to a file while the screen is up, since a line written there would be drawn over. */
static void err_hold(void)
{
	err_held = tmpfile();
	if (!err_held)
		return;
	fflush(stderr);
	err_saved = dup(STDERR_FILENO);
	if (err_saved < 0 || dup2(fileno(err_held), STDERR_FILENO) < 0) {
		if (err_saved >= 0)
			close(err_saved);
		err_saved = -1;
		fclose(err_held);
		err_held = NULL;
	}
}

/*
 * Set up the terminal: keys one at a time and unechoed, Ctrl-Z off (a
 * stopped top would leave the screen as it is; Ctrl-C still sends SIGINT,
 * which ends the run), the other screen, and no cursor. Returns 0, or -1
 * after reporting the error.
 */
static int term_enter(void)
{
	static bool registered;
	struct termios raw;
	struct sigaction sa = { .sa_handler = on_winch };

	if (tcgetattr(STDIN_FILENO, &term_saved) < 0) {
		cli_err("cannot set up the terminal: %s", strerror(errno));
		return -1;
	}
	raw = term_saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	raw.c_cc[VSUSP] = _POSIX_VDISABLE;
	if (!registered)
		registered = atexit(term_leave) == 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) < 0) {
		cli_err("cannot set up the terminal: %s", strerror(errno));
		return -1;
	}
	term_on = true;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	put("\033[?1049h\033[?25l\033[H\033[2J");
	err_hold();
	return 0;
}

/* Get the screen's size from the terminal, or 80 x 24 when it does not say. */
static void term_size(int *cols, int *rows)
{
	struct winsize ws;

	*cols = 80;
	*rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

/* ------------------------------------------------------------------ frames */

static void draw(struct top_cmd *c)
{
	int cols, rows;

	if (!c->screen) {
		topview_draw(&c->tv, stdout, 0, 0, false);
		fputc('\n', stdout);
		fflush(stdout);
		return;
	}
	winch = 0;
	term_size(&cols, &rows);
	topview_draw(&c->tv, stdout, cols, rows, true);
}

/*
 * Close the interval at @end_ns, take it into the view and start the next.
 * Returns 0, or -1 after reporting the error.
 */
static int take_interval(struct top_cmd *c, uint64_t end_ns)
{
	struct ipcperf_interval_info in = { .sz = sizeof(in) };
	int err = ipcperf_interval__close(c->iv, end_ns, &in);

	if (!err)
		err = topview_update(&c->tv, ipcperf_interval__stats(c->iv), c->fl, &in);
	ipcperf_interval__next(c->iv);
	if (err < 0) {
		cli_err("cannot collect the statistics: %s", strerror(-err));
		c->quit = true;
		return -1;
	}
	return 0;
}

static void top_tick(void *ctx, struct ipcperf_session *s)
{
	struct top_cmd *c = ctx;

	(void)s;
	if (take_interval(c, cli_now_ns()) < 0)
		return;
	draw(c);
	if (c->o->frames && c->tv.frames >= c->o->frames)
		c->quit = true;
}

static bool top_stop(void *ctx)
{
	return ((struct top_cmd *)ctx)->quit;
}

static unsigned int top_io_fds(void *ctx, struct pollfd *fds, unsigned int max)
{
	(void)ctx;
	if (!max)
		return 0;
	fds[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	return 1;
}

/*
 * Handle key @k: q quits, b o t c sort, f switches the fd pane between fds and
 * groups; then redraw.
 */
static void top_key(struct top_cmd *c, char k)
{
	static const char keys[TOP_KEY__MAX] = {
		[TOP_KEY_BYTES] = 'b', [TOP_KEY_OPS] = 'o', [TOP_KEY_TIME] = 't',
		[TOP_KEY_SWITCHES] = 'c',
	};

	if (k == 'q' || k == 'Q') {
		c->quit = true;
		return;
	}
	if (k == 'f') {
		c->tv.per_fd = !c->tv.per_fd;
		winch = 1;
		return;
	}
	for (int i = 0; i < TOP_KEY__MAX; i++) {
		if (k == keys[i]) {
			c->tv.key = (enum top_key)i;
			winch = 1;	/* drawn again below */
		}
	}
}

static void top_io_ready(void *ctx, const struct pollfd *fds, unsigned int n)
{
	struct top_cmd *c = ctx;
	char buf[64];
	ssize_t len;

	if (n && fds[0].revents) {
		len = read(STDIN_FILENO, buf, sizeof(buf));
		/* The terminal is gone or says nothing more, so there is nothing left to watch. */
		if (len == 0 || (len < 0 && errno != EINTR && errno != EAGAIN))
			c->quit = true;
		for (ssize_t i = 0; i < len; i++)
			top_key(c, buf[i]);
	}
	if (winch && !c->quit)
		draw(c);
}

/* ------------------------------------------------------------------ the run */

static int top_setup(void *ctx, struct ipcperf_session *s)
{
	struct top_cmd *c = ctx;
	int err;

	c->iv = ipcperf_interval__new(s, NULL);
	if (!c->iv) {
		cli_err("cannot set up the accounting: %s", strerror(errno));
		return -errno;
	}
	c->fl = ipcperf_flows__new(ipcperf_interval__stats(c->iv));
	if (!c->fl || (err = ipcperf_flows__attach(c->fl, s)) < 0) {
		err = c->fl ? err : -errno;
		cli_err("cannot set up the flow correlation: %s", strerror(-err));
		return err;
	}
	if (c->screen && term_enter() < 0)
		return -EIO;
	if (c->screen)
		draw(c);	/* the heading at once, the rows at the first tick */
	return 0;
}

/* Return the events the view needs from the capture: the calls and the scheduling, all along. */
static unsigned int top_events(void)
{
	IPCPERF_OPTS(ipcperf_stats_events_opts, eo, .running_view = true);
	int ev = ipcperf_stats__events(&eo);

	return ev > 0 ? (unsigned int)ev : 0;
}

/*
 * With -b, draw the last, partial interval once the capture stopped, so
 * that the totals are all there, but not after the -n frames asked for.
 */
static void last_frame(struct top_cmd *c, struct ipcperf_session *s)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };

	if (c->screen || !s || (c->o->frames && c->tv.frames >= c->o->frames) ||
	    ipcperf_session__stats(s, &st) < 0)
		return;
	if (take_interval(c, st.stop_ns ? st.stop_ns : cli_now_ns()) == 0)
		draw(c);
}

/* What cli_finish() frees of a run of top. */
static void top_free(void *ctx)
{
	struct top_cmd *c = ctx;

	ipcperf_flows__delete(c->fl);
	ipcperf_interval__delete(c->iv);
	topview_free(&c->tv);
}

static int top_run(const void *opts)
{
	const struct top_opts *o = opts;
	struct top_cmd c = { .o = o, .screen = !o->batch };
	double delay = o->delay > 0 ? o->delay : 1.0;
	struct cli_result res = { .end = CLI_END_NOT_RUN };
	struct cli_run run = {
		.events = top_events(),
		.setup = top_setup,
		.tick = top_tick,
		.tick_ms = (unsigned int)llround(delay * CLI_MS_PER_SEC),
		.ctx = &c,
		.io_fds = c.screen ? top_io_fds : NULL,
		.io_ready = top_io_ready,
		.stop = top_stop,
		.restore = term_restore,
	};

	cli_describe_targets(&o->t, c.what, sizeof(c.what));
	c.tv = (struct topview){ .key = o->key, .what = c.what, .delay = delay,
				 .per_fd = o->per_fd };
	cli_setup_print(o->verbose);
	cli_run(&o->t, &run, &res);
	term_leave();
	last_frame(&c, res.session);
	return cli_finish(&res, false, top_free, &c);
}

static int top_check(void *opts, int argc, char **argv, int first)
{
	struct top_opts *o = opts;

	if (o->delay > 0 && o->delay < TOP_DELAY_MIN) {
		cli_err("-d %g is too short: give at least %.1f seconds between frames", o->delay,
			TOP_DELAY_MIN);
		return -1;
	}
	/* Without targets, show the whole system, as top does. */
	if (first >= argc && !o->t.pids.n && !o->t.tids.n)
		o->t.system_wide = true;
	if (cli_target_finish(&o->t, argc, argv, first) < 0)
		return -1;
	if (!o->batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		cli_err("standard %s is not a terminal: give -b to print the frames as text",
			isatty(STDOUT_FILENO) ? "input" : "output");
		return -1;
	}
	return 0;
}

const struct cli_command cli_cmd_top = {
	.id = CMD_TOP,
	.name = "top",
	.summary = "a live view of the busiest processes, fds and flows",
	.usage =
		"usage: ipcperf top [OPTIONS] [-p PID | -t TID | -a | -- CMD [ARGS]]\n\n"
		"Show, on the full screen and again every -d seconds, the processes, fds and\n"
		"flows of the targets that move the most data: per second over the last\n"
		"interval their calls, bytes read and written, time in the calls and context\n"
		"switches, and their exact calls and bytes since the start. Without a target,\n"
		"the whole system (as -a: root only).\n\n"
		"Keys: b, o, t, c order the rows by bytes, ops, time in the calls, context\n"
		"switches; f shows the fds a row each or grouped (a process's connections\n"
		"to one endpoint in one row, the default); q quits. The terminal is put\n"
		"back as it was however top ends (q, Ctrl-C, Ctrl-\\, any other signal that\n"
		"ends it, the end of the command, an error).\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"Standard input and output must be a terminal, unless -b.\n\n"
		"Exit status: 0 done, 1 runtime error (e.g. no such process, permission denied),\n"
		"2 usage error (as when not on a terminal without -b); with -- CMD, the\n"
		"command's own status, or 0 when q or -n ended it.\n",
	.check = top_check,
	.run = top_run,
};
