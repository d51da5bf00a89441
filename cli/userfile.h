/*
 * The files a user names (-i, -o, --record, --dot, --trace-out,
 * --openmetrics), opened with that user's own rights (userfile.c).
 */
#ifndef IPCPERF_CLI_USERFILE_H
#define IPCPERF_CLI_USERFILE_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>

/* What cli_user_rights_enter() changed, for cli_user_rights_leave(). */
struct cli_user_rights {
	bool fs_ids;		/* fsuid/fsgid set to the real ids (setuid, setgid) */
	bool caps;		/* the file-access capabilities lowered from the effective set */
	uint32_t eff[2];	/* the effective set before */
};

/*
 * Until cli_user_rights_leave(), this thread checks file access with the
 * rights of the user who ran ipcperf: its filesystem ids are the real ids,
 * and the capabilities that override file permissions (CAP_DAC_READ_SEARCH,
 * CAP_DAC_OVERRIDE, CAP_FOWNER, ...) are out of its effective set; the others
 * (CAP_PERFMON, CAP_BPF) stay. Run by root (real uid 0), nothing changes.
 * @return 0, or -1 with errno when the rights could not be lowered (then
 *   nothing is to be opened: cli_user_rights_leave() undoes what was done).
 */
int cli_user_rights_enter(struct cli_user_rights *r);
void cli_user_rights_leave(struct cli_user_rights *r);

/* open(2) of @path with the user's rights: the fd, or -1 with errno. */
int cli_user_open(const char *path, int flags, mode_t mode);

/*
 * Say why @path could not be opened to write @what ("the output"): a
 * symbolic link is refused (never followed), a FIFO is no capture when
 * @seekable, else the errno @err.
 */
void cli_user_open_failed(const char *what, const char *path, int err, bool seekable);

/*
 * As perf record does with its default file: an existing regular file
 * @path becomes "@path.old" (replacing that one), with the user's rights.
 * @return 0 (also when there is none), or -1 (said).
 */
int cli_user_keep_old(const char *path);

/* ipcperf_session__open_file() of @path, which is read with the user's rights. */
struct ipcperf_session *cli_user_open_capture(const char *path);

/*
 * Also record the session @s into @path (--record, record -o), created with
 * the user's rights. @return 0, or -1 (said).
 */
int cli_user_record(struct ipcperf_session *s, const char *path);

#endif
