/*
 * The messages of ipcperf on stderr: its own (cli_err()) and the library's
 * (cli_setup_print()), each clearing the status line first. Below the rest
 * of the CLI: it calls output.c only.
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "output.h"

const char *cli_prog = "ipcperf";
static bool verbose_print;

/*
 * A message on stderr: a path or a command line it names may hold control
 * bytes, shown escaped; its own line breaks and tabs are kept.
 */
static int put_message(const char *fmt, va_list ap)
{
	char *m;
	int n = vasprintf(&m, fmt, ap);

	if (n < 0)
		return n;
	cli_put_escaped(stderr, m, (size_t)n, CLI_ESC_LAYOUT, NULL);
	free(m);
	return n;
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	cli_status_clear();
	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	put_message(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int print_fn(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	if (level == IPCPERF_DEBUG && !verbose_print)
		return 0;
	cli_status_clear();
	fprintf(stderr, "%s: %s", cli_prog, level == IPCPERF_WARN ? "warning: " : "");
	return put_message(fmt, ap);
}

void cli_setup_print(bool verbose)
{
	verbose_print = verbose;
	ipcperf_set_print(print_fn);
}
