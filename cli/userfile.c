/*
 * The files a user names, with that user's own rights. ipcperf may run with
 * more rights than its user: file capabilities (setcap cap_perfmon,cap_bpf,
 * cap_dac_read_search+ep: CAP_DAC_READ_SEARCH reads any file), or setuid
 * root. They are for tracefs and the kernel; without this, any user who may
 * run ipcperf could read root's captures (report -i) or write where only
 * root may (-o). The change is per thread: another thread keeps its rights.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cli.h"
#include "userfile.h"

/* Capabilities that override file permissions: the kernel's CAP_FS_MASK. */
#define FS_CAPS_LO ((1u << CAP_CHOWN) | (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH) | \
		    (1u << CAP_FOWNER) | (1u << CAP_FSETID) | (1u << CAP_LINUX_IMMUTABLE) | \
		    (1u << CAP_MKNOD))
#define FS_CAPS_HI (1u << (CAP_MAC_OVERRIDE - 32))

static int caps_get(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };

	memset(data, 0, 2 * sizeof(*data));
	return (int)syscall(SYS_capget, &hdr, data);
}

static int caps_set(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };

	return (int)syscall(SYS_capset, &hdr, data);
}

/* setuid/setgid: file access as the real ids (which also lowers the caps of a fsuid 0). */
static int fs_ids_lower(struct cli_user_rights *r)
{
	if (geteuid() == getuid() && getegid() == getgid())
		return 0;
	r->fs_ids = true;
	setfsgid(getgid());
	setfsuid(getuid());
	/* setfsuid() says no error: an invalid id reads the current one back. */
	if ((uid_t)setfsuid((uid_t)-1) != getuid() || (gid_t)setfsgid((gid_t)-1) != getgid()) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int cli_user_rights_enter(struct cli_user_rights *r)
{
	struct __user_cap_data_struct data[2];

	*r = (struct cli_user_rights){ 0 };
	if (getuid() == 0)
		return 0;	/* root's own rights */
	if (fs_ids_lower(r) < 0 || caps_get(data) < 0)
		goto fail;
	if (!(data[0].effective & FS_CAPS_LO) && !(data[1].effective & FS_CAPS_HI))
		return 0;
	r->eff[0] = data[0].effective;
	r->eff[1] = data[1].effective;
	data[0].effective &= ~FS_CAPS_LO;
	data[1].effective &= ~FS_CAPS_HI;
	if (caps_set(data) < 0)
		goto fail;
	r->caps = true;
	return 0;
fail:
	{
		int err = errno;

		cli_user_rights_leave(r);
		errno = err;
	}
	return -1;
}

void cli_user_rights_leave(struct cli_user_rights *r)
{
	struct __user_cap_data_struct data[2];
	int err = errno;

	if (r->caps && caps_get(data) == 0) {
		data[0].effective = r->eff[0];
		data[1].effective = r->eff[1];
		caps_set(data);		/* within the permitted set, which never changed */
	}
	if (r->fs_ids) {
		setfsuid(geteuid());
		setfsgid(getegid());
	}
	*r = (struct cli_user_rights){ 0 };
	errno = err;
}

int cli_user_open(const char *path, int flags, mode_t mode)
{
	struct cli_user_rights r;
	int fd;

	if (cli_user_rights_enter(&r) < 0)
		return -1;
	fd = open(path, flags, mode);
	cli_user_rights_leave(&r);	/* keeps errno */
	return fd;
}

void cli_user_open_failed(const char *what, const char *path, int err, bool seekable)
{
	struct stat st;

	if (err == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		cli_err("refusing to write %s to %s: it is a symbolic link, which is never "
			"followed; remove it, or give the path of the file it points to", what, path);
	else if (seekable && (err == ESPIPE || (err == ENXIO && lstat(path, &st) == 0 &&
						S_ISFIFO(st.st_mode))))
		cli_err("cannot write %s to %s: a capture must be a seekable file, such as a "
			"regular file", what, path);
	else
		cli_err("cannot write %s to %s: %s", what, path, strerror(err));
}

struct ipcperf_session *cli_user_open_capture(const char *path)
{
	struct cli_user_rights r;
	struct ipcperf_session *s;

	/* A replay opens its capture and nothing else: no tracefs, no kernel. */
	if (cli_user_rights_enter(&r) < 0) {
		cli_err("%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	s = ipcperf_session__open_file(path, NULL);
	cli_user_rights_leave(&r);
	return s;
}

int cli_user_keep_old(const char *path)
{
	struct cli_user_rights r;
	struct stat st;
	char old[PATH_MAX];
	int err = 0;

	if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old)) {
		cli_err("cannot keep the last capture: %s.old is too long a path", path);
		return -1;
	}
	if (cli_user_rights_enter(&r) < 0) {
		cli_err("cannot keep the last capture %s: %s", path, strerror(errno));
		return -1;
	}
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && rename(path, old) < 0)
		err = errno;
	cli_user_rights_leave(&r);
	if (err) {
		cli_err("cannot keep the last capture as %s: %s; give another file with -o FILE",
			old, strerror(err));
		return -1;
	}
	return 0;
}

int cli_user_record(struct ipcperf_session *s, const char *path)
{
	/* As ipcperf_session__record() would: truncated, private, never through a link;
	 * O_NONBLOCK so that a FIFO fails now rather than blocking the open. */
	int fd = cli_user_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW |
			       O_NONBLOCK, 0600);

	if (fd < 0) {
		cli_user_open_failed("the capture", path, errno, true);
		return -1;
	}
	/* The session owns fd now, and explains its failures itself. */
	return ipcperf_session__record_fd(s, fd, path) < 0 ? -1 : 0;
}
